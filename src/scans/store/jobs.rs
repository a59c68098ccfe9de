//! Scan jobs: queued, running, finished, resumed, and the members each scan counted.

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;

pub const LIVE_STATES: [&str; 2] = ["queued", "running"];
/// Every state a scan can be in.
pub const SCAN_STATES: [&str; 5] = ["queued", "running", "completed", "failed", "cancelled"];

pub(crate) fn state_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&SCAN_STATES)
}

/// One scan job as stored.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ScanRow {
    pub id: i64,
    pub group_id: u64,
    pub group_name: String,
    pub scanned_by: String,
    /// queued, running, completed, failed (resumable), cancelled.
    #[schema(schema_with = state_values)]
    pub state: String,
    /// Members Roblox reported for the group when the scan started.
    pub total: u64,
    /// Members classified (or given up on: `failed`), each counted once.
    pub processed: u64,
    pub veterans: u64,
    pub newgens: u64,
    pub failed: u64,
    /// Member pages finished.
    pub pages: u64,
    /// Pages fetched a second time after a restart (at most the one in flight each time).
    pub pages_redone: u64,
    #[serde(skip)]
    pub cursor: Option<String>,
    pub notice: Option<String>,
    pub error: Option<String>,
    #[serde(skip)]
    pub created_at: i64,
    #[serde(skip)]
    pub started_at: Option<i64>,
    #[serde(skip)]
    pub updated_at: i64,
    #[serde(skip)]
    pub finished_at: Option<i64>,
    /// The API key that started the scan (its owner may resume it).
    #[serde(skip)]
    pub key_id: Option<i64>,
}

pub(super) const SCAN_COLUMNS: &str =
    "id, group_id, group_name, scanned_by, state, total, processed, veterans, newgens, failed,
    pages, pages_redone, cursor, notice, error, created_at, started_at, updated_at, finished_at, key_id";

pub(super) fn scan_row(r: &rusqlite::Row) -> rusqlite::Result<ScanRow> {
    Ok(ScanRow {
        id: r.get(0)?,
        group_id: r.get::<_, i64>(1)? as u64,
        group_name: r.get(2)?,
        scanned_by: r.get(3)?,
        state: r.get(4)?,
        total: r.get::<_, i64>(5)? as u64,
        processed: r.get::<_, i64>(6)? as u64,
        veterans: r.get::<_, i64>(7)? as u64,
        newgens: r.get::<_, i64>(8)? as u64,
        failed: r.get::<_, i64>(9)? as u64,
        pages: r.get::<_, i64>(10)? as u64,
        pages_redone: r.get::<_, i64>(11)? as u64,
        cursor: r.get(12)?,
        notice: r.get(13)?,
        error: r.get(14)?,
        created_at: r.get(15)?,
        started_at: r.get(16)?,
        updated_at: r.get(17)?,
        finished_at: r.get(18)?,
        key_id: r.get(19)?,
    })
}

/// The live (queued or running) scan of a group.
pub fn live_scan_of_group(conn: &Connection, group_id: u64) -> Result<Option<ScanRow>, ApiError> {
    Ok(conn
        .query_row(
            &format!("SELECT {SCAN_COLUMNS} FROM scans WHERE group_id = ?1 AND state IN ('queued', 'running')"),
            [group_id as i64],
            scan_row,
        )
        .optional()?)
}

/// Queues a scan, or returns the group's live one (`false`: not new). One live scan per group
/// is also enforced by a unique index, so two racing requests cannot both insert.
pub fn queue_scan(
    tx: &Transaction,
    group_id: u64,
    group_name: &str,
    total: u64,
    scanned_by: &str,
    key_id: Option<i64>,
    now: i64,
) -> Result<(ScanRow, bool), ApiError> {
    if let Some(live) = live_scan_of_group(tx, group_id)? {
        return Ok((live, false));
    }
    tx.execute(
        "INSERT INTO scans (group_id, group_name, scanned_by, key_id, state, total, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?6, ?6)",
        params![group_id as i64, group_name, scanned_by, key_id, total as i64, now],
    )?;
    let id = tx.last_insert_rowid();
    Ok((scan(tx, id)?.expect("just inserted"), true))
}

/// Live (queued or running) scans: those started by `key_id`, and all of them.
pub fn live_counts(conn: &Connection, key_id: Option<i64>) -> Result<(u64, u64), ApiError> {
    Ok(conn.query_row(
        "SELECT COALESCE(SUM(key_id IS ?1), 0), COUNT(*) FROM scans WHERE state IN ('queued', 'running')",
        [key_id],
        |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
    )?)
}

