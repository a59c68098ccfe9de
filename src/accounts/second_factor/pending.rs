//! Short-lived steps kept in memory between two requests (a sign-in waiting for its code, an
//! authenticator waiting for its first code): each expires, and there are at most so many, so a
//! client starting sign-ins in a loop cannot grow the process. A restart forgets them; the
//! person enters the password again.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::ApiError;

pub struct Pending<T> {
    entries: Mutex<HashMap<String, (Instant, T)>>,
    ttl: Duration,
    max: usize,
}

impl<T: Clone> Pending<T> {
    pub fn new(ttl: Duration, max: usize) -> Self {
        Self { entries: Mutex::default(), ttl, max }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Instant, T)>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `value` under `key` (replacing what was there) for the time to live.
    pub fn put(&self, key: &str, value: T) -> Result<(), ApiError> {
        let mut entries = self.lock();
        if entries.len() >= self.max && !entries.contains_key(key) {
            let now = Instant::now();
            entries.retain(|_, (expires, _)| *expires > now);
            if entries.len() >= self.max {
                return Err(ApiError::unavailable("Too many sign-ins are under way.")
                    .with_message("Try again in a few minutes."));
            }
        }
        entries.insert(key.to_string(), (Instant::now() + self.ttl, value));
        Ok(())
    }

    /// The value under `key` if it has not expired.
    pub fn get(&self, key: &str) -> Option<T> {
        let mut entries = self.lock();
        match entries.get(key) {
            Some((expires, value)) if *expires > Instant::now() => Some(value.clone()),
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        }
    }

    /// Changes the value under `key` in place (keeping its expiry); false when it is gone.
    pub fn update(&self, key: &str, change: impl FnOnce(&mut T)) -> bool {
        match self.lock().get_mut(key) {
            Some((expires, value)) if *expires > Instant::now() => {
                change(value);
                true
            }
            _ => false,
        }
    }

    /// Takes the value out: a step completes once.
    pub fn take(&self, key: &str) -> Option<T> {
        self.lock().remove(key).filter(|(expires, _)| *expires > Instant::now()).map(|(_, v)| v)
    }

    pub fn remove(&self, key: &str) {
        self.lock().remove(key);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire_are_taken_once_and_are_capped() {
        let pending = Pending::new(Duration::from_millis(50), 2);
        pending.put("a", 1).unwrap();
        assert!(pending.update("a", |v| *v += 1));
        assert_eq!(pending.get("a"), Some(2));
        assert_eq!(pending.take("a"), Some(2));
        assert_eq!(pending.take("a"), None, "once");
        pending.put("b", 1).unwrap();
        pending.put("c", 1).unwrap();
        assert_eq!(pending.put("d", 1).unwrap_err().status, axum::http::StatusCode::SERVICE_UNAVAILABLE);
        pending.put("c", 5).unwrap();
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(pending.get("b"), None, "expired");
        assert!(!pending.update("c", |v| *v += 1));
        pending.put("d", 1).unwrap();
        pending.put("e", 1).unwrap();
        assert_eq!(pending.len(), 2, "the expired one made room");
        assert_eq!((pending.get("d"), pending.get("e")), (Some(1), Some(1)));
    }
}
