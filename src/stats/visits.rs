//! Counting page views and monthly unique visitors without cookies and without storing IPs.
//! A visitor is a hash of a random per-month salt, the IP and the user agent. The salt is
//! deleted when its month ends, so the hashes cannot be traced back to an IP afterwards, and the
//! hashes themselves are deleted soon after (`store::prune_month_visitors`): what stays are the
//! counts per day.
//! One address counts at most 60 views a minute and 20 visitors (user agents) a day, so a client
//! sending made-up user agents inflates neither the figures nor the tables.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use super::store;
use crate::error::ApiError;
use crate::ratelimit::{PerIp, RateKey};

/// Views counted per address a minute; more are not counted.
pub const VIEWS_PER_MINUTE: u32 = 60;
/// Visitors (user agents) counted per address a day: a few browsers and devices behind one
/// address; further user agents from it count as views only.
const VISITORS_PER_ADDRESS: usize = 20;
/// Addresses whose visitors of the day are remembered; past this, new addresses count views only.
const TRACKED_ADDRESSES: usize = 100_000;

#[derive(Default)]
struct VisitorsByAddress {
    day: String,
    seen: HashMap<RateKey, Vec<[u8; 16]>>,
}

impl VisitorsByAddress {
    /// True when `visitor` may count: already seen from `key` today, or one of its first few.
    fn admit(&mut self, day: &str, key: RateKey, visitor: [u8; 16]) -> bool {
        if self.day != day {
            self.day = day.to_string();
            self.seen.clear();
        }
        if !self.seen.contains_key(&key) && self.seen.len() >= TRACKED_ADDRESSES {
            return false;
        }
        let seen = self.seen.entry(key).or_default();
        if seen.contains(&visitor) {
            return true;
        }
        if seen.len() >= VISITORS_PER_ADDRESS {
            return false;
        }
        seen.push(visitor);
        true
    }
}

#[derive(Default)]
pub struct Pending {
    pub(super) views: HashMap<String, i64>,
    pub(super) route_views: HashMap<(String, &'static str), i64>,
    /// (day, visitor): each made with the salt of the day's month.
    pub(super) visitors: HashSet<(String, [u8; 16])>,
}

/// The salt of one month (YYYY-MM), and whether it is in visitor_salts yet.
struct Salt {
    month: String,
    salt: [u8; 32],
    saved: bool,
}

pub struct Visits {
    salt: Mutex<Salt>,
    pending: Mutex<Pending>,
    views: PerIp,
    visitors_by_address: Mutex<VisitorsByAddress>,
    /// Counts the writes of pending visits, so answers made from the tables know when they are stale.
    writes: AtomicU64,
}

pub fn today_key() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()
}

pub fn month_key() -> String {
    jiff::Timestamp::now().strftime("%Y-%m").to_string()
}

fn is_bot(user_agent: &str) -> bool {
    let ua = user_agent.to_ascii_lowercase();
    ua.is_empty() || ["bot", "crawl", "spider", "slurp", "preview", "headlesschrome/0"].iter().any(|w| ua.contains(w))
}

impl Visits {
    /// Loads (or creates) this month's salt and deletes older ones.
    pub fn open(conn: &Connection) -> Result<Self, ApiError> {
        let salt = current_salt(conn)?;
        Ok(Self {
            salt: Mutex::new(salt),
            pending: Mutex::new(Pending::default()),
            views: PerIp::per_minute(VIEWS_PER_MINUTE, "page views"),
            visitors_by_address: Mutex::default(),
            writes: AtomicU64::new(0),
        })
    }

    /// Counts a view of `route` (one of the app's routes) by this visitor, unless its address is
    /// over its views a minute (then the refusal, with Retry-After, is returned).
    pub fn record(&self, route: &'static str, ip: IpAddr, user_agent: &str) -> Result<(), ApiError> {
        let key = RateKey::from(ip);
        self.views.check(key)?;
        let day = today_key();
        let visitor = if is_bot(user_agent) { None } else { Some(self.visitor(&day, ip, user_agent)) };
        let visitor =
            visitor.filter(|v| self.visitors_by_address.lock().unwrap_or_else(|p| p.into_inner()).admit(&day, key, *v));
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        *pending.route_views.entry((day.clone(), route)).or_default() += 1;
        if let Some(v) = visitor {
            pending.visitors.insert((day.clone(), v));
        }
        *pending.views.entry(day).or_default() += 1;
        Ok(())
    }

    /// The visitor's hash with the salt of `day`'s month. A month that began since the last
    /// rotation gets its salt here (saved by the next `rotate_salt`), so every visit of a month is
    /// hashed with that month's salt and a visitor is one hash a month.
    fn visitor(&self, day: &str, ip: IpAddr, user_agent: &str) -> [u8; 16] {
        let mut salt = self.salt.lock().unwrap_or_else(|p| p.into_inner());
        if salt.month != day[..7] {
            *salt = Salt { month: day[..7].to_string(), salt: rand::random(), saved: false };
        }
        let mut h = Sha256::new();
        h.update(salt.salt);
        h.update(ip.to_string().as_bytes());
        h.update([0]);
        h.update(user_agent.as_bytes());
        let digest = h.finalize();
        let mut short = [0u8; 16];
        short.copy_from_slice(&digest[..16]);
        short
    }

