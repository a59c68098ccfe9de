//! Limits per caller: brute-force limits (at most 10 attempts a minute per IP on the sign-in and
//! admin-access endpoints, a growing wait per username after 5 failed logins) and `PerIp`, how
//! often one address may do a costly thing (new API keys, ad submissions, abuse reports, Roblox
//! lookups). Every per-address limit counts a `RateKey`: an IPv4 address, or an IPv6 /64.
//!
//! Whatever keeps an entry per address, name or key registers itself when it is made ([`swept`]),
//! and one sweep ([`forget_idle_everywhere`], the server's health task) makes all of them forget
//! their idle entries: a limiter added later cannot be left out of a list, so none grows without
//! bound under a flood of new addresses.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// State kept per address, name or key that must forget its idle entries.
pub trait ForgetIdle: Send + Sync + 'static {
    fn forget_idle(&self);
}

impl<K: Hash + Eq + Clone + Send + Sync + 'static> ForgetIdle for DefaultKeyedRateLimiter<K> {
    fn forget_idle(&self) {
        self.retain_recent();
    }
}

/// Every holder made through [`swept`]. Weak: a holder dropped (the server of a test) leaves the
/// list at the next sweep instead of being kept alive by it.
static SWEPT: Mutex<Vec<Weak<dyn ForgetIdle>>> = Mutex::new(Vec::new());

/// Makes `item` shared and registers it with the sweep. The only way this module makes a
/// limiter, and the way the other holders (the login throttle, the admin challenges, the key
/// limits) are made.
pub fn swept<T: ForgetIdle>(item: T) -> Arc<T> {
    let item = Arc::new(item);
    let weak: Weak<dyn ForgetIdle> = Arc::downgrade(&item) as Weak<dyn ForgetIdle>;
    SWEPT.lock().unwrap_or_else(|p| p.into_inner()).push(weak);
    item
}

/// How often every limiter forgets the addresses it has not seen for a while.
const SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// The limiters' background work: one sweep of every limiter made (see [`swept`]).
pub fn background(background: &mut crate::jobs::Background) {
    background.task(
        "rate-limit-sweep",
        crate::jobs::every(SWEEP_EVERY, None, || async {
            forget_idle_everywhere();
        }),
    );
}

/// Makes every live registered holder forget its idle entries; returns how many there are.
pub fn forget_idle_everywhere() -> usize {
    let live: Vec<Arc<dyn ForgetIdle>> = {
        let mut list = SWEPT.lock().unwrap_or_else(|p| p.into_inner());
        list.retain(|w| w.strong_count() > 0);
        list.iter().filter_map(Weak::upgrade).collect()
    };
    // Outside the lock: a holder's sweep takes its own lock, and a new holder may register meanwhile.
    for holder in &live {
        holder.forget_idle();
    }
    live.len()
}

use crate::error::ApiError;

/// Who a per-address limit counts. An IPv6 client is one /64 (a host is usually given a whole
/// /64 and can pick any address in it); an IPv4 address, also written IPv4-mapped, is itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RateKey(IpAddr);

impl From<IpAddr> for RateKey {
    fn from(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(v4) => Self(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Self(IpAddr::V4(v4)),
                None => Self(IpAddr::V6(Ipv6Addr::from(v6.to_bits() & !u128::from(u64::MAX)))),
            },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Guarded {
    Login,
    Register,
    VerifyKey,
    Challenge,
}

impl Guarded {
    fn attempts(self) -> &'static str {
        match self {
            Guarded::Login => "sign-in",
            Guarded::Register => "registration",
            Guarded::VerifyKey => "admin key check",
            Guarded::Challenge => "admin phrase",
        }
    }
}

const REFUSAL_SUMMARY_EVERY: Duration = Duration::from_secs(60);

/// Refused attempts counted in memory and logged as one line a minute per kind, so that a
/// client looping a limited endpoint costs neither a write nor a log line per request.
struct RefusalTally {
    counts: HashMap<Guarded, u64>,
    since: Instant,
}

impl RefusalTally {
    fn new(now: Instant) -> Self {
        Self { counts: HashMap::new(), since: now }
    }

