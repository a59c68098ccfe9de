//! The budget of each Roblox endpoint: the endpoints the site calls with Roblox's limits and
//! the site's default budget under them, the fixed 60 s windows, the share background work may
//! use, and Roblox's own `x-ratelimit-*` quota and 429 pauses, which hold calls back. With a
//! ledger (the database), each window's use is reserved ahead of the calls and read back at start,
//! so a restart does not spend a window's budget twice.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::RobloxError;

/// Who is waiting for a call: a visitor (answers within seconds or fails with Retry-After), or
/// background work (group scans, the badge poller), which waits for budget and may use only
/// `background_share` of each endpoint's budget so visitors still get answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    Interactive,
    Background,
}

/// Which of Roblox's two APIs an endpoint belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Api {
    /// The `*.roblox.com` hosts: anonymous, or with the `.ROBLOSECURITY` cookie; limits per IP.
    Legacy,
    /// `apis.roblox.com/cloud/v2`: with the API key; limits per key owner, published.
    OpenCloud,
}

/// One Roblox endpoint: its API, the service (the `{service}` of the legacy host template) and
/// the path template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Endpoint {
    pub api: Api,
    pub service: &'static str,
    pub path: &'static str,
    /// Roblox's limit per 60 s: published per key owner for Open Cloud, probed per IP for the
    /// legacy hosts (`external-apis.md`).
    pub probed_limit: u32,
    /// The default budget per 60 s: under that limit.
    pub default_budget: u32,
}

impl Endpoint {
    /// The name used in budgets, metrics and site.toml: `service/path` for the legacy hosts
    /// (`users/v1/users/{id}`), the path for Open Cloud (`cloud/v2/users/{id}`).
    pub fn name(&self) -> String {
        match self.api {
            Api::Legacy => format!("{}/{}", self.service, self.path),
            Api::OpenCloud => self.path.to_string(),
        }
    }
}

const fn endpoint(service: &'static str, path: &'static str, probed_limit: u32, default_budget: u32) -> Endpoint {
    Endpoint { api: Api::Legacy, service, path, probed_limit, default_budget }
}

/// An Open Cloud endpoint; its default budget is 90 % of the published limit, so the site's own
/// use never reaches it and other users of the same key owner keep a little room.
const fn cloud(path: &'static str, published_limit: u32) -> Endpoint {
    Endpoint {
        api: Api::OpenCloud,
        service: "apis",
        path,
        probed_limit: published_limit,
        default_budget: published_limit * 9 / 10,
    }
}

pub const USERNAMES: Endpoint = endpoint("users", "v1/usernames/users", 500, 400);
pub const USER: Endpoint = endpoint("users", "v1/users/{id}", 30, 24);
pub const HEADSHOTS: Endpoint = endpoint("thumbnails", "v1/users/avatar-headshot", 120, 100);
/// No probe data; kept at the headshot figure.
pub const BADGE_ICONS: Endpoint = endpoint("thumbnails", "v1/badges/icons", 120, 100);
/// Thumbnails of image assets (a badge's `iconImageId`): the badge cards' fallback pictures. No
/// probe data; kept at the headshot figure.
pub const ASSET_THUMBNAILS: Endpoint = endpoint("thumbnails", "v1/assets", 120, 100);
pub const AWARDED_DATES: Endpoint = endpoint("badges", "v1/users/{id}/badges/awarded-dates", 10, 8);
pub const BADGE: Endpoint = endpoint("badges", "v1/badges/{id}", 600, 500);
pub const UNIVERSE_BADGES: Endpoint = endpoint("badges", "v1/universes/{id}/badges", 100, 80);
pub const GROUP: Endpoint = endpoint("groups", "v1/groups/{id}", 7, 5);
pub const GROUP_USERS: Endpoint = endpoint("groups", "v1/groups/{id}/users", 1200, 1000);
/// A group's roles (names and ranks of the role ids Open Cloud's memberships give). No probe
/// data; one call per scan.
pub const GROUP_ROLES: Endpoint = endpoint("groups", "v1/groups/{id}/roles", 60, 30);
pub const CLOUD_USER: Endpoint = cloud("cloud/v2/users/{id}", 1000);
pub const CLOUD_INVENTORY: Endpoint = cloud("cloud/v2/users/{id}/inventory-items", 100);
pub const CLOUD_MEMBERSHIPS: Endpoint = cloud("cloud/v2/groups/{id}/memberships", 300);
pub const CLOUD_GROUP: Endpoint = cloud("cloud/v2/groups/{id}", 150);

