//! Starts the real `fanhub` binary on 127.0.0.1:0 with its own data dir and talks HTTP to it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub mod fake_discord;
pub mod fake_roblox;

pub const BIN: &str = env!("CARGO_BIN_EXE_fanhub");

pub struct Server {
    pub base: String,
    pub child: Option<Child>,
    pub data_dir: PathBuf,
    _dir: Option<tempfile::TempDir>,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

#[derive(Default)]
pub struct Launch {
    pub args: Vec<String>,
    pub envs: Vec<(String, String)>,
    pub data_dir: Option<PathBuf>,
}

impl Server {
    pub fn start() -> Self {
        Self::launch(Launch::default())
    }

    pub fn with_env(envs: &[(&str, &str)]) -> Self {
        Self::launch(Launch {
            envs: envs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            ..Default::default()
        })
    }

    pub fn launch(launch: Launch) -> Self {
        let (dir, data_dir) = match launch.data_dir {
            Some(d) => (None, d),
            None => {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join("data");
                (Some(dir), path)
            }
        };
        let mut cmd = Command::new(BIN);
        cmd.args(["serve", "--addr", "127.0.0.1:0", "--data-dir"]).arg(&data_dir).args(&launch.args);
        cmd.env_remove("FANHUB_ADMIN_PHRASE").env_remove("FANHUB_TRUSTED_PROXIES").env("RUST_LOG", "info");
        for (k, v) in &launch.envs {
            cmd.env(k, v);
        }
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn fanhub");
        let stdout = child.stdout.take().unwrap();
        let stderr_text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let sink = stderr_text.clone();
        let mut stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(line)) = lines.next() {
                let _ = tx.send(line);
            }
            for _ in lines {}
        });
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("fanhub did not start; stderr:\n{}", stderr_text.lock().unwrap()));
        let base = line
            .strip_prefix("fanhub listening on ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        Self { base, child: Some(child), data_dir, _dir: dir, stderr: stderr_text }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn addr(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// SIGTERM, then the exit status.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
        for _ in 0..200 {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        child.kill().unwrap();
        panic!("fanhub did not stop within 5 s of SIGTERM");
    }

    pub fn kill9(&mut self) {
        let mut child = self.child.take().expect("running");
        child.kill().unwrap();
        child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A copy of the bundled data/site.toml in `dir`, each `(from, to)` replaced once (`from` must be there).
pub fn edited_site_file<'a>(dir: &Path, edits: impl IntoIterator<Item = &'a (&'a str, &'a str)>) -> PathBuf {
    let mut text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/site.toml")).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "the site file has no {from:?}");
        text = text.replacen(from, to, 1);
    }
    let path = dir.join("site.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A data dir and an edited site file for a server pointed at fakes through `envs`.
pub struct SiteSetup {
    pub dir: tempfile::TempDir,
    pub site: PathBuf,
    pub envs: Vec<(String, String)>,
}

impl SiteSetup {
    pub fn new<'a>(edits: impl IntoIterator<Item = &'a (&'a str, &'a str)>, envs: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let site = edited_site_file(dir.path(), edits);
        Self { dir, site, envs: envs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() }
    }

    /// The same for a server pointed at the fake Roblox (`template`, `FakeRoblox::template`), whose
    /// calls time out after `timeout_ms`; `envs` are added beside.
    pub fn with_roblox<'a>(
        template: &str,
        timeout_ms: u32,
        edits: impl IntoIterator<Item = &'a (&'a str, &'a str)>,
        envs: &[(&str, &str)],
    ) -> Self {
        let timeout = timeout_ms.to_string();
        let mut all = vec![("FANHUB_ROBLOX_API", template), ("FANHUB_ROBLOX_TIMEOUT_MS", timeout.as_str())];
        all.extend_from_slice(envs);
        Self::new(edits, &all)
    }

    /// Starts the server; again after a stop or a kill, on the same data dir.
    pub fn start(&self) -> Server {
        Server::launch(Launch {
            args: vec!["--site".into(), self.site.display().to_string()],
            envs: self.envs.clone(),
            data_dir: Some(self.dir.path().join("data")),
        })
    }
}

/// The site's public API key (GET /api/site `publicApiKey`), which the newgen page uses.
pub async fn public_key(server: &Server) -> String {
    let site = json(client().get(server.url("/api/site")).send().await.unwrap()).await;
    site["publicApiKey"].as_str().expect("the site serves its public API key").to_string()
}

pub fn client() -> reqwest::Client {
    fanhub::llm::install_crypto();
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// A client that keeps cookies and sends same-origin headers like the app's pages do.
pub fn browser(server: &Server) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("origin", server.base.parse().unwrap());
    fanhub::llm::install_crypto();
    reqwest::Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

pub async fn json(res: reqwest::Response) -> serde_json::Value {
    let status = res.status();
    let text = res.text().await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("status {status}, body not JSON ({e}): {text}"))
}

/// Runs the binary with arguments, returning (exit code, stdout, stderr).
pub fn run(args: &[&str], data_dir: Option<&Path>) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    if let Some(d) = data_dir {
        cmd.arg("--data-dir").arg(d);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Creates an admin key with `fanhub admin-key` against the server's data dir.
pub fn admin_key(server: &Server) -> String {
    let (code, out, err) = run(&["admin-key", "--name", "tests"], Some(&server.data_dir));
    assert_eq!(code, 0, "{err}");
    let key = out.trim().to_string();
    assert!(key.starts_with("fha_"), "{out}");
    key
}

/// What [`start_oversized`] sends.
#[derive(Clone, Copy, Debug)]
pub enum Oversized {
    /// A `content-length` above the 4 MiB cap, then that many bytes.
    Announced,
    /// No length, and a body that never ends (until the client hangs up).
    Endless,
}

/// A server that answers every request with 200 and a JSON-looking body over the 4 MiB answer
/// cap of the site's outbound calls; its base URL (`http://127.0.0.1:PORT`).
pub async fn start_oversized(kind: Oversized) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    const OVER_CAP: usize = (4 << 20) + 1024;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0u8; 8192];
                let _ = stream.read(&mut request).await;
                let head = match kind {
                    Oversized::Announced => format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {OVER_CAP}\r\n\r\n"
                    ),
                    Oversized::Endless => {
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n".to_string()
                    }
                };
                if stream.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let _ = stream.write_all(b"{\"data\": [").await;
                let chunk = vec![b' '; 64 * 1024];
                let mut sent = 0;
                while matches!(kind, Oversized::Endless) || sent < OVER_CAP {
                    if stream.write_all(&chunk).await.is_err() {
                        return;
                    }
                    sent += chunk.len();
                }
            });
        }
    });
    base
}

/// `s` escaped as the server writes it into an HTML attribute.
pub fn attr(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// The `content` of `<meta name|property="key">` in the head.
pub fn meta(html: &str, key: &str) -> Option<String> {
    for attr_name in ["name", "property"] {
        let needle = format!("<meta {attr_name}=\"{key}\" content=\"");
        if let Some(i) = html.find(&needle) {
            let rest = &html[i + needle.len()..];
            return Some(rest[..rest.find('"').unwrap()].to_string());
        }
    }
    None
}
