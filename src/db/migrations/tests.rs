//! The migration list, the transition from positional versions, and the shipped fixtures.

use super::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn open(path: &Path) -> Connection {
    let conn = Connection::open(path).unwrap();
    conn.pragma_update(None, "foreign_keys", "ON").unwrap();
    conn
}

fn version(conn: &Connection) -> i64 {
    user_version(conn).unwrap()
}

fn recorded_numbers(conn: &Connection) -> Vec<(i64, bool)> {
    conn.prepare("SELECT version, adopted FROM schema_migrations ORDER BY version")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// A database as a positional-era fanhub left it at `position`: the first files run, the
/// position in user_version, no bookkeeping.
fn positional(path: &Path, files: &[&str], position: i64) -> Connection {
    let conn = open(path);
    for name in files {
        let m = MIGRATIONS.iter().find(|m| m.name == *name).unwrap();
        conn.execute_batch(m.sql).unwrap();
    }
    conn.pragma_update(None, "user_version", position).unwrap();
    conn
}

#[test]
fn the_list_is_the_directory_in_rising_order() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/db/migrations");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        // This file is the Rust module of these tests, the only file here that is not a migration.
        .filter(|f| f != "tests.rs")
        .map(|f| f.strip_suffix(".sql").unwrap_or_else(|| panic!("{f} in {} is not a .sql file", dir.display())).into())
        .collect();
    files.sort();
    let listed: Vec<&str> = MIGRATIONS.iter().map(|m| m.name).collect();
    assert_eq!(listed, files, "MIGRATIONS must list every file of src/db/migrations, in order");
    for m in MIGRATIONS {
        assert_eq!(m.version, m.name[..4].parse::<i64>().unwrap(), "{}", m.name);
        assert!(m.name[5..].bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'), "{}", m.name);
    }
    assert!(rising(MIGRATIONS));
    assert_eq!(LATEST_VERSION, 21);
}

#[test]
fn a_repeated_or_lower_number_is_refused() {
    const fn m(name: &'static str) -> Migration {
        Migration { version: number(name), name, sql: "" }
    }
    assert!(rising(&[m("0001_a"), m("0002_b"), m("0013_c")]));
    assert!(!rising(&[m("0001_a"), m("0002_b"), m("0002_c")]), "repeated");
    assert!(!rising(&[m("0001_a"), m("0013_b"), m("0012_c")]), "lower than the one before");
    assert!(!rising(&[m("0000_a")]), "numbers start at 1");
    assert!(!rising(&[]));
}

#[test]
fn the_positional_versions_are_the_first_files_and_their_marks() {
    // The positional mapping is history: the first LEGACY.len() files, as they were listed.
    let first: Vec<&str> = MIGRATIONS[..LEGACY.len()].iter().map(|m| m.name).collect();
    let legacy: Vec<&str> = LEGACY.iter().map(|(name, _, _)| *name).collect();
    assert_eq!(first, legacy, "a migration was added below the last one of the positional era");
    // Each file creates its mark, and no earlier file does.
    let dir = tempfile::tempdir().unwrap();
    let conn = open(&dir.path().join("t.db"));
    for (name, table, column) in LEGACY {
        assert!(!has_object(&conn, table, *column).unwrap(), "{name}'s mark exists before it");
        conn.execute_batch(MIGRATIONS.iter().find(|m| m.name == *name).unwrap().sql).unwrap();
        assert!(has_object(&conn, table, *column).unwrap(), "{name} does not create its mark");
    }
}

#[test]
fn a_new_database_records_every_file_and_takes_the_newest_number() {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = open(&dir.path().join("t.db"));
    apply(&mut conn).unwrap();
    apply(&mut conn).unwrap();
    assert_eq!(version(&conn), LATEST_VERSION);
    let all: Vec<(i64, bool)> = MIGRATIONS.iter().map(|m| (m.version, false)).collect();
    assert_eq!(recorded_numbers(&conn), all);
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = open(&dir.path().join("t.db"));
    apply(&mut conn).unwrap();
    conn.pragma_update(None, "user_version", LATEST_VERSION + 1).unwrap();
    let err = apply(&mut conn).unwrap_err();
    assert!(
        matches!(err, MigrationError::TooNew { found, known } if found == LATEST_VERSION + 1 && known == LATEST_VERSION)
    );
    assert!(err.to_string().contains("newer than this fanhub knows"), "{err}");

    // A newer fanhub's migration recorded (its number is the user_version it wrote).
    conn.execute(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, '9999_from_the_future', 0)",
        [LATEST_VERSION + 1],
    )
    .unwrap();
    assert!(matches!(apply(&mut conn), Err(MigrationError::TooNew { .. })));
    // Nothing was changed.
    assert_eq!(version(&conn), LATEST_VERSION + 1);
}

