//! Group scans: background jobs that classify every member of a Roblox group through
//! the newgen check's own code, the leaderboards and search over the players the site has seen,
//! and abuse reports. `routes` serves the keyed `/api/v1` calls, `admin` the admin panel's,
//! `worker` runs the scans, `store` holds the SQL.

pub mod admin;
mod retention;
pub mod routes;
pub mod schedule;
pub mod store;
pub mod worker;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use utoipa::ToSchema;

use crate::http::cached::JsonBody;
use store::ScanRow;

/// Members classified at once per scan (each waits for its share of the Roblox budget anyway).
pub const DEFAULT_WORKERS: usize = 8;
/// Scans running at once; more wait in the queue.
pub const DEFAULT_MAX_RUNNING: usize = 2;
/// The measured rate is over this much of the recent past.
const RATE_WINDOW: Duration = Duration::from_secs(60);
/// A scan's status answer is reused this long, so a progress bar polled by many visitors costs
/// one database read per scan and period, not one per request.
const STATUS_FRESH: Duration = Duration::from_millis(500);
const MAX_KEPT_STATUSES: usize = 1024;
/// Leaderboard pages kept serialized, each with the ranking version it was made at.
const MAX_KEPT_PAGES: usize = 256;
/// Rankings (every user id of a leaderboard in order) kept for deep pages: 8 bytes a player each.
const MAX_KEPT_RANKINGS: usize = 4;

/// `[scans]` of site.toml: how many scans may be queued or running at once.
#[derive(Debug, Clone, serde::Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScanSettings {
    /// Scans one API key may have queued or running.
    #[serde(default = "three")]
    pub queued_per_key: u32,
    /// Scans queued or running on the whole site.
    #[serde(default = "twenty")]
    pub queued_site_wide: u32,
    /// The host's Discord webhook for group events: after each scheduled scan, one message
    /// summarising the members new since the group's scan before, by verdict.
    #[serde(default)]
    pub webhook: Option<String>,
    /// Groups scanned on a schedule (`[[scans.schedule]]`).
    #[serde(default)]
    pub schedule: Vec<ScheduledScan>,
}

/// One `[[scans.schedule]]`: a group scanned again once its last scan is `every_hours` old.
#[derive(Debug, Clone, serde::Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduledScan {
    pub group_id: u64,
    /// Hours between scans (default 24: nightly); fractions allowed, at least 0.0001.
    #[serde(default = "daily")]
    pub every_hours: f64,
}

fn daily() -> f64 {
    24.0
}

fn three() -> u32 {
    3
}
fn twenty() -> u32 {
    20
}

impl Default for ScanSettings {
    fn default() -> Self {
        Self { queued_per_key: three(), queued_site_wide: twenty(), webhook: None, schedule: Vec::new() }
    }
}

/// A full queue is retried after this long (a scan of a large group runs for minutes).
const QUEUE_FULL_RETRY_SECS: u64 = 60;

impl ScanSettings {
    pub fn validate(&self) -> Result<(), String> {
        for (key, n) in [("queued_per_key", self.queued_per_key), ("queued_site_wide", self.queued_site_wide)] {
            if n == 0 {
                return Err(format!("[scans] {key} must be 1 or more"));
            }
        }
        if let Some(url) = &self.webhook {
            crate::follows::webhook::parse_url(url).map_err(|why| format!("[scans] webhook: {why}"))?;
        }
        for s in &self.schedule {
            if s.group_id == 0 {
                return Err("[[scans.schedule]] group_id must be a Roblox group id".into());
            }
            if !(s.every_hours.is_finite() && s.every_hours >= 0.0001 && s.every_hours <= 24.0 * 365.0) {
                return Err(format!("[[scans.schedule]] every_hours of group {} must be 0.0001 to 8760", s.group_id));
            }
        }
        Ok(())
    }

