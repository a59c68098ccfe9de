//! The Roblox tables (migration 0005): the persisted lookup cache, `players`, and the badge
//! monitor's figures and snapshots.

mod badge_days;
mod budget_ledger;
mod player_events;
pub use badge_days::{
    BADGE_DAYS_KEPT, PolledDay, badge_days, first_badge_day, polled_days, prune_badge_days, record_day, utc_day,
};
pub use budget_ledger::{SavedWindow, reserve as reserve_budget, windows_since as budget_windows_since};
pub use player_events::{
    EVENT_KINDS, OwnedBadge, PlayerEvent, event, events_after, newest_event_id, player_events, record_player,
};

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::classify::{day_of, era_of};
use super::settings::{Classification, GenerationCode};
use crate::error::ApiError;

/// One row of `roblox_cache` to write.
#[derive(Clone, Debug)]
pub struct CacheRow {
    pub kind: &'static str,
    pub key: String,
    pub body: String,
    pub fetched_at: i64,
}

/// `(body, fetched_at)` of every cached row of `kind`s under `key`.
pub fn cache_rows(conn: &Connection, key: &str, kinds: &[&str]) -> Result<Vec<(String, String, i64)>, ApiError> {
    let mut stmt =
        conn.prepare_cached("SELECT kind, body, fetched_at FROM roblox_cache WHERE kind = ?1 AND key = ?2")?;
    let mut out = Vec::new();
    for kind in kinds {
        if let Some(row) = stmt
            .query_row(params![kind, key], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?))
            })
            .optional()?
        {
            out.push(row);
        }
    }
    Ok(out)
}

pub fn put_cache(tx: &Transaction, rows: &[CacheRow]) -> Result<(), ApiError> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO roblox_cache (kind, key, body, fetched_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (kind, key) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at",
    )?;
    for r in rows {
        stmt.execute(params![r.kind, r.key, r.body, r.fetched_at])?;
    }
    Ok(())
}

/// Drops at most `batch` of the cached answers fetched before `before_ms`, oldest first (on
/// `roblox_cache_age`).
pub fn prune_cache(tx: &Transaction, before_ms: i64, batch: usize) -> Result<usize, ApiError> {
    Ok(tx
        .prepare_cached(
            "DELETE FROM roblox_cache WHERE (kind, key) IN
                (SELECT kind, key FROM roblox_cache WHERE fetched_at < ?1 ORDER BY fetched_at LIMIT ?2)",
        )?
        .execute(params![before_ms, batch as i64])?)
}

pub fn clear_cache(tx: &Transaction) -> Result<usize, ApiError> {
    Ok(tx.execute("DELETE FROM roblox_cache", [])?)
}

/// A player as stored for the leaderboards.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerRow {
    pub user_id: u64,
    pub username: String,
    pub display_name: String,
    pub verified: bool,
    pub banned: bool,
    pub created: String,
    /// The generation code (VETERAN, OLDGEN, MIDGEN, NEWGEN); people see its era's name.
    pub generation: String,
    pub classification: String,
    pub is_newgen: bool,
    pub is_veteran: bool,
    /// None when the award dates were unavailable.
    pub elc_count: Option<u32>,
    pub confidence: u8,
    pub checked_at: i64,
}

pub fn upsert_player(tx: &Transaction, p: &PlayerRow) -> Result<(), ApiError> {
    tx.prepare_cached(
        "INSERT INTO players (user_id, username, display_name, verified, banned, created, generation, classification,
            is_newgen, is_veteran, elc_count, confidence, checked_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
         ON CONFLICT (user_id) DO UPDATE SET username = excluded.username, display_name = excluded.display_name,
            verified = excluded.verified, banned = excluded.banned, created = excluded.created,
            generation = excluded.generation, classification = excluded.classification,
            is_newgen = excluded.is_newgen, is_veteran = excluded.is_veteran,
            -- a lookup without award dates keeps the count an earlier one found
            elc_count = COALESCE(excluded.elc_count, players.elc_count),
            confidence = excluded.confidence, checked_at = excluded.checked_at",
    )?
    .execute(params![
        p.user_id as i64,
        p.username,
        p.display_name,
        p.verified,
        p.banned,
        p.created,
        p.generation,
        p.classification,
        p.is_newgen,
        p.is_veteran,
        p.elc_count,
        p.confidence,
        p.checked_at
    ])?;
    Ok(())
}