pub const ENDPOINTS: [Endpoint; 15] = [
    USERNAMES,
    USER,
    HEADSHOTS,
    BADGE_ICONS,
    ASSET_THUMBNAILS,
    AWARDED_DATES,
    BADGE,
    UNIVERSE_BADGES,
    GROUP,
    GROUP_USERS,
    GROUP_ROLES,
    CLOUD_USER,
    CLOUD_INVENTORY,
    CLOUD_MEMBERSHIPS,
    CLOUD_GROUP,
];

/// Budgets are counted in fixed windows of this length (Roblox's limits look like 60 s windows).
pub const WINDOW: Duration = Duration::from_secs(60);
/// The longest a visitor's call waits for budget or a 429's reset before failing with Retry-After.
pub const MAX_INTERACTIVE_WAIT: Duration = Duration::from_secs(2);
/// What Roblox's `x-ratelimit-*` headers said last about an endpoint.
#[derive(Clone, Copy, Debug)]
struct Quota {
    limit: Option<u32>,
    remaining: u32,
    resets_at: Instant,
    /// Calls let out since the answer that carried these figures.
    taken_since: u32,
}

/// The budget of one endpoint in the current window.
#[derive(Debug)]
struct Window {
    limit: u32,
    started: Instant,
    /// `started` on the wall clock (ms since the epoch), as the ledger keeps it.
    started_ms: i64,
    used: u32,
    /// Calls of this window the ledger has recorded ahead (0 without a ledger).
    reserved: u32,
    /// Roblox said stop (429, or `x-ratelimit-remaining: 0`) until then.
    blocked_until: Option<Instant>,
    /// Background calls that may leave at once; refilled evenly over the window.
    background_tokens: f64,
    background_refilled: Instant,
    /// Roblox's own count, when its answers carry one: no more calls leave than it has left.
    quota: Option<Quota>,
}

/// One endpoint's budget and Roblox's quota, for System Health and `/metrics`.
#[derive(Clone, Debug)]
pub struct BudgetUse {
    pub endpoint: Endpoint,
    /// The site's budget per window, and the calls let out in the current one.
    pub limit: u32,
    pub used: u32,
    /// From Roblox's latest `x-ratelimit-*` headers (None until an answer carried them, or
    /// after the window they described).
    pub quota_limit: Option<u32>,
    pub quota_remaining: Option<u32>,
}

/// Background calls that may leave back to back: the whole share of a small budget, a tenth
/// of a large one (at least 50), so a long scan spreads its calls evenly over each window
/// instead of sending the window's share in one burst.
fn background_burst(cap: u32) -> f64 {
    (cap as f64 / 10.0).max(cap.min(50) as f64)
}

/// Per-endpoint budgets with a share for background work.
pub struct Budgets {
    windows: Mutex<HashMap<&'static str, Window>>,
    background_share: f64,
    ledger: Option<Ledger>,
}

/// Where reservations are written: one writer at a time, so a call never leaves while the
/// reservation that covers it is still being written by another.
struct Ledger {
    db: crate::db::Db,
    writing: tokio::sync::Mutex<()>,
}

/// Calls reserved at once: a tenth of the budget, so a busy endpoint writes about ten rows a
/// minute and a restart can overcount by at most a tenth.
fn reservation_step(limit: u32) -> u32 {
    (limit / 10).max(1)
}

