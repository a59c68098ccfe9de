//! A full disk against the real binary: the data dir is a small tmpfs that the test fills up.
//! Writes answer 507 and save nothing, reads go on, the admin panel, `/api/health` and
//! `fanhub doctor` say so, the log says it once, and once space is freed everything writes again
//! with an intact database and no file without its row (or row without its file).
//!
//! Mounting needs root (CI runs as root); when the mount is refused the test fails and says why.

use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::{Launch, Server, browser, client, json};
use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

/// A tmpfs mounted on a fresh directory, unmounted however the test ends (the backups' tests use
/// it too).
pub struct Tmpfs {
    _dir: tempfile::TempDir,
    pub path: PathBuf,
}

impl Tmpfs {
    pub fn mount(size: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mnt");
        std::fs::create_dir(&path).unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0755"), "tmpfs"])
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("cannot run mount (this test needs root and mount(8)): {e}"));
        assert!(
            out.status.success(),
            "mounting a tmpfs was refused ({}): this test needs root, as in CI: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        Self { _dir: dir, path }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let status = Command::new("umount").arg(&self.path).status();
        if !matches!(status, Ok(s) if s.success()) {
            let _ = Command::new("umount").arg("-l").arg(&self.path).status();
        }
    }
}

/// Writes zeros into `path` until the file system refuses (ENOSPC).
fn fill(path: &Path) {
    let mut file = std::fs::File::create(path).unwrap();
    let chunk = vec![0u8; 64 * 1024];
    loop {
        if let Err(e) = file.write_all(&chunk) {
            assert_eq!(e.raw_os_error(), Some(28), "filling stopped for another reason: {e}");
            break;
        }
    }
    // The last partial page too.
    let _ = file.write_all(&[0u8; 1]);
    let _ = file.sync_all();
}

fn png() -> Vec<u8> {
    let img =
        image::RgbImage::from_fn(
            64,
            32,
            |x, _| {
                if x < 32 { image::Rgb([30, 90, 200]) } else { image::Rgb([240, 200, 40]) }
            },
        );
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img).write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

