//! What the background work and the calls to other services are doing, for the admin health
//! check and `/metrics`. Each poller registers once and reports every run; each upstream client
//! reports each call. Reading is a snapshot; nothing here touches the database.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use jiff::Timestamp;
use serde::Serialize;

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

#[derive(Clone, Default)]
pub struct Jobs {
    jobs: Arc<Mutex<BTreeMap<String, JobStatus>>>,
    upstream: Arc<Mutex<BTreeMap<(String, String), UpstreamCounts>>>,
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
        let now = Timestamp::now().to_string();
        self.jobs.update(&self.name, |s| {
            s.running = false;
            s.runs += 1;
            s.last_success = Some(now);
        });
    }

    pub fn failed(&self, error: impl std::fmt::Display) {
        let now = Timestamp::now().to_string();
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
