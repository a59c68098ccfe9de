//! Scheduled scans: when a group was last scanned, marking a scan as a schedule's, and the
//! finished scheduled scans the site's Discord webhook has not been told about, with the
//! members new since the group's scan before.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::ScanRow;
use super::jobs::{SCAN_COLUMNS, scan_row};
use crate::error::ApiError;

/// When the group's newest scan (of any origin) was queued, if it has one.
pub fn last_scan_at(conn: &Connection, group_id: u64) -> Result<Option<i64>, ApiError> {
    Ok(conn
        .query_row("SELECT MAX(created_at) FROM scans WHERE group_id = ?1", [group_id as i64], |r| {
            r.get::<_, Option<i64>>(0)
        })
        .optional()?
        .flatten())
}

/// Marks a scan as started by a schedule (its end is announced).
pub fn mark_scheduled(tx: &Transaction, id: i64) -> Result<(), ApiError> {
    tx.execute("UPDATE scans SET scheduled = 1 WHERE id = ?1", [id])?;
    Ok(())
}

/// The oldest finished scheduled scan not yet announced.
pub fn next_unannounced(conn: &Connection) -> Result<Option<ScanRow>, ApiError> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {SCAN_COLUMNS} FROM scans WHERE scheduled = 1 AND announced_at IS NULL
                 AND state IN ('completed', 'failed', 'cancelled') ORDER BY id LIMIT 1"
            ),
            [],
            scan_row,
        )
        .optional()?)
}

pub fn mark_announced(tx: &Transaction, id: i64, now: i64) -> Result<(), ApiError> {
    tx.execute("UPDATE scans SET announced_at = ?2 WHERE id = ?1", params![id, now])?;
    Ok(())
}

/// Members of a scan by outcome who were not in the group's previous completed scan (all of
/// them when there is none): `(veteran, newgen, other, failed, previous scan existed)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NewMembers {
    pub veterans: u64,
    pub newgens: u64,
    pub others: u64,
    pub failed: u64,
    /// False for a group's first completed scan: every member is "new".
    pub compared: bool,
}

pub fn new_members(conn: &Connection, scan: &ScanRow) -> Result<NewMembers, ApiError> {
    let previous: Option<i64> = conn
        .query_row(
            "SELECT MAX(id) FROM scans WHERE group_id = ?1 AND id < ?2 AND state = 'completed'",
            params![scan.group_id as i64, scan.id],
            |r| r.get(0),
        )
        .optional()?
        .flatten();
    let mut stmt = conn.prepare_cached(
        "SELECT m.outcome, COUNT(*) FROM scan_members m
         WHERE m.scan_id = ?1 AND NOT EXISTS (SELECT 1 FROM scan_members p WHERE p.scan_id = ?2 AND p.user_id = m.user_id)
         GROUP BY m.outcome",
    )?;
    let mut out = NewMembers { compared: previous.is_some(), ..Default::default() };
    let rows = stmt
        .query_map(params![scan.id, previous.unwrap_or(-1)], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
    for row in rows {
        let (outcome, n) = row?;
        let n = n as u64;
        match outcome.as_str() {
            "veteran" => out.veterans += n,
            "newgen" => out.newgens += n,
            "failed" => out.failed += n,
            _ => out.others += n,
        }
    }
    Ok(out)
}
