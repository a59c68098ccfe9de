//! Run-time settings stored as JSON under a key.

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

pub fn get<T: DeserializeOwned>(conn: &Connection, key: &str) -> Result<Option<T>, ApiError> {
    let text: Option<String> =
        conn.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| r.get(0)).optional()?;
    Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
}

pub fn set<T: Serialize>(conn: &Connection, key: &str, value: &T) -> Result<(), ApiError> {
    let text = serde_json::to_string(value).map_err(ApiError::internal)?;
    conn.execute(
        "INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        params![key, text, super::now_ms()],
    )?;
    Ok(())
}

pub fn delete(conn: &Connection, key: &str) -> Result<(), ApiError> {
    conn.execute("DELETE FROM settings WHERE key = ?1", [key])?;
    Ok(())
}
