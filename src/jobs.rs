//! What the background work and the calls to other services are doing, for the admin health
//! check and `/metrics`. Each poller registers once and reports every run; each upstream client
//! reports each call. Reading is a snapshot; nothing here touches the database.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;

/// Wakes a background task early (e.g. to rebuild figures after a change); handed to whoever
/// changes what the task reads. Wakes that arrive while it runs are merged into one.
#[derive(Clone, Default)]
pub struct Wake(Arc<tokio::sync::Notify>);

impl Wake {
    pub fn wake(&self) {
        self.0.notify_one();
    }

    pub async fn woken(&self) {
        self.0.notified().await;
    }
}

/// A future that runs for the life of the process.
type Task = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'static>>;

/// The process's background work, declared by the feature that owns each piece when the app is
/// assembled (`app::background`) and started by the server, which does not know what any of it
/// does. One of each per process, however many visitors; the server aborts them at shutdown.
pub struct Background {
    jobs: Jobs,
    tasks: Vec<(String, Task)>,
}

impl Background {
    pub fn new(jobs: Jobs) -> Self {
        Self { jobs, tasks: Vec::new() }
    }

    /// A task whose runs are reported as the job `name` (System Health, `/metrics`).
    pub fn job<F>(&mut self, name: &str, task: impl FnOnce(JobHandle) -> F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let handle = self.jobs.register(name);
        self.tasks.push((name.to_string(), Box::pin(task(handle))));
    }

    /// A task with no job status of its own (it reports through what it keeps current).
    pub fn task(&mut self, name: &str, task: impl std::future::Future<Output = ()> + Send + 'static) {
        self.tasks.push((name.to_string(), Box::pin(task)));
    }

    /// The declared tasks' names, in the order they were declared.
    pub fn names(&self) -> Vec<&str> {
        self.tasks.iter().map(|(name, _)| name.as_str()).collect()
    }

    /// Starts every declared task on the runtime.
    pub fn start(self) -> Vec<tokio::task::JoinHandle<()>> {
        self.tasks.into_iter().map(|(_, task)| tokio::spawn(task)).collect()
    }
}

/// Runs `work` every `period` (the first time at once) and whenever `wake` is woken.
pub async fn every<F, Fut>(period: std::time::Duration, wake: Option<Wake>, mut work: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut tick = tokio::time::interval(period);
    loop {
        match &wake {
            Some(wake) => tokio::select! {
                _ = tick.tick() => {},
                _ = wake.woken() => {},
            },
            None => {
                tick.tick().await;
            }
        }
        work().await;
    }
}

/// Pause between two batches of a sweep, so the writes waiting for the writer go first.
const BETWEEN_BATCHES: std::time::Duration = std::time::Duration::from_millis(5);

/// Runs `batch` (one short write transaction that deletes or rolls up a bounded number of rows
/// and says how many) until it has nothing left to do; returns the rows done. A sweep of a big
/// backlog thus never holds the writer for more than one batch at a time.
pub async fn in_batches<F, Fut, E>(mut batch: F) -> Result<usize, E>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<usize, E>>,
{
    let mut done = 0;
    loop {
        let n = batch().await?;
        if n == 0 {
            return Ok(done);
        }
        done += n;
        tokio::time::sleep(BETWEEN_BATCHES).await;
    }
}

/// The state of one background job, as last reported.
#[derive(Clone, Debug, Default, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobStatus {
    pub name: String,
    pub running: bool,
    pub runs: u64,
    pub failures: u64,
    /// RFC 3339 time of the last run that succeeded.
    pub last_success: Option<String>,
    pub last_error: Option<String>,
    /// RFC 3339 time of the last error.
    pub last_error_at: Option<String>,
}

/// Counts of calls to one endpoint of another service.
#[derive(Clone, Copy, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpstreamCounts {
    pub calls: u64,
    pub failures: u64,
    /// Answers of 429 (or the service's own "slow down").
    pub throttled: u64,
}

/// How one upstream call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    Failed,
    Throttled,
}

