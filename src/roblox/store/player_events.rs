//! What the site noticed about each player over time (`player_events`): first seen, name and
//! display-name changes, each ELC badge with its award date, classification changes. Written only
//! by [`record_player`], in the transaction that stores the player, and only when something
//! changed, so a player checked a thousand times without change costs no row.

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;
use utoipa::ToSchema;

use super::{PlayerRow, player, upsert_player};
use crate::error::ApiError;

/// An ELC badge a lookup found the player owning.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnedBadge {
    pub badge_id: u64,
    pub name: String,
    /// RFC 3339 as Roblox gave it.
    pub awarded_date: String,
}

/// The kinds of change, as stored and as the API names them.
pub const EVENT_KINDS: [&str; 5] = ["first_seen", "username", "display_name", "elc_badge", "classification"];

/// One thing the site noticed about a player.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct PlayerEvent {
    /// Rises with each event the site notices (of any player).
    pub id: i64,
    pub user_id: u64,
    /// `first_seen`, `username`, `display_name`, `elc_badge` or `classification`.
    #[schema(schema_with = event_kinds)]
    pub kind: String,
    /// The old name or classification (name and classification changes).
    pub before: Option<String>,
    /// The new name or classification; the badge's name (`elc_badge`); the username (`first_seen`).
    pub after: Option<String>,
    pub badge_id: Option<u64>,
    /// Roblox's award date of the badge (`elc_badge`).
    #[schema(format = DateTime)]
    pub awarded_at: Option<String>,
    /// True for a badge the player already owned when the site first read their award dates:
    /// history, not news (no alert is sent for it).
    pub baseline: bool,
    /// When the site noticed it.
    #[schema(format = DateTime)]
    pub noticed_at: String,
}

fn event_kinds() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&EVENT_KINDS)
}

const EVENT_COLUMNS: &str = "id, user_id, kind, before, after, badge_id, awarded_at, baseline, noticed_at";

fn event_from_row(r: &rusqlite::Row) -> rusqlite::Result<PlayerEvent> {
    Ok(PlayerEvent {
        id: r.get(0)?,
        user_id: r.get::<_, i64>(1)? as u64,
        kind: r.get(2)?,
        before: r.get(3)?,
        after: r.get(4)?,
        badge_id: r.get::<_, Option<i64>>(5)?.map(|b| b as u64),
        awarded_at: r.get(6)?,
        baseline: r.get(7)?,
        noticed_at: crate::db::rfc3339(r.get(8)?),
    })
}

