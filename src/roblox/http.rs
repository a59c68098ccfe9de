//! The HTTP layer under every Roblox call: the legacy hosts from the `FANHUB_ROBLOX_API` template
//! with the optional cookie (sent only to those hosts), Open Cloud at `FANHUB_ROBLOX_OPEN_CLOUD_API`
//! with the optional API key (sent only there), timeouts, a cap on answer sizes, the per-endpoint
//! budget with priorities, Roblox's `x-ratelimit-*` headers obeyed, 429 handling with bounded
//! retries, and every call reported to [`Jobs`].

use crate::config::{OpenCloudKey, RobloxCookie};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue};

use super::RobloxError;
use crate::jobs::{Jobs, Outcome};

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
/// Retries after a 429 (and after a 502/503/504), per call.
pub const MAX_RETRIES: u32 = 2;
/// The largest answer read from Roblox; a longer one is refused as unreadable (a page of ten
/// thousand inventory items still fits; an endless body does not fill the memory).
pub const MAX_ANSWER_BYTES: usize = 4 << 20;

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
    used: u32,
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
                    used: 0,
                    blocked_until: None,
                    background_tokens: burst,
                    background_refilled: now,
                    quota: None,
                };
                (e.path, window)
            })
            .collect();
        Self { windows: Mutex::new(windows), background_share: background_share.clamp(0.0, 1.0) }
    }

    /// Takes one call of `endpoint`'s budget, waiting while it is spent. A visitor's call fails
    /// with `Throttled` instead of waiting longer than [`MAX_INTERACTIVE_WAIT`].
    pub async fn acquire(&self, endpoint: &Endpoint, priority: Priority) -> Result<(), RobloxError> {
        loop {
            let wait = self.try_take(endpoint, priority, Instant::now());
            let Some(wait) = wait else { return Ok(()) };
            if priority == Priority::Interactive && wait > MAX_INTERACTIVE_WAIT {
                return Err(RobloxError::Throttled { retry_after_secs: wait.as_secs().max(1) + 1 });
            }
            tokio::time::sleep(wait).await;
        }
    }

    /// None when taken, else how long until it may be.
    fn try_take(&self, endpoint: &Endpoint, priority: Priority, now: Instant) -> Option<Duration> {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        let w = windows.get_mut(endpoint.path).expect("every endpoint has a window");
        if now.duration_since(w.started) >= WINDOW {
            w.started = now;
            w.used = 0;
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

/// Where Open Cloud is and the key to it.
#[derive(Clone, Debug)]
pub struct OpenCloudAccess {
    /// e.g. `https://apis.roblox.com` (the client appends `/cloud/v2/...`).
    pub base: String,
    pub key: OpenCloudKey,
}

/// After Roblox refuses the Open Cloud key, lookups use the next source this long before the
/// key is tried again (it may have been fixed on the Creator Dashboard meanwhile).
pub const KEY_RETRY_AFTER_MS: i64 = 10 * 60 * 1000;

/// What the health check says about a credential (the cookie, the Open Cloud key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CookieState {
    NotConfigured = 0,
    Untested = 1,
    Accepted = 2,
    Rejected = 3,
}

impl CookieState {
    fn from_u8(n: u8) -> Self {
        match n {
            0 => Self::NotConfigured,
            1 => Self::Untested,
            2 => Self::Accepted,
            _ => Self::Rejected,
        }
    }
}

/// A finished HTTP exchange.
pub struct Answer {
    pub status: StatusCode,
    pub body: Bytes,
    /// Open Cloud refused the key itself (not just this one resource): the caller uses the next
    /// source.
    pub key_rejected: bool,
}

pub struct HttpClient {
    http: reqwest::Client,
    /// e.g. `https://{service}.roblox.com`.
    template: String,
    cookie: Option<RobloxCookie>,
    pub budgets: Budgets,
    jobs: Jobs,
    timeout: Duration,
    csrf: Mutex<Option<HeaderValue>>,
    cookie_state: AtomicU8,
    open_cloud: Option<OpenCloudAccess>,
    key_state: AtomicU8,
    /// While the key is refused, Open Cloud is not asked before this time (ms since the epoch).
    key_retry_at_ms: AtomicI64,
    /// Roblox's words when it last refused the key.
    key_problem: Mutex<Option<String>>,
    /// ms since the epoch of the last answer of any kind from Roblox, and of the last failure to get one.
    pub last_answer_ms: AtomicI64,
    pub last_unreachable_ms: AtomicI64,
}

impl HttpClient {
    pub fn new(
        template: &str,
        cookie: Option<RobloxCookie>,
        open_cloud: Option<OpenCloudAccess>,
        timeout: Duration,
        budgets: Budgets,
        jobs: Jobs,
    ) -> Self {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("fanhub/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("an HTTP client with rustls");
        let cookie_state = if cookie.is_some() { CookieState::Untested } else { CookieState::NotConfigured };
        let key_state = if open_cloud.is_some() { CookieState::Untested } else { CookieState::NotConfigured };
        let open_cloud =
            open_cloud.map(|o| OpenCloudAccess { base: o.base.trim_end_matches('/').to_string(), key: o.key });
        Self {
            http,
            template: template.trim_end_matches('/').to_string(),
            cookie,
            budgets,
            jobs,
            timeout,
            csrf: Mutex::new(None),
            cookie_state: AtomicU8::new(cookie_state as u8),
            open_cloud,
            key_state: AtomicU8::new(key_state as u8),
            key_retry_at_ms: AtomicI64::new(0),
            key_problem: Mutex::new(None),
            last_answer_ms: AtomicI64::new(0),
            last_unreachable_ms: AtomicI64::new(0),
        }
    }

    pub fn has_cookie(&self) -> bool {
        self.cookie.is_some()
    }

    pub fn cookie_state(&self) -> CookieState {
        CookieState::from_u8(self.cookie_state.load(Ordering::Relaxed))
    }

    pub fn has_open_cloud_key(&self) -> bool {
        self.open_cloud.is_some()
    }

    /// The Open Cloud key's state, and Roblox's words when it refused it last.
    pub fn key_state(&self) -> (CookieState, Option<String>) {
        let problem = self.key_problem.lock().unwrap_or_else(|p| p.into_inner()).clone();
        (CookieState::from_u8(self.key_state.load(Ordering::Relaxed)), problem)
    }

    /// True when calls should go to Open Cloud: a key is set and Roblox has not refused it in
    /// the last [`KEY_RETRY_AFTER_MS`].
    pub fn open_cloud_ready(&self) -> bool {
        self.open_cloud.is_some()
            && (self.key_state.load(Ordering::Relaxed) != CookieState::Rejected as u8
                || crate::db::now_ms() >= self.key_retry_at_ms.load(Ordering::Relaxed))
    }

    fn note_key_accepted(&self) {
        if self.key_state.swap(CookieState::Accepted as u8, Ordering::Relaxed) == CookieState::Rejected as u8 {
            tracing::info!("Roblox accepts the Open Cloud key again; lookups use it");
        }
    }

    /// Logged once per refusal episode; the lookups fall back to the cookie or anonymous calls.
    fn note_key_rejected(&self, status: StatusCode, words: &str) {
        let problem = format!("HTTP {}: {}", status.as_u16(), words.chars().take(200).collect::<String>());
        self.key_retry_at_ms.store(crate::db::now_ms() + KEY_RETRY_AFTER_MS, Ordering::Relaxed);
        *self.key_problem.lock().unwrap_or_else(|p| p.into_inner()) = Some(problem.clone());
        if self.key_state.swap(CookieState::Rejected as u8, Ordering::Relaxed) != CookieState::Rejected as u8 {
            tracing::warn!(
                "Roblox refused the Open Cloud key ({problem}); lookups use the cookie or anonymous calls and try the key again every {} minutes. Check FANHUB_ROBLOX_OPEN_CLOUD_KEY, the key's expiry and its IP allow list on the Creator Dashboard.",
                KEY_RETRY_AFTER_MS / 60_000
            );
            self.jobs.upstream_failed("roblox", format!("Open Cloud key refused ({problem})"));
        }
    }

    pub fn note_cookie(&self, accepted: bool) {
        if self.cookie.is_some() {
            let s = if accepted { CookieState::Accepted } else { CookieState::Rejected };
            self.cookie_state.store(s as u8, Ordering::Relaxed);
        }
    }

    /// The URL of `path` (already filled in, e.g. `v1/users/42`) on `endpoint`'s service.
    pub fn url(&self, endpoint: &Endpoint, path: &str) -> String {
        match (endpoint.api, &self.open_cloud) {
            (Api::OpenCloud, Some(o)) => format!("{}/{}", o.base, path),
            _ => format!("{}/{}", self.template.replace("{service}", endpoint.service), path),
        }
    }

    /// GET (or POST with `json`) within the budget, retrying 429 and 502/503/504 a bounded number
    /// of times. Answers of any other status are handed back for the caller to read.
    pub async fn call(
        &self,
        endpoint: &Endpoint,
        path: &str,
        query: &[(&str, String)],
        json: Option<&serde_json::Value>,
        priority: Priority,
    ) -> Result<Answer, RobloxError> {
        let mut url = self.url(endpoint, path);
        for (i, (k, v)) in query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            url.push_str(k);
            url.push('=');
            url.push_str(&encode_query_value(v));
        }
        let name = endpoint.name();
        if endpoint.api == Api::OpenCloud && self.open_cloud.is_none() {
            return Err(RobloxError::Unreachable("no Open Cloud key is configured".into()));
        }
        let mut csrf_retried = false;
        let mut attempt = 0;
        loop {
            self.budgets.acquire(endpoint, priority).await?;
            let mut request = match json {
                Some(body) => self.http.post(&url).json(body),
                None => self.http.get(&url),
            };
            request = request.header("accept", "application/json");
            match (endpoint.api, &self.cookie, &self.open_cloud) {
                (Api::Legacy, Some(cookie), _) => {
                    request = request.header("cookie", format!(".ROBLOSECURITY={}", cookie.expose()))
                }
                (Api::OpenCloud, _, Some(o)) => request = request.header("x-api-key", o.key.expose()),
                _ => {}
            }
            if json.is_some()
                && let Some(token) = self.csrf.lock().unwrap_or_else(|p| p.into_inner()).clone()
            {
                request = request.header("x-csrf-token", token);
            }
            let response = match request.send().await {
                Ok(r) => r,
                Err(e) => {
                    self.jobs.upstream_call("roblox", &name, Outcome::Failed);
                    self.last_unreachable_ms.store(crate::db::now_ms(), Ordering::Relaxed);
                    let error = if e.is_timeout() {
                        RobloxError::Timeout(self.timeout)
                    } else {
                        RobloxError::Unreachable(e.without_url().to_string())
                    };
                    self.jobs.upstream_failed("roblox", format!("{name}: {error}"));
                    return Err(error);
                }
            };
            let status = response.status();
            let headers = response.headers().clone();
            self.note_rate_headers(endpoint, &headers);
            let body = match read_capped(response, MAX_ANSWER_BYTES).await {
                Ok(Some(b)) => b,
                Ok(None) => {
                    self.jobs.upstream_call("roblox", &name, Outcome::Failed);
                    let error = RobloxError::BadAnswer(format!("an answer longer than {} MiB", MAX_ANSWER_BYTES >> 20));
                    self.jobs.upstream_failed("roblox", format!("{name}: {error}"));
                    return Err(error);
                }
                Err(e) => {
                    self.jobs.upstream_call("roblox", &name, Outcome::Failed);
                    let error = if e.is_timeout() {
                        RobloxError::Timeout(self.timeout)
                    } else {
                        RobloxError::Unreachable(e.without_url().to_string())
                    };
                    self.jobs.upstream_failed("roblox", format!("{name}: {error}"));
                    return Err(error);
                }
            };
            self.last_answer_ms.store(crate::db::now_ms(), Ordering::Relaxed);
            if status == StatusCode::TOO_MANY_REQUESTS {
                self.jobs.upstream_call("roblox", &name, Outcome::Throttled);
                let wait = retry_wait(&headers, attempt);
                self.budgets.block(endpoint, Instant::now() + wait);
                let may_wait = priority == Priority::Background || wait <= MAX_INTERACTIVE_WAIT;
                if attempt < MAX_RETRIES && may_wait {
                    attempt += 1;
                    continue; // acquire() sleeps until the block ends
                }
                return Err(RobloxError::Throttled { retry_after_secs: wait.as_secs().max(1) });
            }
            if status == StatusCode::FORBIDDEN
                && json.is_some()
                && !csrf_retried
                && let Some(token) = headers.get("x-csrf-token")
            {
                self.jobs.upstream_call("roblox", &name, Outcome::Failed);
                *self.csrf.lock().unwrap_or_else(|p| p.into_inner()) = Some(token.clone());
                csrf_retried = true;
                continue;
            }
            if matches!(status.as_u16(), 502..=504) && attempt < MAX_RETRIES {
                self.jobs.upstream_call("roblox", &name, Outcome::Failed);
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(250 << attempt)).await;
                continue;
            }
            let key_rejected = endpoint.api == Api::OpenCloud && refuses_the_key(status, &body);
            if key_rejected {
                self.note_key_rejected(status, &open_cloud_message(&body));
            } else if endpoint.api == Api::OpenCloud && status.is_success() {
                self.note_key_accepted();
            }
            let outcome = if (status.is_success() || status.is_client_error()) && !key_rejected {
                Outcome::Ok
            } else {
                Outcome::Failed
            };
            self.jobs.upstream_call("roblox", &name, outcome);
            if outcome == Outcome::Failed && !key_rejected {
                self.jobs.upstream_failed("roblox", format!("{name}: Roblox answered with HTTP {}", status.as_u16()));
            }
            return Ok(Answer { status, body, key_rejected });
        }
    }

    /// Roblox's `x-ratelimit-*` figures: no more calls than `remaining` until `reset` (0 holds
    /// the endpoint until then).
    fn note_rate_headers(&self, endpoint: &Endpoint, headers: &HeaderMap) {
        if let Some(quota) = RateHeaders::read(headers) {
            let resets_at = Instant::now() + Duration::from_secs_f64(quota.reset_secs);
            self.budgets.observe(endpoint, quota.limit, quota.remaining, resets_at);
        }
    }
}