/// One service's failed calls (a call that ended in failure, however many attempts it made).
#[derive(Clone, Debug, Default)]
pub struct UpstreamTrouble {
    pub failed_calls: u64,
    /// The last call failed and none has succeeded since.
    pub failing: bool,
    pub last_error: Option<String>,
    /// RFC 3339 time of the last failed call.
    pub last_error_at: Option<String>,
    /// Failed calls counted as warnings without a log line of their own.
    held_back: u64,
    held_back_since_line: u64,
    last_line: Option<std::time::Instant>,
}

/// A service that keeps failing gets one warning line per this interval; the calls in between
/// are counted as warnings and summed up in the next line.
const FAILURE_LINE_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

#[derive(Clone, Default)]
pub struct Jobs {
    jobs: Arc<Mutex<BTreeMap<String, JobStatus>>>,
    upstream: Arc<Mutex<BTreeMap<(String, String), UpstreamCounts>>>,
    trouble: Arc<Mutex<BTreeMap<String, UpstreamTrouble>>>,
}

/// One job's reporting handle.
#[derive(Clone)]
pub struct JobHandle {
    name: String,
    jobs: Jobs,
}

impl Jobs {
    /// Registers `name` (idempotent) and returns its handle.
    pub fn register(&self, name: &str) -> JobHandle {
        self.jobs
            .lock()
            .expect("jobs lock")
            .entry(name.to_string())
            .or_insert_with(|| JobStatus { name: name.to_string(), ..Default::default() });
        JobHandle { name: name.to_string(), jobs: self.clone() }
    }

    pub fn snapshot(&self) -> Vec<JobStatus> {
        self.jobs.lock().expect("jobs lock").values().cloned().collect()
    }

    /// Records one call to `service`'s `endpoint` (a template such as `users/v1/users/{id}`,
    /// never a URL with ids or secrets in it).
    pub fn upstream_call(&self, service: &str, endpoint: &str, outcome: Outcome) {
        let mut map = self.upstream.lock().expect("upstream lock");
        let counts = map.entry((service.to_string(), endpoint.to_string())).or_default();
        counts.calls += 1;
        match outcome {
            Outcome::Ok => {}
            Outcome::Failed => counts.failures += 1,
            Outcome::Throttled => counts.throttled += 1,
        }
        drop(map);
        if outcome == Outcome::Ok {
            self.upstream_answered(service);
        }
    }

    /// A call to `service` failed for good (unreachable, timed out, a server error after the
    /// retries): once per call, not per attempt. It counts as a warning; the log gets a line
    /// at the first failure and then at most one per [`FAILURE_LINE_EVERY`] while it goes on.
    pub fn upstream_failed(&self, service: &str, error: impl std::fmt::Display) {
        let error = error.to_string();
        let mut map = self.trouble.lock().expect("trouble lock");
        let t = map.entry(service.to_string()).or_default();
        t.failed_calls += 1;
        t.failing = true;
        t.last_error = Some(error.clone());
        t.last_error_at = Some(crate::time::now_text());
        let now = std::time::Instant::now();
        if t.last_line.is_some_and(|at| now.duration_since(at) < FAILURE_LINE_EVERY) {
            t.held_back += 1;
            t.held_back_since_line += 1;
            return;
        }
        let more = std::mem::take(&mut t.held_back_since_line);
        t.last_line = Some(now);
        drop(map);
        if more > 0 {
            tracing::warn!("{service} call failed: {error} ({more} more failed calls since the last line)");
        } else {
            tracing::warn!("{service} call failed: {error}");
        }
    }

    fn upstream_answered(&self, service: &str) {
        let mut map = self.trouble.lock().expect("trouble lock");
        let Some(t) = map.get_mut(service).filter(|t| t.failing) else { return };
        t.failing = false;
        t.last_line = None;
        let held = std::mem::take(&mut t.held_back_since_line);
        drop(map);
        tracing::info!(
            "{service} answers again{}",
            if held > 0 { format!(" ({held} failed calls not logged one by one)") } else { String::new() }
        );
    }

