//! The `admin_keys` and `admin_sessions` tables.

use std::net::IpAddr;

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;
use utoipa::ToSchema;

use crate::db::{now_ms, rfc3339};
use crate::error::ApiError;
use crate::tokens::{random_hex, sha256};

pub const ADMIN_COOKIE: &str = "fanhub_admin";
pub const ADMIN_SESSION_SECS: i64 = 12 * 3600;
pub const PREFIX_LEN: usize = 12;

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyRecord {
    pub id: i64,
    pub prefix: String,
    pub name: String,
    /// How the key was made: `cli` (`fanhub admin-key`), `phrase` (the secret phrase, bound to one
    /// address) or `direct` (generated on the server from loopback).
    #[schema(schema_with = source_values)]
    pub source: String,
    pub bound_ip: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub last_used: Option<String>,
}

/// The ways a key is made (the `source` column).
pub const SOURCES: [&str; 3] = ["cli", "phrase", "direct"];

fn source_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&SOURCES)
}

const KEY_COLUMNS: &str = "k.id, k.prefix, k.name, k.source, k.bound_ip, k.created_at, k.last_used";

fn key_from_row(r: &Row) -> rusqlite::Result<KeyRecord> {
    Ok(KeyRecord {
        id: r.get(0)?,
        prefix: r.get(1)?,
        name: r.get(2)?,
        source: r.get(3)?,
        bound_ip: r.get(4)?,
        created_at: rfc3339(r.get(5)?),
        last_used: r.get::<_, Option<i64>>(6)?.map(rfc3339),
    })
}

impl KeyRecord {
    /// Whether a request from `ip` may use this key.
    pub fn allows(&self, ip: IpAddr) -> bool {
        self.bound_ip.as_deref().is_none_or(|bound| bound == ip.to_string())
    }
}

/// Creates a key and returns it in full (the only time it exists outside the caller).
pub fn create(conn: &Connection, name: &str, source: &str, bound_ip: Option<IpAddr>) -> Result<String, ApiError> {
    debug_assert!(SOURCES.contains(&source), "an admin key's source is one of SOURCES");
    let key = format!("fha_{}", random_hex(20));
    let name: String = name.trim().chars().take(64).collect();
    conn.execute(
        "INSERT INTO admin_keys (key_hash, prefix, name, source, bound_ip, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![sha256(&key), &key[..PREFIX_LEN], name, source, bound_ip.map(|i| i.to_string()), now_ms()],
    )?;
    Ok(key)
}

pub fn find(conn: &Connection, key: &str) -> Result<Option<KeyRecord>, ApiError> {
    Ok(conn
        .query_row(
            &format!("SELECT {KEY_COLUMNS} FROM admin_keys k WHERE k.key_hash = ?1"),
            [sha256(key.trim())],
            key_from_row,
        )
        .optional()?)
}

pub fn list(conn: &Connection) -> Result<Vec<KeyRecord>, ApiError> {
    let mut stmt = conn.prepare(&format!("SELECT {KEY_COLUMNS} FROM admin_keys k ORDER BY k.id DESC"))?;
    let rows = stmt.query_map([], key_from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Deletes a key; its admin sessions go with it.
pub fn revoke(conn: &Connection, id: i64) -> Result<bool, ApiError> {
    Ok(conn.execute("DELETE FROM admin_keys WHERE id = ?1", [id])? > 0)
}

pub fn touch(conn: &Connection, id: i64) -> Result<(), ApiError> {
    conn.execute("UPDATE admin_keys SET last_used = ?1 WHERE id = ?2", params![now_ms(), id])?;
    Ok(())
}

pub fn create_session(conn: &Connection, key_id: i64) -> Result<String, ApiError> {
    let token = random_hex(32);
    let now = now_ms();
    conn.execute(
        "INSERT INTO admin_sessions (token_hash, key_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![sha256(&token), key_id, now, now + ADMIN_SESSION_SECS * 1000],
    )?;
    Ok(token)
}

/// Ends one admin session (signing out); other sessions of the same key stay.
pub fn delete_session(conn: &Connection, token: &str) -> Result<(), ApiError> {
    conn.execute("DELETE FROM admin_sessions WHERE token_hash = ?1", [sha256(token)])?;
    Ok(())
}

/// The key behind a live admin session.
pub fn session_key(conn: &Connection, token: &str) -> Result<Option<KeyRecord>, ApiError> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {KEY_COLUMNS} FROM admin_sessions s JOIN admin_keys k ON k.id = s.key_id
                 WHERE s.token_hash = ?1 AND s.expires_at > ?2"
            ),
            params![sha256(token), now_ms()],
            key_from_row,
        )
        .optional()?)
}

/// Admin sessions live at `now`.
pub fn live_sessions(conn: &Connection, now: i64) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM admin_sessions WHERE expires_at > ?1", [now], |r| r.get(0))?)
}

/// The last admin access: the newest admin session or key use, in ms.
pub fn last_access(conn: &Connection) -> Result<Option<i64>, ApiError> {
    Ok(conn.query_row(
        "SELECT MAX(t) FROM (SELECT MAX(created_at) AS t FROM admin_sessions UNION ALL SELECT MAX(last_used) FROM admin_keys)",
        [],
        |r| r.get(0),
    )?)
}

/// Deletes expired admin sessions and expired user sessions; returns how many.
pub fn prune_expired(conn: &Connection) -> Result<usize, ApiError> {
    let now = now_ms();
    let a = conn.execute("DELETE FROM admin_sessions WHERE expires_at <= ?1", [now])?;
    let b = crate::accounts::store::prune_expired_sessions(conn, now)?;
    Ok(a + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_stored_hashed_with_a_prefix() {
        let (_dir, conn) = crate::db::open_for_tests();
        let key = create(&conn, "ops", "cli", None).unwrap();
        assert!(key.len() >= 4 + 32);
        let stored: Vec<u8> = conn.query_row("SELECT key_hash FROM admin_keys", [], |r| r.get(0)).unwrap();
        assert!(!String::from_utf8_lossy(&stored).contains(&key[4..]));
        let rec = find(&conn, &key).unwrap().unwrap();
        assert_eq!(rec.prefix, &key[..12]);
        assert!(find(&conn, "fha_wrong").unwrap().is_none());
    }
}