    /// The lines to log when a minute has passed since the last summary (and resets the counts).
    fn summary_due(&mut self, now: Instant) -> Vec<String> {
        if now.duration_since(self.since) < REFUSAL_SUMMARY_EVERY {
            return Vec::new();
        }
        let secs = now.duration_since(self.since).as_secs();
        self.since = now;
        let mut lines: Vec<String> = self
            .counts
            .drain()
            .map(|(what, n)| format!("rate limit: refused {n} {} attempts in the last {secs} s", what.attempts()))
            .collect();
        lines.sort();
        lines
    }
}

pub struct AuthLimiter {
    limiter: DefaultKeyedRateLimiter<(Guarded, RateKey)>,
    refused: Mutex<RefusalTally>,
}

pub const PER_MINUTE: u32 = 10;

impl AuthLimiter {
    /// Made in the sweep, which forgets idle addresses and logs the last minute's refusals.
    pub fn new() -> Arc<Self> {
        let quota = Quota::per_minute(NonZeroU32::new(PER_MINUTE).unwrap());
        swept(Self { limiter: RateLimiter::keyed(quota), refused: Mutex::new(RefusalTally::new(Instant::now())) })
    }

    pub fn check(&self, what: Guarded, key: RateKey) -> Result<(), ApiError> {
        self.limiter.check_key(&(what, key)).map_err(|not_until| {
            self.note_refused(what);
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ApiError::too_many_requests(wait.as_secs() + 1)
        })
    }

    /// Counts a refused attempt (also one refused by another limit, e.g. the username throttle).
    pub fn note_refused(&self, what: Guarded) {
        let mut tally = self.refused.lock().unwrap_or_else(|p| p.into_inner());
        *tally.counts.entry(what).or_default() += 1;
        for line in tally.summary_due(Instant::now()) {
            tracing::warn!("{line}");
        }
    }
}

impl ForgetIdle for AuthLimiter {
    /// Forgets idle addresses and logs the refusals of the last minute, if due.
    fn forget_idle(&self) {
        self.limiter.retain_recent();
        let lines = self.refused.lock().unwrap_or_else(|p| p.into_inner()).summary_due(Instant::now());
        for line in lines {
            tracing::warn!("{line}");
        }
    }
}

/// At most `n` of one thing per minute or hour from one address; a refusal is a 429 with
/// Retry-After and a sentence that names the limit.
pub struct PerIp {
    limiter: Arc<DefaultKeyedRateLimiter<RateKey>>,
    refusal: String,
}

impl PerIp {
    /// `what` is plural and complete: "new API keys" gives "At most 10 new API keys an hour from one address."
    pub fn per_hour(n: u32, what: &str) -> Self {
        Self::new(
            Quota::per_hour(NonZeroU32::new(n).expect("a non-zero limit")),
            format!("At most {n} {what} an hour from one address."),
        )
    }

    pub fn per_minute(n: u32, what: &str) -> Self {
        Self::new(
            Quota::per_minute(NonZeroU32::new(n).expect("a non-zero limit")),
            format!("At most {n} {what} a minute from one address."),
        )
    }

    fn new(quota: Quota, refusal: String) -> Self {
        Self { limiter: swept(RateLimiter::keyed(quota)), refusal }
    }

    /// Counts one from `key`, or refuses it without counting.
    pub fn check(&self, key: RateKey) -> Result<(), ApiError> {
        self.limiter.check_key(&key).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ApiError::too_many_requests(wait.as_secs() + 1).with_message(self.refusal.clone())
        })
    }

    /// How many addresses it holds.
    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.limiter.len()
    }
}

/// At most one of a thing per `period` for one account (a test message sent to Discord): counted
/// when it is tried, before any work, so refused and concurrent tries are limited as well as
/// successful ones.
pub struct PerAccount {
    limiter: Arc<DefaultKeyedRateLimiter<i64>>,
    refusal: String,
}

