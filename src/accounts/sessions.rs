//! User sessions: a random 256-bit token in an HttpOnly cookie; the database keeps its hash.

use axum::http::HeaderMap;
use rusqlite::{Connection, OptionalExtension, params};

use super::{SESSION_COOKIE, USER_COLUMNS, User, user_from_row};
use crate::db::{Db, now_ms};
use crate::error::ApiError;
use crate::http::cookies;
use crate::tokens::sha256;

pub const USER_SESSION_SECS: i64 = 30 * 24 * 3600;

pub fn create(conn: &Connection, token: &str, user_id: i64) -> Result<(), ApiError> {
    let now = now_ms();
    conn.execute(
        "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![sha256(token), user_id, now, now + USER_SESSION_SECS * 1000],
    )?;
    Ok(())
}

pub fn delete(conn: &Connection, token: &str) -> Result<(), ApiError> {
    conn.execute("DELETE FROM sessions WHERE token_hash = ?1", [sha256(token)])?;
    Ok(())
}

pub fn user_for_token(conn: &Connection, token: &str) -> Result<Option<User>, ApiError> {
    let cols = USER_COLUMNS.split(", ").map(|c| format!("u.{c}")).collect::<Vec<_>>().join(", ");
    Ok(conn
        .query_row(
            &format!(
                "SELECT {cols} FROM sessions s JOIN users u ON u.id = s.user_id
                 WHERE s.token_hash = ?1 AND s.expires_at > ?2 AND u.is_active = 1"
            ),
            params![sha256(token), now_ms()],
            user_from_row,
        )
        .optional()?)
}

/// The active user whose session cookie came with the request, if any.
pub async fn signed_in(db: &Db, headers: &HeaderMap) -> Result<Option<User>, ApiError> {
    let Some(token) = cookies::get(headers, SESSION_COOKIE) else { return Ok(None) };
    if token.len() != 64 {
        return Ok(None);
    }
    db.read(move |c| user_for_token(c, &token)).await
}

/// Like `signed_in`, but 401 when nobody is.
pub async fn require_user(db: &Db, headers: &HeaderMap) -> Result<User, ApiError> {
    signed_in(db, headers).await?.ok_or_else(|| ApiError::unauthorized("Sign in first."))
}