const PLAYER_COLUMNS: &str = "p.user_id, p.username, p.display_name, p.verified, p.banned, p.created, p.generation,
    p.classification, p.is_newgen, p.is_veteran, p.elc_count, p.confidence, p.checked_at";

/// The one row mapper of `players` (read as `players p` with `PLAYER_COLUMNS`).
fn player_from_row(r: &rusqlite::Row) -> rusqlite::Result<PlayerRow> {
    Ok(PlayerRow {
        user_id: r.get::<_, i64>(0)? as u64,
        username: r.get(1)?,
        display_name: r.get(2)?,
        verified: r.get(3)?,
        banned: r.get(4)?,
        created: r.get(5)?,
        generation: r.get(6)?,
        classification: r.get(7)?,
        is_newgen: r.get(8)?,
        is_veteran: r.get(9)?,
        elc_count: r.get(10)?,
        confidence: r.get(11)?,
        checked_at: r.get(12)?,
    })
}

pub fn player(conn: &Connection, user_id: u64) -> Result<Option<PlayerRow>, ApiError> {
    Ok(conn
        .query_row(
            &format!("SELECT {PLAYER_COLUMNS} FROM players p WHERE p.user_id = ?1"),
            [user_id as i64],
            player_from_row,
        )
        .optional()?)
}

/// The stored player with this username (any case) checked at or after `fresh_since_ms`, the
/// most recently checked when an old name is still stored for another account. Read through
/// the `players_username` index: the link cards ask it for every name a crawler opens.
pub fn fresh_player_by_name(
    conn: &Connection,
    username: &str,
    fresh_since_ms: i64,
) -> Result<Option<PlayerRow>, ApiError> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {PLAYER_COLUMNS} FROM players p WHERE p.username = ?1 COLLATE NOCASE AND p.checked_at >= ?2
             ORDER BY p.checked_at DESC LIMIT 1"
        ))?
        .query_row(params![username, fresh_since_ms], player_from_row)
        .optional()?)
}

/// How a ranking of stored players is ordered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sort {
    /// Most ELC badges first, then the oldest account.
    Elc,
    /// Oldest account first.
    Oldest,
    /// Newest account first.
    Newest,
    /// Most recently checked first.
    Recent,
}

impl Sort {
    pub const NAMES: [&'static str; 4] = ["elc", "oldest", "newest", "recent"];

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "elc" => Some(Self::Elc),
            "oldest" => Some(Self::Oldest),
            "newest" => Some(Self::Newest),
            "recent" => Some(Self::Recent),
            _ => None,
        }
    }

    /// The order, as it reads on `players p`. Each is an index's order (players_generation,
    /// players_elc, players_created, players_checked and their generation twins), ending in the
    /// rowid so pages never overlap.
    fn order_by(self) -> &'static str {
        match self {
            // NULL (award dates unknown) sorts last in DESC.
            Self::Elc => "p.elc_count DESC, p.created ASC, p.user_id ASC",
            Self::Oldest => "p.created ASC, p.user_id ASC",
            Self::Newest => "p.created DESC, p.user_id DESC",
            Self::Recent => "p.checked_at DESC, p.user_id DESC",
        }
    }
}

/// A number that changes with every write to players, group members or scans (triggers of
/// migration 0011): a page made at one version is current while the version stays.
pub fn ranking_version(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn.prepare_cached("SELECT version FROM ranking_version WHERE id = 1")?.query_row([], |r| r.get(0))?)
}

