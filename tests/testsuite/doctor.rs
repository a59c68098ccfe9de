//! `fanhub doctor`: a healthy setup passes (exit 0), every problem gets its own ✗ line naming it
//! (exit 1), upstreams are checked with their credentials against fake servers started here, and
//! hanging upstreams, a busy port and an unreadable data dir cost no more than 15 s together.

use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{BIN, Server};
use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

const LLM_KEY: &str = "sk-doctor-test";
const ROBLOX_COOKIE: &str = "good-cookie";
const DISCORD_TOKEN: &str = "good-token";

/// One fake for the LLM (`/v1`), Roblox (`/{service}`) and Discord (`/discord`), checking credentials.
#[derive(Clone, Default)]
struct Fake {
    discord_flags: Arc<Mutex<u64>>,
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}

async fn models(headers: HeaderMap) -> Response {
    if header(&headers, "authorization") != format!("Bearer {LLM_KEY}") {
        return (StatusCode::UNAUTHORIZED, Json(json!({"error": {"message": "bad key"}}))).into_response();
    }
    Json(json!({"object": "list", "data": [{"id": "other-model"}, {"id": "fake-model"}]})).into_response()
}

async fn roblox_user() -> Response {
    Json(json!({"id": 1, "name": "Roblox"})).into_response()
}

async fn roblox_authenticated(headers: HeaderMap) -> Response {
    if header(&headers, "cookie") != format!(".ROBLOSECURITY={ROBLOX_COOKIE}") {
        return (StatusCode::UNAUTHORIZED, Json(json!({"errors": [{"code": 0, "message": "Unauthorized"}]})))
            .into_response();
    }
    Json(json!({"id": 5, "name": "builder", "displayName": "Builder"})).into_response()
}

async fn discord_me(headers: HeaderMap) -> Response {
    if header(&headers, "authorization") != format!("Bot {DISCORD_TOKEN}") {
        return (StatusCode::UNAUTHORIZED, Json(json!({"message": "401: Unauthorized", "code": 0}))).into_response();
    }
    Json(json!({"id": "1", "username": "fanbot", "bot": true})).into_response()
}

