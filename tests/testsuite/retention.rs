//! What the database keeps: each feature's sweep prunes its old rows at start and every hour
//! whether or not Roblox answers, and a database from before incremental auto_vacuum is
//! rewritten once, with its progress in the log.

use std::time::{Duration, Instant};

use crate::common::fake_roblox::FakeRoblox;
use crate::common::*;

fn days_ago(back: i64) -> String {
    let at = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24 * back);
    at.to_zoned(jiff::tz::TimeZone::UTC).date().to_string()
}

#[tokio::test]
async fn old_rows_go_at_start_even_while_roblox_is_down() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.down = true);
    let setup = SiteSetup::with_roblox(
        &fake.template(),
        500,
        &[("tracked = []", "tracked = [2124001]"), ("events_days = 90", "events_days = 30")],
        &[],
    );
    let mut server = setup.start();
    server.stop();
    let path = setup.dir.path().join("data").join("fanhub.db");
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        let long_ago = jiff::Timestamp::now().as_millisecond() - 40 * 86_400_000;
        db.execute_batch(&format!(
            "INSERT INTO roblox_cache (kind, key, body, fetched_at) VALUES ('profile', 'old', '{{}}', 1), ('profile', 'new', '{{}}', {now});
             INSERT INTO badge_days (badge_id, day, awarded, total, taken_at) VALUES (2124001, '{old}', 1, 1, 0), (2124001, '{recent}', 1, 2, 0);
             INSERT INTO events (type, created_at, data) VALUES ('member.joined', {long_ago}, '{{}}'), ('member.joined', {now}, '{{}}');",
            now = jiff::Timestamp::now().as_millisecond(),
            old = days_ago(401),
            recent = days_ago(30),
        ))
        .unwrap();
    }
    let _server = setup.start();
    let db = rusqlite::Connection::open(&path).unwrap();
    let left = || -> (i64, i64, i64) {
        db.query_row(
            "SELECT (SELECT COUNT(*) FROM roblox_cache), (SELECT COUNT(*) FROM badge_days),
                    (SELECT COUNT(*) FROM events WHERE type = 'member.joined')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
    };
    let deadline = Instant::now() + Duration::from_secs(15);
    while left() != (1, 1, 1) {
        assert!(Instant::now() < deadline, "old rows still there (cache, days, events): {:?}", left());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let recent: String = db.query_row("SELECT day FROM badge_days", [], |r| r.get(0)).unwrap();
    assert_eq!(recent, days_ago(30), "the day inside [retention] badge_days stays");
}

#[tokio::test]
async fn a_database_of_schema_17_is_rewritten_once_for_incremental_vacuum() {
    let setup = SiteSetup::new(&[], &[]);
    let data = setup.dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema/v17_0017_follows.db");
    std::fs::copy(fixture, data.join("fanhub.db")).unwrap();
    let mut server = setup.start();
    assert_eq!(client().get(server.url("/api/site")).send().await.unwrap().status(), 200);
    let log = server.stderr();
    assert!(log.contains("one-time upgrade: rewriting the database"), "{log}");
    assert!(log.contains("one-time upgrade done in"), "{log}");
    server.stop();
    let db = rusqlite::Connection::open(data.join("fanhub.db")).unwrap();
    assert_eq!(db.pragma_query_value(None, "auto_vacuum", |r| r.get::<_, i64>(0)).unwrap(), 2);
    drop(db);
    let server = setup.start();
    let _ = client().get(server.url("/api/site")).send().await.unwrap();
    assert!(!server.stderr().contains("one-time upgrade"), "once only: {}", server.stderr());
}