/// How many players are stored, of one generation or of all (kept by triggers, see migration 0009).
pub fn player_count(conn: &Connection, generation: Option<&str>) -> Result<u64, ApiError> {
    let n: i64 = conn
        .prepare_cached("SELECT COALESCE(SUM(players), 0) FROM player_counts WHERE ?1 IS NULL OR generation = ?1")?
        .query_row([generation], |r| r.get(0))?;
    Ok(n.max(0) as u64)
}

/// One page of all stored players in `sort`'s order, optionally of one generation. The page's
/// user ids are read from the order's index alone and only then joined to their rows, so a deep
/// page skips index entries, not table rows.
pub fn players_page(
    conn: &Connection,
    generation: Option<&str>,
    sort: Sort,
    offset: u64,
    limit: u32,
) -> Result<Vec<PlayerRow>, ApiError> {
    let filter = if generation.is_some() { "p.generation = ?3" } else { "?3 IS NULL" };
    let order = sort.order_by();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {PLAYER_COLUMNS} FROM (SELECT p.user_id FROM players p WHERE {filter} ORDER BY {order} LIMIT ?1 OFFSET ?2) page
         JOIN players p ON p.user_id = page.user_id ORDER BY {order}"
    ))?;
    let rows = stmt.query_map(params![limit, offset as i64, generation], player_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One page of stored players in `sort`'s order that follows the player `after_user_id` (the
/// last of the page before: a cursor), optionally of one generation. Read by key, not offset:
/// each part of the order is a range of its index (`WHERE (created, user_id) > (?, ?)`), so a
/// page deep in the ranking costs what the first one does. An ELC ranking is read in up to
/// three ranges: the rest of the cursor's count, the lower counts, then the players whose
/// count is unknown (NULL, last). None when that player is no longer stored.
pub fn players_after(
    conn: &Connection,
    generation: Option<&str>,
    sort: Sort,
    after_user_id: i64,
    limit: u32,
) -> Result<Option<Vec<PlayerRow>>, ApiError> {
    use rusqlite::types::Value;
    let Some(last) = players_by_id(conn, &[after_user_id])?.remove(&(after_user_id as u64)) else {
        return Ok(None);
    };
    let (elc, created, checked) = (last.elc_count.map(i64::from), Value::Text(last.created), last.checked_at);
    let id = Value::Integer(after_user_id);
    let ranges: Vec<(&str, Vec<Value>)> = match sort {
        Sort::Elc => match elc {
            Some(e) => vec![
                ("p.elc_count = ?3 AND (p.created, p.user_id) > (?4, ?5)", vec![e.into(), created, id]),
                ("p.elc_count < ?3", vec![e.into()]),
                ("p.elc_count IS NULL", vec![]),
            ],
            None => vec![("p.elc_count IS NULL AND (p.created, p.user_id) > (?3, ?4)", vec![created, id])],
        },
        Sort::Oldest => vec![("(p.created, p.user_id) > (?3, ?4)", vec![created, id])],
        Sort::Newest => vec![("(p.created, p.user_id) < (?3, ?4)", vec![created, id])],
        Sort::Recent => vec![("(p.checked_at, p.user_id) < (?3, ?4)", vec![checked.into(), id])],
    };
    let filter = if generation.is_some() { "p.generation = ?2" } else { "?2 IS NULL" };
    let mut page = Vec::with_capacity(limit as usize);
    for (range, values) in ranges {
        if page.len() >= limit as usize {
            break;
        }
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {PLAYER_COLUMNS} FROM players p WHERE {filter} AND {range} ORDER BY {} LIMIT ?1",
            sort.order_by()
        ))?;
        let head = [
            Value::Integer((limit as usize - page.len()) as i64),
            generation.map_or(Value::Null, |g| Value::Text(g.to_string())),
        ];
        let rows = stmt.query_map(rusqlite::params_from_iter(head.into_iter().chain(values)), player_from_row)?;
        for row in rows {
            page.push(row?);
        }
    }
    Ok(Some(page))
}