impl PerAccount {
    pub fn every(period: Duration, refusal: &str) -> Self {
        let quota = Quota::with_period(period.max(Duration::from_millis(1))).expect("a non-zero period");
        Self { limiter: swept(RateLimiter::keyed(quota)), refusal: refusal.to_string() }
    }

    /// Counts one try of `account`, or refuses it (429) without counting.
    pub fn check(&self, account: i64) -> Result<(), ApiError> {
        self.limiter.check_key(&account).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            ApiError::too_many_requests(wait.as_secs() + 1).with_message(self.refusal.clone())
        })
    }
}

/// At most `n` failures of one kind a minute from one address (wrong admin keys):
/// once they are spent, the address is refused with a 429 before its next attempt is even
/// looked at, until its minute is over. Successes cost nothing, so a script with the right key
/// is never slowed. At most [`MAX_FAILING_ADDRESSES`] addresses are tracked at once.
pub struct FailureLimit {
    per_minute: u32,
    refusal: String,
    windows: Mutex<HashMap<RateKey, FailureWindow>>,
}

/// One address's minute: the failures counted and the guesses being checked.
struct FailureWindow {
    count: u32,
    pending: u32,
    start: Instant,
}

/// Addresses a [`FailureLimit`] tracks at once; a new one past this pushes out the oldest window.
pub const MAX_FAILING_ADDRESSES: usize = 10_000;
const FAILURE_WINDOW: Duration = Duration::from_secs(60);

impl FailureLimit {
    /// `what` is plural: "wrong admin keys" gives "At most 10 wrong admin keys a minute from one address."
    pub fn per_minute(n: u32, what: &str) -> Arc<Self> {
        swept(Self {
            per_minute: n,
            refusal: format!("At most {n} {what} a minute from one address."),
            windows: Mutex::default(),
        })
    }

    /// Refuses `key` while its failures of this minute are spent.
    pub fn check(&self, key: RateKey) -> Result<(), ApiError> {
        let windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        match windows.get(&key) {
            Some(window) => self.refusal_of(window),
            None => Ok(()),
        }
    }

    fn refusal_of(&self, window: &FailureWindow) -> Result<(), ApiError> {
        let elapsed = window.start.elapsed();
        if elapsed < FAILURE_WINDOW && window.count + window.pending >= self.per_minute {
            return Err(ApiError::too_many_requests((FAILURE_WINDOW - elapsed).as_secs() + 1)
                .with_message(self.refusal.clone()));
        }
        Ok(())
    }

    /// Takes a place in `key`'s count before the guess is checked, so guesses sent at once are
    /// refused as soon as those already being checked could spend the minute's failures: at most
    /// `per_minute` of them are ever looked at. The place is given back when the attempt is
    /// settled as a success or dropped, and kept as a failure by [`AddressAttempt::failed`].
    pub fn begin(self: &Arc<Self>, key: RateKey) -> Result<AddressAttempt, ApiError> {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if !windows.contains_key(&key)
            && windows.len() >= MAX_FAILING_ADDRESSES
            && let Some(oldest) =
                windows.iter().filter(|(_, w)| w.pending == 0).min_by_key(|(_, w)| w.start).map(|(k, _)| *k)
        {
            windows.remove(&oldest);
        }
        let now = Instant::now();
        let window = windows.entry(key).or_insert(FailureWindow { count: 0, pending: 0, start: now });
        if now.duration_since(window.start) >= FAILURE_WINDOW {
            window.count = 0;
            window.start = now;
        }
        self.refusal_of(window)?;
        window.pending += 1;
        Ok(AddressAttempt { limit: self.clone(), key, settled: false })
    }

    /// Counts one failure of `key` (for a guess that took no place with [`FailureLimit::begin`]).
    pub fn failed(self: &Arc<Self>, key: RateKey) {
        if let Ok(attempt) = self.begin(key) {
            attempt.failed();
        }
    }