fn insert(
    tx: &Transaction,
    user_id: u64,
    kind: &str,
    before: Option<&str>,
    after: Option<&str>,
    noticed_at: i64,
) -> Result<usize, ApiError> {
    Ok(tx
        .prepare_cached(
            "INSERT INTO player_events (user_id, kind, before, after, noticed_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![user_id as i64, kind, before, after, noticed_at])?)
}

/// Stores the player `p` (as [`upsert_player`]) and writes an event for each change since the
/// stored row: `first_seen` for a player new to the site, `username`, `display_name`,
/// `classification` (only when this lookup read the award dates: a classification made without
/// them is a guess, not a change), and one `elc_badge` per badge of `badges` not recorded yet.
/// `badges` is None when the award dates were unavailable. Returns the events written.
pub fn record_player(tx: &Transaction, p: &PlayerRow, badges: Option<&[OwnedBadge]>) -> Result<usize, ApiError> {
    let old = player(tx, p.user_id)?;
    let at = p.checked_at;
    let mut written = 0;
    match &old {
        None => written += insert(tx, p.user_id, "first_seen", None, Some(&p.username), at)?,
        Some(old) => {
            if old.username != p.username {
                written += insert(tx, p.user_id, "username", Some(&old.username), Some(&p.username), at)?;
            }
            if old.display_name != p.display_name {
                written += insert(tx, p.user_id, "display_name", Some(&old.display_name), Some(&p.display_name), at)?;
            }
            if p.elc_count.is_some() && old.classification != p.classification {
                written +=
                    insert(tx, p.user_id, "classification", Some(&old.classification), Some(&p.classification), at)?;
            }
        }
    }
    if let Some(badges) = badges {
        // Owned badges are news only when the site had read this player's award dates before
        // and recorded them: at first sight, after award dates that were never readable, and for
        // players stored before this history existed, they are the player's past.
        let recorded: i64 = tx.query_row(
            "SELECT COUNT(*) FROM player_events WHERE user_id = ?1 AND kind = 'elc_badge'",
            [p.user_id as i64],
            |r| r.get(0),
        )?;
        let baseline = match &old {
            None => true,
            Some(old) => match old.elc_count {
                None => true,
                Some(n) => n > 0 && recorded == 0,
            },
        };
        let mut stmt = tx.prepare_cached(
            "INSERT OR IGNORE INTO player_events (user_id, kind, after, badge_id, awarded_at, baseline, noticed_at)
             VALUES (?1, 'elc_badge', ?2, ?3, ?4, ?5, ?6)",
        )?;
        for b in badges {
            written +=
                stmt.execute(params![p.user_id as i64, b.name, b.badge_id as i64, b.awarded_date, baseline, at])?;
        }
    }
    upsert_player(tx, p)?;
    Ok(written)
}

/// A player's events, newest first (at most `limit`).
pub fn player_events(conn: &Connection, user_id: u64, limit: usize) -> Result<Vec<PlayerEvent>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {EVENT_COLUMNS} FROM player_events WHERE user_id = ?1 ORDER BY id DESC LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![user_id as i64, limit as i64], event_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Events of any player after `after_id`, oldest first (at most `limit`): the alerts' fan-out.
pub fn events_after(conn: &Connection, after_id: i64, limit: usize) -> Result<Vec<PlayerEvent>, ApiError> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {EVENT_COLUMNS} FROM player_events WHERE id > ?1 ORDER BY id LIMIT ?2"))?;
    let rows = stmt.query_map(params![after_id, limit as i64], event_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One event by id.
pub fn event(conn: &Connection, id: i64) -> Result<Option<PlayerEvent>, ApiError> {
    Ok(conn
        .prepare_cached(&format!("SELECT {EVENT_COLUMNS} FROM player_events WHERE id = ?1"))?
        .query_row([id], event_from_row)
        .optional()?)
}

/// The newest event id there is (0: none).
pub fn newest_event_id(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COALESCE(MAX(id), 0) FROM player_events", [], |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, classification: &str, elc: Option<u32>, at: i64) -> PlayerRow {
        PlayerRow {
            user_id: 7,
            username: name.into(),
            display_name: name.into(),
            verified: false,
            banned: false,
            created: "2015-01-01T00:00:00Z".into(),
            generation: "OLDGEN".into(),
            classification: classification.into(),
            is_newgen: false,
            is_veteran: false,
            elc_count: elc,
            confidence: 90,
            checked_at: at,
        }
    }

    fn badge(id: u64) -> OwnedBadge {
        OwnedBadge { badge_id: id, name: format!("ELC Badge {id}"), awarded_date: "2016-03-01T10:00:00Z".into() }
    }

    fn kinds(conn: &Connection) -> Vec<(String, bool)> {
        let mut events = player_events(conn, 7, 100).unwrap();
        events.reverse();
        events.into_iter().map(|e| (e.kind, e.baseline)).collect()
    }

    #[test]
    fn changes_are_written_once_and_nothing_when_nothing_changed() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let write = |conn: &mut Connection, p: PlayerRow, badges: Option<Vec<OwnedBadge>>| {
            let tx = conn.transaction().unwrap();
            let n = record_player(&tx, &p, badges.as_deref()).unwrap();
            tx.commit().unwrap();
            n
        };
        // First sight: first_seen, and the badge owned then is the player's past.
        assert_eq!(write(&mut conn, row("Alpha", "Oldgen", Some(1), 1000), Some(vec![badge(1)])), 2);
        assert_eq!(kinds(&conn), [("first_seen".into(), false), ("elc_badge".into(), true)]);
        // The same again: nothing.
        assert_eq!(write(&mut conn, row("Alpha", "Oldgen", Some(1), 2000), Some(vec![badge(1)])), 0);
        // A new badge, a new name, a new classification.
        assert_eq!(write(&mut conn, row("Beta", "Veteran", Some(2), 3000), Some(vec![badge(1), badge(2)])), 4);
        let events = player_events(&conn, 7, 100).unwrap();
        let new_badge = events.iter().find(|e| e.badge_id == Some(2)).unwrap();
        assert!(!new_badge.baseline);
        assert_eq!(new_badge.awarded_at.as_deref(), Some("2016-03-01T10:00:00Z"));
        let renamed = events.iter().find(|e| e.kind == "username").unwrap();
        assert_eq!((renamed.before.as_deref(), renamed.after.as_deref()), (Some("Alpha"), Some("Beta")));
        let reclassified = events.iter().find(|e| e.kind == "classification").unwrap();
        assert_eq!((reclassified.before.as_deref(), reclassified.after.as_deref()), (Some("Oldgen"), Some("Veteran")));
        // Award dates unavailable: no classification change is claimed, no badge is lost.
        assert_eq!(write(&mut conn, row("Beta", "Newgen", None, 4000), None), 0);
        assert_eq!(player(&conn, 7).unwrap().unwrap().elc_count, Some(2));
    }

    #[test]
    fn badges_first_read_after_refusals_or_from_before_the_history_are_the_past() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let tx = conn.transaction().unwrap();
        record_player(&tx, &row("Alpha", "Oldgen", None, 1000), None).unwrap();
        // The award dates become readable: what is owned then is not news.
        record_player(&tx, &row("Alpha", "Oldgen", Some(1), 2000), Some(&[badge(1)])).unwrap();
        // A player stored with a count before events existed.
        let mut other = row("Gamma", "Oldgen", Some(2), 1000);
        other.user_id = 8;
        upsert_player(&tx, &other).unwrap();
        other.checked_at = 2000;
        record_player(&tx, &other, Some(&[badge(1), badge(2)])).unwrap();
        // A player known to own none who earns one: news.
        let mut fresh = row("Delta", "Oldgen", Some(0), 1000);
        fresh.user_id = 9;
        record_player(&tx, &fresh, Some(&[])).unwrap();
        fresh.elc_count = Some(1);
        record_player(&tx, &fresh, Some(&[badge(3)])).unwrap();
        tx.commit().unwrap();
        assert!(player_events(&conn, 7, 10).unwrap().iter().filter(|e| e.kind == "elc_badge").all(|e| e.baseline));
        assert!(player_events(&conn, 8, 10).unwrap().iter().all(|e| e.baseline));
        let earned: Vec<_> =
            player_events(&conn, 9, 10).unwrap().into_iter().filter(|e| e.kind == "elc_badge").collect();
        assert_eq!(earned.len(), 1);
        assert!(!earned[0].baseline);
        assert_eq!(events_after(&conn, 0, 100).unwrap().len(), newest_event_id(&conn).unwrap() as usize);
    }
}
