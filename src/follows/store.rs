//! The follows' tables (migration 0017): `follows`, `alert_webhooks`, `alert_outbox` and
//! `alert_progress`. `player_events` is read here, written by the Roblox feature.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::error::ApiError;
use crate::roblox::store::PlayerEvent;

/// One followed player of an account.
#[derive(Clone, Debug, PartialEq)]
pub struct FollowRow {
    pub player_id: u64,
    pub followed_at: i64,
    /// The newest of the player's events the fan has seen.
    pub seen_event_id: i64,
}

/// Why a follow was refused.
pub const FOLLOW_LIMIT: &str = "You follow the most players an account may follow.";

/// Follows `player` for `account`; the player's events so far count as seen. True when the
/// follow is new (following twice is one follow). Refused (409) past `max` follows.
pub fn follow(tx: &Transaction, account: i64, player: u64, now: i64, max: u32) -> Result<bool, ApiError> {
    let already: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM follows WHERE account_id = ?1 AND player_id = ?2)",
        params![account, player as i64],
        |r| r.get(0),
    )?;
    if already {
        return Ok(false);
    }
    let count: i64 = tx.query_row("SELECT COUNT(*) FROM follows WHERE account_id = ?1", [account], |r| r.get(0))?;
    if count >= max as i64 {
        return Err(ApiError::conflict(FOLLOW_LIMIT)
            .with_message(format!("An account may follow {max} players: unfollow one to follow another.")));
    }
    tx.execute(
        "INSERT INTO follows (account_id, player_id, followed_at, seen_event_id)
         VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(id), 0) FROM player_events WHERE user_id = ?2))",
        params![account, player as i64, now],
    )?;
    Ok(true)
}

/// True when the account followed the player.
pub fn unfollow(conn: &Connection, account: i64, player: u64) -> Result<bool, ApiError> {
    Ok(conn.execute("DELETE FROM follows WHERE account_id = ?1 AND player_id = ?2", params![account, player as i64])?
        > 0)
}

/// An account's follows, the most recently followed first.
pub fn follows_of(conn: &Connection, account: i64) -> Result<Vec<FollowRow>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT player_id, followed_at, seen_event_id FROM follows WHERE account_id = ?1
         ORDER BY followed_at DESC, player_id",
    )?;
    let rows = stmt.query_map([account], |r| {
        Ok(FollowRow { player_id: r.get::<_, i64>(0)? as u64, followed_at: r.get(1)?, seen_event_id: r.get(2)? })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// True when the account follows the player.
pub fn is_following(conn: &Connection, account: i64, player: u64) -> Result<bool, ApiError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM follows WHERE account_id = ?1 AND player_id = ?2)",
        params![account, player as i64],
        |r| r.get(0),
    )?)
}

/// The followed players' events up to `up_to` (the newest the fan was shown) count as seen by
/// the account; one noticed after the page was read stays new.
pub fn mark_seen(conn: &Connection, account: i64, up_to: i64) -> Result<usize, ApiError> {
    Ok(conn.execute(
        "UPDATE follows SET seen_event_id = MAX(seen_event_id,
            (SELECT COALESCE(MAX(e.id), 0) FROM player_events e WHERE e.user_id = follows.player_id AND e.id <= ?2))
         WHERE account_id = ?1",
        params![account, up_to],
    )?)
}

/// Followed players last checked before `checked_before` (ms), the longest unchecked first: each
/// player once, however many fans follow it.
pub fn due_players(conn: &Connection, checked_before: i64, limit: usize) -> Result<Vec<u64>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.user_id FROM players p
         WHERE p.checked_at < ?1 AND EXISTS (SELECT 1 FROM follows f WHERE f.player_id = p.user_id)
         ORDER BY p.checked_at LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![checked_before, limit as i64], |r| Ok(r.get::<_, i64>(0)? as u64))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// What the re-checks have to do.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WatchCounts {
    /// Players followed by at least one fan.
    pub followed_players: u64,
    /// Accounts following at least one player.
    pub following_accounts: u64,
    /// Followed players last checked before the re-check interval.
    pub due: u64,
    /// Followed players checked (by anyone) in the last hour.
    pub checked_last_hour: u64,
}

