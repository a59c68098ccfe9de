//! The SQL of accounts: users, their sessions and the sign-in log. Every other feature reads
//! and changes these tables through the functions here.

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;
use utoipa::ToSchema;

use super::sessions::USER_SESSION_SECS;
use super::{ROLES, User};
use crate::db::{now_ms, rfc3339};
use crate::error::ApiError;
use crate::tokens::sha256;

const USER_COLUMNS: &str = "id, username, email, roblox_id, role, is_active, created_at, last_login";

fn user_from_row(r: &Row) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(0)?,
        username: r.get(1)?,
        email: r.get(2)?,
        roblox_id: r.get(3)?,
        role: r.get(4)?,
        is_active: r.get(5)?,
        created_at: rfc3339(r.get(6)?),
        last_login: r.get::<_, Option<i64>>(7)?.map(rfc3339),
    })
}

pub fn find_user(conn: &Connection, id: i64) -> Result<Option<User>, ApiError> {
    Ok(conn.query_row(&format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"), [id], user_from_row).optional()?)
}

/// Every account, oldest first.
pub fn list_users(conn: &Connection) -> Result<Vec<User>, ApiError> {
    let mut stmt = conn.prepare(&format!("SELECT {USER_COLUMNS} FROM users ORDER BY id"))?;
    let users = stmt.query_map([], user_from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(users)
}

pub fn username_taken(conn: &Connection, username: &str) -> Result<bool, ApiError> {
    Ok(conn.query_row("SELECT 1 FROM users WHERE username = ?1", [username], |_| Ok(())).optional()?.is_some())
}

/// Inserts an account and returns its id; `None` when the username is taken.
pub fn insert_user(conn: &Connection, username: &str, password_hash: &str) -> Result<Option<i64>, ApiError> {
    let inserted = conn.execute(
        "INSERT INTO users (username, password_hash, created_at) VALUES (?1, ?2, ?3)",
        params![username, password_hash, now_ms()],
    );
    match inserted {
        Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => Ok(None),
        Err(e) => Err(ApiError::from(e)),
        Ok(_) => Ok(Some(conn.last_insert_rowid())),
    }
}

pub fn count_users(conn: &Connection) -> Result<i64, ApiError> {
    // Kept by triggers (db::table_counts): a count would read every account.
    Ok(crate::db::table_counts::rows_of(conn, "users")?)
}

/// Accounts created at or after `since_ms`.
pub fn count_users_since(conn: &Connection, since_ms: i64) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM users WHERE created_at >= ?1", [since_ms], |r| r.get(0))?)
}

/// What sign-in checks a password against.
pub struct PasswordRecord {
    pub id: i64,
    pub password_hash: String,
    pub is_active: bool,
}

pub fn password_record(conn: &Connection, username: &str) -> Result<Option<PasswordRecord>, ApiError> {
    Ok(conn
        .query_row("SELECT id, password_hash, is_active FROM users WHERE username = ?1", [username], |r| {
            Ok(PasswordRecord { id: r.get(0)?, password_hash: r.get(1)?, is_active: r.get(2)? })
        })
        .optional()?)
}

pub fn touch_last_login(conn: &Connection, id: i64) -> Result<(), ApiError> {
    conn.execute("UPDATE users SET last_login = ?1 WHERE id = ?2", params![now_ms(), id])?;
    Ok(())
}

fn other_active_admins(conn: &Connection, id: i64) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM users WHERE role = 'admin' AND is_active = 1 AND id <> ?1", [id], |r| {
        r.get(0)
    })?)
}

const LAST_ADMIN: &str = "The last active admin cannot be demoted, suspended or deleted.";

/// Changes a user's role and/or active state; run it in one transaction, so two concurrent
/// changes cannot both remove "the other" admin. Suspending ends the user's sessions.
pub fn apply_change(conn: &Connection, id: i64, role: Option<&str>, is_active: Option<bool>) -> Result<User, ApiError> {
    if role.is_none() && is_active.is_none() {
        return Err(ApiError::bad_request("Nothing to change: send role and/or isActive."));
    }
    if let Some(role) = role
        && !ROLES.contains(&role)
    {
        return Err(ApiError::field("role", "Role must be user, moderator or admin."));
    }
    let user = find_user(conn, id)?.ok_or_else(|| ApiError::not_found("No such user."))?;
    let stays_admin = role.unwrap_or(&user.role) == "admin" && is_active.unwrap_or(user.is_active);
    if user.role == "admin" && user.is_active && !stays_admin && other_active_admins(conn, id)? == 0 {
        return Err(ApiError::conflict(LAST_ADMIN));
    }
    if let Some(role) = role {
        conn.execute("UPDATE users SET role = ?1 WHERE id = ?2", params![role, id])?;
    }
    if let Some(active) = is_active {
        conn.execute("UPDATE users SET is_active = ?1 WHERE id = ?2", params![active, id])?;
        if !active {
            conn.execute("DELETE FROM sessions WHERE user_id = ?1", [id])?;
        }
    }
    find_user(conn, id)?.ok_or_else(|| ApiError::not_found("No such user."))
}

