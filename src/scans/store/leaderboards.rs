//! The leaderboards and search over stored players and scanned groups, and group membership.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use utoipa::ToSchema;

use super::{Sort, player_count};
use crate::error::ApiError;
use crate::roblox::settings::{Classification, GenerationCode};
use crate::roblox::store::{self as roblox_store, PlayerRow, like_prefix};

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
    #[schema(format = DateTime)]
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
    #[schema(format = DateTime)]
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

/// The page of all stored players (optionally of one generation) that follows the player
/// `after_user_id`, ranked `after_rank + 1` on, and how many there are; None when that player
/// is no longer stored (see `roblox_store::players_after`).
pub fn leaderboard_after(
    conn: &Connection,
    generation: Option<&str>,
    sort: Sort,
    (after_rank, after_user_id): (u64, i64),
    limit: u32,
) -> Result<Option<(Vec<PlayerEntry>, u64)>, ApiError> {
    let total = player_count(conn, generation)?;
    let Some(rows) = roblox_store::players_after(conn, generation, sort, after_user_id, limit)? else {
        return Ok(None);
    };
    let players = rows.into_iter().zip(after_rank + 1..).map(|(p, rank)| PlayerEntry::of(p, rank, None)).collect();
    Ok(Some((players, total)))
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
    #[schema(schema_with = super::jobs::state_values)]
    pub last_scan_state: String,
}

/// Each scanned group's latest scan (the `scans_group` index gives each group's newest id) with
/// its member counts, kept by the triggers of migration 0020 (`group_member_counts`) instead of
/// counted over every member per request. Callers add a WHERE and the order.
const GROUP_SUMMARY: &str = "SELECT s.group_id, s.group_name,
        COALESCE(c.members, 0), COALESCE(c.veterans, 0), COALESCE(c.newgens, 0), s.id, s.state
    FROM (SELECT MAX(t.id) AS id FROM scans t GROUP BY t.group_id) latest
    JOIN scans s ON s.id = latest.id
    LEFT JOIN group_member_counts c ON c.group_id = s.group_id";

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

/// One scanned group's summary, if it was ever scanned.
pub fn group_summary_of(conn: &Connection, group_id: u64) -> Result<Option<GroupSummary>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!("{GROUP_SUMMARY} WHERE s.group_id = ?1"))?;
    Ok(stmt.query_row([group_id as i64], group_summary).optional()?)
}

/// Scanned groups whose name contains `q`, or whose id is `q`.
pub fn search_groups(conn: &Connection, q: &str, limit: u32) -> Result<Vec<GroupSummary>, ApiError> {
    let contains = format!("%{}", like_prefix(q));
    let id = q.parse::<i64>().unwrap_or(-1);
    let mut stmt = conn.prepare_cached(&format!(
        "{GROUP_SUMMARY} WHERE (s.group_name LIKE ?1 ESCAPE '\\' OR s.group_id = ?2) ORDER BY 3 DESC LIMIT ?3"
    ))?;
    let rows = stmt.query_map(params![contains, id, limit], group_summary)?;
    Ok(rows.collect::<Result<_, _>>()?)
}