pub fn watch_counts(conn: &Connection, checked_before: i64, hour_ago: i64) -> Result<WatchCounts, ApiError> {
    Ok(conn.query_row(
        "SELECT (SELECT COUNT(DISTINCT player_id) FROM follows),
                (SELECT COUNT(DISTINCT account_id) FROM follows),
                (SELECT COUNT(*) FROM players p WHERE p.checked_at < ?1
                    AND EXISTS (SELECT 1 FROM follows f WHERE f.player_id = p.user_id)),
                (SELECT COUNT(*) FROM players p WHERE p.checked_at >= ?2
                    AND EXISTS (SELECT 1 FROM follows f WHERE f.player_id = p.user_id))",
        params![checked_before, hour_ago],
        |r| {
            Ok(WatchCounts {
                followed_players: r.get::<_, i64>(0)? as u64,
                following_accounts: r.get::<_, i64>(1)? as u64,
                due: r.get::<_, i64>(2)? as u64,
                checked_last_hour: r.get::<_, i64>(3)? as u64,
            })
        },
    )?)
}

/// A fan's Discord webhook as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct WebhookRow {
    pub account_id: i64,
    pub webhook_id: String,
    pub token: String,
    /// Alert kinds: `elc_badge`, `classification`, `name`.
    pub kinds: Vec<String>,
    pub link_origin: Option<String>,
    pub refusals: u32,
    pub broken_at: Option<i64>,
    pub created_at: i64,
    pub last_delivered_at: Option<i64>,
}

/// Saves the account's webhook (replacing any), working and with no refusals counted.
pub fn save_webhook(conn: &Connection, row: &WebhookRow) -> Result<(), ApiError> {
    conn.execute(
        "INSERT INTO alert_webhooks (account_id, webhook_id, token, kinds, link_origin, refusals, broken_at, created_at,
            last_delivered_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 0, NULL, ?6, ?7)
         ON CONFLICT (account_id) DO UPDATE SET webhook_id = excluded.webhook_id, token = excluded.token,
            kinds = excluded.kinds, link_origin = excluded.link_origin, refusals = 0, broken_at = NULL,
            created_at = excluded.created_at, last_delivered_at = excluded.last_delivered_at",
        params![
            row.account_id,
            row.webhook_id,
            row.token,
            row.kinds.join(","),
            row.link_origin,
            row.created_at,
            row.last_delivered_at
        ],
    )?;
    Ok(())
}

/// Changes which alerts the webhook sends.
pub fn set_webhook_kinds(conn: &Connection, account: i64, kinds: &[String]) -> Result<bool, ApiError> {
    Ok(conn.execute("UPDATE alert_webhooks SET kinds = ?2 WHERE account_id = ?1", params![account, kinds.join(",")])?
        > 0)
}

pub fn webhook_of(conn: &Connection, account: i64) -> Result<Option<WebhookRow>, ApiError> {
    Ok(conn
        .query_row(
            "SELECT account_id, webhook_id, token, kinds, link_origin, refusals, broken_at, created_at, last_delivered_at
             FROM alert_webhooks WHERE account_id = ?1",
            [account],
            |r| {
                Ok(WebhookRow {
                    account_id: r.get(0)?,
                    webhook_id: r.get(1)?,
                    token: r.get(2)?,
                    kinds: r
                        .get::<_, String>(3)?
                        .split(',')
                        .filter(|k| !k.is_empty())
                        .map(str::to_string)
                        .collect(),
                    link_origin: r.get(4)?,
                    refusals: r.get(5)?,
                    broken_at: r.get(6)?,
                    created_at: r.get(7)?,
                    last_delivered_at: r.get(8)?,
                })
            },
        )
        .optional()?)
}

/// Removes the account's webhook and its undelivered alerts.
pub fn delete_webhook(conn: &Connection, account: i64) -> Result<bool, ApiError> {
    Ok(conn.execute("DELETE FROM alert_webhooks WHERE account_id = ?1", [account])? > 0)
}

