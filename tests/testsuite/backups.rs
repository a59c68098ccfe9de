//! Scheduled backups, Backup Now, downloads, `fanhub restore` and its refusals, against the
//! real binary.

use std::collections::BTreeSet;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{Launch, Server, admin_key, browser, client, json, run};
use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::json;

fn launch(args: &[&str], data_dir: Option<PathBuf>) -> Server {
    Server::launch(Launch { args: args.iter().map(|s| s.to_string()).collect(), data_dir, ..Default::default() })
}

fn archives(data_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data_dir.join("backups"))
        .map(|d| d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// Every entry of an archive, with its bytes.
fn entries(archive: &Path) -> Vec<(String, Vec<u8>)> {
    let mut a = tar::Archive::new(std::fs::File::open(archive).unwrap());
    a.entries()
        .unwrap()
        .map(|e| {
            let mut e = e.unwrap();
            let name = e.path().unwrap().display().to_string();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut e, &mut bytes).unwrap();
            (name, bytes)
        })
        .collect()
}

fn integrity(db_bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("check.db");
    std::fs::write(&path, db_bytes).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap()
}

#[tokio::test]
async fn scheduled_backups_are_written_pruned_listed_and_downloaded_by_admins_only() {
    let s = launch(&["--backup-every", "1s", "--backup-keep", "2"], None);
    let key = admin_key(&s);
    let deadline = Instant::now() + Duration::from_secs(20);
    while archives(&s.data_dir).iter().filter(|n| n.ends_with(".tar")).count() < 2 {
        assert!(Instant::now() < deadline, "no scheduled backups after 20 s: {:?}", archives(&s.data_dir));
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_millis(3200)).await;
    let c = client();
    let list = json(c.get(s.url("/api/admin/backups")).header("x-admin-key", &key).send().await.unwrap()).await;
    let backups = list["backups"].as_array().unwrap();
    assert_eq!(backups.len(), 2, "--backup-keep 2 keeps two: {list}");
    assert_eq!(list["every"], "1s");
    assert_eq!(list["keep"], 2);
    assert!(list["lastSuccess"].is_string(), "{list}");
    let newest = backups[0]["name"].as_str().unwrap().to_string();
    assert!(newest.as_str() > backups[1]["name"].as_str().unwrap(), "newest first: {list}");
    assert!(s.stderr().contains("backup written: fanhub-"), "each backup is logged");

    // Download: the bytes of the file, as an attachment.
    let res = c.get(s.url(&format!("/api/admin/backups/{newest}"))).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "application/x-tar");
    assert!(res.headers()["content-disposition"].to_str().unwrap().contains(&newest));
    let bytes = res.bytes().await.unwrap();
    assert!(bytes.len() > 10_000);
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("dl.tar"), &bytes).unwrap();
    let got = entries(&tmp.path().join("dl.tar"));
    assert_eq!(got[0].0, "fanhub.db");
    assert_eq!(integrity(&got[0].1), "ok");

    // Only admins, only archive names.
    assert_eq!(c.get(s.url("/api/admin/backups")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        c.get(s.url(&format!("/api/admin/backups/{newest}"))).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(c.post(s.url("/api/admin/backups")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    for bad in ["..%2Ffanhub.db", "fanhub.db", "fanhub.lock", "fanhub-20991231-235959.tar", "%2Fetc%2Fpasswd"] {
        let res = c.get(s.url(&format!("/api/admin/backups/{bad}"))).header("x-admin-key", &key).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{bad}");
    }
}

#[tokio::test]
async fn backup_now_writes_an_archive_and_cookie_requests_must_be_same_origin() {
    let s = Server::start();
    let key = admin_key(&s);
    let c = client();
    let list = json(c.get(s.url("/api/admin/backups")).header("x-admin-key", &key).send().await.unwrap()).await;
    assert_eq!(list["backups"].as_array().unwrap().len(), 0);
    assert!(list["every"].is_null(), "scheduled backups are off by default: {list}");

    let res = c.post(s.url("/api/admin/backups")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let made = json(res).await;
    let name = made["name"].as_str().unwrap();
    assert!(name.starts_with("fanhub-") && name.ends_with(".tar"), "{made}");
    let on_disk = std::fs::metadata(s.data_dir.join("backups").join(name)).unwrap().len();
    assert_eq!(made["sizeBytes"].as_u64().unwrap(), on_disk);

    // An admin session (cookie) from another site is refused; from the site's own pages it works.
    let b = browser(&s);
    let res = b.post(s.url("/api/admin/verify-key")).json(&json!({ "key": key })).send().await.unwrap();
    assert!(res.status().is_success(), "{}", res.text().await.unwrap());
    let cross = b.post(s.url("/api/admin/backups")).header("origin", "https://evil.example").send().await.unwrap();
    assert_eq!(cross.status(), StatusCode::FORBIDDEN);
    let res = b.post(s.url("/api/admin/backups")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(archives(&s.data_dir).len(), 2);
}

fn png() -> Vec<u8> {
    let img =
        image::RgbImage::from_fn(
            64,
            32,
            |x, _| if x < 32 { image::Rgb([30, 90, 200]) } else { image::Rgb([240, 200, 40]) },
        );
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img).write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// Users, admin and API keys, ads and ratings: every row, as text.
fn dump(db: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut out = Vec::new();
    for table in ["users", "admin_keys", "api_keys", "advertisements", "command_ratings"] {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table}")).unwrap();
        let n = stmt.column_count();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                let cols: Vec<String> = (0..n).map(|i| format!("{:?}", r.get_ref(i).unwrap())).collect();
                Ok(format!("{table}: {}", cols.join(" | ")))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(!rows.is_empty(), "the test made no {table} rows");
        rows.sort();
        out.extend(rows);
    }
    out
}

fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            out.extend(
                files_under(&e.path())
                    .into_iter()
                    .map(|(n, b)| (format!("{}/{n}", e.file_name().to_string_lossy()), b)),
            );
        } else {
            out.push((e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()));
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn backup_then_restore_brings_back_the_same_users_keys_ads_ratings_and_uploads() {
    let mut s = Server::start();
    admin_key(&s);
    let b = browser(&s);
    let res = b
        .post(s.url("/api/auth/register"))
        .json(&json!({"username": "fan_round", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let uid = json(res).await["user"]["id"].as_i64().unwrap();
    let res = b
        .post(s.url("/api/auth/login"))
        .json(&json!({"username": "fan_round", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let commands = json(b.get(s.url("/api/commands")).send().await.unwrap()).await;
    let cid = commands[0]["id"].as_i64().unwrap();
    let res = b
        .post(s.url(&format!("/api/commands/{cid}/rating")))
        .json(&json!({"userId": uid, "rating": 4}))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.text().await.unwrap());
    let res = b.post(s.url("/api/generate-key")).json(&json!({"name": "round trip"})).send().await.unwrap();
    assert!(res.status().is_success(), "{}", res.text().await.unwrap());
    let form = Form::new()
        .text("websiteUrl", "https://blockcraft.example/join")
        .text("adDescription", "The friendliest survival server! Weekly build contests. Free ranks.")
        .text("targetAudience", "roblox-players")
        .text("duration", "1-day")
        .text("links", "[]")
        .part("image", Part::bytes(png()).file_name("a.png").mime_str("image/png").unwrap());
    let res = client().post(s.url("/api/advertise")).multipart(form).send().await.unwrap();
    assert!(res.status().is_success(), "{}", res.text().await.unwrap());

    let key = admin_key(&s);
    let made = json(client().post(s.url("/api/admin/backups")).header("x-admin-key", &key).send().await.unwrap()).await;
    let archive = s.data_dir.join("backups").join(made["name"].as_str().unwrap());
    // A database-only copy as well (`fanhub backup FILE`, what the older download gives).
    let plain = s.data_dir.join("plain.db");
    let (code, _, err) = run(&["backup", plain.to_str().unwrap()], Some(&s.data_dir));
    assert_eq!(code, 0, "{err}");
    assert_eq!(s.stop().code(), Some(0));
    let before = dump(&s.data_dir.join("fanhub.db"));
    let uploads_before = files_under(&s.data_dir.join("uploads"));
    assert!(!uploads_before.is_empty(), "the ad's image is an upload");

    // Onto a new machine: an empty data dir.
    let fresh = tempfile::tempdir().unwrap();
    let target = fresh.path().join("data");
    let (code, out, err) = run(&["restore", archive.to_str().unwrap()], Some(&target));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("restored") && out.contains("uploads"), "says what it did: {out}");
    assert_eq!(dump(&target.join("fanhub.db")), before);
    assert_eq!(files_under(&target.join("uploads")), uploads_before);
    // The restore's integrity check is recorded in what it restored: System Health shows it at once.
    let recorded: String = rusqlite::Connection::open(target.join("fanhub.db"))
        .unwrap()
        .query_row("SELECT value FROM settings WHERE key = 'integrity_check'", [], |r| r.get(0))
        .unwrap();
    assert!(recorded.contains(r#""result":"ok""#), "{recorded}");

    // Over an existing dir: the current database is kept aside under a dated name.
    let (code, out, err) = run(&["restore", plain.to_str().unwrap()], Some(&target));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("kept the previous database as"), "{out}");
    let aside: Vec<_> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("fanhub.db.before-restore-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(dump(&target.join(&aside[0])), before);
    assert_eq!(dump(&target.join("fanhub.db")), before);

    // And the restored dir serves: the user signs in with the same password.
    let s2 = launch(&[], Some(target.clone()));
    let key2 = admin_key(&s2);
    let health =
        json(client().get(s2.url("/api/admin/health")).header("x-admin-key", &key2).send().await.unwrap()).await;
    let database = &health["checks"][0];
    assert_eq!(database["name"], "Database");
    assert!(database["detail"].as_str().unwrap().contains("quick check passed at"), "{database}");
    let b2 = browser(&s2);
    let res = b2
        .post(s2.url("/api/auth/login"))
        .json(&json!({"username": "fan_round", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
}

/// The data dir's files and their bytes, to prove a refused restore changed nothing.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files_under(dir).into_iter().filter(|(n, _)| n != "fanhub.lock").collect()
}

#[tokio::test]
async fn restore_refuses_bad_files_and_a_live_data_dir_and_changes_nothing() {
    let mut s = Server::start();
    let key = admin_key(&s);
    let made = json(client().post(s.url("/api/admin/backups")).header("x-admin-key", &key).send().await.unwrap()).await;
    let good = s.data_dir.join("backups").join(made["name"].as_str().unwrap());
    let plain = s.data_dir.join("good.db");
    assert_eq!(run(&["backup", plain.to_str().unwrap()], Some(&s.data_dir)).0, 0);
    let files = tempfile::tempdir().unwrap();
    let f = |name: &str| files.path().join(name);

    // While the server runs, even a good backup is refused.
    let before = snapshot(&s.data_dir);
    let (code, _, err) = run(&["restore", good.to_str().unwrap()], Some(&s.data_dir));
    assert_eq!(code, 2);
    assert!(err.contains("a fanhub server is using") && err.contains("stop it first"), "{err}");
    assert_eq!(snapshot(&s.data_dir), before);
    assert_eq!(s.stop().code(), Some(0));

    std::fs::write(f("notes.txt"), "hello, this is not a database\n".repeat(50)).unwrap();
    let other = rusqlite::Connection::open(f("other.db")).unwrap();
    other.execute_batch("PRAGMA application_id = 1234; CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT); INSERT INTO photos VALUES (1, 'a.jpg');").unwrap();
    drop(other);
    let plain_other = rusqlite::Connection::open(f("plain_other.db")).unwrap();
    plain_other.execute_batch("CREATE TABLE settings (k TEXT); PRAGMA user_version = 3;").unwrap();
    drop(plain_other);
    std::fs::copy(&plain, f("newer.db")).unwrap();
    let newer = rusqlite::Connection::open(f("newer.db")).unwrap();
    newer.pragma_update(None, "user_version", 999).unwrap();
    drop(newer);
    let bytes = std::fs::read(&plain).unwrap();
    std::fs::write(f("truncated.db"), &bytes[..bytes.len() / 2]).unwrap();
    let tar_bytes = std::fs::read(&good).unwrap();
    std::fs::write(f("truncated.tar"), &tar_bytes[..tar_bytes.len() / 3]).unwrap();
    let mut evil = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_size(4);
    header.set_mode(0o644);
    header.set_cksum();
    evil.append_data(&mut header, "fanhub.lock", &b"evil"[..]).unwrap();
    std::fs::write(f("evil.tar"), evil.into_inner().unwrap()).unwrap();

    let cases = [
        ("notes.txt", "neither an SQLite database nor a fanhub backup"),
        ("other.db", "another program's SQLite database"),
        ("plain_other.db", "another program's SQLite database"),
        ("newer.db", "newer than this fanhub knows"),
        ("truncated.db", "truncated"),
        ("truncated.tar", "truncated"),
        ("evil.tar", "unexpected entry fanhub.lock"),
        ("missing.db", "cannot read"),
    ];
    let before = snapshot(&s.data_dir);
    for (name, expected) in cases {
        let (code, out, err) = run(&["restore", f(name).to_str().unwrap()], Some(&s.data_dir));
        assert_eq!(code, 2, "{name}: {out}{err}");
        let also = if name == "truncated.tar" { "not a fanhub backup archive" } else { expected };
        assert!(err.contains(expected) || err.contains(also), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: one clear line: {err}");
        assert_eq!(snapshot(&s.data_dir), before, "{name} changed the data dir");
    }
    // The server's lock is gone with the server, even after kill -9: restore goes ahead.
    let mut s2 = launch(&[], Some(s.data_dir.clone()));
    s2.kill9();
    let (code, out, err) = run(&["restore", good.to_str().unwrap()], Some(&s.data_dir));
    assert_eq!(code, 0, "{out}{err}");
}

#[tokio::test]
async fn a_backup_killed_mid_way_never_leaves_a_half_file_under_a_final_name() {
    // A database big enough that a backup takes a while, and a backup every second.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let mut s = launch(&[], Some(data.clone()));
    s.stop();
    let conn = rusqlite::Connection::open(data.join("fanhub.db")).unwrap();
    conn.execute_batch(
        "BEGIN; CREATE TABLE IF NOT EXISTS ballast (b BLOB);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
         INSERT INTO ballast SELECT randomblob(2000) FROM n; COMMIT;",
    )
    .unwrap();
    drop(conn);
    let mut killed_during_partial = 0;
    for round in 0..6 {
        let mut s = launch(&["--backup-every", "1s", "--backup-keep", "50"], Some(data.clone()));
        // Wait for a backup to be under way, then kill at different points of its life.
        let deadline = Instant::now() + Duration::from_secs(15);
        while !archives(&data).iter().any(|n| n.starts_with('.')) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        tokio::time::sleep(Duration::from_millis(round * 40)).await;
        if archives(&data).iter().any(|n| n.starts_with('.')) {
            killed_during_partial += 1;
        }
        s.kill9();
        for name in archives(&data).iter().filter(|n| !n.starts_with('.')) {
            let got = entries(&data.join("backups").join(name));
            assert_eq!(got[0].0, "fanhub.db", "{name}");
            assert_eq!(integrity(&got[0].1), "ok", "{name} is whole");
        }
    }
    assert!(killed_during_partial > 0, "no kill landed while a backup was being written; the test proved nothing");
    // The next start clears the leftovers of the interrupted ones.
    let s = launch(&["--backup-every", "1h"], Some(data.clone()));
    let deadline = Instant::now() + Duration::from_secs(10);
    while archives(&data).iter().any(|n| n.starts_with('.')) {
        assert!(Instant::now() < deadline, "partials left: {:?}", archives(&data));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(s);
}

/// `mib` MiB of random blobs written straight into the database (while the server runs: WAL).
fn add_ballast(db: &Path, mib: usize) {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn.execute_batch(&format!(
        "CREATE TABLE IF NOT EXISTS ballast (b BLOB);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {})
         INSERT INTO ballast SELECT randomblob(4096) FROM n;",
        mib * 256
    ))
    .unwrap();
}

/// Every row of every table, sorted, as text (blobs by their length and an FNV-1a hash).
fn contents(db: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = Vec::new();
    for table in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
        let n = stmt.column_count();
        let mut rows: Vec<String> = stmt
            .query_map([], |r| {
                let cols: Vec<String> = (0..n)
                    .map(|i| match r.get_ref(i).unwrap() {
                        rusqlite::types::ValueRef::Blob(b) => {
                            let hash = b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
                                (h ^ u64::from(*x)).wrapping_mul(0x0100_0000_01b3)
                            });
                            format!("blob {} {hash:016x}", b.len())
                        }
                        other => format!("{other:?}"),
                    })
                    .collect();
                Ok(format!("{table}: {}", cols.join(" | ")))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        rows.sort();
        out.extend(rows);
    }
    out
}

fn peak_memory_kib(s: &Server) -> u64 {
    let pid = s.child.as_ref().unwrap().id();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The server's open files that are a download's copy (whose name is removed at once).
fn open_copies(s: &Server) -> Vec<String> {
    let pid = s.child.as_ref().unwrap().id();
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .map(|target| target.display().to_string())
        .filter(|target| target.contains(".download-"))
        .collect()
}

/// Waits until the server holds no download copy open, or fails after `within`.
async fn wait_for_no_copy(s: &Server, within: Duration, what: &str) {
    let deadline = Instant::now() + within;
    while !open_copies(s).is_empty() {
        assert!(Instant::now() < deadline, "{what}: the copy is still open: {:?}", open_copies(s));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let left = archives(&s.data_dir);
    assert!(left.is_empty(), "{what}: files left in backups/: {left:?}");
}

#[tokio::test]
async fn the_database_download_streams_a_copy_of_every_row_in_constant_memory_and_restores() {
    let mut s = Server::start();
    let key = admin_key(&s);
    let b = browser(&s);
    let res = b
        .post(s.url("/api/auth/register"))
        .json(&json!({"username": "fan_stream", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    add_ballast(&s.data_dir.join("fanhub.db"), 64);
    tokio::time::sleep(Duration::from_millis(300)).await;

    let before = peak_memory_kib(&s);
    let mut res = client().get(s.url("/api/admin/backup")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "application/vnd.sqlite3");
    assert_eq!(res.headers()["cache-control"], "no-store");
    let announced: u64 = res.headers()["content-length"].to_str().unwrap().parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("download.db");
    let mut file = std::fs::File::create(&copy).unwrap();
    while let Some(chunk) = res.chunk().await.unwrap() {
        std::io::Write::write_all(&mut file, &chunk).unwrap();
    }
    drop(file);
    let grown = peak_memory_kib(&s).saturating_sub(before);
    assert_eq!(std::fs::metadata(&copy).unwrap().len(), announced);
    assert!(announced > 64 << 20, "the copy holds the ballast: {announced} bytes");
    // The old download read the copy whole into memory: 64 MiB and more.
    assert!(grown < 24 * 1024, "the download raised the server's peak memory by {grown} KiB");
    wait_for_no_copy(&s, Duration::from_secs(5), "a finished download").await;

    assert_eq!(s.stop().code(), Some(0));
    // Every row, but the time of this backup: it is written once the copy is made.
    let live: Vec<String> = contents(&s.data_dir.join("fanhub.db"))
        .into_iter()
        .filter(|row| !row.starts_with(&format!("settings: {:?}", rusqlite::types::ValueRef::Text(b"last_backup"))))
        // ...and the settings table's row count, which that row changes (db::table_counts).
        .filter(|row| !row.starts_with(&format!("table_counts: {:?}", rusqlite::types::ValueRef::Text(b"settings"))))
        .collect();
    let copied: Vec<String> = contents(&copy)
        .into_iter()
        .filter(|row| !row.starts_with(&format!("table_counts: {:?}", rusqlite::types::ValueRef::Text(b"settings"))))
        .collect();
    let (live_set, copied_set): (BTreeSet<_>, BTreeSet<_>) = (live.iter().collect(), copied.iter().collect());
    let differ: Vec<_> = live_set.symmetric_difference(&copied_set).take(5).collect();
    assert!(
        differ.is_empty() && live.len() == copied.len(),
        "the copy holds every row: {} rows, the database {}; differing: {differ:?}",
        copied.len(),
        live.len()
    );
    assert!(live.len() > 64 * 256, "the ballast is compared too: {} rows", live.len());
    assert_eq!(integrity(&std::fs::read(&copy).unwrap()), "ok");

    // `fanhub restore` takes it onto a new machine, where the account signs in.
    let fresh = tempfile::tempdir().unwrap();
    let target = fresh.path().join("data");
    let (code, out, err) = run(&["restore", copy.to_str().unwrap()], Some(&target));
    assert_eq!(code, 0, "{out}{err}");
    let s2 = launch(&[], Some(target));
    let res = browser(&s2)
        .post(s2.url("/api/auth/login"))
        .json(&json!({"username": "fan_stream", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_client_that_goes_away_or_stops_reading_leaves_no_copy_behind() {
    let s = launch(&["--read-timeout-secs", "2"], None);
    let key = admin_key(&s);
    add_ballast(&s.data_dir.join("fanhub.db"), 64);

    // Gone after the first piece.
    let mut res = client().get(s.url("/api/admin/backup")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.chunk().await.unwrap().is_some());
    assert_eq!(open_copies(&s).len(), 1, "the copy is open while the download runs");
    assert!(open_copies(&s)[0].ends_with("(deleted)"), "and already without a name: {:?}", open_copies(&s));
    drop(res);
    wait_for_no_copy(&s, Duration::from_secs(5), "a client that went away").await;

    // Connected but never reading: the socket's buffers fill, then the idle limit closes the copy.
    let mut stream = std::net::TcpStream::connect(s.addr()).unwrap();
    std::io::Write::write_all(
        &mut stream,
        format!("GET /api/admin/backup HTTP/1.1\r\nHost: {}\r\nX-Admin-Key: {key}\r\n\r\n", s.addr()).as_bytes(),
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while open_copies(&s).is_empty() {
        assert!(Instant::now() < deadline, "the download never started: {}", s.stderr());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let started = Instant::now();
    wait_for_no_copy(&s, Duration::from_secs(10), "a client that never reads").await;
    assert!(started.elapsed() > Duration::from_millis(1500), "closed before the idle limit: {:?}", started.elapsed());
    let deadline = Instant::now() + Duration::from_secs(5);
    while !s.stderr().contains("the client took nothing for 2 s; its copy was removed") {
        assert!(Instant::now() < deadline, "the stalled download is not logged: {}", s.stderr());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(stream);
}

#[tokio::test]
async fn backups_that_would_not_fit_answer_507_with_the_reason_and_write_nothing() {
    let disk = crate::full_disk::Tmpfs::mount("160m");
    let data = disk.path.join("data");
    let s = launch(&[], Some(data.clone()));
    let key = admin_key(&s);
    let c = client();
    // An empty site's copy fits.
    let res = c.get(s.url("/api/admin/backup")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.bytes().await.unwrap().len() > 10_000);

    // 48 MiB more: the copy and the 64 MiB kept free no longer fit.
    add_ballast(&data.join("fanhub.db"), 48);
    let res = c.get(s.url("/api/admin/backup")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::INSUFFICIENT_STORAGE);
    let body = json(res).await;
    let error = body["error"].as_str().unwrap();
    assert!(error.starts_with("Not enough free disk space for a backup: it needs about "), "{body}");
    assert!(error.contains("MiB are free") && error.contains("64 MiB kept for the site's own writes"), "{body}");
    let res = c.post(s.url("/api/admin/backups")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert!(json(res).await["error"].as_str().unwrap().starts_with("Not enough free disk space"));
    let (code, _, err) = run(&["backup", data.join("copy.db").to_str().unwrap()], Some(&data));
    assert_eq!(code, 2);
    assert!(err.contains("refused: not enough free disk space for a backup"), "{err}");
    assert!(!data.join("copy.db").exists());
    assert!(archives(&data).is_empty(), "nothing was written: {:?}", archives(&data));

    // The site's own writes go on: a refused backup is not a full disk.
    let health = json(c.get(s.url("/api/health")).send().await.unwrap()).await;
    assert_ne!(health["disk"], "full", "{health}");
    let res = c
        .post(s.url("/api/auth/register"))
        .json(&json!({"username": "still_writing", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
}