pub fn scan(conn: &Connection, id: i64) -> Result<Option<ScanRow>, ApiError> {
    Ok(conn.query_row(&format!("SELECT {SCAN_COLUMNS} FROM scans WHERE id = ?1"), [id], scan_row).optional()?)
}

/// Scans to run on start: queued and running ones (running: the process stopped mid-scan).
pub fn live_scans(conn: &Connection) -> Result<Vec<ScanRow>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {SCAN_COLUMNS} FROM scans WHERE state IN ('queued', 'running') ORDER BY id"
    ))?;
    let rows = stmt.query_map([], scan_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Newest first.
pub fn scans_page(conn: &Connection, offset: u64, limit: u32) -> Result<(Vec<ScanRow>, u64), ApiError> {
    let total: i64 = conn.query_row("SELECT COUNT(*) FROM scans", [], |r| r.get(0))?;
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {SCAN_COLUMNS} FROM scans ORDER BY id DESC LIMIT ?1 OFFSET ?2"))?;
    let rows = stmt.query_map(params![limit, offset as i64], scan_row)?;
    Ok((rows.collect::<Result<_, _>>()?, total as u64))
}

pub fn mark_running(tx: &Transaction, id: i64, now: i64) -> Result<(), ApiError> {
    tx.execute(
        "UPDATE scans SET state = 'running', error = NULL, started_at = COALESCE(started_at, ?2), updated_at = ?2
         WHERE id = ?1 AND state IN ('queued', 'running')",
        params![id, now],
    )?;
    Ok(())
}

/// A page fetched again because the process stopped before it was recorded.
pub fn note_redone_page(tx: &Transaction, id: i64) -> Result<(), ApiError> {
    tx.execute("UPDATE scans SET pages_redone = pages_redone + 1 WHERE id = ?1", [id])?;
    Ok(())
}

/// The outcome of one member: veteran, newgen, other or failed.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberOutcome {
    pub user_id: u64,
    pub role_name: String,
    pub role_rank: i64,
    pub outcome: &'static str,
}

/// Records a finished page in one transaction: members counted once per scan (a page done again
/// after a crash adds nobody twice), the membership, and the cursor of the next page. Returns
/// how many members were new to this scan. Does nothing if the scan is no longer running.
pub fn record_page(
    tx: &Transaction,
    scan_id: i64,
    group_id: u64,
    members: &[MemberOutcome],
    next_cursor: Option<&str>,
    now: i64,
) -> Result<u64, ApiError> {
    let state: Option<String> =
        tx.query_row("SELECT state FROM scans WHERE id = ?1", [scan_id], |r| r.get(0)).optional()?;
    if state.as_deref() != Some("running") {
        return Ok(0);
    }
    let mut counted =
        tx.prepare_cached("INSERT OR IGNORE INTO scan_members (scan_id, user_id, outcome) VALUES (?1, ?2, ?3)")?;
    let mut member = tx.prepare_cached(
        "INSERT INTO group_members (group_id, user_id, role_name, role_rank, seen_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (group_id, user_id) DO UPDATE SET role_name = excluded.role_name, role_rank = excluded.role_rank,
            seen_at = excluded.seen_at",
    )?;
    let (mut new, mut vets, mut newgens, mut failed) = (0u64, 0i64, 0i64, 0i64);
    for m in members {
        if counted.execute(params![scan_id, m.user_id as i64, m.outcome])? == 1 {
            new += 1;
            match m.outcome {
                "veteran" => vets += 1,
                "newgen" => newgens += 1,
                "failed" => failed += 1,
                _ => {}
            }
        }
        if m.outcome != "failed" {
            member.execute(params![group_id as i64, m.user_id as i64, m.role_name, m.role_rank, now])?;
        }
    }
    tx.execute(
        "UPDATE scans SET processed = processed + ?2, veterans = veterans + ?3, newgens = newgens + ?4,
            failed = failed + ?5, pages = pages + 1, cursor = ?6, updated_at = ?7,
            -- a group that grew while scanned: never report more processed than total
            total = MAX(total, processed + ?2)
         WHERE id = ?1",
        params![scan_id, new as i64, vets, newgens, failed, next_cursor, now],
    )?;
    Ok(new)
}