    /// Failed calls of `service` since start, if any.
    pub fn upstream_trouble(&self, service: &str) -> Option<UpstreamTrouble> {
        self.trouble.lock().expect("trouble lock").get(service).cloned()
    }

    /// Failed upstream calls counted as warnings without a log line of their own.
    pub fn upstream_warnings_held_back(&self) -> u64 {
        self.trouble.lock().expect("trouble lock").values().map(|t| t.held_back).sum()
    }

    /// `(service, endpoint, counts)` for every endpoint called since start.
    pub fn upstream_snapshot(&self) -> Vec<(String, String, UpstreamCounts)> {
        self.upstream.lock().expect("upstream lock").iter().map(|((s, e), c)| (s.clone(), e.clone(), *c)).collect()
    }

    fn update(&self, name: &str, f: impl FnOnce(&mut JobStatus)) {
        if let Some(status) = self.jobs.lock().expect("jobs lock").get_mut(name) {
            f(status);
        }
    }
}

impl JobHandle {
    pub fn started(&self) {
        self.jobs.update(&self.name, |s| s.running = true);
    }

    pub fn succeeded(&self) {
        let now = crate::time::now_text();
        self.jobs.update(&self.name, |s| {
            s.running = false;
            s.runs += 1;
            s.last_success = Some(now);
        });
    }

    pub fn failed(&self, error: impl std::fmt::Display) {
        let now = crate::time::now_text();
        let error = error.to_string();
        self.jobs.update(&self.name, |s| {
            s.running = false;
            s.runs += 1;
            s.failures += 1;
            s.last_error = Some(error);
            s.last_error_at = Some(now);
        });
    }

    /// Reports `result` as a success or a failure and hands it back.
    pub fn report<T, E: std::fmt::Display>(&self, result: Result<T, E>) -> Result<T, E> {
        match &result {
            Ok(_) => self.succeeded(),
            Err(e) => self.failed(e),
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_reports_its_runs_and_its_last_error() {
        let jobs = Jobs::default();
        let job = jobs.register("poller");
        job.started();
        assert!(jobs.snapshot()[0].running);
        job.succeeded();
        let _ = job.report::<(), _>(Err("upstream hung"));
        let status = &jobs.snapshot()[0];
        assert_eq!((status.runs, status.failures, status.running), (2, 1, false));
        assert!(status.last_success.is_some());
        assert_eq!(status.last_error.as_deref(), Some("upstream hung"));
    }

    #[test]
    fn failed_calls_are_counted_each_and_logged_once_a_minute() {
        let jobs = Jobs::default();
        for _ in 0..5 {
            jobs.upstream_failed("roblox", "Roblox could not be reached (connection refused).");
        }
        let t = jobs.upstream_trouble("roblox").unwrap();
        assert_eq!((t.failed_calls, t.failing), (5, true));
        assert_eq!(t.last_error.as_deref(), Some("Roblox could not be reached (connection refused)."));
        // The first failure was logged; the four after it count as warnings without a line.
        assert_eq!(jobs.upstream_warnings_held_back(), 4);
        jobs.upstream_call("roblox", "users/v1/users/{id}", Outcome::Ok);
        assert!(!jobs.upstream_trouble("roblox").unwrap().failing);
        assert!(jobs.upstream_trouble("discord").is_none());
    }

    #[test]
    fn upstream_calls_are_counted_per_endpoint() {
        let jobs = Jobs::default();
        jobs.upstream_call("roblox", "users/v1/users/{id}", Outcome::Ok);
        jobs.upstream_call("roblox", "users/v1/users/{id}", Outcome::Throttled);
        jobs.upstream_call("discord", "channels/{id}/messages", Outcome::Failed);
        let snap = jobs.upstream_snapshot();
        assert_eq!(snap.len(), 2);
        let roblox = snap.iter().find(|(s, _, _)| s == "roblox").unwrap().2;
        assert_eq!((roblox.calls, roblox.failures, roblox.throttled), (2, 0, 1));
    }
}