/// Every user id of one ranking (of one generation or all) in its order, read from the order's
/// index alone. A deep page is then a slice of it instead of an index walk of `offset` entries.
pub fn ranking_ids(conn: &Connection, generation: Option<&str>, sort: Sort) -> Result<Vec<i64>, ApiError> {
    let filter = if generation.is_some() { "p.generation = ?1" } else { "?1 IS NULL" };
    let mut stmt =
        conn.prepare_cached(&format!("SELECT p.user_id FROM players p WHERE {filter} ORDER BY {}", sort.order_by()))?;
    let ids = stmt.query_map([generation], |r| r.get(0))?.collect::<Result<_, _>>()?;
    Ok(ids)
}

/// How many ids `players_by_id` takes at once: a page.
pub const PLAYERS_BY_ID: usize = 100;

/// The stored players among these ids (at most `PLAYERS_BY_ID`), by user id. One statement for
/// any page: its places hold the ids, NULL where a page is shorter.
pub fn players_by_id(conn: &Connection, ids: &[i64]) -> Result<HashMap<u64, PlayerRow>, ApiError> {
    assert!(ids.len() <= PLAYERS_BY_ID, "a page is at most {PLAYERS_BY_ID} players");
    let places = (1..=PLAYERS_BY_ID).map(|i| format!("?{i}")).collect::<Vec<_>>().join(",");
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {PLAYER_COLUMNS} FROM players p WHERE p.user_id IN ({places})"))?;
    let values = (0..PLAYERS_BY_ID).map(|i| ids.get(i).copied());
    let found = stmt
        .query_map(rusqlite::params_from_iter(values), player_from_row)?
        .map(|p| p.map(|p| (p.user_id, p)))
        .collect::<Result<_, _>>()?;
    Ok(found)
}

