//! Numbered migrations (src/db/migrations/NNNN_name.sql), applied on start in the order of their
//! numbers, each in its own transaction together with its bookkeeping.
//!
//! - The schema version (`PRAGMA user_version`) is the number in the newest applied file's name,
//!   not its place in the list: numbers may skip (0007 and 0012 never shipped). A new migration
//!   takes a number above every existing one; filling a gap or reusing a number fails the tests
//!   (and the build, for a list out of order). Applied files are never edited.
//! - `schema_migrations` records each applied file (number, name, when). The runner reads what is
//!   pending from it and refuses a database that records a file this binary lacks, or that lacks
//!   a file numbered below one it has (a gap filled after the fact).
//! - Databases written before that table counted `user_version` as a position in the list
//!   (1 to 11: the first N files of [`LEGACY`]). Such a database is read with that mapping once,
//!   checked against the tables those files create, and recorded. The versions written since are
//!   file numbers, 13 and up, above every positional one, so a fanhub of the positional era refuses
//!   a database a later one has opened instead of misreading it.
//! - tests/fixtures/schema holds a database made by the binary of each shipped schema version
//!   (scripts/schema-fixtures); the tests upgrade every one of them.

use rusqlite::{Connection, OptionalExtension, params};

/// One numbered file.
#[derive(Debug)]
pub struct Migration {
    /// The number in the file's name: the schema version once it is applied.
    pub version: i64,
    /// The file's name without `.sql`, e.g. `0013_ad_image_removal`.
    pub name: &'static str,
    sql: &'static str,
}

/// The number of a `NNNN_name` migration (at build time: a wrong name does not compile).
const fn number(name: &str) -> i64 {
    let b = name.as_bytes();
    assert!(b.len() > 5 && b[4] == b'_', "a migration is named NNNN_name");
    let mut version = 0;
    let mut i = 0;
    while i < 4 {
        assert!(b[i].is_ascii_digit(), "a migration is named NNNN_name");
        version = version * 10 + (b[i] - b'0') as i64;
        i += 1;
    }
    version
}

macro_rules! migrations {
    ($($name:literal),+ $(,)?) => {
        &[$(Migration {
            version: number($name),
            name: $name,
            sql: include_str!(concat!("migrations/", $name, ".sql")),
        }),+]
    };
}

/// Every file of src/db/migrations, in the order of their numbers (a test checks it is the
/// directory, file for file).
const MIGRATIONS: &[Migration] = migrations![
    "0001_core",
    "0002_accounts",
    "0003_developer_api",
    "0004_advertising",
    "0005_roblox",
    "0006_discord",
    "0008_scans",
    "0009_player_ranking",
    "0010_badge_image_fallbacks",
    "0011_ranking_version",
    "0013_ad_image_removal",
    "0014_badge_days",
    "0015_roblox_budget_ledger",
    "0016_second_factors",
    "0017_follows",
    "0018_rollups",
    "0019_retention",
    "0020_read_indexes",
    "0021_admin_list_indexes",
];

/// Whether the numbers rise from one file to the next (none repeated, none lower), from 1 up.
const fn rising(list: &[Migration]) -> bool {
    let mut i = 0;
    while i < list.len() {
        if list[i].version < 1 || (i > 0 && list[i].version <= list[i - 1].version) {
            return false;
        }
        i += 1;
    }
    !list.is_empty()
}

const _: () =
    assert!(rising(MIGRATIONS), "migration numbers must rise: no number repeated or lower than the one before");

/// The schema version of a database with every migration applied: the newest file's number.
pub const LATEST_VERSION: i64 = MIGRATIONS[MIGRATIONS.len() - 1].version;

/// The positional era: `user_version` N meant the first N of these files. Each comes with what
/// it created (a table, or a table's column), which a database at N has for the first N and not
/// for the rest. Fixed: no database is written this way any more.
const LEGACY: &[(&str, &str, Option<&str>)] = &[
    ("0001_core", "settings", None),
    ("0002_accounts", "users", None),
    ("0003_developer_api", "api_keys", None),
    ("0004_advertising", "advertisements", None),
    ("0005_roblox", "players", None),
    ("0006_discord", "discord_messages", None),
    ("0008_scans", "scans", None),
    ("0009_player_ranking", "player_counts", None),
    ("0010_badge_image_fallbacks", "badge_info", Some("image_fallbacks")),
    ("0011_ranking_version", "ranking_version", None),
    ("0013_ad_image_removal", "advertisements", Some("image_removed_at")),
];

/// Bookkeeping of the applied files; created with the first one recorded.
const BOOKKEEPING: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,  -- the number in the file's name
    name       TEXT NOT NULL,        -- the file's name without .sql
    applied_at INTEGER NOT NULL,     -- ms since the epoch
    adopted    INTEGER NOT NULL DEFAULT 0 CHECK (adopted IN (0, 1))  -- 1: applied in the positional era, recorded later
)";

/// 0003_developer_api's first layout moved to its edited one (see the file).
const LEGACY_KEY_USAGE: &str = include_str!("legacy_key_usage.sql");

#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    #[error("cannot open the database: {0}")]
    Open(rusqlite::Error),
    #[error(
        "the database has schema version {found}, newer than this fanhub knows ({known}); run a newer fanhub or restore a backup"
    )]
    TooNew { found: i64, known: i64 },
    #[error(
        "the database's schema does not match this fanhub's migrations: {0}; run the fanhub that wrote it or restore a backup"
    )]
    Mismatch(String),
    #[error("migration {name} failed: {source}")]
    Failed { name: &'static str, source: rusqlite::Error },
}

