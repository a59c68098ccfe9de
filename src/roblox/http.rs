//! The HTTP layer under every Roblox call: the legacy hosts from the `FANHUB_ROBLOX_API` template
//! with the optional cookie (sent only to those hosts), Open Cloud at `FANHUB_ROBLOX_OPEN_CLOUD_API`
//! with the optional API key (sent only there), over the shared outbound client (timeouts, no
//! redirect to another host, a cap on answer sizes); each call within its endpoint's budget
//! (`budgets.rs`), Roblox's `x-ratelimit-*` headers obeyed, 429 handling with bounded retries,
//! and every call reported to [`Jobs`].

use crate::config::{OpenCloudKey, RobloxCookie};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue};

use super::RobloxError;
use super::budgets::{Api, Budgets, Endpoint, MAX_INTERACTIVE_WAIT, Priority};
use crate::jobs::{Jobs, Outcome};
use crate::outbound;

/// Retries after a 429 (and after a 502/503/504), per call.
pub const MAX_RETRIES: u32 = 2;

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
        let http = outbound::client(timeout, outbound::USER_AGENT);
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
                    self.last_unreachable_ms.store(crate::db::now_ms(), Ordering::Relaxed);
                    return Err(self.failed(&name, e.into()));
                }
            };
            let status = response.status();
            let headers = response.headers().clone();
            self.note_rate_headers(endpoint, &headers);
            let body = match outbound::read_capped(response, outbound::MAX_ANSWER_BYTES).await {
                Ok(b) => b,
                Err(failure) => return Err(self.failed(&name, failure)),
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

    /// A call that got no readable answer: counted, logged, and said in Roblox's terms.
    fn failed(&self, name: &str, failure: outbound::Failure) -> RobloxError {
        self.jobs.upstream_call("roblox", name, Outcome::Failed);
        let error = match failure {
            outbound::Failure::Timeout => RobloxError::Timeout(self.timeout),
            outbound::Failure::Unreachable(why) => RobloxError::Unreachable(why),
            too_long @ outbound::Failure::TooLong(_) => RobloxError::BadAnswer(too_long.to_string()),
        };
        self.jobs.upstream_failed("roblox", format!("{name}: {error}"));
        error
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
