//! Limits per caller: brute-force limits (at most 10 attempts a minute per IP on the sign-in and
//! admin-access endpoints, a growing wait per username after 5 failed logins) and `PerIp`, how
//! often one address may do a costly thing (new API keys, ad submissions, abuse reports, Roblox
//! lookups).

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::ApiError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Guarded {
    Login,
    Register,
    VerifyKey,
    Challenge,
}

pub struct AuthLimiter {
    limiter: DefaultKeyedRateLimiter<(Guarded, IpAddr)>,
}

pub const PER_MINUTE: u32 = 10;

impl AuthLimiter {
    pub fn new() -> Self {
        let quota = Quota::per_minute(NonZeroU32::new(PER_MINUTE).unwrap());
        Self { limiter: RateLimiter::keyed(quota) }
    }

    pub fn check(&self, what: Guarded, ip: IpAddr) -> Result<(), ApiError> {
        self.limiter.check_key(&(what, ip)).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ApiError::too_many_requests(wait.as_secs() + 1)
        })
    }

    pub fn forget_idle(&self) {
        self.limiter.retain_recent();
    }
}

impl Default for AuthLimiter {
    fn default() -> Self {
        Self::new()
    }
}

/// At most `n` of one thing per minute or hour from one address; a refusal is a 429 with
/// Retry-After and a sentence that names the limit.
pub struct PerIp {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    refusal: String,
}

impl PerIp {
    /// `what` is plural and complete: "new API keys" gives "At most 10 new API keys an hour from one address."
    pub fn per_hour(n: u32, what: &str) -> Self {
        Self::new(Quota::per_hour(NonZeroU32::new(n).expect("a non-zero limit")), format!("At most {n} {what} an hour from one address."))
    }

    pub fn per_minute(n: u32, what: &str) -> Self {
        Self::new(Quota::per_minute(NonZeroU32::new(n).expect("a non-zero limit")), format!("At most {n} {what} a minute from one address."))
    }

    fn new(quota: Quota, refusal: String) -> Self {
        Self { limiter: RateLimiter::keyed(quota), refusal }
    }

    /// Counts one from `ip`, or refuses it without counting.
    pub fn check(&self, ip: IpAddr) -> Result<(), ApiError> {
        self.limiter.check_key(&ip).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ApiError::too_many_requests(wait.as_secs() + 1).with_message(self.refusal.clone())
        })
    }

    pub fn forget_idle(&self) {
        self.limiter.retain_recent();
    }
}

const FREE_FAILURES: u32 = 5;
const MAX_WAIT: Duration = Duration::from_secs(15 * 60);
const FORGET_AFTER: Duration = Duration::from_secs(30 * 60);

struct Failures {
    count: u32,
    last: Instant,
}

/// Per-username failed-login tracking: after 5 failures each further attempt must wait
/// 2^(n-5) seconds (at most 15 minutes) after the last failure.
#[derive(Default)]
pub struct LoginThrottle {
    failures: Mutex<HashMap<String, Failures>>,
}

impl LoginThrottle {
    pub fn check(&self, username: &str) -> Result<(), ApiError> {
        let map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = map.get(&username.to_lowercase())
            && f.count >= FREE_FAILURES
        {
            let wait = Duration::from_secs(1u64 << (f.count - FREE_FAILURES).min(10)).min(MAX_WAIT);
            let elapsed = f.last.elapsed();
            if elapsed < wait {
                return Err(ApiError::too_many_requests((wait - elapsed).as_secs() + 1)
                    .with_message("Too many failed sign-ins for this username."));
            }
        }
        Ok(())
    }

    pub fn failed(&self, username: &str) {
        let mut map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let entry = map.entry(username.to_lowercase()).or_insert(Failures { count: 0, last: Instant::now() });
        entry.count += 1;
        entry.last = Instant::now();
    }

    pub fn succeeded(&self, username: &str) {
        self.failures.lock().unwrap_or_else(|p| p.into_inner()).remove(&username.to_lowercase());
    }

    pub fn forget_idle(&self) {
        self.failures.lock().unwrap_or_else(|p| p.into_inner()).retain(|_, f| f.last.elapsed() < FORGET_AFTER);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_limit_allows_ten_then_refuses() {
        let l = AuthLimiter::new();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..PER_MINUTE {
            l.check(Guarded::Login, ip).unwrap();
        }
        let e = l.check(Guarded::Login, ip).unwrap_err();
        assert_eq!(e.status, axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert!(e.retry_after_secs.unwrap() >= 1);
        l.check(Guarded::Register, ip).unwrap();
        l.check(Guarded::Login, "192.0.2.2".parse().unwrap()).unwrap();
    }

    #[test]
    fn username_slows_after_five_failures() {
        let t = LoginThrottle::default();
        for _ in 0..5 {
            t.check("Bob").unwrap();
            t.failed("bob");
        }
        assert!(t.check("BOB").is_err());
        t.succeeded("bob");
        assert!(t.check("bob").is_ok());
    }
}
