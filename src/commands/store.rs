//! The SQL of command ratings and favorites.

use std::collections::HashMap;

use rusqlite::{Connection, params};

use super::Score;
use super::ratings::Favorite;
use crate::db::now_ms;
use crate::error::ApiError;

/// Ratings and favorites per command.
pub fn load_scores(conn: &Connection) -> Result<HashMap<u32, Score>, ApiError> {
    let mut scores: HashMap<u32, Score> = HashMap::new();
    let mut stmt =
        conn.prepare_cached("SELECT command_id, AVG(rating), COUNT(*) FROM command_ratings GROUP BY command_id")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, f64>(1)?, r.get::<_, u32>(2)?)))?;
    for row in rows {
        let (id, avg, count) = row?;
        let s = scores.entry(id).or_default();
        s.avg_rating = avg;
        s.rating_count = count;
    }
    let mut stmt =
        conn.prepare_cached("SELECT item_id, COUNT(*) FROM favorites WHERE item_type = 'command' GROUP BY item_id")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, u32>(1)?)))?;
    for row in rows {
        let (id, count) = row?;
        scores.entry(id).or_default().favorite_count = count;
    }
    Ok(scores)
}

/// A user's favorites, newest first.
pub fn favorites_of(conn: &Connection, user_id: i64) -> Result<Vec<Favorite>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT user_id, item_type, item_id FROM favorites WHERE user_id = ?1 ORDER BY created_at DESC",
    )?;
    let rows = stmt
        .query_map([user_id], |r| Ok(Favorite { user_id: r.get(0)?, item_type: r.get(1)?, item_id: r.get(2)? }))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Adds a command to a user's favorites (nothing when it is there already).
pub fn add_favorite(conn: &Connection, user_id: i64, command_id: i64) -> Result<(), ApiError> {
    conn.execute(
        "INSERT OR IGNORE INTO favorites (user_id, item_type, item_id, created_at) VALUES (?1, 'command', ?2, ?3)",
        params![user_id, command_id, now_ms()],
    )?;
    Ok(())
}

pub fn remove_favorite(conn: &Connection, user_id: i64, command_id: i64) -> Result<(), ApiError> {
    conn.execute(
        "DELETE FROM favorites WHERE user_id = ?1 AND item_type = 'command' AND item_id = ?2",
        params![user_id, command_id],
    )?;
    Ok(())
}

/// Saves a user's 1-5 rating of a command (replacing their earlier one) and returns the
/// command's average and count.
pub fn rate(conn: &Connection, user_id: i64, command_id: i64, rating: i64) -> Result<(f64, i64), ApiError> {
    conn.execute(
        "INSERT INTO command_ratings (user_id, command_id, rating, updated_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT(user_id, command_id) DO UPDATE SET rating = excluded.rating, updated_at = excluded.updated_at",
        params![user_id, command_id, rating, now_ms()],
    )?;
    Ok(conn.query_row(
        "SELECT AVG(rating), COUNT(*) FROM command_ratings WHERE command_id = ?1",
        [command_id],
        |r| Ok((r.get::<_, f64>(0)?, r.get::<_, i64>(1)?)),
    )?)
}

/// How many ratings there are, and their average (none without ratings).
pub fn rating_summary(conn: &Connection) -> Result<(i64, Option<f64>), ApiError> {
    Ok(conn.query_row("SELECT COUNT(*), AVG(rating) FROM command_ratings", [], |r| Ok((r.get(0)?, r.get(1)?)))?)
}