fn ad_form() -> Form {
    Form::new()
        .text("websiteUrl", "https://blockcraft.example/join")
        .text("adDescription", "The friendliest survival server! Weekly build contests. Free ranks.")
        .text("targetAudience", "roblox-players")
        .text("duration", "1-day")
        .text("links", r#"["https://discord.example/invite", ""]"#)
        .part("image", Part::bytes(png()).file_name("ad.png").mime_str("image/png").unwrap())
}

async fn submit_ad(server: &Server) -> reqwest::Response {
    client().post(server.url("/api/advertise")).multipart(ad_form()).send().await.unwrap()
}

async fn register(c: &reqwest::Client, s: &Server, name: &str) -> reqwest::Response {
    c.post(s.url("/api/auth/register")).json(&json!({"username": name, "password": "123456"})).send().await.unwrap()
}

async fn assert_out_of_space(res: reqwest::Response, what: &str) {
    let status = res.status();
    let body = json(res).await;
    assert_eq!(status, StatusCode::INSUFFICIENT_STORAGE, "{what}: {body}");
    assert_eq!(body["error"], "The server is out of disk space; nothing was saved.", "{what}");
}

async fn health(s: &Server) -> Value {
    json(client().get(s.url("/api/health")).send().await.unwrap()).await
}

async fn wait_for_health(s: &Server, disk: &str) -> Value {
    for _ in 0..100 {
        let h = health(s).await;
        if h["disk"] == disk {
            return h;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("/api/health never said disk {disk}: {}", health(s).await);
}

async fn admin_get(s: &Server, key: &str, path: &str) -> Value {
    let res = client().get(s.url(path)).header("x-admin-key", key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{path} while the disk is full");
    json(res).await
}

fn data_dir_check(checks: &Value) -> Value {
    checks["checks"].as_array().unwrap().iter().find(|c| c["name"] == "Data directory").unwrap().clone()
}

fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_disk_answers_507_keeps_reading_and_recovers_by_itself() {
    let disk = Tmpfs::mount("24m");
    let data = disk.path.clone();
    let mut s = Server::launch(Launch { data_dir: Some(data.clone()), ..Default::default() });
    let key = crate::common::admin_key(&s);
    let fan = browser(&s);
    let made = register(&fan, &s, "fan_before").await;
    assert_eq!(made.status(), StatusCode::CREATED);
    let made = json(made).await;
    let uid = made["user"]["id"].as_i64().unwrap_or_else(|| panic!("{made}"));
    let login = fan.post(s.url("/api/auth/login")).json(&json!({"username": "fan_before", "password": "123456"}));
    assert_eq!(login.send().await.unwrap().status(), StatusCode::OK);
    let commands = json(client().get(s.url("/api/commands")).send().await.unwrap()).await;
    let cid = commands[0]["id"].as_i64().unwrap();
    assert_eq!(submit_ad(&s).await.status(), StatusCode::CREATED);
    // The panel's key is used once while there is room (its last-used time is written then).
    admin_get(&s, &key, "/api/admin/health").await;
    assert_eq!(health(&s).await["disk"], "ok");

    // An empty WAL, so the server's next commit needs new blocks; then not one block left.
    {
        let conn = rusqlite::Connection::open(data.join("fanhub.db")).unwrap();
        conn.busy_timeout(Duration::from_secs(5)).unwrap();
        let busy: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0)).unwrap();
        assert_eq!(busy, 0, "the WAL could not be truncated");
    }
    fill(&data.join("filler"));

    // Writes of every kind: 507 with the sentence, nothing saved.
    assert_out_of_space(register(&client(), &s, "fan_during").await, "a sign-up").await;
    assert_out_of_space(submit_ad(&s).await, "an ad upload").await;
    let rated =
        fan.post(s.url(&format!("/api/commands/{cid}/rating"))).json(&json!({"userId": uid, "rating": 4})).send().await;
    assert_out_of_space(rated.unwrap(), "a rating").await;
    let key_made = fan.post(s.url("/api/generate-key")).json(&json!({"name": "full disk bot"})).send().await;
    assert_out_of_space(key_made.unwrap(), "an API key").await;
    assert_out_of_space(register(&client(), &s, "fan_during2").await, "a second sign-up").await;
    assert!(
        !files_in(&data.join("uploads")).iter().any(|f| f.starts_with('.')),
        "a half-written upload was left: {:?}",
        files_in(&data.join("uploads"))
    );

    // Reads keep answering.
    for path in ["/", "/api/stats", "/api/commands", "/api/site"] {
        let res = client().get(s.url(path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path} while the disk is full");
    }
    assert_eq!(fan.get(s.url("/api/auth/user")).send().await.unwrap().status(), StatusCode::OK);

    // Health, System Health, Exceptions and the doctor say so.
    let h = wait_for_health(&s, "full").await;
    assert_eq!(h["status"], "degraded", "{h}");
    assert_eq!(h["database"], "ok", "{h}");
    let checks = admin_get(&s, &key, "/api/admin/health").await;
    let dir = data_dir_check(&checks);
    assert_eq!(dir["status"], "error", "{dir}");
    assert!(dir["detail"].as_str().unwrap().contains("out of disk space"), "{dir}");
    let exceptions = admin_get(&s, &key, "/api/admin/exceptions").await;
    assert!(exceptions["warnings"].as_u64().unwrap() >= 1, "{exceptions}");
    let warned = |e: &Value| {
        e["recent"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["message"].as_str().unwrap().contains("disk is full"))
            .count()
    };
    assert_eq!(warned(&exceptions), 1, "one warning however many writes failed: {exceptions}");
    let stats = admin_get(&s, &key, "/api/admin/stats").await;
    assert!(stats["totalUsers"].as_i64().unwrap() >= 1, "{stats}");
    let (code, out, err) = crate::common::run(&["doctor", "--addr", "127.0.0.1:1"], Some(&data));
    assert_eq!(code, 1, "{out}{err}");
    let line = out.lines().find(|l| l.contains("data dir:")).unwrap_or_default();
    assert!(line.starts_with("✗") && line.contains("out of disk space"), "{out}");

    // Space comes back: writes resume by themselves.
    std::fs::remove_file(data.join("filler")).unwrap();
    assert_eq!(register(&client(), &s, "fan_after").await.status(), StatusCode::CREATED);
    assert_eq!(submit_ad(&s).await.status(), StatusCode::CREATED);
    let rated =
        fan.post(s.url(&format!("/api/commands/{cid}/rating"))).json(&json!({"userId": uid, "rating": 4})).send().await;
    assert!(rated.unwrap().status().is_success());
    let h = wait_for_health(&s, "ok").await;
    assert_eq!(h["status"], "ok", "{h}");
    assert_eq!(data_dir_check(&admin_get(&s, &key, "/api/admin/health").await)["status"], "ok");
    let log = s.stderr();
    assert_eq!(log.matches("the data dir's disk is full").count(), 1, "{log}");
    assert_eq!(log.matches("has space again").count(), 1, "{log}");

    // Nothing half-done: an intact database, each ad with its file and each file with its ad.
    s.stop();
    let conn = rusqlite::Connection::open(data.join("fanhub.db")).unwrap();
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok");
    let mut rows: Vec<String> = conn
        .prepare("SELECT image_name FROM advertisements")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows.sort();
    let mut files = files_in(&data.join("uploads"));
    files.sort();
    assert_eq!(rows, files, "ads rows and upload files differ");
    assert_eq!(rows.len(), 2, "the ad sent while the disk was full was not saved");
    let users: Vec<String> = conn
        .prepare("SELECT username FROM users ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(users, ["fan_before", "fan_after"]);
}
