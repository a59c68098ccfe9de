//! The SQL of the events feed.

use rusqlite::{Connection, Row, params};
use serde::Serialize;

use crate::db::{now_ms, rfc3339, settings};
use crate::error::ApiError;

fn type_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&super::TYPES)
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Increasing; pass the last one seen as `since` to get only newer events.
    pub id: i64,
    #[serde(rename = "type")]
    #[schema(schema_with = type_values)]
    pub kind: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// Depends on the type (see the API documentation).
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
}

fn from_row(r: &Row) -> rusqlite::Result<Event> {
    let data: String = r.get(3)?;
    Ok(Event {
        id: r.get(0)?,
        kind: r.get(1)?,
        created_at: rfc3339(r.get(2)?),
        data: serde_json::from_str(&data).unwrap_or(serde_json::Value::Null),
    })
}

pub fn record(conn: &Connection, kind: &str, data: serde_json::Value) -> Result<i64, ApiError> {
    conn.execute(
        "INSERT INTO events (type, created_at, data) VALUES (?1, ?2, ?3)",
        params![kind, now_ms(), data.to_string()],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Events newer than `since`, oldest first, at most `limit`, of one type when given.
pub fn list(conn: &Connection, since: i64, limit: u32, kind: Option<&str>) -> Result<Vec<Event>, ApiError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, type, created_at, data FROM events WHERE id > ?1 AND (?2 IS NULL OR type = ?2) ORDER BY id LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![since, kind, limit], from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Deletes at most `batch` events created before `before_ms`. Events are written in time order,
/// so the oldest `batch` ids are read (on the table's key) and those old enough go: nothing past
/// them is looked at. Returns how many.
pub fn prune(conn: &Connection, before_ms: i64, batch: usize) -> Result<usize, ApiError> {
    Ok(conn
        .prepare_cached(
            "DELETE FROM events WHERE id IN
               (SELECT id FROM (SELECT id, created_at FROM events ORDER BY id LIMIT ?2) WHERE created_at < ?1)",
        )?
        .execute(params![before_ms, batch as i64])?)
}

/// Records `site.upgraded` when this binary's version differs from the last one that ran here.
pub fn note_version(conn: &Connection, version: &str) -> Result<(), ApiError> {
    let last: Option<String> = settings::get(conn, "last_version")?;
    if last.as_deref() != Some(version) {
        if let Some(from) = &last {
            record(conn, super::SITE_UPGRADED, serde_json::json!({"from": from, "to": version}))?;
        }
        settings::set(conn, "last_version", &version)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feed_pages_by_id_and_filters_by_type() {
        let (_dir, conn) = crate::db::open_for_tests();
        note_version(&conn, "1.0.0").unwrap();
        assert!(list(&conn, 0, 10, None).unwrap().is_empty(), "a first start is no upgrade");
        let a = record(&conn, "member.joined", serde_json::json!({"members": 1})).unwrap();
        let b = record(&conn, "banner.changed", serde_json::json!({"banner": "default"})).unwrap();
        note_version(&conn, "1.1.0").unwrap();
        note_version(&conn, "1.1.0").unwrap();
        let all = list(&conn, 0, 10, None).unwrap();
        assert_eq!(
            all.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(),
            ["member.joined", "banner.changed", "site.upgraded"]
        );
        assert_eq!(all[2].data["from"], "1.0.0");
        assert_eq!(list(&conn, a, 10, None).unwrap()[0].id, b);
        assert_eq!(list(&conn, 0, 1, None).unwrap().len(), 1);
        assert_eq!(list(&conn, 0, 10, Some("banner.changed")).unwrap().len(), 1);
    }

    #[test]
    fn the_oldest_events_go_in_batches_and_the_feed_goes_on_from_its_cursor() {
        let (_dir, conn) = crate::db::open_for_tests();
        let old = now_ms() - 10_000;
        for i in 0..7 {
            record(&conn, "member.joined", serde_json::json!({"members": i})).unwrap();
        }
        conn.execute("UPDATE events SET created_at = ?1 WHERE id <= 5", [old]).unwrap();
        assert_eq!(prune(&conn, old + 1, 2).unwrap(), 2, "a batch is at most 2");
        assert_eq!(prune(&conn, old + 1, 2).unwrap(), 2);
        assert_eq!(prune(&conn, old + 1, 2).unwrap(), 1, "the batch found one old event and a new one");
        assert_eq!(prune(&conn, old + 1, 2).unwrap(), 0);
        let left: Vec<i64> = list(&conn, 0, 10, None).unwrap().iter().map(|e| e.id).collect();
        assert_eq!(left, [6, 7]);
        assert_eq!(list(&conn, 5, 10, None).unwrap().len(), 2, "a cursor into the pruned part reads on");
        let plan: String = conn
            .query_row("EXPLAIN QUERY PLAN SELECT id, created_at FROM events ORDER BY id LIMIT 2", [], |r| r.get(3))
            .unwrap();
        assert!(plan.starts_with("SCAN events") && !plan.contains("TEMP B-TREE"), "{plan}");
    }
}