    /// 429 when one more live scan for `key_id` would pass the key's cap or the site's.
    pub fn room_for_one_more(
        &self,
        conn: &rusqlite::Connection,
        key_id: Option<i64>,
    ) -> Result<(), crate::error::ApiError> {
        let (for_key, total) = store::live_counts(conn, key_id)?;
        let full = if total >= u64::from(self.queued_site_wide) {
            Some(format!(
                "The site's scan queue is full ({} scans queued or running, the site-wide limit).",
                self.queued_site_wide
            ))
        } else if for_key >= u64::from(self.queued_per_key) {
            Some(format!(
                "This API key already has {} scans queued or running (the limit per key).",
                self.queued_per_key
            ))
        } else {
            None
        };
        match full {
            None => Ok(()),
            Some(sentence) => {
                let mut e = crate::error::ApiError::new(axum::http::StatusCode::TOO_MANY_REQUESTS, sentence)
                    .with_message("Wait for a scan to finish, then try again.");
                e.retry_after_secs = Some(QUEUE_FULL_RETRY_SECS);
                Err(e)
            }
        }
    }
}

/// What the scan endpoints and the runner use: the database, the Roblox client (and its
/// classification rules), the runner's state and the queue caps.
#[derive(Clone)]
pub struct ScansState {
    /// The admin check (with the host's second-factor policy).
    pub admin_gate: crate::accounts::guard::AdminGate,
    pub db: crate::db::Db,
    pub roblox: crate::roblox::Roblox,
    pub scans: Arc<Scans>,
    /// `[scans]` of site.toml.
    pub settings: ScanSettings,
    /// The Discord webhook client (the scheduled scans' messages) and the site's name, address
    /// and colour for them.
    pub discord: Arc<crate::follows::webhook::DiscordWebhooks>,
    pub site_name: String,
    pub base_url: Option<String>,
    pub color: u32,
}

/// The scan runner's shared state: which scans run here now, their cancel flags and their rate.
pub struct Scans {
    pub wake: tokio::sync::Notify,
    pub workers: usize,
    pub max_running: usize,
    active: Mutex<HashMap<i64, Arc<AtomicBool>>>,
    progress: Mutex<HashMap<i64, VecDeque<(Instant, u64)>>>,
    statuses: Mutex<HashMap<i64, (Instant, Arc<JsonBody>)>>,
    /// Members of the page in progress classified so far, per running scan (not saved yet).
    unsaved: Mutex<HashMap<i64, u64>>,
    /// Leaderboard answers by their query.
    pub pages: KeptAtVersion<Arc<JsonBody>>,
    /// Rankings (every user id of a leaderboard, in order) by generation and sort, or group.
    pub rankings: KeptAtVersion<Arc<Vec<i64>>>,
    /// Makes kept pages' ETags differ from another process's (another database after a restore).
    page_etag_salt: std::collections::hash_map::RandomState,
    /// 5 abuse reports an hour per IP.
    pub reports: crate::ratelimit::PerIp,
}

impl Default for Scans {
    fn default() -> Self {
        Self {
            wake: Default::default(),
            workers: DEFAULT_WORKERS,
            max_running: DEFAULT_MAX_RUNNING,
            active: Default::default(),
            progress: Default::default(),
            statuses: Default::default(),
            unsaved: Default::default(),
            pages: KeptAtVersion::new(MAX_KEPT_PAGES),
            rankings: KeptAtVersion::new(MAX_KEPT_RANKINGS),
            page_etag_salt: Default::default(),
            reports: routes::report_limit(),
        }
    }
}

impl Scans {
    pub fn is_active(&self, id: i64) -> bool {
        self.active.lock().unwrap_or_else(|p| p.into_inner()).contains_key(&id)
    }