/// `%`, `_` and `\` taken literally in a LIKE pattern (with `ESCAPE '\'`).
pub fn like_prefix(q: &str) -> String {
    let mut out = String::with_capacity(q.len() + 1);
    for c in q.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// Stored players whose username or display name starts with `q` (LIKE's case folding: ASCII
/// letters only), the shortest username first, then by username. Read length by length through
/// the search indexes of migration 0020 (each length two range reads of index entries alone),
/// stopping once `limit` are found: a one-letter query costs what a rare name costs.
pub fn search_players(conn: &Connection, q: &str, limit: u32) -> Result<Vec<PlayerRow>, ApiError> {
    let limit = (limit as usize).min(PLAYERS_BY_ID);
    let pattern = like_prefix(q);
    let mut next_length =
        conn.prepare_cached("SELECT MIN(length(p.username)) FROM players p WHERE length(p.username) > ?1")?;
    let mut of_length = conn.prepare_cached(
        "SELECT p.user_id, p.username FROM players p WHERE length(p.username) = ?2 AND p.username LIKE ?1 ESCAPE '\\'
         UNION
         SELECT p.user_id, p.username FROM players p WHERE length(p.username) = ?2 AND p.display_name LIKE ?1 ESCAPE '\\'
         ORDER BY 2, 1 LIMIT ?3",
    )?;
    let mut ids: Vec<i64> = Vec::with_capacity(limit);
    let mut length = -1i64;
    while ids.len() < limit {
        let Some(next) = next_length.query_row([length], |r| r.get::<_, Option<i64>>(0))? else { break };
        length = next;
        let found = of_length.query_map(params![pattern, length, (limit - ids.len()) as i64], |r| r.get(0))?;
        for id in found {
            ids.push(id?);
        }
    }
    let mut found = players_by_id(conn, &ids)?;
    Ok(ids.iter().filter_map(|id| found.remove(&(*id as u64))).collect())
}

/// Rewrites stored players whose `generation` is not a generation code (rows stored when the
/// column held the era's name): a name an era still has (any case) becomes that era's code, any
/// other is decided again from the join date. The values present are read from `player_counts`
/// (kept by triggers), so a database already holding codes costs one small read. Returns the
/// number of players rewritten.
pub fn recode_generations(tx: &Transaction, rules: &Classification) -> Result<usize, ApiError> {
    let stale: Vec<String> = tx
        .prepare("SELECT generation FROM player_counts WHERE players > 0")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?
        .into_iter()
        .filter(|g| GenerationCode::parse(g).is_none())
        .collect();
    let mut changed = 0;
    for old in &stale {
        if let Some(era) = rules.generations.iter().find(|g| g.name.eq_ignore_ascii_case(old)) {
            changed += tx
                .execute("UPDATE players SET generation = ?1 WHERE generation = ?2", params![era.code.as_str(), old])?;
            continue;
        }
        let players: Vec<(i64, String)> = tx
            .prepare("SELECT user_id, created FROM players WHERE generation = ?1")?
            .query_map([old], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?;
        let mut update = tx.prepare_cached("UPDATE players SET generation = ?1 WHERE user_id = ?2")?;
        for (user_id, created) in players {
            changed += update.execute(params![era_of(rules, &day_of(&created)).code.as_str(), user_id])?;
        }
    }
    tx.execute("DELETE FROM player_counts WHERE players <= 0", [])?;
    Ok(changed)
}

/// The admin dashboard's "ELC badges found": ELC badges owned, summed over the players looked up
/// (kept by the triggers of migration 0020: a sum over every player grew with the site).
pub fn elc_badges_found(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT elc_badges FROM player_elc_total WHERE id = 1", [], |r| r.get(0))?)
}

/// The latest figures of one badge.
#[derive(Clone, Debug, PartialEq)]
pub struct BadgeRow {
    pub badge_id: u64,
    pub name: String,
    pub description: String,
    pub image_url: Option<String>,
    /// Alternative pictures tried in order when `image_url` fails; empty until Roblox gave some.
    pub image_fallbacks: Vec<String>,
    pub win_rate: f64,
    pub awarded_count: i64,
    pub past_day: i64,
    pub updated_at: i64,
}

/// Saves one poll: the latest figures and the day's figures of each badge (two rows written by
/// key, nothing read back: the writer is held for a few milliseconds whatever the history).
pub fn save_poll(tx: &Transaction, badges: &[BadgeRow]) -> Result<(), ApiError> {
    let mut info = tx.prepare_cached(
        "INSERT INTO badge_info (badge_id, name, description, image_url, win_rate, awarded_count, past_day, updated_at,
            image_fallbacks)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT (badge_id) DO UPDATE SET name = excluded.name, description = excluded.description,
            image_url = COALESCE(excluded.image_url, badge_info.image_url),
            image_fallbacks = COALESCE(excluded.image_fallbacks, badge_info.image_fallbacks), win_rate = excluded.win_rate,
            awarded_count = excluded.awarded_count, past_day = excluded.past_day, updated_at = excluded.updated_at",
    )?;
    for b in badges {
        info.execute(params![
            b.badge_id as i64,
            b.name,
            b.description,
            b.image_url,
            b.win_rate,
            b.awarded_count,
            b.past_day,
            b.updated_at,
            (!b.image_fallbacks.is_empty()).then(|| serde_json::to_string(&b.image_fallbacks).unwrap_or_default()),
        ])?;
        record_day(tx, b.badge_id, b.updated_at, b.awarded_count, b.past_day)?;
    }
    Ok(())
}

/// Every badge with stored figures.
pub fn all_badge_ids(conn: &Connection) -> Result<Vec<u64>, ApiError> {
    let mut stmt = conn.prepare_cached("SELECT badge_id FROM badge_info ORDER BY badge_id")?;
    let rows = stmt.query_map([], |r| Ok(r.get::<_, i64>(0)? as u64))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn badges(conn: &Connection, ids: &[u64]) -> Result<Vec<BadgeRow>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT badge_id, name, description, image_url, win_rate, awarded_count, past_day, updated_at, image_fallbacks
         FROM badge_info WHERE badge_id = ?1",
    )?;
    let mut out = Vec::new();
    for id in ids {
        if let Some(row) = stmt
            .query_row([*id as i64], |r| {
                Ok(BadgeRow {
                    badge_id: r.get::<_, i64>(0)? as u64,
                    name: r.get(1)?,
                    description: r.get(2)?,
                    image_url: r.get(3)?,
                    image_fallbacks: r
                        .get::<_, Option<String>>(8)?
                        .and_then(|json| serde_json::from_str(&json).ok())
                        .unwrap_or_default(),
                    win_rate: r.get(4)?,
                    awarded_count: r.get(5)?,
                    past_day: r.get(6)?,
                    updated_at: r.get(7)?,
                })
            })
            .optional()?
        {
            out.push(row);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64, elc: Option<u32>) -> PlayerRow {
        PlayerRow {
            user_id: id,
            username: format!("p{id}"),
            display_name: "P".into(),
            verified: false,
            banned: false,
            created: "2015-01-01T00:00:00Z".into(),
            generation: "OLDGEN".into(),
            classification: "Veteran".into(),
            is_newgen: false,
            is_veteran: true,
            elc_count: elc,
            confidence: 80,
            checked_at: 1,
        }
    }

    #[test]
    fn stored_era_names_become_codes_with_their_counts() {
        let mut rules = Classification::default();
        rules.generations.insert(
            0,
            crate::roblox::settings::Generation {
                name: "OG".into(),
                code: GenerationCode::Veteran,
                joined_before: Some("2013-01-01".into()),
                classification: "Veteran".into(),
                veteran: true,
                newgen: false,
            },
        );
        let (_dir, mut conn) = crate::db::open_for_tests();
        let tx = conn.transaction().unwrap();
        // As stored before: era names (one in another case, one no era has any more) and a code.
        for (id, generation, created) in [
            (1, "OG", "2010-01-01T00:00:00Z"),
            (2, "Oldgen", "2015-01-01T00:00:00Z"),
            (3, "oldgen", "2016-01-01T00:00:00Z"),
            (4, "Midgen", "2019-01-01T00:00:00Z"),
            (5, "Ancient", "2012-06-01T00:00:00.1234567Z"),
            (6, "Ancient", "2022-06-01T00:00:00Z"),
            (7, "NEWGEN", "2023-06-01T00:00:00Z"),
        ] {
            upsert_player(&tx, &PlayerRow { generation: generation.into(), created: created.into(), ..row(id, None) })
                .unwrap();
        }
        assert_eq!(recode_generations(&tx, &rules).unwrap(), 6);
        let generation = |id: u64| player(&tx, id).unwrap().unwrap().generation;
        assert_eq!(
            (1..=7).map(generation).collect::<Vec<_>>(),
            ["VETERAN", "OLDGEN", "OLDGEN", "MIDGEN", "VETERAN", "NEWGEN", "NEWGEN"]
        );
        let counts: Vec<(String, i64)> = tx
            .prepare("SELECT generation, players FROM player_counts ORDER BY generation")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let expected = [("MIDGEN", 1), ("NEWGEN", 2), ("OLDGEN", 2), ("VETERAN", 2)];
        assert_eq!(counts, expected.map(|(g, n)| (g.to_string(), n)));
        assert_eq!(recode_generations(&tx, &rules).unwrap(), 0, "codes stay as they are");
    }

    #[test]
    fn players_upsert_keeps_a_known_elc_count_and_sums_for_the_dashboard() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let tx = conn.transaction().unwrap();
        upsert_player(&tx, &row(1, Some(2))).unwrap();
        upsert_player(&tx, &row(2, Some(3))).unwrap();
        upsert_player(&tx, &row(1, None)).unwrap();
        assert_eq!(player(&tx, 1).unwrap().unwrap().elc_count, Some(2));
        assert_eq!(elc_badges_found(&tx).unwrap(), 5);
        put_cache(&tx, &[CacheRow { kind: "profile", key: "1".into(), body: "{}".into(), fetched_at: 5 }]).unwrap();
        assert_eq!(cache_rows(&tx, "1", &["profile", "thumb"]).unwrap(), vec![("profile".into(), "{}".into(), 5)]);
        assert_eq!(prune_cache(&tx, 6, 10).unwrap(), 1);
        for key in 0..5 {
            put_cache(&tx, &[CacheRow { kind: "thumb", key: key.to_string(), body: "{}".into(), fetched_at: key }])
                .unwrap();
        }
        assert_eq!(prune_cache(&tx, 4, 3).unwrap(), 3, "a batch is at most 3, the oldest first");
        assert_eq!(cache_rows(&tx, "2", &["thumb"]).unwrap(), vec![], "fetched at 2: gone");
        assert_eq!(prune_cache(&tx, 4, 3).unwrap(), 1, "fetched at 3, the last before 4");
        assert_eq!(cache_rows(&tx, "4", &["thumb"]).unwrap().len(), 1);
        let plan: String = tx
            .query_row(
                "EXPLAIN QUERY PLAN SELECT kind, key FROM roblox_cache WHERE fetched_at < 4 ORDER BY fetched_at LIMIT 3",
                [],
                |r| r.get(3),
            )
            .unwrap();
        assert!(plan.contains("roblox_cache_age"), "{plan}");
        tx.commit().unwrap();
    }

    #[test]
    fn a_fresh_player_is_found_by_name_in_any_case_and_a_stale_one_is_not() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let tx = conn.transaction().unwrap();
        upsert_player(&tx, &PlayerRow { username: "OldBuilder".into(), checked_at: 1_000, ..row(1, Some(2)) }).unwrap();
        // An old name kept by a renamed account, checked earlier.
        upsert_player(&tx, &PlayerRow { username: "oldbuilder".into(), checked_at: 500, ..row(2, None) }).unwrap();
        let found = fresh_player_by_name(&tx, "OLDBUILDER", 400).unwrap().unwrap();
        assert_eq!((found.user_id, found.username.as_str()), (1, "OldBuilder"), "the most recent check");
        assert_eq!(fresh_player_by_name(&tx, "oldbuilder", 1_001).unwrap(), None, "checked too long ago");
        assert_eq!(fresh_player_by_name(&tx, "nobody", 0).unwrap(), None);
        let plan: String = tx
            .query_row(
                "EXPLAIN QUERY PLAN SELECT user_id FROM players p WHERE p.username = 'x' COLLATE NOCASE AND p.checked_at >= 0",
                [],
                |r| r.get(3),
            )
            .unwrap();
        assert!(plan.contains("players_username"), "{plan}");
    }

    /// Pages the connection's page cache handed out (hits and misses) since the last call.
    fn pages_touched(conn: &Connection) -> i64 {
        let (mut hit, mut miss, mut high) = (0, 0, 0);
        // SAFETY: the handle is the live connection's; sqlite3_db_status only reads its counters.
        unsafe {
            let db = conn.handle();
            rusqlite::ffi::sqlite3_db_status(db, rusqlite::ffi::SQLITE_DBSTATUS_CACHE_HIT, &mut hit, &mut high, 1);
            rusqlite::ffi::sqlite3_db_status(db, rusqlite::ffi::SQLITE_DBSTATUS_CACHE_MISS, &mut miss, &mut high, 1);
        }
        i64::from(hit) + i64::from(miss)
    }

    #[test]
    fn a_poll_writes_by_key_and_reads_no_history_however_long() {
        const BADGES: i64 = 50;
        const DAY: i64 = 86_400_000;
        let (_dir, mut conn) = crate::db::open_for_tests();
        let history = |conn: &Connection, days: i64| {
            conn.execute(
                "WITH RECURSIVE d(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM d WHERE n < ?2),
                      b(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM b WHERE id < ?1)
                 INSERT OR IGNORE INTO badge_days (badge_id, day, awarded, total, taken_at)
                 SELECT id, strftime('%Y-%m-%d', (1000 - n) * 86400, 'unixepoch'), 5, n, (1000 - n) * ?3 FROM b, d",
                params![BADGES, days, DAY],
            )
            .unwrap();
        };
        let poll = |conn: &mut Connection, at: i64| {
            let rows: Vec<BadgeRow> = (1..=BADGES as u64)
                .map(|id| BadgeRow {
                    badge_id: id,
                    name: format!("B{id}"),
                    description: String::new(),
                    image_url: None,
                    image_fallbacks: Vec::new(),
                    win_rate: 0.1,
                    awarded_count: at,
                    past_day: 3,
                    updated_at: at,
                })
                .collect();
            let tx = conn.transaction().unwrap();
            pages_touched(&tx);
            save_poll(&tx, &rows).unwrap();
            let touched = pages_touched(&tx);
            tx.commit().unwrap();
            touched
        };
        let scan = |conn: &Connection| {
            pages_touched(conn);
            conn.query_row("SELECT MAX(total) FROM badge_days WHERE awarded >= 0", [], |r| r.get::<_, i64>(0)).unwrap();
            pages_touched(conn)
        };
        history(&conn, 10);
        poll(&mut conn, 1000 * DAY);
        let (short_poll, short_scan) = (poll(&mut conn, 1000 * DAY + 60_000), scan(&conn));
        history(&conn, 1000);
        poll(&mut conn, 1000 * DAY + 120_000);
        let (long_poll, long_scan) = (poll(&mut conn, 1000 * DAY + 180_000), scan(&conn));
        eprintln!("pages a poll of {BADGES} badges touched: {short_poll} (10 days kept), {long_poll} (1000 days)");
        eprintln!("pages a scan of badge_days touched: {short_scan} (10 days), {long_scan} (1000 days)");
        assert!(long_scan - short_scan > 3 * BADGES, "the measure sees a read that grows with the history");
        assert!(
            long_poll - short_poll <= 3 * BADGES,
            "a poll's write grew with the history kept: {short_poll} -> {long_poll} pages"
        );
        assert!(long_poll <= 12 * BADGES, "a poll's write touched {long_poll} pages for {BADGES} badges");
    }

    #[test]
    fn polls_keep_latest_figures_and_history() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let tx = conn.transaction().unwrap();
        let b = |at: i64, count: i64| BadgeRow {
            badge_id: 7,
            name: "B".into(),
            description: String::new(),
            image_url: None,
            image_fallbacks: vec!["https://tr.rbxcdn.com/a/150/150/Image/Png".into()],
            win_rate: 0.1,
            awarded_count: count,
            past_day: 3,
            updated_at: at,
        };
        save_poll(&tx, &[b(1000, 10)]).unwrap();
        let unasked = BadgeRow { image_fallbacks: Vec::new(), ..b(2000, 15) };
        save_poll(&tx, &[unasked]).unwrap();
        assert_eq!(
            badges(&tx, &[7, 8]).unwrap(),
            vec![b(2000, 15)],
            "a poll that did not ask keeps the stored fallbacks"
        );
        let days = polled_days(&tx, 7, "1970-01-01").unwrap();
        assert_eq!(days.len(), 1, "one day, its last poll");
        assert_eq!((days[0].taken_at, days[0].point.awarded_count, days[0].point.past_day), (2000, 15, 3));
        tx.commit().unwrap();
    }
}
