//! The scan tables (migration 0008): scan jobs, the members each scan counted, group
//! membership, the leaderboards and search over stored players, and abuse reports.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::roblox::settings::{Classification, GenerationCode};
use crate::roblox::store::{self as roblox_store, PlayerRow, like_prefix};
pub use crate::roblox::store::{Sort, player_count, ranking_ids, ranking_version};

pub const LIVE_STATES: [&str; 2] = ["queued", "running"];

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

const SCAN_COLUMNS: &str = "id, group_id, group_name, scanned_by, state, total, processed, veterans, newgens, failed,
    pages, pages_redone, cursor, notice, error, created_at, started_at, updated_at, finished_at, key_id";

fn scan_row(r: &rusqlite::Row) -> rusqlite::Result<ScanRow> {
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

/// A stored player as the leaderboards show it.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct PlayerEntry {
    pub rank: u64,
    pub user_id: u64,
    pub username: String,
    pub display_name: String,
    pub verified: bool,
    /// Join date, RFC 3339.
    pub created: String,
    #[schema(value_type = GenerationCode)]
    pub generation: String,
    /// The era's name shown to people (site settings); the code itself when no era has it.
    pub generation_label: String,
    pub classification: String,
    pub is_veteran: bool,
    pub is_newgen: bool,
    /// None when Roblox did not give the award dates.
    pub elc_count: Option<u32>,
    pub confidence: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role_name: Option<String>,
    pub checked_at: String,
}

/// Fills each entry's `generation_label` (left empty by the queries, which read only the stored
/// code) from the site's eras.
pub fn label_generations(players: &mut [PlayerEntry], rules: &Classification) {
    for p in players {
        p.generation_label = rules.label(&p.generation);
    }
}

impl PlayerEntry {
    /// A stored player at `rank`, with their role when the list is a group's.
    fn of(p: PlayerRow, rank: u64, role_name: Option<String>) -> Self {
        Self {
            rank,
            user_id: p.user_id,
            username: p.username,
            display_name: p.display_name,
            verified: p.verified,
            created: p.created,
            generation: p.generation,
            generation_label: String::new(),
            classification: p.classification,
            is_veteran: p.is_veteran,
            is_newgen: p.is_newgen,
            elc_count: p.elc_count,
            confidence: p.confidence,
            checked_at: crate::db::rfc3339(p.checked_at),
            role_name,
        }
    }
}

/// One page of all stored players, optionally of one generation, ranked from `offset + 1`, and
/// how many there are.
pub fn leaderboard(
    conn: &Connection,
    generation: Option<&str>,
    sort: Sort,
    offset: u64,
    limit: u32,
) -> Result<(Vec<PlayerEntry>, u64), ApiError> {
    let total = player_count(conn, generation)?;
    let rows = roblox_store::players_page(conn, generation, sort, offset, limit)?;
    let players = rows.into_iter().zip(offset + 1..).map(|(p, rank)| PlayerEntry::of(p, rank, None)).collect();
    Ok((players, total))
}

/// The players with these ids (at most a page of 100), in this order, ranked from `first_rank`
/// (ids no longer stored are skipped).
pub fn players_in_order(conn: &Connection, ids: &[i64], first_rank: u64) -> Result<Vec<PlayerEntry>, ApiError> {
    let mut found = roblox_store::players_by_id(conn, ids)?;
    let mut players = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        if let Some(p) = found.remove(&(*id as u64)) {
            players.push(PlayerEntry::of(p, first_rank + i as u64, None));
        }
    }
    Ok(players)
}

/// Every member of a group in the group leaderboard's order: veterans first, then by ELC
/// badges, then the oldest account (no index has this order across the two tables, so the
/// whole group is sorted once per ranking version and pages are slices of it). It reads the
/// Roblox feature's `players` table, the one cross-feature read in SQL: the order needs both
/// tables in one statement.
pub fn group_ranking_ids(conn: &Connection, group_id: u64) -> Result<Vec<i64>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.user_id FROM group_members m JOIN players p ON p.user_id = m.user_id WHERE m.group_id = ?1
         ORDER BY p.is_veteran DESC, COALESCE(p.elc_count, -1) DESC, p.created ASC, p.user_id",
    )?;
    let ids = stmt.query_map([group_id as i64], |r| r.get(0))?.collect::<Result<_, _>>()?;
    Ok(ids)
}