#[test]
fn a_positional_version_means_the_first_files_of_the_old_list() {
    // Positional 8 was "through 0009", where number 8 would now mean "through 0008".
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<&str> = LEGACY[..8].iter().map(|(n, _, _)| *n).collect();
    let mut conn = positional(&dir.path().join("t.db"), &names, 8);
    apply(&mut conn).unwrap();
    assert_eq!(version(&conn), LATEST_VERSION);
    assert_eq!(
        recorded_numbers(&conn),
        [(1, true), (2, true), (3, true), (4, true), (5, true), (6, true), (8, true), (9, true)]
            .into_iter()
            .chain([
                (10, false),
                (11, false),
                (13, false),
                (14, false),
                (15, false),
                (16, false),
                (17, false),
                (18, false),
                (19, false),
                (20, false),
                (21, false)
            ])
            .collect::<Vec<_>>()
    );
    assert!(has_object(&conn, "badge_info", Some("image_fallbacks")).unwrap(), "0010 was run");

    // Positional 11, the last of the era: everything of the era was applied, so it is only
    // recorded; the files numbered since are run.
    let names: Vec<&str> = LEGACY.iter().map(|(n, _, _)| *n).collect();
    let mut conn = positional(&dir.path().join("u.db"), &names, 11);
    apply(&mut conn).unwrap();
    assert_eq!(version(&conn), LATEST_VERSION);
    let recorded = recorded_numbers(&conn);
    assert!(recorded.iter().filter(|(n, _)| *n <= 13).all(|(_, adopted)| *adopted), "{recorded:?}");
    assert!(recorded.iter().filter(|(n, _)| *n > 13).all(|(_, adopted)| !*adopted), "{recorded:?}");
}

#[test]
fn a_database_of_another_numbering_is_refused_unchanged() {
    // The discord branch numbered 0006 fifth: its "5" lacks 0005's players.
    let dir = tempfile::tempdir().unwrap();
    let files = ["0001_core", "0002_accounts", "0003_developer_api", "0004_advertising", "0006_discord"];
    let mut conn = positional(&dir.path().join("t.db"), &files, 5);
    let err = apply(&mut conn).unwrap_err();
    assert!(matches!(err, MigrationError::Mismatch(_)), "{err}");
    assert!(err.to_string().contains("0005_roblox"), "{err}");
    assert_eq!(version(&conn), 5);
    assert!(!has_bookkeeping(&conn).unwrap());

    // And a version number no positional fanhub wrote, without the bookkeeping.
    let mut conn = positional(&dir.path().join("u.db"), &[], LEGACY.len() as i64 + 1);
    assert!(matches!(apply(&mut conn), Err(MigrationError::Mismatch(_))));
}

#[test]
fn a_gap_filled_after_the_fact_or_an_unknown_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = open(&dir.path().join("t.db"));
    apply(&mut conn).unwrap();
    // As if 0011 had been added after 0013 was applied.
    conn.execute("DELETE FROM schema_migrations WHERE version = 11", []).unwrap();
    let err = apply(&mut conn).unwrap_err();
    assert!(err.to_string().contains(&format!("0011_ranking_version is numbered below {LATEST_VERSION}")), "{err}");
    // A file this binary lacks (a renumbered one, or another branch's).
    conn.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (11, '0011_renamed', 0)", [])
        .unwrap();
    let err = apply(&mut conn).unwrap_err();
    assert!(err.to_string().contains("records migration 0011_renamed"), "{err}");
}

