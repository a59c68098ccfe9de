//! The HTTP layer under every Roblox call: hosts from the `FANHUB_ROBLOX_API` template, the
//! optional cookie (sent only to those hosts), timeouts, the per-endpoint budget with priorities,
//! 429 handling from the headers with bounded retries, and every call reported to `state.jobs`.

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

/// One Roblox endpoint: the service (the `{service}` of the host template) and the path template.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Endpoint {
    pub service: &'static str,
    pub path: &'static str,
    /// The reference's probed limit per 60 s per IP (`external-apis.md`).
    pub probed_limit: u32,
    /// The default budget per 60 s: under the probed limit.
    pub default_budget: u32,
}

impl Endpoint {
    /// `service/path`, e.g. `users/v1/users/{id}`: the name used in budgets, metrics and site.toml.
    pub fn name(&self) -> String {
        format!("{}/{}", self.service, self.path)
    }
}

const fn endpoint(service: &'static str, path: &'static str, probed_limit: u32, default_budget: u32) -> Endpoint {
    Endpoint { service, path, probed_limit, default_budget }
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

pub const ENDPOINTS: [Endpoint; 10] = [
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
];

/// Budgets are counted in fixed windows of this length (Roblox's limits look like 60 s windows).
pub const WINDOW: Duration = Duration::from_secs(60);
/// The longest a visitor's call waits for budget or a 429's reset before failing with Retry-After.
pub const MAX_INTERACTIVE_WAIT: Duration = Duration::from_secs(2);
/// Retries after a 429 (and after a 502/503/504), per call.
pub const MAX_RETRIES: u32 = 2;

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
                return Some(Duration::from_secs_f64((1.0 - w.background_tokens) / per_second).max(Duration::from_millis(1)));
            }
        }
        if w.used < cap {
            w.used += 1;
            if priority == Priority::Background {
                w.background_tokens -= 1.0;
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

    /// True while Roblox's own 429 or `remaining: 0` holds some endpoint back.
    pub fn any_blocked(&self) -> bool {
        let now = Instant::now();
        self.windows.lock().unwrap_or_else(|p| p.into_inner()).values().any(|w| w.blocked_until.is_some_and(|u| u > now))
    }

    /// `(endpoint name, budget per window)`, for the docs and the health check.
    pub fn limits(&self) -> Vec<(String, u32)> {
        let windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        ENDPOINTS.iter().map(|e| (e.name(), windows[e.path].limit)).collect()
    }
}

/// The `.ROBLOSECURITY` cookie: never printed, never logged.
#[derive(Clone)]
pub struct RobloxCookie(String);

impl RobloxCookie {
    pub fn new(value: &str) -> Option<Self> {
        let v = value.trim().trim_start_matches(".ROBLOSECURITY=").trim();
        (!v.is_empty() && !v.contains(['\r', '\n', ';'])).then(|| Self(v.to_string()))
    }
}

impl std::fmt::Debug for RobloxCookie {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RobloxCookie(***)")
    }
}

/// What the health check says about the cookie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CookieState {
    NotConfigured = 0,
    Untested = 1,
    Accepted = 2,
    Rejected = 3,
}

/// A finished HTTP exchange.
pub struct Answer {
    pub status: StatusCode,
    pub body: Bytes,
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
    /// ms since the epoch of the last answer of any kind from Roblox, and of the last failure to get one.
    pub last_answer_ms: AtomicI64,
    pub last_unreachable_ms: AtomicI64,
}

impl HttpClient {
    pub fn new(template: &str, cookie: Option<RobloxCookie>, timeout: Duration, budgets: Budgets, jobs: Jobs) -> Self {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("fanhub/", env!("CARGO_PKG_VERSION")))
            .build()
            .expect("an HTTP client with rustls");
        let cookie_state = if cookie.is_some() { CookieState::Untested } else { CookieState::NotConfigured };
        Self {
            http,
            template: template.trim_end_matches('/').to_string(),
            cookie,
            budgets,
            jobs,
            timeout,
            csrf: Mutex::new(None),
            cookie_state: AtomicU8::new(cookie_state as u8),
            last_answer_ms: AtomicI64::new(0),
            last_unreachable_ms: AtomicI64::new(0),
        }
    }

    pub fn has_cookie(&self) -> bool {
        self.cookie.is_some()
    }

    pub fn cookie_state(&self) -> CookieState {
        match self.cookie_state.load(Ordering::Relaxed) {
            0 => CookieState::NotConfigured,
            1 => CookieState::Untested,
            2 => CookieState::Accepted,
            _ => CookieState::Rejected,
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
        format!("{}/{}", self.template.replace("{service}", endpoint.service), path)
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
        let mut csrf_retried = false;
        let mut attempt = 0;
        loop {
            self.budgets.acquire(endpoint, priority).await?;
            let mut request = match json {
                Some(body) => self.http.post(&url).json(body),
                None => self.http.get(&url),
            };
            request = request.header("accept", "application/json");
            if let Some(cookie) = &self.cookie {
                request = request.header("cookie", format!(".ROBLOSECURITY={}", cookie.0));
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
            let body = match response.bytes().await {
                Ok(b) => b,
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
            let outcome = if status.is_success() || status.is_client_error() { Outcome::Ok } else { Outcome::Failed };
            self.jobs.upstream_call("roblox", &name, outcome);
            if outcome == Outcome::Failed {
                self.jobs.upstream_failed("roblox", format!("{name}: Roblox answered with HTTP {}", status.as_u16()));
            }
            return Ok(Answer { status, body });
        }
    }

    /// `x-ratelimit-remaining: 0` holds the endpoint until `x-ratelimit-reset`.
    fn note_rate_headers(&self, endpoint: &Endpoint, headers: &HeaderMap) {
        let number = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
        if number("x-ratelimit-remaining") == Some(0.0)
            && let Some(reset) = number("x-ratelimit-reset")
            && reset > 0.0
        {
            self.budgets.block(endpoint, Instant::now() + Duration::from_secs_f64(reset.min(300.0)));
        }
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

/// How long to wait after a 429: `Retry-After`, else `x-ratelimit-reset`, else 1 s, 2 s, 4 s.
pub fn retry_wait(headers: &HeaderMap, attempt: u32) -> Duration {
    let secs = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok().filter(|s| *s >= 0.0);
    let from_headers = secs("retry-after").or_else(|| secs("x-ratelimit-reset"));
    match from_headers {
        Some(s) => Duration::from_secs_f64(s.min(300.0)).max(Duration::from_millis(100)),
        None => Duration::from_secs(1 << attempt.min(3)),
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
        assert_eq!(retry_wait(&h, 0), Duration::from_secs(1));
        assert_eq!(retry_wait(&h, 2), Duration::from_secs(4));
        h.insert("x-ratelimit-reset", HeaderValue::from_static("7"));
        assert_eq!(retry_wait(&h, 0), Duration::from_secs(7));
        h.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_wait(&h, 0), Duration::from_secs(3));
        h.insert("retry-after", HeaderValue::from_static("99999"));
        assert_eq!(retry_wait(&h, 0), Duration::from_secs(300));
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