/// Alerts waiting for the account's webhook.
pub fn pending_alerts(conn: &Connection, account: i64) -> Result<u64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM alert_outbox WHERE account_id = ?1", [account], |r| r.get::<_, i64>(0))?
        as u64)
}

/// Discord refused the webhook (401 or 404) once more; at `broken_after` in a row it is marked
/// broken and its undelivered alerts are dropped (nothing could deliver them). True when broken.
pub fn webhook_refused(tx: &Transaction, account: i64, broken_after: u32, now: i64) -> Result<bool, ApiError> {
    tx.execute("UPDATE alert_webhooks SET refusals = refusals + 1 WHERE account_id = ?1", [account])?;
    let broken = tx.execute(
        "UPDATE alert_webhooks SET broken_at = ?3 WHERE account_id = ?1 AND refusals >= ?2 AND broken_at IS NULL",
        params![account, broken_after, now],
    )? > 0;
    if broken {
        tx.execute("DELETE FROM alert_outbox WHERE account_id = ?1", [account])?;
    }
    Ok(broken)
}

/// The fan-out's progress: the newest player event already turned into alerts.
pub fn alert_progress(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT event_id FROM alert_progress WHERE id = 1", [], |r| r.get(0))?)
}

/// The alert kind of a player event (what a fan chooses to hear about), if it is news.
pub fn alert_kind(event: &PlayerEvent) -> Option<&'static str> {
    match event.kind.as_str() {
        "elc_badge" if !event.baseline => Some("elc_badge"),
        "classification" => Some("classification"),
        "username" | "display_name" => Some("name"),
        _ => None,
    }
}

/// Turns `events` (the next after [`alert_progress`], oldest first) into one outbox row per
/// fan who follows the player, has a working webhook that hears about that kind, and followed
/// before the change was noticed; and moves the progress past them, in the same transaction.
/// Returns the alerts queued.
pub fn fan_out(tx: &Transaction, events: &[PlayerEvent], now: i64) -> Result<usize, ApiError> {
    let mut queued = 0;
    let mut stmt = tx.prepare_cached(
        "INSERT OR IGNORE INTO alert_outbox (account_id, event_id, next_attempt_at, created_at)
         SELECT w.account_id, ?1, ?2, ?2 FROM follows f JOIN alert_webhooks w ON w.account_id = f.account_id
         WHERE f.player_id = ?3 AND f.followed_at <= ?4 AND w.broken_at IS NULL
           AND (',' || w.kinds || ',') LIKE ('%,' || ?5 || ',%')",
    )?;
    for event in events {
        let Some(kind) = alert_kind(event) else { continue };
        let noticed = event.noticed_at.parse::<jiff::Timestamp>().map_or(now, |t| t.as_millisecond());
        queued += stmt.execute(params![event.id, now, event.user_id as i64, noticed, kind])?;
    }
    if let Some(last) = events.last() {
        tx.execute("UPDATE alert_progress SET event_id = MAX(event_id, ?1) WHERE id = 1", [last.id])?;
    }
    Ok(queued)
}

/// An alert due for delivery, with its webhook.
#[derive(Clone, Debug)]
pub struct DueAlert {
    pub id: i64,
    pub event_id: i64,
    pub attempts: u32,
    pub created_at: i64,
    pub webhook: WebhookRow,
}

/// Alerts due at `now` of working webhooks, the oldest first.
pub fn due_alerts(conn: &Connection, now: i64, limit: usize) -> Result<Vec<DueAlert>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT o.id, o.event_id, o.attempts, o.created_at, o.account_id FROM alert_outbox o
         JOIN alert_webhooks w ON w.account_id = o.account_id
         WHERE o.next_attempt_at <= ?1 AND w.broken_at IS NULL ORDER BY o.next_attempt_at, o.id LIMIT ?2",
    )?;
    let rows = stmt
        .query_map(params![now, limit as i64], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, u32>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, i64>(4)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (id, event_id, attempts, created_at, account) in rows {
        if let Some(webhook) = webhook_of(conn, account)? {
            out.push(DueAlert { id, event_id, attempts, created_at, webhook });
        }
    }
    Ok(out)
}