impl Budgets {
    /// `limits` by endpoint name (`users/v1/users/{id}`); endpoints not named keep their default.
    pub fn new(limits: &std::collections::BTreeMap<String, u32>, background_share: f64) -> Self {
        let now = Instant::now();
        let windows = ENDPOINTS
            .iter()
            .map(|e| {
                let limit = limits.get(&e.name()).copied().unwrap_or(e.default_budget).max(1);
                let burst = background_burst(((limit as f64 * background_share.clamp(0.0, 1.0)).floor() as u32).max(1));
                let window = Window {
                    limit,
                    started: now,
                    started_ms: crate::time::now_ms(),
                    used: 0,
                    reserved: 0,
                    blocked_until: None,
                    background_tokens: burst,
                    background_refilled: now,
                    quota: None,
                };
                (e.path, window)
            })
            .collect();
        Self { windows: Mutex::new(windows), background_share: background_share.clamp(0.0, 1.0), ledger: None }
    }

    /// Reserves each window's calls in `db` before they leave, and resumes the windows a
    /// previous run left there (still running at `now_ms`) with their calls counted as used.
    pub fn with_ledger(mut self, db: crate::db::Db, now_ms: i64) -> Self {
        let since = now_ms - WINDOW.as_millis() as i64;
        match db.read_blocking(|conn| super::store::budget_windows_since(conn, since)) {
            Ok(saved) => self.resume(&saved, Instant::now(), now_ms),
            Err(e) => tracing::warn!("cannot read the Roblox budgets of the last run, starting them afresh: {e}"),
        }
        self.ledger = Some(Ledger { db, writing: tokio::sync::Mutex::new(()) });
        self
    }

    /// Windows of a previous run still running at `now` (`now_ms` on the wall clock) go on with
    /// their reserved calls counted as used.
    fn resume(&self, saved: &[super::store::SavedWindow], now: Instant, now_ms: i64) {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        for entry in saved {
            let Some(endpoint) = ENDPOINTS.iter().find(|e| e.name() == entry.endpoint) else { continue };
            let Ok(age) = u64::try_from(now_ms - entry.started_at) else { continue };
            let age = Duration::from_millis(age);
            let (Some(started), true) = (now.checked_sub(age), age < WINDOW) else { continue };
            let w = windows.get_mut(endpoint.path).expect("every endpoint has a window");
            w.started = started;
            w.started_ms = entry.started_at;
            w.used = entry.reserved;
            w.reserved = entry.reserved;
        }
    }

    /// Takes one call of `endpoint`'s budget, waiting while it is spent. A visitor's call fails
    /// with `Throttled` instead of waiting longer than [`MAX_INTERACTIVE_WAIT`]. With a ledger, the
    /// call is recorded there before this returns.
    pub async fn acquire(&self, endpoint: &Endpoint, priority: Priority) -> Result<(), RobloxError> {
        loop {
            let wait = self.try_take(endpoint, priority, Instant::now());
            let Some(wait) = wait else { break };
            if priority == Priority::Interactive && wait > MAX_INTERACTIVE_WAIT {
                return Err(RobloxError::Throttled { retry_after_secs: wait.as_secs().max(1) + 1 });
            }
            tokio::time::sleep(wait).await;
        }
        let Some(ledger) = &self.ledger else { return Ok(()) };
        if self.reservation_due(endpoint).is_none() {
            return Ok(());
        }
        let _one_writer = ledger.writing.lock().await;
        // Another caller may have written a reservation that covers this call meanwhile.
        let Some((started_ms, reserved)) = self.reservation_due(endpoint) else { return Ok(()) };
        let name = endpoint.name();
        match ledger.db.write(move |tx| super::store::reserve_budget(tx, &name, started_ms, reserved)).await {
            Ok(()) => self.reserved(endpoint, started_ms, reserved),
            // The call still leaves: a database that cannot be written must not stop lookups, and
            // the budget in memory holds as before (only a restart could then overspend).
            Err(e) => tracing::warn!("cannot reserve the Roblox budget of {}: {e}", endpoint.name()),
        }
        Ok(())
    }