    fn activate(&self, id: i64) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        self.active.lock().unwrap_or_else(|p| p.into_inner()).insert(id, flag.clone());
        flag
    }

    fn deactivate(&self, id: i64) {
        self.active.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
    }

    /// The scan's status answer when one was made within `STATUS_FRESH`.
    pub fn fresh_status(&self, id: i64) -> Option<Arc<JsonBody>> {
        let kept = self.statuses.lock().unwrap_or_else(|p| p.into_inner());
        kept.get(&id).filter(|(made, _)| made.elapsed() < STATUS_FRESH).map(|(_, body)| body.clone())
    }

    pub fn keep_status(&self, id: i64, body: Arc<JsonBody>) {
        let mut kept = self.statuses.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= MAX_KEPT_STATUSES {
            kept.retain(|_, (made, _)| made.elapsed() < STATUS_FRESH);
        }
        if kept.len() < MAX_KEPT_STATUSES {
            kept.insert(id, (Instant::now(), body));
        }
    }

    /// The ETag of a leaderboard page: its query at a ranking version, in this process.
    pub fn page_etag(&self, query: &str, version: i64) -> axum::http::HeaderValue {
        use std::hash::BuildHasher;
        let hash = self.page_etag_salt.hash_one((query, version));
        axum::http::HeaderValue::from_str(&format!("\"{hash:016x}-{version}\"")).expect("hex is a valid header")
    }

    /// Drops the kept status answer after a change made here (cancel, resume).
    pub fn forget_status(&self, id: i64) {
        self.statuses.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
    }

    /// Tells a running scan to stop (its row is already marked cancelled).
    pub fn cancel(&self, id: i64) {
        self.forget_status(id);
        if let Some(flag) = self.active.lock().unwrap_or_else(|p| p.into_inner()).get(&id) {
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// One member of the page in progress is classified: it shows in the progress and the rate
    /// at once, though its page is saved (and its verdict counted) only when the page is done.
    fn note_member(&self, id: i64) {
        *self.unsaved.lock().unwrap_or_else(|p| p.into_inner()).entry(id).or_default() += 1;
        self.note_processed(id, 1);
    }

    /// The page in progress was saved: its members are in the scan's stored count now.
    fn page_saved(&self, id: i64) {
        self.unsaved.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
    }

    /// Members classified on the page in progress (none when the scan does not run here).
    pub fn unsaved(&self, id: i64) -> u64 {
        self.unsaved.lock().unwrap_or_else(|p| p.into_inner()).get(&id).copied().unwrap_or(0)
    }

    fn note_processed(&self, id: i64, n: u64) {
        let now = Instant::now();
        let mut all = self.progress.lock().unwrap_or_else(|p| p.into_inner());
        let q = all.entry(id).or_default();
        if q.is_empty() {
            // The start of this run: the rate counts from here.
            q.push_back((now, 0));
        }
        q.push_back((now, n));
        while q.len() > 2 && q.front().is_some_and(|(t, _)| now.duration_since(*t) > RATE_WINDOW) {
            q.pop_front();
        }
    }

    /// Starts the rate clock of a scan when its run begins.
    fn start_rate(&self, id: i64) {
        let mut all = self.progress.lock().unwrap_or_else(|p| p.into_inner());
        all.insert(id, VecDeque::from([(Instant::now(), 0)]));
    }

    fn forget_rate(&self, id: i64) {
        self.progress.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
        self.page_saved(id);
    }

    /// Members per minute measured over the recent past of this run; None before one is classified.
    pub fn rate_per_minute(&self, id: i64) -> Option<f64> {
        let all = self.progress.lock().unwrap_or_else(|p| p.into_inner());
        let q = all.get(&id)?;
        let (first, _) = q.front()?;
        let counted: u64 = q.iter().skip(1).map(|(_, n)| n).sum();
        let elapsed = first.elapsed().as_secs_f64();
        (counted > 0 && elapsed > 0.5).then(|| counted as f64 * 60.0 / elapsed)
    }
}

/// Values made at a ranking version (`store::ranking_version`), by name: one is good while the
/// version it was made at is the current one. Bounded: when full, older versions go first.
pub struct KeptAtVersion<V> {
    kept: Mutex<HashMap<String, (i64, V)>>,
    max: usize,
}

impl<V: Clone> KeptAtVersion<V> {
    fn new(max: usize) -> Self {
        Self { kept: Default::default(), max }
    }

    pub fn get(&self, name: &str, version: i64) -> Option<V> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.get(name).filter(|(made_at, _)| *made_at == version).map(|(_, value)| value.clone())
    }

    pub fn keep(&self, name: String, version: i64, value: V) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= self.max && !kept.contains_key(&name) {
            kept.retain(|_, (made_at, _)| *made_at >= version);
            if kept.len() >= self.max {
                let oldest = kept.iter().min_by_key(|(_, (made_at, _))| *made_at).map(|(k, _)| k.clone());
                kept.remove(&oldest.expect("the map is full"));
            }
        }
        kept.insert(name, (version, value));
    }

    /// The kept value, or `make`'s, kept.
    pub fn get_or_make<E>(&self, name: &str, version: i64, make: impl FnOnce() -> Result<V, E>) -> Result<V, E> {
        if let Some(value) = self.get(name, version) {
            return Ok(value);
        }
        let value = make()?;
        self.keep(name.to_string(), version, value.clone());
        Ok(value)
    }
}