async fn discord_application(State(fake): State<Fake>, headers: HeaderMap) -> Response {
    if header(&headers, "authorization") != format!("Bot {DISCORD_TOKEN}") {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    Json(json!({"id": "1", "name": "fanbot", "flags": *fake.discord_flags.lock().unwrap()})).into_response()
}

async fn start_fake(fake: Fake) -> String {
    let app = Router::new()
        .route("/v1/models", get(models))
        .route("/users/v1/users/1", get(roblox_user))
        .route("/users/v1/users/authenticated", get(roblox_authenticated))
        .route("/discord/users/@me", get(discord_me))
        .route("/discord/applications/@me", get(discord_application))
        .with_state(fake);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

/// A listener that accepts connections and never answers (an upstream or a program that hangs).
fn start_hanging() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    addr
}

fn free_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

fn upstream_env(fake: &str) -> Vec<(String, String)> {
    [
        ("FANHUB_LLM_URL", format!("{fake}/v1")),
        ("FANHUB_LLM_MODEL", "fake-model".into()),
        ("FANHUB_LLM_KEY", LLM_KEY.into()),
        ("FANHUB_ROBLOX_API", format!("{fake}/{{service}}")),
        ("FANHUB_ROBLOX_COOKIE", ROBLOX_COOKIE.into()),
        ("FANHUB_DISCORD_API", format!("{fake}/discord")),
        ("FANHUB_DISCORD_TOKEN", DISCORD_TOKEN.into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

struct Report {
    code: i32,
    out: String,
    took: Duration,
}

impl Report {
    fn line(&self, name: &str) -> &str {
        self.out
            .lines()
            .find(|l| l[l.char_indices().nth(2).map_or(0, |(i, _)| i)..].starts_with(&format!("{name}:")))
            .unwrap_or_else(|| panic!("no {name:?} line in:\n{}", self.out))
    }

    fn passes(&self, name: &str) -> &str {
        let line = self.line(name);
        assert!(line.starts_with("✓ "), "{name} should pass:\n{}", self.out);
        line
    }

    fn fails(&self, name: &str) -> &str {
        let line = self.line(name);
        assert!(line.starts_with("✗ ") && line.contains(" → "), "{name} should fail with a fix:\n{}", self.out);
        line
    }
}

/// Runs `fanhub doctor ARGS` with only the given FANHUB_* variables; `as_nobody` drops root first.
async fn doctor(args: &[&str], envs: &[(String, String)], as_nobody: bool) -> Report {
    let mut cmd = if as_nobody {
        let mut c = tokio::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
        c
    } else {
        tokio::process::Command::new(BIN)
    };
    cmd.arg("doctor").args(args);
    for (key, _) in std::env::vars() {
        if key.starts_with("FANHUB_") {
            cmd.env_remove(key);
        }
    }
    cmd.envs(envs.iter().cloned());
    let started = Instant::now();
    let out = cmd.output().await.expect("run fanhub doctor");
    let took = started.elapsed();
    let report =
        Report { code: out.status.code().unwrap_or(-1), out: String::from_utf8_lossy(&out.stdout).into_owned(), took };
    assert!(out.stderr.is_empty() || report.code != 0, "stderr: {}", String::from_utf8_lossy(&out.stderr));
    report
}

/// A data dir a real server created and used, then stopped.
fn used_data_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut server = Server::launch(crate::common::Launch { data_dir: Some(data.clone()), ..Default::default() });
    assert!(server.stop().success());
    (dir, data)
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_healthy_setup_passes_every_check_with_credentials() {
    let fake = Fake::default();
    *fake.discord_flags.lock().unwrap() = 1 << 19;
    let base = start_fake(fake).await;
    let (_dir, data) = used_data_dir();
    let addr = free_port();
    let report = doctor(&["--data-dir", arg(&data), "--addr", &addr], &upstream_env(&base), false).await;
    assert_eq!(report.code, 0, "{}", report.out);
    assert!(report.passes("site file").contains("is valid"));
    assert!(report.passes("data dir").contains("exists and is writable"));
    assert!(report.passes("file system").contains("local"));
    assert!(report.passes("free space").contains("free"));
    assert!(report.passes("uploads").contains("readable and writable"));
    assert!(report.passes("database").contains("opens and its schema reads (fanhub doctor --full reads every page)"));
    assert!(report.passes("schema").contains("this binary's"));
    assert!(report.passes("journal mode").contains("WAL"));
    assert!(report.passes("replication").contains("not configured"), "{}", report.out);
    assert!(report.passes("listen address").contains(&format!("{addr} is free")));
    assert!(report.passes("LLM").contains("offers the model fake-model"));
    assert!(report.passes("Roblox").contains("answers anonymous requests"));
    assert!(report.passes("Roblox cookie").contains("signed in as builder"));
    assert!(report.passes("Discord token").contains("bot fanbot"));
    assert!(report.passes("Discord intent").contains("message-content intent is on"));
    assert!(!report.out.contains('✗'), "{}", report.out);
    assert!(report.out.trim_end().ends_with("checks passed."), "{}", report.out);
    // The write probes are gone again.
    let left: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .chain(std::fs::read_dir(data.join("uploads")).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".fanhub-doctor"))
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // Unconfigured upstreams are skipped with a note, not failed.
    let roblox_only = vec![("FANHUB_ROBLOX_API".to_string(), format!("{base}/{{service}}"))];
    let report = doctor(&["--data-dir", arg(&data), "--addr", &addr], &roblox_only, false).await;
    assert_eq!(report.code, 0, "{}", report.out);
    assert!(report.passes("LLM").contains("skipped: not configured (FANHUB_LLM_URL unset)"));
    assert!(report.passes("Roblox cookie").contains("skipped: FANHUB_ROBLOX_COOKIE not set"));
    assert!(report.passes("Discord token").contains("skipped: FANHUB_DISCORD_TOKEN not set"));
}

#[tokio::test(flavor = "multi_thread")]
async fn next_to_a_live_server_the_address_is_its_own_and_the_database_is_read_safely() {
    let fake = start_fake(Fake::default()).await;
    let server = Server::start();
    let env = vec![("FANHUB_ROBLOX_API".to_string(), format!("{fake}/{{service}}"))];
    let report = doctor(&["--data-dir", arg(&server.data_dir), "--addr", server.addr()], &env, false).await;
    assert_eq!(report.code, 0, "{}", report.out);
    assert!(
        report.passes("listen address").contains(&format!("is held by a running fanhub {}", env!("CARGO_PKG_VERSION"))),
        "{}",
        report.out
    );
    assert!(report.passes("database").contains("opens and its schema reads"));
    assert!(report.passes("journal mode").contains("WAL"));
    let report = doctor(&["--full", "--data-dir", arg(&server.data_dir), "--addr", server.addr()], &env, false).await;
    assert_eq!(report.code, 0, "{}", report.out);
    assert!(report.passes("database").contains("quick_check ok"));
    let health = crate::common::client().get(server.url("/api/health")).send().await.unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn wrong_credentials_and_an_intent_left_off_are_named() {
    let base = start_fake(Fake::default()).await; // flags 0: no message-content intent
    let (_dir, data) = used_data_dir();
    let mut env = upstream_env(&base);
    for (key, value) in &mut env {
        match key.as_str() {
            "FANHUB_LLM_MODEL" => *value = "missing-model".into(),
            "FANHUB_ROBLOX_COOKIE" => *value = "expired".into(),
            _ => {}
        }
    }
    let report = doctor(&["--data-dir", arg(&data), "--addr", &free_port()], &env, false).await;
    assert_eq!(report.code, 1, "{}", report.out);
    let llm = report.fails("LLM");
    assert!(llm.contains("does not offer the model missing-model") && llm.contains("fake-model"), "{llm}");
    assert!(report.passes("Roblox").contains("anonymous"));
    assert!(report.fails("Roblox cookie").contains("refused (HTTP 401)"));
    assert!(report.passes("Discord token").contains("fanbot"));
    assert!(report.fails("Discord intent").contains("Message Content Intent"));
    assert!(report.out.trim_end().ends_with("3 of 18 checks failed."), "{}", report.out);

    env.retain(|(k, _)| k != "FANHUB_LLM_KEY");
    env.push(("FANHUB_LLM_KEY".into(), "sk-wrong".into()));
    env.retain(|(k, _)| k != "FANHUB_DISCORD_TOKEN");
    env.push(("FANHUB_DISCORD_TOKEN".into(), "reset-token".into()));
    let report = doctor(&["--data-dir", arg(&data), "--addr", &free_port()], &env, false).await;
    assert_eq!(report.code, 1);
    assert!(report.fails("LLM").contains("refused the key (HTTP 401)"));
    assert!(report.fails("Discord token").contains("refused (HTTP 401)"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_or_newer_database_fails_its_checks() {
    let fake = start_fake(Fake::default()).await;
    let env = vec![("FANHUB_ROBLOX_API".to_string(), format!("{fake}/{{service}}"))];
    let (_dir, data) = used_data_dir();
    let db = data.join("fanhub.db");

    // A damaged table: the default run reads the schema only and passes; --full reads every page.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TABLE ballast (b BLOB);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
         INSERT INTO ballast SELECT randomblob(300) FROM n;
         PRAGMA wal_checkpoint(TRUNCATE);",
    )
    .unwrap();
    let page_size: i64 = conn.pragma_query_value(None, "page_size", |r| r.get(0)).unwrap();
    let pages: i64 = conn.pragma_query_value(None, "page_count", |r| r.get(0)).unwrap();
    drop(conn);
    let mut file = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start((page_size * (pages - 20)) as u64)).unwrap();
    std::io::Write::write_all(&mut file, &vec![0x5a; page_size as usize * 10]).unwrap();
    drop(file);
    let report = doctor(&["--data-dir", arg(&data), "--addr", &free_port()], &env, false).await;
    assert!(report.passes("database").contains("opens and its schema reads"), "{}", report.out);
    let report = doctor(&["--full", "--data-dir", arg(&data), "--addr", &free_port()], &env, false).await;
    assert_eq!(report.code, 1, "{}", report.out);
    assert!(report.fails("database").contains("is damaged"), "{}", report.out);

    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let report = doctor(&["--data-dir", arg(&data), "--addr", &free_port()], &env, false).await;
    assert_eq!(report.code, 1, "{}", report.out);
    assert!(report.fails("schema").contains("version 999 was written by a newer fanhub"));

    std::fs::write(&db, b"this is not an SQLite database, just some text long enough to be read").unwrap();
    let _ = std::fs::remove_file(data.join("fanhub.db-wal"));
    let _ = std::fs::remove_file(data.join("fanhub.db-shm"));
    let report = doctor(&["--data-dir", arg(&data), "--addr", &free_port()], &env, false).await;
    assert_eq!(report.code, 1, "{}", report.out);
    assert!(report.fails("database").contains("restore the last backup"));
}

/// The key that seals authenticator secrets: private passes, readable by others or not a key fails.
#[tokio::test(flavor = "multi_thread")]
async fn a_second_factor_key_others_can_read_or_that_is_no_key_is_named() {
    let fake = start_fake(Fake::default()).await;
    let env = vec![("FANHUB_ROBLOX_API".to_string(), format!("{fake}/{{service}}"))];
    let (_dir, data) = used_data_dir();
    let key = data.join("second-factor.key");
    let report = doctor(&["--data-dir", arg(&data), "--addr", &free_port()], &env, false).await;
    assert!(report.passes("second-factor key").contains("private to its owner"), "{}", report.out);

    set_mode(&key, 0o644);
    let report = doctor(&["--data-dir", arg(&data), "--addr", &free_port()], &env, false).await;
    assert_eq!(report.code, 1, "{}", report.out);
    let line = report.fails("second-factor key");
    assert!(line.contains("readable by other users (mode 644)") && line.contains("chmod 600"), "{line}");

    set_mode(&key, 0o600);
    std::fs::write(&key, "not a key\n").unwrap();
    let report = doctor(&["--data-dir", arg(&data), "--addr", &free_port()], &env, false).await;
    assert!(report.fails("second-factor key").contains("not a key"), "{}", report.out);
}

/// Every problem at once: a damaged site file, an unreadable data dir, a port held by a program
/// that never answers, and upstreams that hang. Each is named; the run ends within 15 s.
#[tokio::test(flavor = "multi_thread")]
async fn every_problem_at_once_is_named_within_15_seconds() {
    let hanging = format!("http://{}", start_hanging());
    let busy = TcpListener::bind("127.0.0.1:0").unwrap(); // bound, never accepted
    let busy_addr = busy.local_addr().unwrap().to_string();

    let dir = tempfile::tempdir().unwrap();
    set_mode(dir.path(), 0o755);
    let site = dir.path().join("site.toml");
    std::fs::write(&site, "name = \"Broken\"\nshort_name = [unclosed\n").unwrap();
    set_mode(&site, 0o644);
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    set_mode(&data, 0o000);

    let mut env = upstream_env(&hanging);
    env.retain(|(k, _)| k != "FANHUB_LLM_URL" && k != "FANHUB_ROBLOX_API" && k != "FANHUB_DISCORD_API");
    env.push(("FANHUB_LLM_URL".into(), format!("{hanging}/v1")));
    env.push(("FANHUB_ROBLOX_API".into(), format!("{hanging}/{{service}}")));
    env.push(("FANHUB_DISCORD_API".into(), format!("{hanging}/discord")));
    // Root reads any directory: drop to nobody so the data dir is really unreadable.
    let as_nobody = running_as_root();
    let report = doctor(&["--site", arg(&site), "--data-dir", arg(&data), "--addr", &busy_addr], &env, as_nobody).await;
    set_mode(&data, 0o755);
    drop(busy);

    assert_eq!(report.code, 1, "{}", report.out);
    assert!(report.took < Duration::from_secs(15), "took {:?}:\n{}", report.took, report.out);
    assert!(report.fails("site file").contains("line 2"), "{}", report.out);
    assert!(report.fails("data dir").contains("Permission denied"), "{}", report.out);
    assert!(report.fails("listen address").contains("in use by another program"), "{}", report.out);
    for name in ["LLM", "Roblox", "Roblox cookie", "Discord token"] {
        assert!(report.fails(name).contains("no answer within"), "{name}:\n{}", report.out);
    }
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn running_as_root() -> bool {
    std::process::Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0\n")).unwrap_or(false)
}

#[test]
fn version_names_the_commit_the_build_date_and_the_target() {
    let (code, out, _) = crate::common::run(&["--version"], None);
    assert_eq!(code, 0);
    let line = out.trim();
    let rest = line.strip_prefix(&format!("fanhub {} (commit ", env!("CARGO_PKG_VERSION"))).expect(line);
    let (commit, rest) = rest.split_once(", built ").expect(line);
    assert!(commit == "unknown" || (commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit())), "{line}");
    let (date, target) = rest.split_once(", ").expect(line);
    assert!(date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-', "{line}");
    assert!(date >= "2026-01-01" && date.chars().filter(char::is_ascii_digit).count() == 8, "{line}");
    assert!(target.ends_with("-linux-gnu)") && target.starts_with(std::env::consts::ARCH), "{line}");
}

/// Every credential the doctor sends stays with the host it is configured for: a service that
/// answers with a redirect to another host (here another local port, which records what
/// arrives) is reported, not followed.
#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_to_another_host_is_refused_and_no_credential_follows_it() {
    type Seen = Arc<Mutex<Vec<(String, HeaderMap)>>>;
    let seen: Seen = Arc::default();
    let elsewhere = {
        let seen = seen.clone();
        let app = Router::new().fallback(move |uri: axum::http::Uri, headers: HeaderMap| {
            let seen = seen.clone();
            async move {
                seen.lock().unwrap().push((uri.to_string(), headers));
                Json(json!({"id": 1, "name": "thief", "username": "thief", "flags": 1 << 18, "data": []}))
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        addr
    };
    let redirecting = {
        let app = Router::new().fallback(move |uri: axum::http::Uri| async move {
            let to = format!("http://{elsewhere}{uri}");
            (StatusCode::FOUND, [(axum::http::header::LOCATION, to)])
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        base
    };
    let mut env = upstream_env(&redirecting);
    env.push(("FANHUB_ROBLOX_OPEN_CLOUD_API".into(), redirecting.clone()));
    env.push(("FANHUB_ROBLOX_OPEN_CLOUD_KEY".into(), "oc-secret-key".into()));
    let dir = tempfile::tempdir().unwrap();
    let report = doctor(&["--data-dir", arg(dir.path()), "--addr", &free_port()], &env, false).await;
    assert_eq!(report.code, 1, "{}", report.out);
    let refused = |name: &str| {
        let line = report.fails(name);
        assert!(
            line.contains(&format!("redirect to another host ({elsewhere})")) && line.contains("was not sent there"),
            "{name}: {line}"
        );
    };
    refused("Roblox Open Cloud key");
    refused("Roblox cookie");
    refused("Roblox");
    refused("LLM");
    refused("Discord token");
    assert!(report.line("Roblox Open Cloud key").contains("the key (FANHUB_ROBLOX_OPEN_CLOUD_KEY) was not sent"));
    let seen = seen.lock().unwrap();
    for (path, headers) in seen.iter() {
        for credential in ["x-api-key", "authorization", "cookie"] {
            assert!(headers.get(credential).is_none(), "{credential} reached the other host at {path}");
        }
    }
    assert!(
        seen.is_empty(),
        "nothing is sent to the other host: {:?}",
        seen.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_secret_in_the_unit_or_in_an_environment_file_others_read_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (unit, env_file) = (dir.path().join("fanhub.service"), dir.path().join("fanhub.env"));
    let envs = vec![("FANHUB_UNIT_FILE".to_string(), arg(&unit).to_string())];
    let data = dir.path().join("data");
    let args = ["--data-dir", arg(&data), "--addr", "127.0.0.1:0"];
    let run = || doctor(&args, &envs, false);

    std::fs::write(&unit, "[Service]\nEnvironment=FANHUB_ADMIN_PHRASE=a-long-phrase-in-the-unit\n").unwrap();
    let report = run().await;
    assert!(report.fails("secrets").contains("systemctl show"), "{}", report.out);
    assert!(!report.out.contains("a-long-phrase-in-the-unit"), "the secret itself is never printed");

    std::fs::write(&unit, format!("[Service]\nEnvironmentFile=-{}\n", env_file.display())).unwrap();
    std::fs::write(&env_file, "FANHUB_ADMIN_PHRASE=a-long-phrase-in-the-file\n").unwrap();
    set_mode(&env_file, 0o640);
    let report = run().await;
    assert!(report.fails("secrets").contains("mode 0640"), "{}", report.out);
    assert!(report.out.contains(&format!("chmod 600 {}", env_file.display())), "{}", report.out);

    set_mode(&env_file, 0o600);
    assert!(run().await.passes("secrets").contains("mode 0600"));
}