#[test]
fn a_failed_migration_leaves_the_one_before_applied_and_recorded() {
    static BROKEN: &[Migration] = &[
        Migration { version: 1, name: "0001_a", sql: "CREATE TABLE a (x INTEGER);" },
        Migration { version: 4, name: "0004_b", sql: "CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);" },
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut conn = open(&dir.path().join("t.db"));
    assert!(matches!(apply_list(&mut conn, BROKEN), Err(MigrationError::Failed { name: "0004_b", .. })));
    assert_eq!(version(&conn), 1);
    assert_eq!(recorded_numbers(&conn), [(1, false)]);
    assert!(has_object(&conn, "a", None).unwrap() && !has_object(&conn, "b", None).unwrap());
}

// ---- The fixtures: a database from each shipped schema version, made by its binary. ----

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/schema");

/// Columns the upgrade removes on purpose: 0003's first layout kept the key usage on api_keys.
const REMOVED: &[(&str, &str)] =
    &[("api_keys", "requests"), ("api_keys", "last_used"), ("api_keys", "last_used_from_ip")];
/// Tables a later migration drops, their rows with them (0019: the badge monitor's per-poll
/// snapshots, replaced by `badge_days`, which 0014 filled from them).
const DROPPED: &[&str] = &["badge_snapshots"];

/// Tables whose rows 0018 turns into rollups: checked below in their new form, not row by row.
const ROLLED_UP: &[&str] = &["daily_visitors", "monthly_visitors", "api_key_hourly"];

fn fixtures() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(FIXTURES)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "db"))
        .collect();
    found.sort();
    found
}

/// What the schema is made of, independent of how each statement was spelled: the columns,
/// keys and foreign keys of each table, and the SQL (whitespace folded) of each index and trigger.
fn shape(conn: &Connection) -> BTreeMap<String, String> {
    let objects: Vec<(String, String, Option<String>)> = conn
        .prepare("SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let rows = |sql: &str, name: &str| -> String {
        let mut stmt = conn.prepare(sql).unwrap();
        let n = stmt.column_count();
        stmt.query_map([name], |r| {
            Ok((0..n)
                .map(|i| match r.get::<_, rusqlite::types::Value>(i).unwrap() {
                    rusqlite::types::Value::Null => "NULL".to_string(),
                    rusqlite::types::Value::Integer(v) => v.to_string(),
                    rusqlite::types::Value::Real(v) => v.to_string(),
                    rusqlite::types::Value::Text(v) => format!("'{v}'"),
                    rusqlite::types::Value::Blob(v) => format!("x'{}'", hex::encode(v)),
                })
                .collect::<Vec<_>>()
                .join(" "))
        })
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
        .join("; ")
    };
    let fold = |sql: &str| sql.split_whitespace().collect::<Vec<_>>().join(" ");
    objects
        .into_iter()
        .map(|(kind, name, sql)| {
            let what = match kind.as_str() {
                "table" => format!(
                    "columns [{}] foreign keys [{}] without rowid {}",
                    rows("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1)", &name),
                    rows(
                        "SELECT \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
                        &name
                    ),
                    sql.as_deref().is_some_and(|s| s.to_uppercase().contains("WITHOUT ROWID")),
                ),
                _ => fold(sql.as_deref().unwrap_or("(automatic)")),
            };
            (format!("{kind} {name}"), what)
        })
        .collect()
}

fn fresh_shape() -> BTreeMap<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = open(&dir.path().join("fresh.db"));
    apply(&mut conn).unwrap();
    // What `Db::open` adds after the migrations, as the upgrades below go through it.
    crate::db::table_counts::keep_counted(&conn).unwrap();
    shape(&conn)
}

fn sql_value(v: &serde_json::Value) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Number(n) if n.is_i64() => Value::Integer(n.as_i64().unwrap()),
        serde_json::Value::Number(n) => Value::Real(n.as_f64().unwrap()),
        serde_json::Value::String(s) => Value::Text(s.clone()),
        serde_json::Value::Object(o) if o.contains_key("hex") => {
            Value::Blob(hex::decode(o["hex"].as_str().unwrap()).unwrap())
        }
        other => panic!("no SQL value for {other}"),
    }
}