    /// The reservation to write before the last call taken may leave: `(window start, calls)`;
    /// None while the window's reservation covers every call taken.
    fn reservation_due(&self, endpoint: &Endpoint) -> Option<(i64, u32)> {
        let windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        let w = &windows[endpoint.path];
        (w.used > w.reserved).then(|| (w.started_ms, (w.used + reservation_step(w.limit)).min(w.limit).max(w.used)))
    }

    fn reserved(&self, endpoint: &Endpoint, started_ms: i64, reserved: u32) {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        let w = windows.get_mut(endpoint.path).expect("every endpoint has a window");
        if w.started_ms == started_ms {
            w.reserved = w.reserved.max(reserved);
        }
    }

    /// None when taken, else how long until it may be.
    fn try_take(&self, endpoint: &Endpoint, priority: Priority, now: Instant) -> Option<Duration> {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        let w = windows.get_mut(endpoint.path).expect("every endpoint has a window");
        if now.duration_since(w.started) >= WINDOW {
            w.started = now;
            w.started_ms = crate::time::now_ms();
            w.used = 0;
            w.reserved = 0;
        }
        if let Some(until) = w.blocked_until {
            if until > now {
                return Some(until - now);
            }
            w.blocked_until = None;
        }
        if let Some(q) = w.quota {
            if q.resets_at <= now {
                w.quota = None;
            } else if q.taken_since >= q.remaining {
                return Some(q.resets_at - now);
            }
        }
        let cap = match priority {
            Priority::Interactive => w.limit,
            Priority::Background => ((w.limit as f64 * self.background_share).floor() as u32).max(1),
        };
        if priority == Priority::Background {
            let per_second = cap as f64 / WINDOW.as_secs_f64();
            let refill = now.saturating_duration_since(w.background_refilled).as_secs_f64() * per_second;
            w.background_tokens = (w.background_tokens + refill).min(background_burst(cap));
            w.background_refilled = w.background_refilled.max(now);
            if w.background_tokens < 1.0 {
                return Some(
                    Duration::from_secs_f64((1.0 - w.background_tokens) / per_second).max(Duration::from_millis(1)),
                );
            }
        }
        if w.used < cap {
            w.used += 1;
            if priority == Priority::Background {
                w.background_tokens -= 1.0;
            }
            if let Some(q) = &mut w.quota {
                q.taken_since += 1;
            }
            None
        } else {
            Some((w.started + WINDOW).saturating_duration_since(now).max(Duration::from_millis(10)))
        }
    }

    /// Roblox asked for a pause on `endpoint`: no call leaves before `until`.
    pub fn block(&self, endpoint: &Endpoint, until: Instant) {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(w) = windows.get_mut(endpoint.path) {
            w.blocked_until = Some(w.blocked_until.map_or(until, |u| u.max(until)));
        }
    }

    /// Roblox's figures from an answer's headers: no more calls leave before `resets_at` than
    /// `remaining` (0 holds the endpoint until then).
    pub fn observe(&self, endpoint: &Endpoint, limit: Option<u32>, remaining: u32, resets_at: Instant) {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(w) = windows.get_mut(endpoint.path) {
            w.quota = Some(Quota { limit, remaining, resets_at, taken_since: 0 });
            if remaining == 0 {
                w.blocked_until = Some(w.blocked_until.map_or(resets_at, |u| u.max(resets_at)));
            }
        }
    }

