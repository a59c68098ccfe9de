//! User sessions: a random 256-bit token in an HttpOnly cookie; the database keeps its hash.

use axum::http::HeaderMap;

use super::{SESSION_COOKIE, User, store};
use crate::db::Db;
use crate::error::ApiError;
use crate::http::cookies;

pub const USER_SESSION_SECS: i64 = 30 * 24 * 3600;

/// The active user whose session cookie came with the request, if any.
pub async fn signed_in(db: &Db, headers: &HeaderMap) -> Result<Option<User>, ApiError> {
    let Some(token) = cookies::get(headers, SESSION_COOKIE) else { return Ok(None) };
    if token.len() != 64 {
        return Ok(None);
    }
    db.read(move |c| store::user_for_token(c, &token)).await
}

/// Like `signed_in`, but 401 when nobody is.
pub async fn require_user(db: &Db, headers: &HeaderMap) -> Result<User, ApiError> {
    signed_in(db, headers).await?.ok_or_else(|| ApiError::unauthorized("Sign in first."))
}