/// These members of a group with their role, in this order, ranked from `first_rank` (ids no
/// longer stored, or no longer members, are skipped).
pub fn group_members_in_order(
    conn: &Connection,
    group_id: u64,
    ids: &[i64],
    first_rank: u64,
) -> Result<Vec<PlayerEntry>, ApiError> {
    let mut found = roblox_store::players_by_id(conn, ids)?;
    let mut roles = member_roles(conn, group_id, ids)?;
    let mut players = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        if let (Some(role_name), Some(p)) = (roles.remove(id), found.remove(&(*id as u64))) {
            players.push(PlayerEntry::of(p, first_rank + i as u64, role_name));
        }
    }
    Ok(players)
}

/// The role of each of these ids (a page at most) that is a member of the group. One statement
/// for any page, as `players_by_id`.
fn member_roles(conn: &Connection, group_id: u64, ids: &[i64]) -> Result<HashMap<i64, Option<String>>, ApiError> {
    const PLACES: usize = roblox_store::PLAYERS_BY_ID;
    assert!(ids.len() <= PLACES, "a page is at most {PLACES} players");
    let places = (1..=PLACES).map(|i| format!("?{i}")).collect::<Vec<_>>().join(",");
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT m.user_id, m.role_name FROM group_members m WHERE m.group_id = ?101 AND m.user_id IN ({places})"
    ))?;
    let values = (0..PLACES).map(|i| ids.get(i).copied()).chain([Some(group_id as i64)]);
    let roles = stmt
        .query_map(rusqlite::params_from_iter(values), |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(roles)
}

/// A scanned group's summary for `all-group-leaderboards` and search.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct GroupSummary {
    pub group_id: u64,
    pub group_name: String,
    /// Members stored from scans.
    pub members: u64,
    pub veterans: u64,
    pub newgens: u64,
    /// The latest scan of the group.
    pub last_scan_id: i64,
    pub last_scan_state: String,
}

/// Reads `players` (the Roblox feature's) read-only, for the same reason as `group_ranking_ids`.
const GROUP_SUMMARY: &str = "SELECT s.group_id, s.group_name,
        (SELECT COUNT(*) FROM group_members m WHERE m.group_id = s.group_id),
        (SELECT COUNT(*) FROM group_members m JOIN players p ON p.user_id = m.user_id WHERE m.group_id = s.group_id AND p.is_veteran),
        (SELECT COUNT(*) FROM group_members m JOIN players p ON p.user_id = m.user_id WHERE m.group_id = s.group_id AND p.is_newgen),
        s.id, s.state
    FROM scans s WHERE s.id = (SELECT MAX(id) FROM scans t WHERE t.group_id = s.group_id)";

fn group_summary(r: &rusqlite::Row) -> rusqlite::Result<GroupSummary> {
    Ok(GroupSummary {
        group_id: r.get::<_, i64>(0)? as u64,
        group_name: r.get(1)?,
        members: r.get::<_, i64>(2)? as u64,
        veterans: r.get::<_, i64>(3)? as u64,
        newgens: r.get::<_, i64>(4)? as u64,
        last_scan_id: r.get(5)?,
        last_scan_state: r.get(6)?,
    })
}