/// Deletes a user (with their sessions, ratings and favorites, by the schema's cascades) and
/// returns the username; the last active admin stays.
pub fn delete_user(conn: &Connection, id: i64) -> Result<String, ApiError> {
    let user = find_user(conn, id)?.ok_or_else(|| ApiError::not_found("No such user."))?;
    if user.role == "admin" && user.is_active && other_active_admins(conn, id)? == 0 {
        return Err(ApiError::conflict(LAST_ADMIN));
    }
    conn.execute("DELETE FROM users WHERE id = ?1", [id])?;
    Ok(user.username)
}

pub fn create_session(conn: &Connection, token: &str, user_id: i64) -> Result<(), ApiError> {
    let now = now_ms();
    conn.execute(
        "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![sha256(token), user_id, now, now + USER_SESSION_SECS * 1000],
    )?;
    Ok(())
}

pub fn delete_session(conn: &Connection, token: &str) -> Result<(), ApiError> {
    conn.execute("DELETE FROM sessions WHERE token_hash = ?1", [sha256(token)])?;
    Ok(())
}

/// Ends every session of the account but `keep` (a session token), when given: after a first
/// second factor, sessions opened with the password alone end.
pub fn end_other_sessions(conn: &Connection, user_id: i64, keep: Option<&str>) -> Result<usize, ApiError> {
    let keep = keep.map(sha256).unwrap_or_default();
    Ok(conn.execute("DELETE FROM sessions WHERE user_id = ?1 AND token_hash != ?2", params![user_id, keep])?)
}

/// The account's random WebAuthn user handle, made on first use.
pub fn webauthn_handle(conn: &Connection, user_id: i64) -> Result<String, ApiError> {
    let existing: Option<String> = conn
        .query_row("SELECT webauthn_handle FROM users WHERE id = ?1", [user_id], |r| r.get(0))
        .optional()?
        .flatten();
    if let Some(handle) = existing {
        return Ok(handle);
    }
    let handle = crate::tokens::random_hex(16);
    conn.execute("UPDATE users SET webauthn_handle = ?2 WHERE id = ?1", params![user_id, handle])?;
    Ok(handle)
}

/// The active user of a live session.
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

/// Deletes the sessions expired at `now`; returns how many.
pub fn prune_expired_sessions(conn: &Connection, now: i64) -> Result<usize, ApiError> {
    Ok(conn.execute("DELETE FROM sessions WHERE expires_at <= ?1", [now])?)
}

/// How long login log rows are kept.
pub const LOGIN_LOG_DAYS: i64 = 180;

pub fn log_attempt(conn: &Connection, username: &str, ip: &str, ua: &str, status: &str) -> Result<(), ApiError> {
    let username: String = username.chars().take(64).collect();
    let ua: String = ua.chars().take(300).collect();
    conn.execute(
        "INSERT INTO login_logs (username, ip_address, user_agent, status, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![username, ip, ua, status, now_ms()],
    )?;
    Ok(())
}

pub fn prune_login_logs(conn: &Connection) -> Result<usize, ApiError> {
    let cutoff = now_ms() - LOGIN_LOG_DAYS * 24 * 3600 * 1000;
    Ok(conn.execute("DELETE FROM login_logs WHERE created_at < ?1", [cutoff])?)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginLog {
    id: i64,
    username: String,
    ip_address: String,
    user_agent: String,
    #[schema(format = DateTime)]
    timestamp: String,
    /// success, failure (a wrong password), second_factor_failure (the right password, then a wrong
    /// code or security key), suspended (a suspended account) or rate_limited.
    #[schema(schema_with = login_status_values)]
    login_status: String,
}

fn login_status_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["success", "failure", "second_factor_failure", "suspended", "rate_limited"])
}

pub fn count_login_logs(conn: &Connection) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM login_logs", [], |r| r.get(0))?)
}

/// One page of sign-in attempts, newest first (`page` counts from 1).
pub fn login_logs_page(conn: &Connection, page: i64, page_size: i64) -> Result<Vec<LoginLog>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, username, ip_address, user_agent, created_at, status FROM login_logs
         ORDER BY created_at DESC, id DESC LIMIT ?1 OFFSET ?2",
    )?;
    let logs = stmt
        .query_map(params![page_size, (page - 1).saturating_mul(page_size)], |r| {
            Ok(LoginLog {
                id: r.get(0)?,
                username: r.get(1)?,
                ip_address: r.get(2)?,
                user_agent: r.get(3)?,
                timestamp: rfc3339(r.get(4)?),
                login_status: r.get(5)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(logs)
}