/// When the next alert of a working webhook is due (ms), if any is waiting.
pub fn next_alert_due(conn: &Connection) -> Result<Option<i64>, ApiError> {
    Ok(conn.query_row(
        "SELECT MIN(o.next_attempt_at) FROM alert_outbox o JOIN alert_webhooks w ON w.account_id = o.account_id
         WHERE w.broken_at IS NULL",
        [],
        |r| r.get(0),
    )?)
}

/// Discord took the alert: it leaves the outbox, and the webhook's refusals start again.
pub fn alert_delivered(tx: &Transaction, id: i64, account: i64, now: i64) -> Result<(), ApiError> {
    tx.execute("DELETE FROM alert_outbox WHERE id = ?1", [id])?;
    tx.execute(
        "UPDATE alert_webhooks SET refusals = 0, last_delivered_at = ?2 WHERE account_id = ?1 AND broken_at IS NULL",
        params![account, now],
    )?;
    Ok(())
}

/// The alert is tried again at `next_at`.
pub fn alert_retry(conn: &Connection, id: i64, next_at: i64, error: &str) -> Result<(), ApiError> {
    conn.execute(
        "UPDATE alert_outbox SET attempts = attempts + 1, next_attempt_at = ?2, last_error = ?3 WHERE id = ?1",
        params![id, next_at, error],
    )?;
    Ok(())
}

/// The alert is given up (too old, or one Discord will never take).
pub fn alert_dropped(conn: &Connection, id: i64) -> Result<(), ApiError> {
    conn.execute("DELETE FROM alert_outbox WHERE id = ?1", [id])?;
    Ok(())
}