#[test]
fn fixtures_upgrade_with_their_rows() {
    let fresh = fresh_shape();
    let files = fixtures();
    let mut legacy_versions = Vec::new();
    for fixture in &files {
        let shown = fixture.file_name().unwrap().to_string_lossy().into_owned();
        let sidecar: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fixture.with_extension("json")).unwrap()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = crate::db::database_path(dir.path());
        std::fs::copy(fixture, &path).unwrap();

        // What the old binary wrote, as the sidecar says.
        let before = open(&path);
        let written = version(&before);
        assert_eq!(sidecar["user_version"], written, "{shown}");
        let had: Vec<&str> = sidecar["migrations"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        if has_bookkeeping(&before).unwrap() {
            let names: Vec<String> = recorded(&before).unwrap().into_iter().map(|(_, n)| n).collect();
            assert_eq!(names, had, "{shown}");
        } else {
            let legacy: Vec<&str> = LEGACY[..written as usize].iter().map(|(n, _, _)| *n).collect();
            assert_eq!(legacy, had, "{shown}: the positional mapping misreads the version this binary wrote");
            legacy_versions.push(written);
        }
        drop(before);

        // The upgrade, through the path the server takes; then again, as on the next start.
        drop(crate::db::Db::open(&path).unwrap_or_else(|e| panic!("{shown}: {e}")));
        drop(crate::db::Db::open(&path).unwrap_or_else(|e| panic!("{shown}, opened again: {e}")));

        let conn = open(&path);
        assert_eq!(version(&conn), LATEST_VERSION, "{shown}");
        let all: Vec<i64> = MIGRATIONS.iter().map(|m| m.version).collect();
        assert_eq!(recorded_numbers(&conn).into_iter().map(|(v, _)| v).collect::<Vec<_>>(), all, "{shown}");
        let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(integrity, "ok", "{shown}");
        let broken: i64 = conn.query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |r| r.get(0)).unwrap();
        assert_eq!(broken, 0, "{shown}: foreign_key_check");
        let got = shape(&conn);
        for key in fresh.keys().chain(got.keys()) {
            assert_eq!(got.get(key), fresh.get(key), "{shown}: {key} differs from a new database's");
        }

        // Every row the script inserted, with its values.
        let rows = sidecar["rows"].as_object().unwrap();
        assert!(rows.contains_key("users"), "{shown}: the fixture has no rows");
        for (table, rows) in
            rows.iter().filter(|(t, _)| !ROLLED_UP.contains(&t.as_str()) && !DROPPED.contains(&t.as_str()))
        {
            for row in rows.as_array().unwrap() {
                let row = row.as_object().unwrap();
                let kept: Vec<(&String, &serde_json::Value)> =
                    row.iter().filter(|(c, _)| !REMOVED.contains(&(table.as_str(), c.as_str()))).collect();
                let wheres: Vec<String> =
                    kept.iter().enumerate().map(|(i, (c, _))| format!("\"{c}\" IS ?{}", i + 1)).collect();
                let sql = format!("SELECT COUNT(*) FROM \"{table}\" WHERE {}", wheres.join(" AND "));
                let values: Vec<rusqlite::types::Value> = kept.iter().map(|(_, v)| sql_value(v)).collect();
                let n: i64 = conn
                    .query_row(&sql, rusqlite::params_from_iter(values), |r| r.get(0))
                    .unwrap_or_else(|e| panic!("{shown}: {sql}: {e}"));
                assert_eq!(n, 1, "{shown}: {table} lost {row:?}");
            }
        }

        // What migrations derive from the rows: the player counts (0009 counts the players
        // stored before it) and, for 0003's first layout, the last use moved to the hours.
        let counts_match: bool = conn
            .query_row(
                "SELECT (SELECT group_concat(generation || '=' || players) FROM (SELECT * FROM player_counts WHERE players > 0 ORDER BY generation))
                     IS (SELECT group_concat(generation || '=' || n) FROM (SELECT generation, COUNT(*) n FROM players GROUP BY generation ORDER BY generation))",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(counts_match, "{shown}: player_counts");
        for key in rows.get("api_keys").and_then(|k| k.as_array()).into_iter().flatten() {
            let id = key["id"].as_i64().unwrap();
            let hours = rows.get("api_key_hourly").and_then(|h| h.as_array()).into_iter().flatten();
            let requests: i64 = hours.filter(|h| h["key_id"] == id).map(|h| h["requests"].as_i64().unwrap()).sum();
            assert_eq!(crate::keys::store::requests_of(&conn, id).unwrap(), requests, "{shown}: key {id}'s calls");
            let Some(last_used) = key.get("last_used").and_then(|v| v.as_i64()) else { continue };
            let (newest, ip): (i64, String) = conn
                .query_row(
                    "SELECT last_used, last_used_from_ip FROM
                        (SELECT last_used, last_used_from_ip FROM api_key_hourly WHERE key_id = ?1
                         UNION ALL SELECT last_used, last_used_from_ip FROM api_key_daily WHERE key_id = ?1)
                     ORDER BY last_used DESC LIMIT 1",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap();
            assert_eq!((newest, ip.as_str()), (last_used, key["last_used_from_ip"].as_str().unwrap()), "{shown}");
        }
        // 0018: each day's visitors are counted, each month's total kept.
        let visits = rows.get("daily_visitors").and_then(|d| d.as_array()).cloned().unwrap_or_default();
        for day in visits.iter().map(|v| v["day"].as_str().unwrap()) {
            let that_day = visits.iter().filter(|v| v["day"] == day).count() as i64;
            let counted: i64 =
                conn.query_row("SELECT visitors FROM visitor_days WHERE day = ?1", [day], |r| r.get(0)).unwrap();
            assert_eq!(counted, that_day, "{shown}: visitors of {day}");
            let month = &day[..7];
            let hashes = rows["monthly_visitors"].as_array().unwrap().iter().filter(|m| m["month"] == month).count();
            assert_eq!(crate::stats::store::monthly_visitors(&conn, month).unwrap(), hashes as i64, "{shown}: {month}");
        }
    }
    // Every positional version a fanhub shipped. 1 never was: 0001 and 0002 came in one commit.
    assert_eq!(legacy_versions, (2..=LEGACY.len() as i64).collect::<Vec<_>>(), "a fixture per shipped version");
}

#[test]
fn rollups_turn_a_year_of_visitor_hashes_and_key_hours_into_figures() {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = open(&dir.path().join("t.db"));
    let at = MIGRATIONS.iter().position(|m| m.name == "0018_rollups").unwrap();
    let before_0018: &'static [Migration] = &MIGRATIONS[..at];
    assert_eq!(before_0018.last().unwrap().name, "0017_follows");
    apply_list(&mut conn, before_0018).unwrap();

    let today = jiff::Timestamp::now().to_zoned(jiff::tz::TimeZone::UTC).date();
    let ago = |days: i64| today.checked_sub(jiff::Span::new().days(days)).unwrap();
    let month = |d: jiff::civil::Date| d.strftime("%Y-%m").to_string();
    let day_in = |d: jiff::civil::Date, n: i8| {
        d.first_of_month().checked_add(jiff::Span::new().days(n - 1)).unwrap().to_string()
    };
    // A month inside the analytics' reach (40 days back), the current one, and one 200 days back.
    let (recent, current, old) = (ago(40), today, ago(200));
    let (r5, r20, o3, o10) = (day_in(recent, 5), day_in(recent, 20), day_in(old, 3), day_in(old, 10));
    let now = today.to_string();
    let visits: Vec<(&str, u8)> = vec![
        (&r5, b'a'),
        (&r20, b'a'),
        (&r5, b'b'),
        (&r20, b'c'), // a comes back; b, c once
        (&now, b'p'),
        (&now, b'q'), // this month
        (&o3, b'r'),
        (&o3, b's'),
        (&o10, b'r'), // long ago
    ];
    for (day, v) in &visits {
        conn.execute("INSERT INTO daily_visitors (day, hash) VALUES (?1, ?2)", params![day, vec![*v; 16]]).unwrap();
        conn.execute(
            "INSERT OR IGNORE INTO monthly_visitors (month, hash) VALUES (?1, ?2)",
            params![&day[..7], vec![*v; 16]],
        )
        .unwrap();
    }
    // A visitor the old month's total has without a day (the salt's first seconds of a month).
    conn.execute("INSERT INTO monthly_visitors (month, hash) VALUES (?1, x'74')", [month(old)]).unwrap();
    let distinct_before: Vec<i64> = (0..90)
        .map(|k| {
            conn.query_row(
                "SELECT COUNT(DISTINCT hash) FROM daily_visitors WHERE day >= ?1",
                [ago(k).to_string()],
                |r| r.get(0),
            )
            .unwrap()
        })
        .collect();

    // Two keys: the public one and a bot's, with hours 30 days old and of today.
    conn.execute_batch(
        "INSERT INTO api_keys (id, key_hash, prefix, name, is_public, created_at, created_from_ip)
             VALUES (1, x'01', 'fhk_00000001', 'Public default key', 1, 0, 'server'),
                    (2, x'02', 'fhk_00000002', 'bot', 0, 0, '192.0.2.0');
         INSERT INTO api_key_ips (key_id, ip_hash) VALUES (1, x'a1'), (1, x'a2'), (1, x'a3'), (2, x'b1'), (2, x'b2');",
    )
    .unwrap();
    let midnight = crate::keys::limits::day_start(jiff::Timestamp::now().as_second());
    let month_ago = midnight - 30 * 86_400;
    for (key, hour, requests, ip) in [
        (2, month_ago + 3 * 3600, 5, "192.0.2.0"),
        (2, month_ago + 5 * 3600, 2, "198.51.100.0"),
        (2, midnight, 4, "203.0.113.0"),
        (1, month_ago, 10, "198.51.100.0"),
        (1, midnight, 1, "198.51.100.0"),
    ] {
        conn.execute(
            "INSERT INTO api_key_hourly (key_id, hour, requests, last_used, last_used_from_ip) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![key, hour, requests, hour * 1000 + 9, ip],
        )
        .unwrap();
    }

    apply(&mut conn).unwrap();
    assert_eq!(version(&conn), LATEST_VERSION);
    for gone in ["daily_visitors", "monthly_visitors"] {
        assert!(!has_object(&conn, gone, None).unwrap(), "{gone} is dropped");
    }

    let days: Vec<(String, i64, i64)> = conn
        .prepare("SELECT day, visitors, last_visits FROM visitor_days ORDER BY day")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let expected: Vec<(String, i64, i64)> = vec![
        (o3.clone(), 2, 0),
        (o10.clone(), 1, 3), // the old month's total, on its last day
        (r5.clone(), 2, 1),  // b's last visit
        (r20.clone(), 2, 2), // a's and c's
        (now.clone(), 2, 2),
    ];
    assert_eq!(days, expected);
    for k in 0..90 {
        let from = ago(k).to_string();
        assert_eq!(
            crate::stats::store::distinct_visitors_since(&conn, &from).unwrap(),
            distinct_before[k as usize],
            "distinct visitors since {from}"
        );
    }
    for (m, n) in [(month(old), 3), (month(recent), 3), (month(current), 2)] {
        assert_eq!(crate::stats::store::monthly_visitors(&conn, &m).unwrap(), n, "{m}");
    }
    let hashes: Vec<(String, Vec<u8>, String)> = conn
        .prepare("SELECT month, hash, last_day FROM month_visitors ORDER BY hash")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(hashes, [(month(current), vec![b'p'; 16], now.clone()), (month(current), vec![b'q'; 16], now.clone())]);

    // Keys: the old hours are days, today's are hours; the figures are the same.
    for (key, requests) in [(1, 11), (2, 11)] {
        assert_eq!(crate::keys::store::requests_of(&conn, key).unwrap(), requests, "key {key}");
    }
    let rows = |sql: &str| -> Vec<(i64, i64, i64, String)> {
        conn.prepare(sql)
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(
        rows("SELECT key_id, day, requests, last_used_from_ip FROM api_key_daily ORDER BY key_id"),
        [(1, month_ago, 10, String::new()), (2, month_ago, 7, "198.51.100.0".into())]
    );
    assert_eq!(
        rows("SELECT key_id, hour, requests, last_used_from_ip FROM api_key_hourly ORDER BY key_id"),
        [(1, midnight, 1, String::new()), (2, midnight, 4, "203.0.113.0".into())]
    );
    // Addresses: the public key's gone, the bot's dated to its last use.
    let addresses: Vec<(i64, Vec<u8>, i64)> = conn
        .prepare("SELECT key_id, ip_hash, last_seen FROM api_key_ips ORDER BY ip_hash")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(addresses, [(2, vec![0xb1], midnight), (2, vec![0xb2], midnight)]);
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok");
}