/// Every scanned group, the most members first.
pub fn group_summaries(conn: &Connection, offset: u64, limit: u32) -> Result<(Vec<GroupSummary>, u64), ApiError> {
    let total: i64 = conn.query_row("SELECT COUNT(DISTINCT group_id) FROM scans", [], |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(&format!("{GROUP_SUMMARY} ORDER BY 3 DESC, s.group_id LIMIT ?1 OFFSET ?2"))?;
    let rows = stmt.query_map(params![limit, offset as i64], group_summary)?;
    Ok((rows.collect::<Result<_, _>>()?, total as u64))
}

/// Stored players whose username or display name starts with `q` (case-insensitive).
pub fn search_players(conn: &Connection, q: &str, limit: u32) -> Result<Vec<PlayerEntry>, ApiError> {
    let rows = roblox_store::search_players(conn, q, limit)?;
    Ok(rows.into_iter().zip(1..).map(|(p, rank)| PlayerEntry::of(p, rank, None)).collect())
}

/// Scanned groups whose name contains `q`, or whose id is `q`.
pub fn search_groups(conn: &Connection, q: &str, limit: u32) -> Result<Vec<GroupSummary>, ApiError> {
    let contains = format!("%{}", like_prefix(q));
    let id = q.parse::<i64>().unwrap_or(-1);
    let mut stmt = conn.prepare_cached(&format!(
        "{GROUP_SUMMARY} AND (s.group_name LIKE ?1 ESCAPE '\\' OR s.group_id = ?2) ORDER BY 3 DESC LIMIT ?3"
    ))?;
    let rows = stmt.query_map(params![contains, id, limit], group_summary)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// An abuse report.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct AbuseReport {
    pub id: i64,
    pub reporter_username: String,
    pub target_username: String,
    /// Why, in the reporter's words.
    pub reason: String,
    /// Derived from the reason: exploiting, scamming, harassment, impersonation,
    /// inappropriate-content, botting or other.
    #[schema(pattern = "^(exploiting|scamming|harassment|impersonation|inappropriate-content|botting|other)$")]
    pub category: String,
    pub description: String,
    pub priority: String,
    /// open, reviewing, resolved, dismissed.
    pub state: String,
    pub created_at: String,
    pub resolved_at: Option<String>,
    pub resolution_note: Option<String>,
}

pub struct NewReport<'a> {
    pub reporter_username: &'a str,
    pub target_username: &'a str,
    pub reason: &'a str,
    pub description: &'a str,
    pub priority: &'a str,
    pub key_id: Option<i64>,
}

pub fn add_report(tx: &Transaction, r: &NewReport, now: i64) -> Result<i64, ApiError> {
    tx.execute(
        "INSERT INTO abuse_reports (reporter_username, target_username, reason, description, priority, key_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![r.reporter_username, r.target_username, r.reason, r.description, r.priority, r.key_id, now],
    )?;
    Ok(tx.last_insert_rowid())
}

/// The categories a report's reason is sorted into (the last one takes every other reason).
pub const REPORT_CATEGORIES: [&str; 7] =
    ["exploiting", "scamming", "harassment", "impersonation", "inappropriate-content", "botting", "other"];

/// The category a reason names (any case, surrounding spaces ignored), else other.
pub fn report_category(reason: &str) -> &'static str {
    let reason = reason.trim();
    REPORT_CATEGORIES.iter().find(|c| c.eq_ignore_ascii_case(reason)).copied().unwrap_or("other")
}

fn report_row(r: &rusqlite::Row) -> rusqlite::Result<AbuseReport> {
    let reason: String = r.get(3)?;
    Ok(AbuseReport {
        id: r.get(0)?,
        reporter_username: r.get(1)?,
        target_username: r.get(2)?,
        category: report_category(&reason).to_string(),
        reason,
        description: r.get(4)?,
        priority: r.get(5)?,
        state: r.get(6)?,
        created_at: crate::db::rfc3339(r.get(7)?),
        resolved_at: r.get::<_, Option<i64>>(8)?.map(crate::db::rfc3339),
        resolution_note: r.get(9)?,
    })
}

const REPORT_COLUMNS: &str = "id, reporter_username, target_username, reason, description, priority, state, created_at, resolved_at, resolution_note";

/// Newest first, optionally of one state.
pub fn reports(
    conn: &Connection,
    state: Option<&str>,
    offset: u64,
    limit: u32,
) -> Result<(Vec<AbuseReport>, u64), ApiError> {
    let total: i64 =
        conn.query_row("SELECT COUNT(*) FROM abuse_reports WHERE ?1 IS NULL OR state = ?1", [state], |r| r.get(0))?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {REPORT_COLUMNS} FROM abuse_reports WHERE ?1 IS NULL OR state = ?1 ORDER BY id DESC LIMIT ?2 OFFSET ?3"
    ))?;
    let rows = stmt.query_map(params![state, limit, offset as i64], report_row)?;
    Ok((rows.collect::<Result<_, _>>()?, total as u64))
}

pub fn report(conn: &Connection, id: i64) -> Result<Option<AbuseReport>, ApiError> {
    Ok(conn
        .query_row(&format!("SELECT {REPORT_COLUMNS} FROM abuse_reports WHERE id = ?1"), [id], report_row)
        .optional()?)
}

