//! The database's integrity check (`PRAGMA quick_check`), never run per request: it reads every
//! page of the file (seconds on a year of data). The server runs it once a day in the background
//! and `fanhub restore` runs it on what it restores; the last result, when it ran and how long it
//! took are kept in one settings row, which System Health and `fanhub doctor` show.

use std::time::Instant;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use super::{now_ms, settings};
use crate::error::ApiError;

const SETTING: &str = "integrity_check";

/// How often the server checks again: a day after the last check it recorded.
pub const CHECK_EVERY_MS: i64 = 24 * 3600 * 1000;

/// One run of the integrity check, as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IntegrityCheck {
    /// "ok", or the first problem SQLite found (or why it could not check).
    pub result: String,
    /// When it finished, ms since the epoch.
    pub checked_at: i64,
    pub duration_ms: i64,
}

impl IntegrityCheck {
    pub fn passed(&self) -> bool {
        self.result == "ok"
    }

    /// One sentence for System Health and doctor, e.g. "quick check passed at
    /// 2026-11-28T03:00:00Z (took 5.7 s)".
    pub fn describe(&self) -> String {
        format!(
            "quick check {} at {} (took {:.1} s)",
            if self.passed() { "passed".to_string() } else { format!("found: {}", self.result) },
            super::rfc3339(self.checked_at),
            self.duration_ms as f64 / 1000.0
        )
    }

    /// How long from `now_ms` until the next check is due (zero when it is due now).
    pub fn due_in_ms(&self, now_ms: i64) -> i64 {
        (self.checked_at + CHECK_EVERY_MS - now_ms).clamp(0, CHECK_EVERY_MS)
    }
}

/// Runs `PRAGMA quick_check` on `conn` and times it. A check SQLite cannot finish (a damaged
/// file) is a result too, not an error: it is what the host needs to see.
pub fn run(conn: &Connection) -> IntegrityCheck {
    let started = Instant::now();
    let result = match super::quick_check(conn) {
        Ok(first) => first,
        Err(e) => format!("cannot check: {e}"),
    };
    IntegrityCheck { result, checked_at: now_ms(), duration_ms: started.elapsed().as_millis() as i64 }
}

pub fn record(conn: &Connection, check: &IntegrityCheck) -> Result<(), ApiError> {
    settings::set(conn, SETTING, check)
}

/// The last recorded check, if any ran.
pub fn last(conn: &Connection) -> Result<Option<IntegrityCheck>, ApiError> {
    settings::get(conn, SETTING)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_is_recorded_with_its_time_and_read_back() {
        let (_dir, conn) = crate::db::open_for_tests();
        assert_eq!(last(&conn).unwrap(), None);
        let before = now_ms();
        let check = run(&conn);
        assert!(check.passed(), "{check:?}");
        assert!(check.checked_at >= before && check.duration_ms >= 0);
        record(&conn, &check).unwrap();
        assert_eq!(last(&conn).unwrap(), Some(check.clone()));
        assert!(check.describe().starts_with("quick check passed at "), "{}", check.describe());
        assert_eq!(check.due_in_ms(check.checked_at), CHECK_EVERY_MS);
        assert_eq!(check.due_in_ms(check.checked_at + CHECK_EVERY_MS + 1), 0);
        let bad = IntegrityCheck { result: "*** in database main ***".into(), ..check };
        assert!(!bad.passed() && bad.describe().contains("found: *** in database main ***"));
    }
}