/// The figures of `x-ratelimit-limit` (e.g. `1000, 1000;w=60`: the first number),
/// `x-ratelimit-remaining` and `x-ratelimit-reset` (seconds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateHeaders {
    pub limit: Option<u32>,
    pub remaining: u32,
    pub reset_secs: f64,
}

impl RateHeaders {
    /// None unless `remaining` and a positive `reset` are there and readable.
    pub fn read(headers: &HeaderMap) -> Option<Self> {
        let text = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
        let first_number =
            |v: &str| v.split([',', ';']).next()?.trim().parse::<f64>().ok().filter(|n| n.is_finite() && *n >= 0.0);
        let remaining = first_number(text("x-ratelimit-remaining")?)?;
        let reset = first_number(text("x-ratelimit-reset")?)?.min(300.0);
        let limit = text("x-ratelimit-limit").and_then(first_number).map(|n| n.min(u32::MAX as f64) as u32);
        (reset > 0.0).then_some(Self { limit, remaining: remaining.min(u32::MAX as f64) as u32, reset_secs: reset })
    }
}

/// Reads a body of at most `cap` bytes; None when it is longer.
async fn read_capped(mut response: reqwest::Response, cap: usize) -> Result<Option<Bytes>, reqwest::Error> {
    if response.content_length().is_some_and(|n| n > cap as u64) {
        return Ok(None);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > cap {
            return Ok(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Some(Bytes::from(body)))
}

/// Open Cloud's error `message` (or the start of the body when it is not the documented shape).
pub fn open_cloud_message(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Error {
        message: Option<String>,
    }
    serde_json::from_slice::<Error>(body)
        .ok()
        .and_then(|e| e.message)
        .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned())
}

/// A 401 always refuses the key; a 403 refuses it when Roblox's words are about the key (its
/// IP allow list, expiry or owner) rather than about the resource (a private inventory).
pub fn refuses_the_key(status: StatusCode, body: &[u8]) -> bool {
    match status.as_u16() {
        401 => true,
        403 => {
            let words = open_cloud_message(body).to_ascii_lowercase();
            ["api key", "api-key", "apikey", "unauthenticated", "ip address", "expired", "revoked"]
                .iter()
                .any(|w| words.contains(w))
        }
        _ => false,
    }
}

/// Percent-encodes a query value (ids, commas and Roblox's opaque cursors).
pub fn encode_query_value(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b',') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// How long to wait after a 429: `Retry-After`, else `x-ratelimit-reset`, else 1 s, 2 s, 4 s
/// with up to half as much again at random (so callers that were refused together do not all
/// come back at the same moment).
pub fn retry_wait(headers: &HeaderMap, attempt: u32) -> Duration {
    let secs = |name: &str| {
        headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0)
    };
    let from_headers = secs("retry-after").or_else(|| secs("x-ratelimit-reset"));
    match from_headers {
        Some(s) => Duration::from_secs_f64(s.min(300.0)).max(Duration::from_millis(100)),
        None => {
            let base = Duration::from_secs(1 << attempt.min(3));
            base + base.mul_f64(rand::random::<f64>() * 0.5)
        }
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
    fn a_block_from_roblox_holds_every_priority() {
        let b = Budgets::new(&Default::default(), 0.5);
        let now = Instant::now();
        b.block(&BADGE, now + Duration::from_secs(5));
        assert!(b.try_take(&BADGE, Priority::Interactive, now).unwrap() > Duration::from_secs(4));
        assert!(b.any_blocked());
        assert!(b.try_take(&BADGE, Priority::Interactive, now + Duration::from_secs(6)).is_none());
    }

    #[test]
    fn waits_come_from_retry_after_then_the_reset_header_then_backoff() {
        let mut h = HeaderMap::new();
        for _ in 0..20 {
            let first = retry_wait(&h, 0);
            assert!(first >= Duration::from_secs(1) && first <= Duration::from_millis(1500), "{first:?}");
            let third = retry_wait(&h, 2);
            assert!(third >= Duration::from_secs(4) && third <= Duration::from_secs(6), "{third:?}");
        }
        h.insert("x-ratelimit-reset", HeaderValue::from_static("7"));
        assert_eq!(retry_wait(&h, 0), Duration::from_secs(7));
        h.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_wait(&h, 0), Duration::from_secs(3));
        h.insert("retry-after", HeaderValue::from_static("99999"));
        assert_eq!(retry_wait(&h, 0), Duration::from_secs(300));
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

    #[test]
    fn rate_headers_are_read_in_roblox_s_forms_and_nonsense_is_ignored() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut h = HeaderMap::new();
            for (k, v) in pairs {
                h.insert(*k, HeaderValue::from_static(v));
            }
            h
        };
        let h = headers(&[
            ("x-ratelimit-limit", "1000, 1000;w=60"),
            ("x-ratelimit-remaining", "998"),
            ("x-ratelimit-reset", "41"),
        ]);
        assert_eq!(RateHeaders::read(&h), Some(RateHeaders { limit: Some(1000), remaining: 998, reset_secs: 41.0 }));
        let h = headers(&[("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", "99999")]);
        assert_eq!(RateHeaders::read(&h).map(|r| (r.limit, r.remaining, r.reset_secs)), Some((None, 0, 300.0)));
        for bad in [
            headers(&[("x-ratelimit-remaining", "-1"), ("x-ratelimit-reset", "5")]),
            headers(&[("x-ratelimit-remaining", "lots"), ("x-ratelimit-reset", "5")]),
            headers(&[("x-ratelimit-remaining", "3"), ("x-ratelimit-reset", "0")]),
            headers(&[("x-ratelimit-remaining", "3")]),
            headers(&[("x-ratelimit-remaining", "NaN"), ("x-ratelimit-reset", "inf")]),
        ] {
            assert_eq!(RateHeaders::read(&bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_key_is_refused_by_a_401_or_a_403_about_the_key_not_by_a_private_inventory() {
        let body =
            |m: &str| serde_json::to_vec(&serde_json::json!({"code": "PERMISSION_DENIED", "message": m})).unwrap();
        assert!(refuses_the_key(StatusCode::UNAUTHORIZED, b"not json"));
        assert!(refuses_the_key(StatusCode::FORBIDDEN, &body("This API key is not allowed from this IP address.")));
        assert!(!refuses_the_key(StatusCode::FORBIDDEN, &body("The user's inventory is not visible to the caller.")));
        assert!(!refuses_the_key(StatusCode::NOT_FOUND, &body("Invalid API Key")));
        let k = OpenCloudKey::new("  secret-key  ").unwrap();
        assert_eq!(format!("{k:?}"), "OpenCloudKey(***)");
        assert!(
            OpenCloudKey::new("a b").is_none()
                && OpenCloudKey::new("").is_none()
                && OpenCloudKey::new("x\r\ny").is_none()
        );
    }

    #[test]
    fn query_values_are_encoded() {
        assert_eq!(encode_query_value("1,2,3"), "1,2,3");
        assert_eq!(encode_query_value("ab+c/d=="), "ab%2Bc%2Fd%3D%3D");
        assert_eq!(encode_query_value("a&b c"), "a%26b%20c");
    }

    #[test]
    fn the_cookie_never_prints() {
        let c = RobloxCookie::new(".ROBLOSECURITY=_|WARNING:-DO-NOT-SHARE|secret").unwrap();
        assert_eq!(format!("{c:?}"), "RobloxCookie(***)");
        assert!(RobloxCookie::new("  ").is_none());
        assert!(RobloxCookie::new("a\r\nX-Evil: 1").is_none());
    }
}