    fn settle(&self, key: RateKey, failed: bool) {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(window) = windows.get_mut(&key) {
            window.pending = window.pending.saturating_sub(1);
            if failed {
                window.count += 1;
            } else if window.count == 0 && window.pending == 0 {
                // An address that never failed is not kept: the map holds guessers, not callers.
                windows.remove(&key);
            }
        }
    }
}

/// A guess against a [`FailureLimit`] whose check is running: it holds a place in its address's
/// count until it is settled (a failure keeps it) or dropped (given back).
#[must_use = "settle the attempt: dropping it gives its place back"]
pub struct AddressAttempt {
    limit: Arc<FailureLimit>,
    key: RateKey,
    settled: bool,
}

impl AddressAttempt {
    /// The guess was wrong: its place stays counted for the rest of the minute.
    pub fn failed(mut self) {
        self.settled = true;
        self.limit.settle(self.key, true);
    }
}

impl Drop for AddressAttempt {
    fn drop(&mut self) {
        if !self.settled {
            self.limit.settle(self.key, false);
        }
    }
}

impl ForgetIdle for FailureLimit {
    fn forget_idle(&self) {
        self.windows
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, w| w.pending > 0 || w.start.elapsed() < FAILURE_WINDOW);
    }
}

const FREE_FAILURES: u32 = 5;
const MAX_WAIT: Duration = Duration::from_secs(15 * 60);
const FORGET_AFTER: Duration = Duration::from_secs(30 * 60);
/// Usernames tracked at once; a new one past this pushes out the one idle longest.
pub const MAX_TRACKED_USERNAMES: usize = 10_000;

struct Failures {
    count: u32,
    /// Attempts whose check is running: each holds a place in the count until it is settled.
    pending: u32,
    last: Instant,
}

/// A name or a device as the throttle keeps it: a fixed-size digest of its lowercase form, so a
/// long name sent as the username costs 16 bytes, not its length.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct UsernameKey([u8; 16]);

impl UsernameKey {
    fn of(username: &str) -> Self {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(username.to_lowercase().as_bytes());
        let mut key = [0u8; 16];
        key.copy_from_slice(&digest[..16]);
        Self(key)
    }
}

/// Per-username failed-login tracking: after 5 failures each further attempt must wait
/// 2^(n-5) seconds (at most 15 minutes) after the last failure.
///
/// An attempt takes its place in the count before its password or code is checked
/// ([`LoginThrottle::begin`]) and settles it after: guesses sent all at once are refused as soon
/// as those already being checked could reach the free failures, so at most 5 are ever checked
/// before the wait begins, and past them one at a time.
pub struct LoginThrottle {
    failures: Mutex<HashMap<UsernameKey, Failures>>,
}

impl LoginThrottle {
    /// Made in the sweep, which forgets names idle for 30 minutes.
    pub fn new() -> Arc<Self> {
        swept(Self { failures: Mutex::default() })
    }

    pub fn check(&self, username: &str) -> Result<(), ApiError> {
        match self.held_back(username) {
            Some((_, retry_after)) => Err(refused(retry_after)),
            None => Ok(()),
        }
    }

    /// `(failures, seconds until the next try)` while `username` is held back, else None.
    pub fn held_back(&self, username: &str) -> Option<(u32, u64)> {
        let map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        map.get(&UsernameKey::of(username)).and_then(Failures::held_back)
    }

    /// Takes a place in `username`'s count before its guess is checked; refused (429) while the
    /// name is held back, or when the guesses already being checked could spend its free failures.
    pub fn begin(self: &Arc<Self>, username: &str) -> Result<NameAttempt, ApiError> {
        let key = UsernameKey::of(username);
        let mut map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        if !map.contains_key(&key)
            && map.len() >= MAX_TRACKED_USERNAMES
            && let Some(oldest) =
                map.iter().filter(|(_, f)| f.pending == 0).min_by_key(|(_, f)| f.last).map(|(k, _)| *k)
        {
            map.remove(&oldest);
        }
        let entry = map.entry(key).or_insert(Failures { count: 0, pending: 0, last: Instant::now() });
        if let Some((_, retry_after)) = entry.held_back() {
            return Err(refused(retry_after));
        }
        entry.pending += 1;
        Ok(NameAttempt { throttle: self.clone(), key, settled: false })
    }