    /// Each endpoint's budget, its use in the current window and Roblox's latest quota.
    pub fn usage(&self) -> Vec<BudgetUse> {
        let now = Instant::now();
        let windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        ENDPOINTS
            .iter()
            .map(|e| {
                let w = &windows[e.path];
                let current = now.duration_since(w.started) < WINDOW;
                let quota = w.quota.filter(|q| q.resets_at > now);
                BudgetUse {
                    endpoint: *e,
                    limit: w.limit,
                    used: if current { w.used } else { 0 },
                    quota_limit: quota.and_then(|q| q.limit),
                    quota_remaining: quota.map(|q| q.remaining.saturating_sub(q.taken_since)),
                }
            })
            .collect()
    }

    /// True while Roblox's own 429 or `remaining: 0` holds some endpoint back.
    pub fn any_blocked(&self) -> bool {
        let now = Instant::now();
        self.windows
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .any(|w| w.blocked_until.is_some_and(|u| u > now))
    }

    /// `(endpoint name, budget per window)`, for the docs and the health check.
    pub fn limits(&self) -> Vec<(String, u32)> {
        let windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        ENDPOINTS.iter().map(|e| (e.name(), windows[e.path].limit)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_work_gets_only_its_share_and_visitors_the_rest() {
        let limits = std::collections::BTreeMap::from([("users/v1/users/{id}".to_string(), 4)]);
        let b = Budgets::new(&limits, 0.5);
        let now = Instant::now();
        assert!(b.try_take(&USER, Priority::Background, now).is_none());
        assert!(b.try_take(&USER, Priority::Background, now).is_none());
        assert!(b.try_take(&USER, Priority::Background, now).is_some(), "background is held at half");
        assert!(b.try_take(&USER, Priority::Interactive, now).is_none());
        assert!(b.try_take(&USER, Priority::Interactive, now).is_none());
        let wait = b.try_take(&USER, Priority::Interactive, now).expect("the budget is spent");
        assert!(wait <= WINDOW && wait > Duration::from_secs(50));
        assert!(b.try_take(&USER, Priority::Interactive, now + WINDOW).is_none(), "a new window");
        assert!(b.try_take(&BADGE, Priority::Interactive, now).is_none(), "endpoints are separate");
    }

    #[test]
    fn a_large_background_share_is_spread_over_the_window() {
        let limits = std::collections::BTreeMap::from([("users/v1/users/{id}".to_string(), 2000)]);
        let b = Budgets::new(&limits, 0.5);
        let now = Instant::now();
        for _ in 0..100 {
            assert!(b.try_take(&USER, Priority::Background, now).is_none(), "a burst of a tenth of 1,000");
        }
        let wait = b.try_take(&USER, Priority::Background, now).expect("then paced");
        assert!(wait <= Duration::from_millis(61) && wait >= Duration::from_millis(59), "{wait:?}: 1,000 a minute");
        assert!(b.try_take(&USER, Priority::Interactive, now).is_none(), "visitors are not paced");
        let later = now + Duration::from_secs(6);
        let taken = (0..200).take_while(|_| b.try_take(&USER, Priority::Background, later).is_none()).count();
        assert_eq!(taken, 100, "6 s at 1,000 a minute");
        let small = Budgets::new(&Default::default(), 0.5);
        for _ in 0..12 {
            assert!(small.try_take(&USER, Priority::Background, now).is_none(), "a small share leaves at once");
        }
        assert!(small.try_take(&USER, Priority::Background, now).is_some());
    }

    #[test]
    fn a_window_left_by_a_previous_run_goes_on_with_its_reserved_calls_used() {
        let limits = std::collections::BTreeMap::from([("users/v1/users/{id}".to_string(), 10)]);
        let b = Budgets::new(&limits, 1.0);
        let (now, now_ms) = (Instant::now() + WINDOW, 1_000_000);
        let saved = |endpoint: &str, started_at, reserved| crate::roblox::store::SavedWindow {
            endpoint: endpoint.into(),
            started_at,
            reserved,
        };
        b.resume(
            &[
                saved("users/v1/users/{id}", now_ms - 20_000, 8),
                saved("badges/v1/badges/{id}", now_ms - 61_000, 500),
                saved("no/such/endpoint", now_ms, 1),
            ],
            now,
            now_ms,
        );
        assert!(b.try_take(&USER, Priority::Interactive, now).is_none());
        assert!(b.try_take(&USER, Priority::Interactive, now).is_none());
        let wait = b.try_take(&USER, Priority::Interactive, now).expect("8 of 10 were used before the restart");
        assert!(
            wait > Duration::from_secs(39) && wait <= Duration::from_secs(40),
            "{wait:?}: the window ends as it would have"
        );
        assert!(b.try_take(&BADGE, Priority::Interactive, now).is_none(), "a window that is over is not resumed");
    }

    #[test]
    fn reservations_run_a_tenth_of_the_budget_ahead_of_the_calls() {
        let limits = std::collections::BTreeMap::from([("users/v1/users/{id}".to_string(), 25)]);
        let b = Budgets::new(&limits, 1.0);
        let now = Instant::now();
        assert_eq!(b.reservation_due(&USER), None, "nothing taken, nothing to reserve");
        assert!(b.try_take(&USER, Priority::Interactive, now).is_none());
        let (started_ms, reserved) = b.reservation_due(&USER).expect("the first call needs a reservation");
        assert_eq!(reserved, 3, "the call and a tenth of 25 ahead");
        b.reserved(&USER, started_ms, reserved);
        for _ in 0..2 {
            assert!(b.try_take(&USER, Priority::Interactive, now).is_none());
            assert_eq!(b.reservation_due(&USER), None, "covered by the reservation");
        }
        assert!(b.try_take(&USER, Priority::Interactive, now).is_none());
        assert_eq!(b.reservation_due(&USER).map(|r| r.1), Some(6));
        b.reserved(&USER, started_ms - 1, 6);
        assert!(b.reservation_due(&USER).is_some(), "a reservation of another window covers nothing");
        for _ in 0..30 {
            let _ = b.try_take(&USER, Priority::Interactive, now);
        }
        assert_eq!(b.reservation_due(&USER).map(|r| r.1), Some(25), "never more than the budget");
    }

    #[test]
    fn a_block_from_roblox_holds_every_priority() {
        let b = Budgets::new(&Default::default(), 0.5);
        let now = Instant::now();
        b.block(&BADGE, now + Duration::from_secs(5));
        assert!(b.try_take(&BADGE, Priority::Interactive, now).unwrap() > Duration::from_secs(4));
        assert!(b.any_blocked());
        assert!(b.try_take(&BADGE, Priority::Interactive, now + Duration::from_secs(6)).is_none());
    }

    #[test]
    fn roblox_quota_headers_hold_calls_beyond_what_is_left() {
        let b = Budgets::new(&Default::default(), 0.5);
        let now = Instant::now();
        b.observe(&CLOUD_USER, Some(1000), 2, now + Duration::from_secs(30));
        assert!(b.try_take(&CLOUD_USER, Priority::Interactive, now).is_none());
        assert!(b.try_take(&CLOUD_USER, Priority::Interactive, now).is_none());
        let wait = b.try_take(&CLOUD_USER, Priority::Interactive, now).expect("Roblox said two were left");
        assert!(wait > Duration::from_secs(29), "{wait:?}");
        let usage = b.usage().into_iter().find(|u| u.endpoint == CLOUD_USER).unwrap();
        assert_eq!((usage.limit, usage.used, usage.quota_limit, usage.quota_remaining), (900, 2, Some(1000), Some(0)));
        assert!(
            b.try_take(&CLOUD_USER, Priority::Interactive, now + Duration::from_secs(31)).is_none(),
            "after the reset"
        );
        b.observe(&CLOUD_INVENTORY, None, 0, now + Duration::from_secs(5));
        assert!(b.any_blocked());
    }
}