/// A scan with its progress, as `scan-status` and the admin dashboard show it.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ScanStatus {
    #[serde(flatten)]
    pub scan: ScanRow,
    /// processed / total, 0-100 (100 once completed).
    pub percent: f64,
    /// Members a minute measured over the last minute of this run; null until one is classified.
    pub rate_per_minute: Option<f64>,
    /// The most members a minute the scan's share of the Roblox budget allows.
    pub max_rate_per_minute: f64,
    /// Seconds left at the measured rate; null when there is no rate to go by.
    pub eta_seconds: Option<u64>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub started_at: Option<String>,
    #[schema(format = DateTime)]
    pub updated_at: String,
    #[schema(format = DateTime)]
    pub finished_at: Option<String>,
}

impl ScanStatus {
    pub fn of(mut row: ScanRow, scans: &Scans, roblox: &crate::roblox::Roblox) -> Self {
        let live = store::LIVE_STATES.contains(&row.state.as_str());
        if live {
            row.processed = (row.processed + scans.unsaved(row.id)).min(row.total.max(row.processed));
        }
        let percent = if row.state == "completed" {
            100.0
        } else if row.total == 0 {
            0.0
        } else {
            ((row.processed as f64 * 1000.0 / row.total as f64).floor() / 10.0).min(100.0)
        };
        let rate = if live { scans.rate_per_minute(row.id) } else { None };
        let left = row.total.saturating_sub(row.processed);
        let eta_seconds = rate.filter(|r| *r > 0.0).map(|r| (left as f64 * 60.0 / r).ceil() as u64);
        Self {
            percent,
            rate_per_minute: rate.map(|r| (r * 10.0).round() / 10.0),
            max_rate_per_minute: roblox.scan_members_per_minute(),
            eta_seconds: if live { eta_seconds } else { None },
            created_at: crate::db::rfc3339(row.created_at),
            started_at: row.started_at.map(crate::db::rfc3339),
            updated_at: crate::db::rfc3339(row.updated_at),
            finished_at: row.finished_at.map(crate::db::rfc3339),
            scan: row,
        }
    }
}

/// The scans' background work: the runner that works through queued and interrupted scans, the
/// schedule, and the sweep of old scans and closed reports.
pub fn background(
    background: &mut crate::jobs::Background,
    state: ScansState,
    retention: crate::db::retention::RetentionSettings,
) {
    let scheduling = state.clone();
    let sweeping = state.clone();
    background.job("group-scans", |job| worker::run(state, job));
    background.job("scan-sweep", |job| retention::run(sweeping, retention, job));
    if !scheduling.settings.schedule.is_empty() {
        background.job("scheduled-scans", |job| schedule::run(scheduling, job));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_count_in_the_progress_before_their_page_is_saved_and_once_after() {
        let scans = Scans::default();
        scans.start_rate(1);
        scans.note_member(1);
        scans.note_member(1);
        assert_eq!((scans.unsaved(1), scans.unsaved(2)), (2, 0));
        scans.page_saved(1);
        assert_eq!(scans.unsaved(1), 0, "the saved page's members are in the stored count now");
        scans.note_member(1);
        scans.forget_rate(1);
        assert_eq!(scans.unsaved(1), 0, "a scan that stops leaves nothing behind");
    }
}
