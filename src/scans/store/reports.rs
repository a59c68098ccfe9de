//! Abuse reports.

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;

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
    #[schema(schema_with = category_values)]
    pub category: String,
    pub description: String,
    #[schema(schema_with = priority_values)]
    pub priority: String,
    /// open, reviewing, resolved, dismissed.
    #[schema(schema_with = state_values)]
    pub state: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub resolved_at: Option<String>,
    pub resolution_note: Option<String>,
}

/// The priorities a report may be given (`medium` when none is).
pub const PRIORITIES: [&str; 4] = ["low", "medium", "high", "urgent"];

fn priority_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&PRIORITIES)
}

fn category_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&REPORT_CATEGORIES)
}

fn state_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&crate::scans::admin::REPORT_STATES)
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

/// One page of reports, newest first, of one state when given, older than the id `before` when
/// given; with the total of that state and the id the next page starts before (none after the last).
pub fn reports(
    conn: &Connection,
    state: Option<&str>,
    before: Option<i64>,
    limit: u32,
) -> Result<(Vec<AbuseReport>, u64, Option<i64>), ApiError> {
    let before = before.unwrap_or(i64::MAX);
    let fetch = i64::from(limit) + 1;
    // One statement per case: `?1 IS NULL OR state = ?1` is answered by no index.
    let (total, mut rows): (i64, Vec<AbuseReport>) = match state {
        Some(state) => {
            let total = conn.query_row("SELECT COUNT(*) FROM abuse_reports WHERE state = ?1", [state], |r| r.get(0))?;
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {REPORT_COLUMNS} FROM abuse_reports WHERE state = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3"
            ))?;
            let rows = stmt.query_map(params![state, before, fetch], report_row)?.collect::<Result<_, _>>()?;
            (total, rows)
        }
        None => {
            let total = conn.query_row("SELECT COUNT(*) FROM abuse_reports", [], |r| r.get(0))?;
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {REPORT_COLUMNS} FROM abuse_reports WHERE id < ?1 ORDER BY id DESC LIMIT ?2"
            ))?;
            let rows = stmt.query_map(params![before, fetch], report_row)?.collect::<Result<_, _>>()?;
            (total, rows)
        }
    };
    let next = if rows.len() > limit as usize {
        rows.truncate(limit as usize);
        rows.last().map(|r| r.id)
    } else {
        None
    };
    Ok((rows, total as u64, next))
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

/// Deletes at most `batch` reports resolved or dismissed before `closed_before` (on
/// `abuse_reports_closed`), oldest first. Returns how many.
pub fn prune_closed_reports(tx: &Transaction, closed_before: i64, batch: usize) -> Result<usize, ApiError> {
    Ok(tx
        .prepare_cached(
            "DELETE FROM abuse_reports WHERE id IN (SELECT id FROM abuse_reports
               WHERE resolved_at IS NOT NULL AND resolved_at < ?1 ORDER BY resolved_at LIMIT ?2)",
        )?
        .execute(params![closed_before, batch as i64])?)
}
