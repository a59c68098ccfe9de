//! `roblox_budget_windows`: each Roblox budget's current window, reserved ahead of the calls it
//! lets out (see `budgets::Budgets::acquire`), read back at start.

use rusqlite::{Connection, params};

use crate::error::ApiError;

/// One endpoint's window as last reserved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedWindow {
    pub endpoint: String,
    /// ms since the epoch.
    pub started_at: i64,
    pub reserved: u32,
}

/// Records that `endpoint`'s window begun at `started_at` may let out `reserved` calls: a later
/// window replaces an earlier one; within one window the count only grows.
pub fn reserve(conn: &Connection, endpoint: &str, started_at: i64, reserved: u32) -> Result<(), ApiError> {
    conn.execute(
        "INSERT INTO roblox_budget_windows (endpoint, started_at, reserved) VALUES (?1, ?2, ?3)
         ON CONFLICT (endpoint) DO UPDATE SET
           reserved = CASE WHEN excluded.started_at = started_at THEN MAX(reserved, excluded.reserved)
                           WHEN excluded.started_at > started_at THEN excluded.reserved ELSE reserved END,
           started_at = MAX(started_at, excluded.started_at)",
        params![endpoint, started_at, reserved],
    )?;
    Ok(())
}

/// The windows that began after `since` (ms since the epoch): those still running.
pub fn windows_since(conn: &Connection, since: i64) -> Result<Vec<SavedWindow>, ApiError> {
    let mut stmt = conn.prepare(
        "SELECT endpoint, started_at, reserved FROM roblox_budget_windows WHERE started_at > ?1 ORDER BY endpoint",
    )?;
    let rows = stmt
        .query_map([since], |r| Ok(SavedWindow { endpoint: r.get(0)?, started_at: r.get(1)?, reserved: r.get(2)? }))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_only_grows_and_a_later_one_replaces_it() {
        let (_dir, conn) = crate::db::open_for_tests();
        reserve(&conn, "cloud/v2/users/{id}", 1_000, 10).unwrap();
        reserve(&conn, "cloud/v2/users/{id}", 1_000, 5).unwrap();
        let saved = |since| windows_since(&conn, since).unwrap();
        assert_eq!(saved(0), [SavedWindow { endpoint: "cloud/v2/users/{id}".into(), started_at: 1_000, reserved: 10 }]);
        reserve(&conn, "cloud/v2/users/{id}", 500, 90).unwrap();
        assert_eq!(saved(0)[0].reserved, 10, "an older window changes nothing");
        reserve(&conn, "cloud/v2/users/{id}", 61_000, 3).unwrap();
        reserve(&conn, "users/v1/users/{id}", 2_000, 1).unwrap();
        assert_eq!(
            saved(0).iter().map(|w| (w.endpoint.as_str(), w.started_at, w.reserved)).collect::<Vec<_>>(),
            [("cloud/v2/users/{id}", 61_000, 3), ("users/v1/users/{id}", 2_000, 1)]
        );
        assert_eq!(saved(2_000).len(), 1, "windows that began long ago are over");
    }
}
