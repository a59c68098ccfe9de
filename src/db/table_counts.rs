//! Rows per table for the admin's Database panel, kept by triggers instead of counted per
//! request (a count reads every row: half a second over a year of data). `keep_counted` runs
//! each time the database opens, after the migrations: a table without its two triggers (new,
//! or rebuilt by a migration) is counted once and gets them, and rows of tables gone are removed.
//!
//! A count stays exact for every INSERT, DELETE and UPSERT. `INSERT OR REPLACE` would drift it:
//! SQLite fires no delete trigger for the row a REPLACE removes (unless recursive triggers are
//! on), so the stores use `ON CONFLICT … DO UPDATE` instead (a test holds them to it).

use std::collections::BTreeMap;

use rusqlite::{Connection, params};

const INSERT_TRIGGER: &str = "table_counts_insert_";
const DELETE_TRIGGER: &str = "table_counts_delete_";

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn literal(name: &str) -> String {
    format!("'{}'", name.replace('\'', "''"))
}

/// Counts every table that is not counted yet and gives it its triggers; forgets tables gone.
pub fn keep_counted(conn: &Connection) -> rusqlite::Result<()> {
    // IMMEDIATE: it reads the schema and then writes; a deferred transaction would fail at once
    // (SQLITE_BUSY, no wait) if another process (`fanhub admin-key` beside a running server)
    // wrote in between.
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
    let tables: Vec<String> = tx
        .prepare(
            "SELECT t.name FROM sqlite_schema t WHERE t.type = 'table' AND t.name NOT LIKE 'sqlite_%'
               AND t.name != 'table_counts'
               AND (SELECT COUNT(*) FROM sqlite_schema g WHERE g.type = 'trigger' AND g.tbl_name = t.name
                      AND g.name IN (?1 || t.name, ?2 || t.name)) < 2",
        )?
        .query_map(params![INSERT_TRIGGER, DELETE_TRIGGER], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for table in &tables {
        let (name, value) = (quoted(table), literal(table));
        let insert = quoted(&format!("{INSERT_TRIGGER}{table}"));
        let delete = quoted(&format!("{DELETE_TRIGGER}{table}"));
        tx.execute_batch(&format!(
            "DROP TRIGGER IF EXISTS {insert};
             DROP TRIGGER IF EXISTS {delete};
             INSERT INTO table_counts (name, rows) VALUES ({value}, (SELECT COUNT(*) FROM {name}))
               ON CONFLICT (name) DO UPDATE SET rows = excluded.rows;
             CREATE TRIGGER {insert} AFTER INSERT ON {name} BEGIN
               UPDATE table_counts SET rows = rows + 1 WHERE name = {value};
             END;
             CREATE TRIGGER {delete} AFTER DELETE ON {name} BEGIN
               UPDATE table_counts SET rows = rows - 1 WHERE name = {value};
             END;"
        ))?;
    }
    tx.execute("DELETE FROM table_counts WHERE name NOT IN (SELECT name FROM sqlite_schema WHERE type = 'table')", [])?;
    tx.commit()
}

/// The rows of one table, as its triggers keep them (0 for a table not counted).
pub fn rows_of(conn: &Connection, table: &str) -> rusqlite::Result<i64> {
    use rusqlite::OptionalExtension;
    let rows = conn.prepare_cached("SELECT rows FROM table_counts WHERE name = ?1")?.query_row([table], |r| r.get(0));
    Ok(rows.optional()?.unwrap_or(0))
}

/// Rows per table, as the triggers keep them.
pub fn counts(conn: &Connection) -> rusqlite::Result<BTreeMap<String, i64>> {
    conn.prepare_cached("SELECT name, rows FROM table_counts ORDER BY name")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table's counter against a count of its rows.
    fn all_exact(conn: &Connection) {
        let counted = counts(conn).unwrap();
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'table_counts'")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(counted.len(), tables.len(), "{counted:?}");
        for table in tables {
            let n: i64 = conn.query_row(&format!("SELECT COUNT(*) FROM {}", quoted(&table)), [], |r| r.get(0)).unwrap();
            assert_eq!(counted.get(&table), Some(&n), "{table}");
        }
    }

    #[test]
    fn counters_equal_counts_after_inserts_upserts_deletes_and_new_tables() {
        let (_dir, conn) = crate::db::open_for_tests();
        all_exact(&conn);
        for i in 0..50 {
            crate::db::settings::set(&conn, &format!("k{}", i % 20), &i).unwrap();
        }
        conn.execute("DELETE FROM settings WHERE key IN ('k1', 'k2', 'missing')", []).unwrap();
        conn.execute("DELETE FROM settings", []).unwrap();
        crate::db::settings::set(&conn, "kept", &1).unwrap();
        all_exact(&conn);
        assert_eq!(counts(&conn).unwrap()["settings"], 1);

        // A table a later migration adds, with rows, and one rebuilt under its old name.
        conn.execute_batch("CREATE TABLE later (id INTEGER PRIMARY KEY); INSERT INTO later (id) VALUES (1), (2), (3);")
            .unwrap();
        keep_counted(&conn).unwrap();
        conn.execute("INSERT INTO later (id) VALUES (4)", []).unwrap();
        all_exact(&conn);
        conn.execute_batch(
            "CREATE TABLE later_new (id INTEGER PRIMARY KEY); INSERT INTO later_new (id) VALUES (7);
             DROP TABLE later; ALTER TABLE later_new RENAME TO later;",
        )
        .unwrap();
        keep_counted(&conn).unwrap();
        all_exact(&conn);
        assert_eq!(counts(&conn).unwrap()["later"], 1);
        conn.execute_batch("DROP TABLE later;").unwrap();
        keep_counted(&conn).unwrap();
        assert!(!counts(&conn).unwrap().contains_key("later") && !counts(&conn).unwrap().contains_key("later_new"));
        all_exact(&conn);
    }

    /// What the triggers cannot follow: the row a REPLACE deletes fires no delete trigger. No
    /// store may write one.
    #[test]
    fn no_store_replaces_rows() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut found = Vec::new();
        let mut dirs = vec![src];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs" || e == "sql")
                    && !path.ends_with("table_counts.rs")
                {
                    let text = std::fs::read_to_string(&path).unwrap().to_uppercase();
                    if text.contains("OR REPLACE INTO") || text.contains("\"REPLACE INTO") {
                        found.push(path.display().to_string());
                    }
                }
            }
        }
        assert!(found.is_empty(), "INSERT OR REPLACE drifts table_counts; use ON CONFLICT … DO UPDATE: {found:?}");
    }
}
