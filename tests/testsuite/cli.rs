//! The command line: start-up and shutdown, backups, schema refusal.

use crate::common::{BIN, Server, client, run};

#[test]
fn version_prints_the_version() {
    let (code, out, _) = run(&["--version"], None);
    assert_eq!(code, 0);
    assert!(out.contains(env!("CARGO_PKG_VERSION")), "{out}");
}

#[test]
fn bad_flags_exit_2_with_one_line() {
    for args in
        [vec!["--no-such-flag"], vec!["serve", "--addr", "not-an-address"], vec!["--trusted-proxy", "10.0.0.0/99"]]
    {
        let (code, out, err) = run(&args, None);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty());
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("fanhub: "), "{err}");
    }
}

#[test]
fn unusable_data_dirs_exit_2_and_create_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let (code, _, err) = run(&["serve", "--addr", "127.0.0.1:0"], Some(&file));
    assert_eq!(code, 2);
    assert!(err.contains("not a directory"), "{err}");

    let nested = dir.path().join("missing-parent/data");
    let (code, _, err) = run(&["serve", "--addr", "127.0.0.1:0"], Some(&nested));
    assert_eq!(code, 2, "{err}");
    assert!(!dir.path().join("missing-parent").exists());

    let bad_site = dir.path().join("site.toml");
    std::fs::write(&bad_site, "name = \"x\"\n[version\n").unwrap();
    let data = dir.path().join("never-created");
    let (code, _, err) = run(&["serve", "--addr", "127.0.0.1:0", "--site", bad_site.to_str().unwrap()], Some(&data));
    assert_eq!(code, 2);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("site.toml"), "{err}");
    assert!(!data.exists(), "a failed start left a data dir behind");
}

#[test]
fn a_short_admin_phrase_exits_2_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("never-created");
    let out = std::process::Command::new(BIN)
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .env("FANHUB_ADMIN_PHRASE", "fifteen chars!!")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("FANHUB_ADMIN_PHRASE must be at least 16 characters"), "{err}");
    assert!(!err.contains("fifteen"), "the phrase is never printed");
    assert!(!data.exists());
}

#[test]
fn a_malformed_open_cloud_key_exits_2_without_printing_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("never-created");
    for (key, marker) in [("pasted with spaces", "pasted"), ("line\nbreak", "break")] {
        let out = std::process::Command::new(BIN)
            .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
            .arg(&data)
            .env("FANHUB_ROBLOX_OPEN_CLOUD_KEY", key)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains("FANHUB_ROBLOX_OPEN_CLOUD_KEY is not an Open Cloud API key"), "{err}");
        assert!(!err.contains(marker), "the value is never printed: {err}");
        assert!(!data.exists());
    }
}

#[test]
fn a_busy_port_exits_2() {
    let server = Server::start();
    let data = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&["serve", "--addr", server.addr()], Some(data.path()));
    assert_eq!(code, 2);
    assert!(err.contains("cannot listen"), "{err}");
}

#[test]
fn sigterm_stops_cleanly_with_exit_0() {
    let mut server = Server::start();
    let status = server.stop();
    assert_eq!(status.code(), Some(0), "stderr: {}", server.stderr());
}

#[test]
fn temp_data_dir_is_deleted_on_exit() {
    let mut child = std::process::Command::new(BIN)
        .args(["serve", "--temp", "--addr", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.starts_with("fanhub listening on http://127.0.0.1:"), "{line}");
    std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    let dir = err.split("serving data dir ").nth(1).and_then(|s| s.lines().next()).expect("logged data dir").trim();
    assert!(!std::path::Path::new(dir).exists(), "{dir} still exists");
}

/// An idle `fanhub --temp` keeps little memory of its own: its anonymous resident memory (heap,
/// stacks; not the binary's code, which the kernel shares and can drop) stays under a bound that
/// leaves room for growth but not for keeping start-up garbage such as a built OpenAPI document.
#[cfg(target_os = "linux")]
#[test]
fn an_idle_temp_server_keeps_little_anonymous_memory() {
    // 5 MiB until the year-of-use work added seven background jobs (sweeps, roll-ups, the daily
    // integrity check): 5,256 KiB measured then.
    const BOUND_KIB: u64 = 6 * 1024;
    let mut child = std::process::Command::new(BIN)
        .args(["serve", "--temp", "--addr", "127.0.0.1:0"])
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.starts_with("fanhub listening on"), "{line}");
    std::thread::sleep(std::time::Duration::from_secs(1));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let kib = |field: &str| -> u64 {
        let line = status.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("no {field} in {status}"));
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let (anon, total) = (kib("RssAnon:"), kib("VmRSS:"));
    std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert!(anon < BOUND_KIB, "idle RssAnon {anon} KiB (VmRSS {total} KiB), bound {BOUND_KIB} KiB");
}

#[tokio::test]
async fn backup_while_serving_is_a_consistent_sqlite_file() {
    let server = Server::start();
    let c = client();
    c.get(server.url("/")).header("user-agent", "Mozilla/5.0").send().await.unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(6)).await;
    let out_dir = tempfile::tempdir().unwrap();
    let file = out_dir.path().join("copy.db");
    let (code, out, err) = run(&["backup", file.to_str().unwrap()], Some(&server.data_dir));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("backup written"));
    let conn = rusqlite::Connection::open(&file).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    let views: i64 = conn.query_row("SELECT COALESCE(SUM(views),0) FROM page_views", [], |r| r.get(0)).unwrap();
    assert_eq!(views, 1);
    let res = c.get(server.url("/api/health")).send().await.unwrap();
    assert!(res.status().is_success(), "still serving after the backup");
}

#[test]
fn backup_without_a_database_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(&["backup", dir.path().join("x.db").to_str().unwrap()], Some(dir.path()));
    assert_eq!(code, 2);
    assert!(err.contains("no database"), "{err}");
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let conn = rusqlite::Connection::open(data.join("fanhub.db")).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let (code, _, err) = run(&["serve", "--addr", "127.0.0.1:0"], Some(&data));
    assert_eq!(code, 2);
    assert!(err.contains("newer than this fanhub"), "{err}");
}

#[tokio::test]
async fn data_survives_a_kill_9() {
    let data_root = tempfile::tempdir().unwrap();
    let data = data_root.path().join("d");
    let mut server = Server::launch(crate::common::Launch { data_dir: Some(data.clone()), ..Default::default() });
    let c = client();
    c.get(server.url("/")).header("user-agent", "Mozilla/5.0").send().await.unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(6)).await;
    server.kill9();
    let server = Server::launch(crate::common::Launch { data_dir: Some(data), ..Default::default() });
    let stats = crate::common::json(c.get(server.url("/api/stats")).send().await.unwrap()).await;
    assert_eq!(stats["pageViews"], 1, "{stats}");
}