/// Moves a report to `state`; resolved and dismissed keep when and why.
pub fn set_report_state(
    tx: &Transaction,
    id: i64,
    state: &str,
    note: Option<&str>,
    now: i64,
) -> Result<bool, ApiError> {
    let closed = matches!(state, "resolved" | "dismissed");
    let n = tx.execute(
        "UPDATE abuse_reports SET state = ?2, resolution_note = COALESCE(?3, resolution_note),
            resolved_at = CASE WHEN ?4 THEN ?5 ELSE NULL END WHERE id = ?1",
        params![id, state, note, closed, now],
    )?;
    Ok(n == 1)
}

pub fn open_reports(conn: &Connection) -> Result<u64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM abuse_reports WHERE state IN ('open', 'reviewing')", [], |r| {
        r.get::<_, i64>(0)
    })? as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(id: u64, outcome: &'static str) -> MemberOutcome {
        MemberOutcome { user_id: id, role_name: "Member".into(), role_rank: 1, outcome }
    }

    #[test]
    fn one_live_scan_per_group_and_a_redone_page_counts_nobody_twice() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let tx = conn.transaction().unwrap();
        let (a, new) = queue_scan(&tx, 7, "G", 3, "me", None, 1).unwrap();
        assert!(new);
        let (b, new) = queue_scan(&tx, 7, "G", 3, "you", None, 2).unwrap();
        assert!(!new);
        assert_eq!(a.id, b.id);
        assert!(
            tx.execute("INSERT INTO scans (group_id, scanned_by, state, created_at, updated_at) VALUES (7, 'x', 'running', 1, 1)", [])
                .is_err(),
            "the unique index refuses a second live scan"
        );
        mark_running(&tx, a.id, 3).unwrap();
        let page = [outcome(1, "veteran"), outcome(2, "newgen")];
        assert_eq!(record_page(&tx, a.id, 7, &page, Some("c1"), 4).unwrap(), 2);
        // the same page again (a crash before the cursor moved, or a repeating cursor)
        assert_eq!(record_page(&tx, a.id, 7, &page, Some("c1"), 5).unwrap(), 0);
        assert_eq!(record_page(&tx, a.id, 7, &[outcome(3, "failed")], None, 6).unwrap(), 1);
        let s = scan(&tx, a.id).unwrap().unwrap();
        assert_eq!((s.processed, s.veterans, s.newgens, s.failed, s.pages), (3, 1, 1, 1, 3));
        assert_eq!(s.cursor, None);
        note_once(&tx, a.id, "first").unwrap();
        note_once(&tx, a.id, "second").unwrap();
        assert!(finish(&tx, a.id, "completed", None, 7).unwrap());
        let s = scan(&tx, a.id).unwrap().unwrap();
        assert_eq!((s.state.as_str(), s.notice.as_deref()), ("completed", Some("first")));
        assert_eq!(
            record_page(&tx, a.id, 7, &[outcome(9, "veteran")], None, 8).unwrap(),
            0,
            "a finished scan takes no pages"
        );
        let (again, new) = queue_scan(&tx, 7, "G", 3, "me", None, 9).unwrap();
        assert!(new && again.id != a.id);
        assert_eq!(dashboard(&tx).unwrap(), (1, 2, 0, 3));
        tx.commit().unwrap();
    }

    #[test]
    fn search_takes_wildcards_literally() {
        assert_eq!(like_prefix("a_b%"), "a\\_b\\%%");
        let (_dir, mut conn) = crate::db::open_for_tests();
        let tx = conn.transaction().unwrap();
        for (id, name) in [(1u64, "Ab_c"), (2, "Abxc"), (3, "zed")] {
            let row = crate::roblox::store::PlayerRow {
                user_id: id,
                username: name.into(),
                display_name: name.into(),
                verified: false,
                banned: false,
                created: format!("201{id}-01-01T00:00:00Z"),
                generation: "OLDGEN".into(),
                classification: "Veteran".into(),
                is_newgen: false,
                is_veteran: true,
                elc_count: Some(id as u32),
                confidence: 80,
                checked_at: 1,
            };
            crate::roblox::store::upsert_player(&tx, &row).unwrap();
        }
        let hits = search_players(&tx, "ab_", 10).unwrap();
        assert_eq!(hits.iter().map(|p| p.username.as_str()).collect::<Vec<_>>(), vec!["Ab_c"]);
        let (page, total) = leaderboard(&tx, Some("OLDGEN"), Sort::Elc, 1, 1).unwrap();
        assert_eq!((page[0].username.as_str(), page[0].rank, total), ("Abxc", 2, 3));
        assert_eq!(leaderboard(&tx, Some("NEWGEN"), Sort::Elc, 0, 10).unwrap().1, 0);
        tx.commit().unwrap();
    }

    fn player(
        id: u64,
        generation: &str,
        elc: Option<u32>,
        created_year: u64,
        checked_at: i64,
    ) -> crate::roblox::store::PlayerRow {
        crate::roblox::store::PlayerRow {
            user_id: id,
            username: format!("P{id}"),
            display_name: format!("P{id}"),
            verified: false,
            banned: false,
            created: format!("{created_year}-01-01T00:00:00Z"),
            generation: generation.into(),
            classification: "Veteran".into(),
            is_newgen: generation == "NEWGEN",
            is_veteran: generation != "NEWGEN",
            elc_count: elc,
            confidence: 80,
            checked_at,
        }
    }

    #[test]
    fn the_counts_follow_every_change_and_pages_walk_each_order_without_overlap() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let tx = conn.transaction().unwrap();
        let generations = ["VETERAN", "OLDGEN", "MIDGEN", "NEWGEN"];
        // Many ties (same year, same ELC count, same check time), so only the user id orders them.
        for id in 1..=250u64 {
            let elc = if id % 5 == 0 { None } else { Some((id % 3) as u32) };
            let row = player(id, generations[(id % 4) as usize], elc, 2010 + id % 4, (id % 6) as i64);
            crate::roblox::store::upsert_player(&tx, &row).unwrap();
        }
        assert_eq!(player_count(&tx, None).unwrap(), 250);
        assert_eq!(player_count(&tx, Some("OLDGEN")).unwrap(), 63);
        // A player re-checked into another generation moves between the counts; a lookup without
        // award dates keeps the count an earlier one found.
        crate::roblox::store::upsert_player(&tx, &player(1, "NEWGEN", None, 2024, 9)).unwrap();
        assert_eq!((player_count(&tx, Some("OLDGEN")).unwrap(), player_count(&tx, Some("NEWGEN")).unwrap()), (62, 63));
        tx.execute("DELETE FROM players WHERE user_id = 2", []).unwrap();
        assert_eq!((player_count(&tx, None).unwrap(), player_count(&tx, Some("MIDGEN")).unwrap()), (249, 62));
        assert_eq!(player_count(&tx, Some("Nothing")).unwrap(), 0);

        for generation in [None, Some("OLDGEN")] {
            for sort in Sort::NAMES.map(|n| Sort::parse(n).unwrap()) {
                let mut expected: Vec<(i64, Option<u32>, String, i64)> = tx
                    .prepare("SELECT user_id, elc_count, created, checked_at FROM players WHERE ?1 IS NULL OR generation = ?1")
                    .unwrap()
                    .query_map([generation], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                expected.sort_by(|a, b| match sort {
                    // None sorts last: Option's order puts it first, so reverse.
                    Sort::Elc => b.1.cmp(&a.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)),
                    Sort::Oldest => a.2.cmp(&b.2).then(a.0.cmp(&b.0)),
                    Sort::Newest => b.2.cmp(&a.2).then(b.0.cmp(&a.0)),
                    Sort::Recent => b.3.cmp(&a.3).then(b.0.cmp(&a.0)),
                });
                let mut walked = Vec::new();
                for page in 0.. {
                    let (entries, total) = leaderboard(&tx, generation, sort, page * 7, 7).unwrap();
                    assert_eq!(total, expected.len() as u64);
                    if entries.is_empty() {
                        break;
                    }
                    for (i, e) in entries.iter().enumerate() {
                        assert_eq!(e.rank, page * 7 + i as u64 + 1);
                    }
                    walked.extend(entries.iter().map(|e| e.user_id));
                }
                let expected: Vec<u64> = expected.iter().map(|e| e.0 as u64).collect();
                assert_eq!(walked, expected, "{generation:?} {sort:?}");
                let ids = ranking_ids(&tx, generation, sort).unwrap();
                assert_eq!(ids.iter().map(|id| *id as u64).collect::<Vec<_>>(), expected, "{generation:?} {sort:?}");
                let (page, _) = leaderboard(&tx, generation, sort, 14, 7).unwrap();
                assert_eq!(players_in_order(&tx, &ids[14..21], 15).unwrap(), page, "{generation:?} {sort:?}");
            }
        }
        tx.commit().unwrap();
    }
}