pub fn apply(conn: &mut Connection) -> Result<(), MigrationError> {
    apply_list(conn, MIGRATIONS)
}

fn apply_list(conn: &mut Connection, list: &'static [Migration]) -> Result<(), MigrationError> {
    let latest = list.last().map_or(0, |m| m.version);
    let found = user_version(conn).map_err(MigrationError::Open)?;
    if found > latest {
        return Err(MigrationError::TooNew { found, known: latest });
    }
    if !has_bookkeeping(conn).map_err(MigrationError::Open)? && found > 0 {
        adopt_positional(conn, found)?;
    }
    let applied = recorded(conn).map_err(MigrationError::Open)?;
    let newest = applied.last().map_or(0, |(v, _)| *v);
    if newest > latest {
        return Err(MigrationError::TooNew { found: newest, known: latest });
    }
    let found = user_version(conn).map_err(MigrationError::Open)?;
    if found != newest {
        return Err(MigrationError::Mismatch(format!(
            "user_version is {found} but the newest migration schema_migrations records is {newest}"
        )));
    }
    for (version, name) in &applied {
        if !list.iter().any(|m| m.version == *version && m.name == name) {
            return Err(MigrationError::Mismatch(format!(
                "it records migration {name}, which this fanhub does not have"
            )));
        }
    }
    for m in list.iter().filter(|m| !applied.iter().any(|(v, _)| *v == m.version)) {
        if m.version < newest {
            return Err(MigrationError::Mismatch(format!(
                "migration {} is numbered below {newest}, which is applied (a new migration takes a number above every shipped one)",
                m.name
            )));
        }
        let fail = |source| MigrationError::Failed { name: m.name, source };
        let tx = conn.transaction().map_err(fail)?;
        tx.execute_batch(BOOKKEEPING).map_err(fail)?;
        tx.execute_batch(m.sql).map_err(fail)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
            params![m.version, m.name, crate::time::now_ms()],
        )
        .map_err(fail)?;
        tx.pragma_update(None, "user_version", m.version).map_err(fail)?;
        tx.commit().map_err(fail)?;
        tracing::info!("applied migration {}", m.name);
    }
    Ok(())
}

/// Records a positional-era database at `position` (its first `position` files of [`LEGACY`]
/// applied) in `schema_migrations`, in one transaction, after checking that it has what those
/// files create and nothing of the later ones (a database of another numbering, such as a
/// branch's, is refused unchanged). Its `user_version` becomes the newest file's number.
fn adopt_positional(conn: &mut Connection, position: i64) -> Result<(), MigrationError> {
    let Some(newest) = usize::try_from(position).ok().and_then(|p| p.checked_sub(1)).and_then(|i| LEGACY.get(i)) else {
        return Err(MigrationError::Mismatch(format!(
            "schema version {position} without schema_migrations: no fanhub wrote that (the positional versions ended at {})",
            LEGACY.len()
        )));
    };
    for (i, (name, table, column)) in LEGACY.iter().enumerate() {
        let applied = (i as i64) < position;
        let has = has_object(conn, table, *column).map_err(MigrationError::Open)?;
        if has != applied {
            let what = column.map_or(format!("table {table}"), |c| format!("column {table}.{c}"));
            return Err(MigrationError::Mismatch(format!(
                "schema version {position} of the positional numbering means {name} is {}applied, but the {what} it creates is {}",
                if applied { "" } else { "not " },
                if has { "there" } else { "missing" }
            )));
        }
    }
    let fail = |source| MigrationError::Failed { name: "recording the positional schema version", source };
    let tx = conn.transaction().map_err(fail)?;
    tx.execute_batch(BOOKKEEPING).map_err(fail)?;
    let now = crate::time::now_ms();
    for (name, _, _) in &LEGACY[..position as usize] {
        tx.execute(
            "INSERT INTO schema_migrations (version, name, applied_at, adopted) VALUES (?1, ?2, ?3, 1)",
            params![number(name), name, now],
        )
        .map_err(fail)?;
    }
    if has_object(&tx, "api_keys", Some("requests")).map_err(fail)?
        && !has_object(&tx, "api_key_hourly", Some("last_used")).map_err(fail)?
    {
        tx.execute_batch(LEGACY_KEY_USAGE).map_err(fail)?;
        tracing::info!("moved the API key usage to the edited layout of 0003_developer_api");
    }
    let newest = number(newest.0);
    tx.pragma_update(None, "user_version", newest).map_err(fail)?;
    tx.commit().map_err(fail)?;
    tracing::info!("recorded schema version {position} of the positional numbering as migrations up to {newest}");
    Ok(())
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}

fn has_bookkeeping(conn: &Connection) -> rusqlite::Result<bool> {
    has_object(conn, "schema_migrations", None)
}

/// Whether the table (or the table's column) exists.
fn has_object(conn: &Connection, table: &str, column: Option<&str>) -> rusqlite::Result<bool> {
    let found = match column {
        None => conn
            .query_row("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1", [table], |_| Ok(()))
            .optional()?,
        Some(c) => {
            conn.query_row("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", [table, c], |_| Ok(())).optional()?
        }
    };
    Ok(found.is_some())
}

/// The applied migrations, oldest first (none without the bookkeeping table).
fn recorded(conn: &Connection) -> rusqlite::Result<Vec<(i64, String)>> {
    if !has_bookkeeping(conn)? {
        return Ok(Vec::new());
    }
    conn.prepare("SELECT version, name FROM schema_migrations ORDER BY version")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

// The tests live in migrations/tests.rs, beside the SQL files they check.
#[cfg(test)]
mod tests;