    pub fn take_pending(&self) -> Pending {
        std::mem::take(&mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Switches to the new month's salt when the month has changed, saves a salt made by
    /// `record` and deletes the older ones (in the transaction that writes the visits).
    pub fn rotate_salt(&self, conn: &Connection) -> Result<(), ApiError> {
        let mut salt = self.salt.lock().unwrap_or_else(|p| p.into_inner());
        if salt.month < month_key() {
            *salt = current_salt(conn)?;
        } else if !salt.saved {
            store::save_salt(conn, &salt.month, &salt.salt)?;
            store::delete_salts_but(conn, &salt.month)?;
            salt.saved = true;
        }
        Ok(())
    }

    /// Notes that pending visits were written (see `writes`).
    pub fn written(&self) {
        self.writes.fetch_add(1, Ordering::Relaxed);
    }

    /// How many times pending visits were written: an answer made from the tables after the
    /// same number of writes is still current.
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }
}

fn current_salt(conn: &Connection) -> Result<Salt, ApiError> {
    let month = month_key();
    let salt: [u8; 32] = match store::salt(conn, &month)?.and_then(|v| v.try_into().ok()) {
        Some(s) => s,
        None => {
            let s: [u8; 32] = rand::random();
            store::save_salt(conn, &month, &s)?;
            s
        }
    };
    store::delete_salts_but(conn, &month)?;
    Ok(Salt { month, salt, saved: true })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_visitor_counts_once_and_views_add_up() {
        let (_dir, conn) = crate::db::open_for_tests();
        let v = Visits::open(&conn).unwrap();
        let ip: IpAddr = "198.51.100.7".parse().unwrap();
        v.record("/", ip, "Mozilla/5.0 Firefox").unwrap();
        v.record("/commands", ip, "Mozilla/5.0 Firefox").unwrap();
        v.record("/", "198.51.100.8".parse().unwrap(), "Mozilla/5.0 Firefox").unwrap();
        v.record("/", ip, "Googlebot/2.1").unwrap();
        store::persist_visits(&conn, &v.take_pending()).unwrap();
        let visitors = store::monthly_visitors(&conn, &month_key()).unwrap();
        let views: i64 = conn.query_row("SELECT SUM(views) FROM page_views", [], |r| r.get(0)).unwrap();
        assert_eq!((visitors, views), (2, 4));
        let daily: i64 = conn.query_row("SELECT visitors FROM visitor_days", [], |r| r.get(0)).unwrap();
        let home: i64 = conn.query_row("SELECT views FROM route_views WHERE route = '/'", [], |r| r.get(0)).unwrap();
        assert_eq!((daily, home), (2, 3));
        let stored: Vec<u8> = conn.query_row("SELECT hash FROM month_visitors LIMIT 1", [], |r| r.get(0)).unwrap();
        assert!(!String::from_utf8_lossy(&stored).contains("198.51"));
    }

    #[test]
    fn a_month_begun_since_the_last_rotation_gets_its_own_salt_saved_with_the_visits() {
        let (_dir, conn) = crate::db::open_for_tests();
        let v = Visits::open(&conn).unwrap();
        let ip: IpAddr = "198.51.100.7".parse().unwrap();
        let this_month = v.visitor(&today_key(), ip, "Mozilla/5.0 Firefox");
        assert_eq!(v.visitor(&today_key(), ip, "Mozilla/5.0 Firefox"), this_month, "one hash a month");
        // The first visit of a month to come, before the rotation has run.
        let next = v.visitor("2999-01-01", ip, "Mozilla/5.0 Firefox");
        assert_ne!(next, this_month, "a new month, a new salt");
        assert_eq!(v.visitor("2999-01-20", ip, "Mozilla/5.0 Firefox"), next);
        assert_eq!(store::salt(&conn, "2999-01").unwrap(), None);
        v.rotate_salt(&conn).unwrap();
        assert!(store::salt(&conn, "2999-01").unwrap().is_some(), "saved by the rotation");
        assert_eq!(store::salt(&conn, &month_key()).unwrap(), None, "and the older salt deleted");
    }

    #[test]
    fn one_address_counts_few_visitors_and_limited_views() {
        let (_dir, conn) = crate::db::open_for_tests();
        let v = Visits::open(&conn).unwrap();
        let ip: IpAddr = "2001:db8:5:6::1".parse().unwrap();
        for n in 0..VIEWS_PER_MINUTE {
            v.record("/", ip, &format!("Mozilla/5.0 Random/{n}")).unwrap();
        }
        let refused = v.record("/", "2001:db8:5:6::2".parse().unwrap(), "Mozilla/5.0 Firefox").unwrap_err();
        assert_eq!(refused.status, axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert!(refused.retry_after_secs.is_some());
        v.record("/", "198.51.100.9".parse().unwrap(), "Mozilla/5.0 Firefox").unwrap();
        store::persist_visits(&conn, &v.take_pending()).unwrap();
        let visitors = store::monthly_visitors(&conn, &month_key()).unwrap();
        let views: i64 = conn.query_row("SELECT SUM(views) FROM page_views", [], |r| r.get(0)).unwrap();
        assert_eq!((visitors, views), (VISITORS_PER_ADDRESS as i64 + 1, VIEWS_PER_MINUTE as i64 + 1));
    }
}
