//! Admin keys and admin sessions. A key is `fha_` + 160 random bits, shown once; the database
//! keeps its SHA-256 and a 12-character display prefix. A key may be bound to one IP.

pub mod store;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub use store::{ADMIN_COOKIE, ADMIN_SESSION_SECS, KeyRecord, PREFIX_LEN};

use axum::http::HeaderMap;

use crate::db::Db;
use crate::error::ApiError;
use crate::http::cookies;
use crate::tokens::{random_hex, sha256};

pub const CHALLENGE_TTL: Duration = Duration::from_secs(5 * 60);

/// Challenges of the secret-phrase flow: single use, five minutes, bound to the asking IP.
/// Kept in memory: a restart simply asks the operator to start the three steps again.
#[derive(Default)]
pub struct Challenges {
    open: Mutex<HashMap<String, (IpAddr, Instant)>>,
}

impl Challenges {
    /// Made in the sweep, which drops the expired challenges.
    pub fn new() -> std::sync::Arc<Self> {
        crate::ratelimit::swept(Self::default())
    }

    pub fn issue(&self, ip: IpAddr) -> String {
        let challenge = format!("fanhub-challenge-{}", random_hex(16));
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.retain(|_, (_, at)| at.elapsed() < CHALLENGE_TTL);
        open.insert(hex::encode(sha256(&challenge)), (ip, Instant::now()));
        challenge
    }

    /// Uses up the challenge; it must be live and belong to `ip`.
    pub fn redeem(&self, challenge: &str, ip: IpAddr) -> Result<(), ApiError> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let Some((owner, at)) = open.remove(&hex::encode(sha256(challenge.trim()))) else {
            return Err(ApiError::forbidden("This challenge is not valid. It may have expired or been used already."));
        };
        if at.elapsed() >= CHALLENGE_TTL {
            return Err(ApiError::forbidden("This challenge has expired. Generate a new one."));
        }
        if owner != ip {
            return Err(ApiError::forbidden("This challenge belongs to another IP address."));
        }
        Ok(())
    }

    pub fn prune(&self) -> usize {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let before = open.len();
        open.retain(|_, (_, at)| at.elapsed() < CHALLENGE_TTL);
        before - open.len()
    }
}

impl crate::ratelimit::ForgetIdle for Challenges {
    fn forget_idle(&self) {
        self.prune();
    }
}

/// Ends the admin sessions the request's cookies name (their rows are deleted, so a copy of the
/// cookie is refused from now on) and clears the admin cookies from the browser.
pub async fn end_admin_sessions(
    db: &Db,
    headers: &HeaderMap,
    res: &mut HeaderMap,
    secure: bool,
) -> Result<(), ApiError> {
    let tokens = cookies::get_all(headers, ADMIN_COOKIE);
    if !tokens.is_empty() {
        db.write(move |tx| tokens.iter().try_for_each(|token| store::delete_session(tx, token))).await?;
    }
    cookies::clear(res, ADMIN_COOKIE, secure);
    cookies::clear(res, cookies::ADMIN_HINT, secure);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_single_use_and_ip_bound() {
        let c = Challenges::default();
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let ch = c.issue(a);
        assert!(c.redeem(&ch, b).is_err());
        let ch = c.issue(a);
        c.redeem(&ch, a).unwrap();
        assert!(c.redeem(&ch, a).is_err(), "reuse must fail");
    }
}