    /// Counts a failure of a guess that took no place with [`LoginThrottle::begin`] (nothing while
    /// the name is held back: such a guess would have been refused).
    pub fn failed(self: &Arc<Self>, username: &str) {
        if let Ok(attempt) = self.begin(username) {
            attempt.failed();
        }
    }

    pub fn succeeded(&self, username: &str) {
        let key = UsernameKey::of(username);
        let mut map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(entry) = map.get_mut(&key) {
            entry.count = 0;
            if entry.pending == 0 {
                map.remove(&key);
            }
        }
    }

    fn settle(&self, key: UsernameKey, failed: bool) {
        let mut map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(entry) = map.get_mut(&key) {
            entry.pending = entry.pending.saturating_sub(1);
            if failed {
                entry.count += 1;
                entry.last = Instant::now();
            } else if entry.count == 0 && entry.pending == 0 {
                map.remove(&key);
            }
        }
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.failures.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

impl Failures {
    /// Held back while the wait after the last failure runs, and while the attempts being checked
    /// could, if all of them failed, bring the count to the free failures or past them.
    fn held_back(&self) -> Option<(u32, u64)> {
        let reserved = self.count + self.pending;
        if reserved < FREE_FAILURES {
            return None;
        }
        if self.pending > 0 {
            // The answer of an attempt being checked decides what comes next: wait for it.
            return Some((self.count, 1));
        }
        let wait = Duration::from_secs(1u64 << (self.count - FREE_FAILURES).min(10)).min(MAX_WAIT);
        let elapsed = self.last.elapsed();
        (elapsed < wait).then(|| (self.count, (wait - elapsed).as_secs() + 1))
    }
}

fn refused(retry_after: u64) -> ApiError {
    ApiError::too_many_requests(retry_after).with_message("Too many failed sign-ins for this username.")
}

/// A password or code attempt whose check is running: it holds a place in its name's (or its
/// device's) count until it is settled: a failure keeps it, a success clears the name's failures,
/// and dropping it (an answer that checked nothing, or an error) gives it back.
#[must_use = "settle the attempt: dropping it gives its place back"]
pub struct NameAttempt {
    throttle: Arc<LoginThrottle>,
    key: UsernameKey,
    settled: bool,
}

impl NameAttempt {
    /// Whether this attempt holds its place in `throttle` (a device's, or the names').
    pub fn is_against(&self, throttle: &Arc<LoginThrottle>) -> bool {
        Arc::ptr_eq(&self.throttle, throttle)
    }

    pub fn failed(mut self) {
        self.settled = true;
        self.throttle.settle(self.key, true);
    }

    pub fn succeeded(mut self) {
        self.settled = true;
        let mut map = self.throttle.failures.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(entry) = map.get_mut(&self.key) {
            entry.pending = entry.pending.saturating_sub(1);
            entry.count = 0;
            if entry.pending == 0 {
                map.remove(&self.key);
            }
        }
    }
}

impl Drop for NameAttempt {
    fn drop(&mut self) {
        if !self.settled {
            self.throttle.settle(self.key, false);
        }
    }
}

impl ForgetIdle for LoginThrottle {
    fn forget_idle(&self) {
        self.failures
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, f| f.pending > 0 || f.last.elapsed() < FORGET_AFTER);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_limit_allows_ten_then_refuses() {
        let l = AuthLimiter::new();
        let ip = key("192.0.2.1");
        for _ in 0..PER_MINUTE {
            l.check(Guarded::Login, ip).unwrap();
        }
        let e = l.check(Guarded::Login, ip).unwrap_err();
        assert_eq!(e.status, axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert!(e.retry_after_secs.unwrap() >= 1);
        l.check(Guarded::Register, ip).unwrap();
        l.check(Guarded::Login, key("192.0.2.2")).unwrap();
    }

    fn key(ip: &str) -> RateKey {
        RateKey::from(ip.parse::<IpAddr>().unwrap())
    }

    #[test]
    fn an_ipv6_client_is_limited_per_64() {
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:192.0.2.7"), key("192.0.2.7"), "IPv4-mapped is the IPv4 address");
        assert_ne!(key("::ffff:192.0.2.7"), key("::ffff:192.0.2.8"), "IPv4 stays per address");

        let l = PerIp::per_minute(3, "things");
        for n in 0..3u32 {
            l.check(key(&format!("2001:db8:1:2::{n:x}"))).unwrap();
        }
        let e = l.check(key("2001:db8:1:2:abcd::9")).unwrap_err();
        assert_eq!(e.status, axum::http::StatusCode::TOO_MANY_REQUESTS);
        l.check(key("2001:db8:1:3::1")).unwrap();
    }

    #[test]
    fn refusals_are_summed_once_a_minute() {
        let start = Instant::now();
        let mut tally = RefusalTally::new(start);
        *tally.counts.entry(Guarded::Login).or_default() += 500;
        *tally.counts.entry(Guarded::Challenge).or_default() += 2;
        assert!(tally.summary_due(start + Duration::from_secs(59)).is_empty());
        let lines = tally.summary_due(start + Duration::from_secs(60));
        assert_eq!(
            lines,
            [
                "rate limit: refused 2 admin phrase attempts in the last 60 s",
                "rate limit: refused 500 sign-in attempts in the last 60 s"
            ]
        );
        assert!(tally.summary_due(start + Duration::from_secs(130)).is_empty(), "nothing refused since");
    }

    #[test]
    fn the_username_throttle_is_bounded() {
        let t = LoginThrottle::new();
        let huge = "x".repeat(64 * 1024);
        for _ in 0..5 {
            t.failed(&huge);
        }
        assert!(t.check(&huge.to_uppercase()).is_err(), "a long name is still throttled");
        for n in 0..MAX_TRACKED_USERNAMES + 50 {
            t.failed(&format!("user{n}"));
        }
        assert_eq!(t.tracked(), MAX_TRACKED_USERNAMES);
        assert!(t.check(&huge).is_ok(), "the name idle longest went first");
        let map = t.failures.lock().unwrap();
        assert!(map.contains_key(&UsernameKey::of(&format!("user{}", MAX_TRACKED_USERNAMES + 49))));
    }

    #[test]
    fn username_slows_after_five_failures() {
        let t = LoginThrottle::new();
        for _ in 0..5 {
            t.check("Bob").unwrap();
            t.failed("bob");
        }
        assert!(t.check("BOB").is_err());
        t.succeeded("bob");
        assert!(t.check("bob").is_ok());
    }

    #[test]
    fn every_limiter_is_swept_without_being_listed_and_leaves_the_sweep_when_dropped() {
        // A limiter made anywhere (here, as a feature would) is in the sweep by being made: a
        // quota that refills in a millisecond makes each address idle at once.
        let limiter = PerIp::new(Quota::per_second(NonZeroU32::new(1000).unwrap()), String::new());
        for n in 0..200u32 {
            limiter.check(key(&format!("10.0.{}.{}", n / 250, n % 250))).unwrap();
        }
        assert_eq!(limiter.tracked(), 200);
        std::thread::sleep(Duration::from_millis(20));
        let holders = forget_idle_everywhere();
        assert!(holders >= 1);
        assert_eq!(limiter.tracked(), 0, "the sweep forgot the idle addresses");

        let throttle = LoginThrottle::new();
        throttle.failed("alice");
        throttle.failures.lock().unwrap().values_mut().for_each(|f| f.last -= FORGET_AFTER);
        forget_idle_everywhere();
        assert_eq!(throttle.tracked(), 0, "the login throttle is swept too");

        // A dropped holder leaves the list at the next sweep (the list keeps no holder alive).
        let address = Arc::as_ptr(&throttle) as *const ();
        let listed = || SWEPT.lock().unwrap().iter().any(|w| w.as_ptr() as *const () == address);
        assert!(listed());
        drop(throttle);
        forget_idle_everywhere();
        assert!(!listed(), "a dropped holder is no longer in the sweep");
    }

    #[test]
    fn failures_are_limited_per_address_and_successes_cost_nothing() {
        let limit = FailureLimit::per_minute(3, "wrong keys");
        let (a, b) = (key("198.51.100.1"), key("198.51.100.2"));
        for _ in 0..3 {
            limit.check(a).unwrap();
            limit.failed(a);
        }
        let e = limit.check(a).unwrap_err();
        assert_eq!(e.status, axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert!((1..=61).contains(&e.retry_after_secs.unwrap()));
        limit.check(b).unwrap();
        // A window that is over starts again.
        limit.windows.lock().unwrap().get_mut(&a).unwrap().start -= FAILURE_WINDOW;
        limit.check(a).unwrap();
        forget_idle_everywhere();
        assert!(limit.windows.lock().unwrap().is_empty(), "idle windows are swept");
        for n in 0..MAX_FAILING_ADDRESSES + 10 {
            limit.failed(key(&format!("10.{}.{}.{}", n >> 16, (n >> 8) & 255, n & 255)));
        }
        assert_eq!(limit.windows.lock().unwrap().len(), MAX_FAILING_ADDRESSES);
    }

    #[test]
    fn guesses_being_checked_hold_their_places_until_settled() {
        let t = LoginThrottle::new();
        // Five guesses at once are let through to be checked; the sixth waits for them.
        let attempts: Vec<_> = (0..5).map(|_| t.begin("Carol").unwrap()).collect();
        let e = t.begin("carol").err().expect("a sixth guess while five are being checked");
        assert_eq!(e.status, axum::http::StatusCode::TOO_MANY_REQUESTS);
        // Dropped unchecked (an error, a right password waiting for its factor): places given back.
        let mut attempts = attempts.into_iter();
        drop(attempts.next());
        let sixth = t.begin("carol").unwrap();
        // Failures keep their places: five failed, and the name waits.
        for attempt in attempts {
            attempt.failed();
        }
        sixth.failed();
        assert_eq!(t.held_back("carol").map(|(n, _)| n), Some(5));
        assert!(t.begin("carol").is_err());
        // A success clears the name, even with another guess still being checked.
        t.failures.lock().unwrap().values_mut().for_each(|f| f.last -= MAX_WAIT);
        let right = t.begin("carol").unwrap();
        assert!(t.begin("carol").is_err(), "past the free failures, one at a time");
        right.succeeded();
        assert_eq!(t.tracked(), 0);
        let a = t.begin("carol").unwrap();
        let b = t.begin("carol").unwrap();
        a.succeeded();
        assert_eq!(t.tracked(), 1, "b is still being checked");
        drop(b);
        assert_eq!(t.tracked(), 0, "nothing is kept for a name that never failed");
    }

    #[test]
    fn wrong_keys_being_checked_hold_their_places_and_callers_leave_nothing_behind() {
        let limit = FailureLimit::per_minute(3, "wrong keys");
        let a = key("198.51.100.7");
        let held: Vec<_> = (0..3).map(|_| limit.begin(a).unwrap()).collect();
        assert!(limit.begin(a).is_err(), "three being checked spend a minute of three");
        for attempt in held {
            drop(attempt);
        }
        assert!(limit.windows.lock().unwrap().is_empty(), "right keys leave no window behind");
        for _ in 0..3 {
            limit.begin(a).unwrap().failed();
        }
        assert!(limit.begin(a).is_err());
        assert!(limit.check(a).is_err());
    }
}
