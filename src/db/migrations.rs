//! Numbered migrations (src/db/migrations/NNNN_name.sql), applied in order on start, each in its
//! own transaction together with the new `user_version`. Applied files are never edited.

use rusqlite::Connection;

const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_core", include_str!("migrations/0001_core.sql")),
    ("0002_accounts", include_str!("migrations/0002_accounts.sql")),
    ("0003_developer_api", include_str!("migrations/0003_developer_api.sql")),
    ("0004_advertising", include_str!("migrations/0004_advertising.sql")),
    ("0005_roblox", include_str!("migrations/0005_roblox.sql")),
    ("0006_discord", include_str!("migrations/0006_discord.sql")),
    ("0008_scans", include_str!("migrations/0008_scans.sql")),
    ("0009_player_ranking", include_str!("migrations/0009_player_ranking.sql")),
    ("0010_badge_image_fallbacks", include_str!("migrations/0010_badge_image_fallbacks.sql")),
    ("0011_ranking_version", include_str!("migrations/0011_ranking_version.sql")),
    ("0013_ad_image_removal", include_str!("migrations/0013_ad_image_removal.sql")),
];

pub const LATEST_VERSION: i64 = MIGRATIONS.len() as i64;

#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    #[error("cannot open the database: {0}")]
    Open(rusqlite::Error),
    #[error(
        "the database has schema version {found}, newer than this fanhub knows ({known}); run a newer fanhub or restore a backup"
    )]
    TooNew { found: i64, known: i64 },
    #[error("migration {name} failed: {source}")]
    Failed { name: &'static str, source: rusqlite::Error },
}

pub fn apply(conn: &mut Connection) -> Result<(), MigrationError> {
    let found: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(MigrationError::Open)?;
    if found > LATEST_VERSION {
        return Err(MigrationError::TooNew { found, known: LATEST_VERSION });
    }
    for (index, (name, sql)) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let version = index as i64 + 1;
        let fail = |source| MigrationError::Failed { name, source };
        let tx = conn.transaction().map_err(fail)?;
        tx.execute_batch(sql).map_err(fail)?;
        tx.pragma_update(None, "user_version", version).map_err(fail)?;
        tx.commit().map_err(fail)?;
        tracing::info!("applied migration {name}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_apply_once_and_refuse_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let mut conn = Connection::open(&path).unwrap();
        apply(&mut conn).unwrap();
        apply(&mut conn).unwrap();
        let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(v, LATEST_VERSION);
        conn.pragma_update(None, "user_version", LATEST_VERSION + 1).unwrap();
        assert!(matches!(apply(&mut conn), Err(MigrationError::TooNew { .. })));
    }
}