/// Ends a scan: completed, failed (with the reason; resumable) or cancelled.
pub fn finish(tx: &Transaction, id: i64, state: &str, error: Option<&str>, now: i64) -> Result<bool, ApiError> {
    let from = if state == "cancelled" { "('queued', 'running', 'failed')" } else { "('queued', 'running')" };
    let n = tx.execute(
        &format!(
            "UPDATE scans SET state = ?2, error = ?3, updated_at = ?4, finished_at = ?4 WHERE id = ?1 AND state IN {from}"
        ),
        params![id, state, error, now],
    )?;
    Ok(n == 1)
}

/// Sets the notice unless one is already there (said once).
pub fn note_once(tx: &Transaction, id: i64, notice: &str) -> Result<(), ApiError> {
    tx.execute("UPDATE scans SET notice = ?2 WHERE id = ?1 AND notice IS NULL", params![id, notice])?;
    Ok(())
}

/// Puts a failed or cancelled scan back in the queue where it stopped. Err(conflict) if the
/// group has another live scan; Ok(false) if the scan already finished.
pub fn requeue(tx: &Transaction, id: i64, now: i64) -> Result<Option<ScanRow>, ApiError> {
    let Some(row) = scan(tx, id)? else { return Ok(None) };
    if row.state == "failed" || row.state == "cancelled" {
        if let Some(live) = live_scan_of_group(tx, row.group_id)? {
            return Ok(Some(live));
        }
        tx.execute(
            "UPDATE scans SET state = 'queued', error = NULL, finished_at = NULL, updated_at = ?2 WHERE id = ?1",
            params![id, now],
        )?;
    }
    scan(tx, id)
}

/// Finished scans past the newest `keep` of their group, oldest first (at most `limit`): what
/// the retention sweep removes with their members. Kept whatever their age: every live scan, the
/// group's newest completed scan (the next scan is compared with it), and, while the site's
/// webhook announces scheduled scans (`announcing`), every scan of a group whose finished
/// scheduled scan waits to be announced (the announcement compares it with the scan before).
pub fn prunable_scans(conn: &Connection, keep: u32, announcing: bool, limit: u32) -> Result<Vec<i64>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.id FROM scans s
         WHERE s.state IN ('completed', 'failed', 'cancelled')
           AND (SELECT COUNT(*) FROM scans n WHERE n.group_id = s.group_id AND n.id > s.id) >= ?1
           AND s.id IS NOT (SELECT MAX(c.id) FROM scans c WHERE c.group_id = s.group_id AND c.state = 'completed')
           AND NOT (?2 AND EXISTS (SELECT 1 FROM scans u WHERE u.group_id = s.group_id AND u.scheduled = 1
                AND u.announced_at IS NULL AND u.id > s.id))
         ORDER BY s.id LIMIT ?3",
    )?;
    let ids = stmt.query_map(params![keep, announcing, limit], |r| r.get(0))?;
    Ok(ids.collect::<Result<_, _>>()?)
}

/// Deletes at most `batch` members of a scan (on the table's key). Returns how many.
pub fn prune_scan_members(tx: &Transaction, scan_id: i64, batch: usize) -> Result<usize, ApiError> {
    Ok(tx
        .prepare_cached(
            "DELETE FROM scan_members WHERE scan_id = ?1
               AND user_id IN (SELECT user_id FROM scan_members WHERE scan_id = ?1 LIMIT ?2)",
        )?
        .execute(params![scan_id, batch as i64])?)
}

/// Deletes a finished scan whose members are gone (after [`prune_scan_members`]). Returns
/// whether it did.
pub fn delete_emptied_scan(tx: &Transaction, scan_id: i64) -> Result<bool, ApiError> {
    let n = tx.execute(
        "DELETE FROM scans WHERE id = ?1 AND state IN ('completed', 'failed', 'cancelled')
           AND NOT EXISTS (SELECT 1 FROM scan_members WHERE scan_id = ?1)",
        [scan_id],
    )?;
    Ok(n == 1)
}

/// The admin dashboard's figures: running scans, all scans, and processed/total over live scans.
pub fn dashboard(conn: &Connection) -> Result<(u64, u64, u64, u64), ApiError> {
    Ok(conn.query_row(
        "SELECT COALESCE(SUM(state IN ('queued', 'running')), 0), COUNT(*),
            COALESCE(SUM(CASE WHEN state IN ('queued', 'running') THEN processed END), 0),
            COALESCE(SUM(CASE WHEN state IN ('queued', 'running') THEN total END), 0) FROM scans",
        [],
        |r| {
            Ok((
                r.get::<_, i64>(0)? as u64,
                r.get::<_, i64>(1)? as u64,
                r.get::<_, i64>(2)? as u64,
                r.get::<_, i64>(3)? as u64,
            ))
        },
    )?)
}