/// Alerts waiting in the outbox, all webhooks.
pub fn outbox_size(conn: &Connection) -> Result<u64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM alert_outbox", [], |r| r.get::<_, i64>(0))? as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roblox::store::{OwnedBadge, PlayerRow, events_after, record_player};

    fn account(conn: &Connection, name: &str) -> i64 {
        conn.execute(
            "INSERT INTO users (username, password_hash, role, is_active, created_at) VALUES (?1, 'x', 'user', 1, 0)",
            [name],
        )
        .unwrap();
        conn.last_insert_rowid()
    }

    fn player(tx: &Transaction, id: u64, elc: u32, at: i64) {
        let badges: Vec<OwnedBadge> = (1..=elc as u64)
            .map(|b| OwnedBadge { badge_id: b, name: format!("ELC {b}"), awarded_date: "2016-01-01T00:00:00Z".into() })
            .collect();
        let row = PlayerRow {
            user_id: id,
            username: format!("P{id}"),
            display_name: format!("P{id}"),
            verified: false,
            banned: false,
            created: "2015-01-01T00:00:00Z".into(),
            generation: "OLDGEN".into(),
            classification: "Oldgen".into(),
            is_newgen: false,
            is_veteran: false,
            elc_count: Some(elc),
            confidence: 90,
            checked_at: at,
        };
        record_player(tx, &row, Some(&badges)).unwrap();
    }

    fn webhook(account_id: i64, kinds: &[&str]) -> WebhookRow {
        WebhookRow {
            account_id,
            webhook_id: "1".into(),
            token: "t".into(),
            kinds: kinds.iter().map(|k| k.to_string()).collect(),
            link_origin: None,
            refusals: 0,
            broken_at: None,
            created_at: 0,
            last_delivered_at: None,
        }
    }

    #[test]
    fn follows_are_capped_and_each_player_is_due_once() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let fans: Vec<i64> = (0..3).map(|i| account(&conn, &format!("fan{i}"))).collect();
        let tx = conn.transaction().unwrap();
        for id in 1..=3 {
            player(&tx, id, 0, 1000);
        }
        for fan in &fans {
            assert!(follow(&tx, *fan, 1, 2000, 2).unwrap());
            assert!(!follow(&tx, *fan, 1, 2000, 2).unwrap(), "twice is one follow");
            assert!(follow(&tx, *fan, 2, 2000, 2).unwrap());
            let err = follow(&tx, *fan, 3, 2000, 2).unwrap_err();
            assert_eq!(err.status, axum::http::StatusCode::CONFLICT);
        }
        tx.commit().unwrap();
        assert_eq!(due_players(&conn, 5000, 100).unwrap(), [1, 2], "three fans, two players: two checks");
        assert!(due_players(&conn, 1000, 100).unwrap().is_empty());
        let counts = watch_counts(&conn, 5000, 0).unwrap();
        assert_eq!((counts.followed_players, counts.following_accounts, counts.due), (2, 3, 2));
        assert!(unfollow(&conn, fans[0], 1).unwrap());
        assert_eq!(follows_of(&conn, fans[0]).unwrap().len(), 1);
        // Deleting the account deletes its follows.
        conn.execute("DELETE FROM users WHERE id = ?1", [fans[1]]).unwrap();
        assert_eq!(watch_counts(&conn, 5000, 0).unwrap().following_accounts, 2);
    }

    #[test]
    fn news_fans_out_once_to_the_webhooks_that_want_it() {
        let (_dir, mut conn) = crate::db::open_for_tests();
        let badge_fan = account(&conn, "badges");
        let name_fan = account(&conn, "names");
        let late_fan = account(&conn, "late");
        let tx = conn.transaction().unwrap();
        player(&tx, 1, 0, 1000);
        follow(&tx, badge_fan, 1, 1500, 50).unwrap();
        follow(&tx, name_fan, 1, 1500, 50).unwrap();
        save_webhook(&tx, &webhook(badge_fan, &["elc_badge"])).unwrap();
        save_webhook(&tx, &webhook(name_fan, &["name"])).unwrap();
        save_webhook(&tx, &webhook(late_fan, &["elc_badge", "name"])).unwrap();
        player(&tx, 1, 1, 2000); // a new badge
        follow(&tx, late_fan, 1, 2500, 50).unwrap(); // after the change was noticed
        let events = events_after(&tx, alert_progress(&tx).unwrap(), 100).unwrap();
        assert_eq!(fan_out(&tx, &events, 3000).unwrap(), 1, "first_seen is not news; the late fan missed it");
        assert_eq!(fan_out(&tx, &events, 3000).unwrap(), 0, "an event queues once");
        assert!(events_after(&tx, alert_progress(&tx).unwrap(), 100).unwrap().is_empty());
        tx.commit().unwrap();
        let due = due_alerts(&conn, 3000, 10).unwrap();
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].webhook.account_id, badge_fan);
        // Refusals: broken at the third, and the outbox empties.
        let tx = conn.transaction().unwrap();
        assert!(!webhook_refused(&tx, badge_fan, 3, 4000).unwrap());
        assert!(!webhook_refused(&tx, badge_fan, 3, 4000).unwrap());
        assert!(webhook_refused(&tx, badge_fan, 3, 4000).unwrap());
        tx.commit().unwrap();
        assert_eq!(outbox_size(&conn).unwrap(), 0);
        assert_eq!(webhook_of(&conn, badge_fan).unwrap().unwrap().broken_at, Some(4000));

        // A rename reaches the fan who hears about names; deleting that account takes its
        // follows, its webhook and the alert waiting for it.
        let tx = conn.transaction().unwrap();
        let mut renamed = crate::roblox::store::player(&tx, 1).unwrap().unwrap();
        renamed.username = "Renamed".into();
        renamed.checked_at = 5000;
        record_player(&tx, &renamed, None).unwrap();
        let events = events_after(&tx, alert_progress(&tx).unwrap(), 100).unwrap();
        assert_eq!(fan_out(&tx, &events, 6000).unwrap(), 2, "the name fan and the late fan");
        tx.commit().unwrap();
        assert_eq!(pending_alerts(&conn, name_fan).unwrap(), 1);
        conn.execute("DELETE FROM users WHERE id = ?1", [name_fan]).unwrap();
        assert_eq!(pending_alerts(&conn, name_fan).unwrap(), 0);
        assert!(webhook_of(&conn, name_fan).unwrap().is_none());
        assert!(follows_of(&conn, name_fan).unwrap().is_empty());
    }
}
