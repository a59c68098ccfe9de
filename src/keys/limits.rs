//! Per-key rate limits: 100 calls a minute, 1,000 an hour and 10,000 a day, in fixed UTC windows.
//! Counting is exact under concurrency (one lock around check-and-count), and the answer names
//! the tightest window for the `X-RateLimit-*` headers.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::ratelimit::RateKey;

/// (window length in seconds, calls allowed in it), tightest first.
pub const WINDOWS: [(i64, u32); 3] = [(60, 100), (3600, 1_000), (86_400, 10_000)];

/// What is limited: a key, or for the shared public key, the key and the caller's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Subject {
    pub key_id: i64,
    pub ip: Option<RateKey>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Counter {
    starts: [i64; 3],
    counts: [u32; 3],
}

impl Counter {
    fn roll(&mut self, now: i64) {
        for (i, (len, _)) in WINDOWS.iter().enumerate() {
            let start = now - now.rem_euclid(*len);
            if self.starts[i] != start {
                self.starts[i] = start;
                self.counts[i] = 0;
            }
        }
    }
}

/// The outcome of one call, with what the headers say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds when the reported window ends.
    pub reset: i64,
    /// Seconds to wait when refused.
    pub retry_after: u64,
}

#[derive(Default)]
pub struct RateLimits {
    counters: Mutex<HashMap<Subject, Counter>>,
}

impl RateLimits {
    /// Counts the call when every window has room; otherwise refuses it without counting.
    pub fn check(&self, subject: Subject, now: i64) -> Verdict {
        let mut counters = self.counters.lock().unwrap_or_else(|p| p.into_inner());
        let counter = counters.entry(subject).or_default();
        counter.roll(now);
        let window_end = |i: usize| counter.starts[i] + WINDOWS[i].0;
        let exhausted =
            (0..WINDOWS.len()).filter(|&i| counter.counts[i] >= WINDOWS[i].1).max_by_key(|&i| window_end(i));
        if let Some(i) = exhausted {
            let reset = window_end(i);
            return Verdict {
                allowed: false,
                limit: WINDOWS[i].1,
                remaining: 0,
                reset,
                retry_after: (reset - now).max(1) as u64,
            };
        }
        for count in counter.counts.iter_mut() {
            *count += 1;
        }
        let tightest = (0..WINDOWS.len()).min_by_key(|&i| (WINDOWS[i].1 - counter.counts[i], i)).unwrap_or(0);
        Verdict {
            allowed: true,
            limit: WINDOWS[tightest].1,
            remaining: WINDOWS[tightest].1 - counter.counts[tightest],
            reset: window_end(tightest),
            retry_after: 0,
        }
    }

    /// Restores the hour and day counts of keys from their stored hourly usage (after a restart).
    pub fn seed(&self, key_id: i64, hourly: &[(i64, i64)], now: i64) {
        let mut counter = Counter::default();
        counter.roll(now);
        for &(hour, n) in hourly {
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            for i in 1..WINDOWS.len() {
                if hour >= counter.starts[i] {
                    counter.counts[i] = counter.counts[i].saturating_add(n);
                }
            }
        }
        self.counters.lock().unwrap_or_else(|p| p.into_inner()).insert(Subject { key_id, ip: None }, counter);
    }

    /// Drops counters whose day has ended (they would start from zero anyway).
    pub fn forget_ended_days(&self, now: i64) {
        let day = now - now.rem_euclid(WINDOWS[2].0);
        self.counters.lock().unwrap_or_else(|p| p.into_inner()).retain(|_, c| c.starts[2] >= day);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.counters.lock().unwrap().len()
    }
}

/// The start of the UTC day holding `now` (Unix seconds).
pub fn day_start(now: i64) -> i64 {
    now - now.rem_euclid(WINDOWS[2].0)
}

impl crate::ratelimit::ForgetIdle for RateLimits {
    fn forget_idle(&self) {
        self.forget_ended_days(jiff::Timestamp::now().as_second());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: Subject = Subject { key_id: 1, ip: None };
    // 2026-11-23T10:00:00Z: a minute, hour boundary.
    const T: i64 = 1_795_428_000;

    #[test]
    fn a_minute_allows_100_then_refuses_until_the_next_minute() {
        let l = RateLimits::default();
        for n in 1..=100u32 {
            let v = l.check(KEY, T + 10);
            assert!(v.allowed);
            assert_eq!((v.limit, v.remaining, v.reset), (100, 100 - n, T + 60));
        }
        let refused = l.check(KEY, T + 10);
        assert_eq!(refused, Verdict { allowed: false, limit: 100, remaining: 0, reset: T + 60, retry_after: 50 });
        let other = l.check(Subject { key_id: 2, ip: None }, T + 10);
        assert!(other.allowed, "another key is unaffected");
        assert!(l.check(KEY, T + 60).allowed, "a new minute");
    }

    #[test]
    fn the_hour_and_the_day_bind_when_tighter() {
        let l = RateLimits::default();
        for minute in 0..10 {
            for _ in 0..100 {
                assert!(l.check(KEY, T + minute * 60).allowed);
            }
        }
        let v = l.check(KEY, T + 600);
        assert!(!v.allowed);
        assert_eq!((v.limit, v.reset, v.retry_after), (1_000, T + 3600, 3000));

        let seeded = RateLimits::default();
        seeded.seed(1, &[(T - 7200, 100), (T - 3600, 9_400), (T, 450)], T + 5);
        let v = seeded.check(KEY, T + 5);
        assert!(v.allowed);
        assert_eq!((v.limit, v.remaining), (10_000, 49), "the day is the tightest: {v:?}");
        for _ in 0..49 {
            assert!(seeded.check(KEY, T + 5).allowed);
        }
        let v = seeded.check(KEY, T + 5);
        assert!(!v.allowed);
        assert_eq!((v.limit, v.reset), (10_000, day_start(T) + 86_400));
    }

    #[test]
    fn refused_calls_are_not_counted_and_idle_counters_go() {
        let l = RateLimits::default();
        for _ in 0..150 {
            l.check(KEY, T);
        }
        let next_minute = l.check(KEY, T + 60);
        assert_eq!(next_minute.remaining, 99, "the hour counted 101, the minute 1: {next_minute:?}");
        l.forget_ended_days(T + 86_400);
        assert_eq!(l.len(), 0);
    }
}
