//! The shipped nginx configuration (packaging/nginx-fanhub.conf) in front of the real binary, with
//! Debian's nginx: polled answers come from the cache, personal answers never do, writes reach
//! the origin, and the origin's own caching rules decide what is served stale when it is down.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Launch, Server, json};
use reqwest::StatusCode;
use serde_json::json;

const NGINX: &str = "/usr/sbin/nginx";

struct Nginx {
    child: Child,
    base: String,
    dir: tempfile::TempDir,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The shipped file with only its addresses and cache path changed, inside a minimal nginx.conf.
fn start_nginx(origin: &str) -> Nginx {
    assert!(
        Path::new(NGINX).exists(),
        "{NGINX} is missing: install Debian's nginx (apt-get install nginx-light; scripts/test does)"
    );
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let shipped = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/packaging/nginx-fanhub.conf")).unwrap();
    let cache = dir.path().join("cache");
    let site = shipped
        .replace("server 127.0.0.1:8080;", &format!("server {origin};"))
        .replace("listen 80;", &format!("listen 127.0.0.1:{port};"))
        .replace("/var/cache/nginx/fanhub", cache.to_str().unwrap())
        .replace("/var/log/nginx/", &format!("{}/", dir.path().display()));
    assert_ne!(site, shipped);
    let d = dir.path().display();
    std::fs::write(dir.path().join("fanhub.conf"), site).unwrap();
    let main = format!(
        "user root; daemon off; worker_processes 1; pid {d}/nginx.pid; error_log {d}/error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{ access_log off; client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fastcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;\n\
         include {d}/fanhub.conf; }}\n"
    );
    let conf: PathBuf = dir.path().join("nginx.conf");
    std::fs::write(&conf, main).unwrap();
    let child = Command::new(NGINX)
        .arg("-c")
        .arg(&conf)
        .arg("-p")
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start nginx");
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "nginx did not start: {}",
            std::fs::read_to_string(dir.path().join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Nginx { child, base, dir }
}

/// Requests the origin answered for one route, from its /metrics.
async fn origin_requests(server: &Server, route: &str) -> u64 {
    let text = crate::common::client().get(server.url("/metrics")).send().await.unwrap().text().await.unwrap();
    let label = format!("fanhub_http_requests_total{{route=\"{route}\",");
    text.lines().filter(|l| l.starts_with(&label)).filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok()).sum()
}

fn browser_via(proxy: &Nginx) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("origin", proxy.base.parse().unwrap());
    fanhub::llm::install_crypto();
    reqwest::Client::builder().cookie_store(true).default_headers(headers).build().unwrap()
}

fn cache_status(res: &reqwest::Response) -> String {
    res.headers().get("x-cache-status").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default()
}

#[tokio::test]
async fn the_shipped_nginx_micro_cache_absorbs_polling_and_never_shares_personal_answers() {
    let mut server = Server::launch(Launch {
        args: ["--metrics", "--metrics-allow", "127.0.0.1/32", "--trusted-proxy", "127.0.0.1/32"]
            .map(String::from)
            .to_vec(),
        ..Default::default()
    });
    let proxy = start_nginx(server.addr());

    // Many tabs polling for 4.5 s: the origin sees about one request per s-maxage per URL.
    let polled = [("/api/stats", 2.0), ("/api/admin/active-banner", 2.0), ("/api/health", 5.0)];
    let before: Vec<u64> = in_turn(polled.iter().map(|(p, _)| origin_requests(&server, p))).await;
    let started = Instant::now();
    let mut tabs = vec![];
    for tab in 0..24 {
        let url = format!("{}{}", proxy.base, polled[tab % polled.len()].0);
        tabs.push(tokio::spawn(async move {
            let client = reqwest::Client::new();
            let (mut served, mut hits) = (0u64, 0u64);
            while started.elapsed() < Duration::from_millis(4500) {
                let res = client.get(&url).send().await.unwrap();
                assert_eq!(res.status(), StatusCode::OK, "{url}");
                hits += u64::from(cache_status(&res) == "HIT");
                served += 1;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            (served, hits)
        }));
    }
    let (mut served, mut hits) = (0, 0);
    for t in tabs {
        let (s, h) = t.await.unwrap();
        served += s;
        hits += h;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let after: Vec<u64> = in_turn(polled.iter().map(|(p, _)| origin_requests(&server, p))).await;
    assert!(served > 500, "only {served} polls went through nginx");
    assert!(hits * 10 > served * 9, "{hits} of {served} polls came from the cache");
    for (((path, s_maxage), b), a) in polled.iter().zip(&before).zip(&after) {
        let reached = a - b;
        let allowed = (elapsed / s_maxage).ceil() as u64 + 1;
        assert!(
            reached <= allowed,
            "{path}: the origin answered {reached} polls in {elapsed:.1} s (at most {allowed})"
        );
        assert!(reached >= 1, "{path}: never reached the origin");
    }
    // A browser's revalidation is answered 304 by the cache.
    let res = reqwest::get(format!("{}/api/stats", proxy.base)).await.unwrap();
    let etag = res.headers()["etag"].clone();
    let res = reqwest::Client::new()
        .get(format!("{}/api/stats", proxy.base))
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);

    // Two people signed in through nginx each see only their own account and keys, and every
    // one of those answers comes from the origin. Their writes reach it too.
    let mut people = vec![];
    for name in ["first_fan", "second_fan"] {
        let c = browser_via(&proxy);
        let res = c
            .post(format!("{}/api/auth/register", proxy.base))
            .json(&json!({"username": name, "password": "a long enough password"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::CREATED, "{name}");
        let res = c
            .post(format!("{}/api/auth/login", proxy.base))
            .json(&json!({"username": name, "password": "a long enough password"}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{name}");
        assert!(res.headers().get_all("set-cookie").iter().count() > 0, "{name}: no cookie through nginx");
        let res = c.post(format!("{}/api/generate-key", proxy.base)).json(&json!({"name": name})).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::CREATED, "{name}");
        people.push((name, c));
    }
    let me_before = origin_requests(&server, "/api/auth/user").await;
    for _ in 0..3 {
        for (name, c) in &people {
            let res = c.get(format!("{}/api/auth/user", proxy.base)).send().await.unwrap();
            assert_ne!(cache_status(&res), "HIT");
            let me = json(res).await;
            assert_eq!(me["username"], *name, "{me}");
            let res = c.get(format!("{}/api/keys", proxy.base)).send().await.unwrap();
            assert_ne!(cache_status(&res), "HIT");
            let keys = json(res).await;
            let keys = keys["keys"].as_array().unwrap();
            assert_eq!(keys.len(), 1, "{name}: {keys:?}");
            assert_eq!(keys[0]["name"], *name);
        }
    }
    assert_eq!(
        origin_requests(&server, "/api/auth/user").await - me_before,
        6,
        "every personal read reaches the origin"
    );

    // A banner change reaches visitors polling through the cache within the banner's s-maxage plus
    // stale-while-revalidate (2 + 1 s), plus one polling interval; never sooner than the origin has it.
    let through_nginx = || async {
        let res = reqwest::get(format!("{}/api/admin/active-banner", proxy.base)).await.unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        json(res).await["banner"]["backgroundColor"].as_str().unwrap().to_string()
    };
    let old = through_nginx().await;
    let new = if old == "#123456" { "#654321" } else { "#123456" };
    let res = crate::common::client()
        .put(server.url("/api/admin/settings"))
        .header("x-admin-key", crate::common::admin_key(&server))
        .json(&json!({"banner": {"backgroundColor": new, "textColor": "#ffffff", "borderColor": "#000000"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK, "the admin key saves the banner colours");
    let changed = Instant::now();
    loop {
        let seen = through_nginx().await;
        if seen == new {
            break;
        }
        assert_eq!(seen, old, "only the old or the new banner is ever served");
        assert!(
            changed.elapsed() < Duration::from_millis(3000 + 500),
            "the new banner did not reach visitors through nginx within s-maxage + stale-while-revalidate"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // With the origin down, answers that allow it (stale-if-error) are served stale; the health
    // check is not, so pages learn of the outage.
    let res = reqwest::get(format!("{}/api/stats", proxy.base)).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let res = reqwest::get(format!("{}/api/health", proxy.base)).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    server.kill9();
    let killed = Instant::now();
    // The health answer may be served for its s-maxage and stale-while-revalidate (5 + 1 s) after
    // the last fresh copy, which a background refresh may have fetched just before the kill; past
    // that (and a second for a loaded machine) pages must learn of the outage.
    loop {
        let res = reqwest::get(format!("{}/api/health", proxy.base)).await.unwrap();
        if res.status().is_server_error() {
            break;
        }
        assert_eq!(res.status(), StatusCode::OK);
        assert!(
            killed.elapsed() < Duration::from_millis(7000),
            "the health check must show the outage, still {} after {:?}",
            res.status(),
            killed.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    // Past the stats' own s-maxage and stale-while-revalidate (2 + 2 s): only stale-if-error serves them.
    if let Some(rest) = Duration::from_millis(4500).checked_sub(killed.elapsed()) {
        tokio::time::sleep(rest).await;
    }
    let res = reqwest::get(format!("{}/api/stats", proxy.base)).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "the stats are served stale while the origin is down");
    assert_eq!(cache_status(&res), "STALE");
}

async fn in_turn<F: Future<Output = u64>>(futures: impl Iterator<Item = F>) -> Vec<u64> {
    let mut out = vec![];
    for f in futures {
        out.push(f.await);
    }
    out
}

#[tokio::test]
async fn keys_stay_out_of_the_proxy_log_and_https_answers_carry_hsts() {
    let server = Server::launch(Launch {
        args: ["--trusted-proxy", "127.0.0.1/32"].map(String::from).to_vec(),
        ..Default::default()
    });
    let proxy = start_nginx(server.addr());
    let c = crate::common::client();
    let secret = "fha_0123456789abcdef0123456789abcdef01234567";
    let res = c.get(format!("{}/admin?key={secret}", proxy.base)).send().await.unwrap();
    assert_eq!(res.status(), 200, "the page is served");
    let res = c
        .get(format!("{}/api/health?x=1", proxy.base))
        .header("referer", format!("{}/admin?tab=users&key={secret}", proxy.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers().get("strict-transport-security").is_none(), "no HSTS over plain http");
    let log_path = proxy.dir.path().join("fanhub.access.log");
    let deadline = Instant::now() + Duration::from_secs(5);
    let log = loop {
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        if log.lines().count() >= 2 || Instant::now() > deadline {
            break log;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(log.contains("GET /admin "), "the request is logged, by its path: {log}");
    assert!(log.contains("/api/health?x=1"), "a query without a key is kept: {log}");
    assert!(!log.contains(secret) && !log.contains("key="), "the key is in the log: {log}");

    // Every spelling the page reads as `key`, and the path spelled otherwise, with fanhub up and
    // then down (nginx's error log writes the whole request line of a failed proxying).
    let spellings = [
        format!("/admin?%6bey={secret}"),
        format!("/admin?KEY%3D{secret}"),
        format!("/admin?tab=users;key={secret}"),
        format!("/ADMIN/?key={secret}"),
        format!("/%61dmin?key={secret}"),
        format!("//admin?key={secret}"),
    ];
    for path in spellings.iter().chain([&format!("/commands?%6B%65%79={secret}")]) {
        c.get(format!("{}{path}", proxy.base)).send().await.unwrap();
    }
    let res = c
        .get(format!("{}/api/health?y=2", proxy.base))
        .header("referer", format!("{}/admin?%6bey={secret}", proxy.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);

    // Over https (the proxy says so; a trusted one): HSTS on every answer, and only __Host- cookies count.
    let res = c.get(server.url("/api/health")).header("x-forwarded-proto", "https").send().await.unwrap();
    assert_eq!(res.headers()["strict-transport-security"], "max-age=31536000");
    let register = serde_json::json!({"username": "hsts_user", "password": "a long enough password"});
    let res =
        c.post(server.url("/api/auth/register")).header("origin", &server.base).json(&register).send().await.unwrap();
    assert!(res.status().is_success(), "registered: {}", res.status());
    let login =
        c.post(server.url("/api/auth/login")).header("origin", &server.base).json(&register).send().await.unwrap();
    let token = login
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix("fanhub_session=").map(|rest| rest.split(';').next().unwrap().to_string()))
        .expect("a session cookie over http");
    let me = |cookie: String, https: bool| {
        let mut req = c.get(server.url("/api/auth/user")).header("cookie", cookie);
        if https {
            req = req.header("x-forwarded-proto", "https");
        }
        req.send()
    };
    assert_eq!(
        me(format!("fanhub_session={token}"), false).await.unwrap().status(),
        200,
        "the precondition: the session works"
    );
    assert_eq!(
        me(format!("fanhub_session={token}"), true).await.unwrap().status(),
        401,
        "over https a bare cookie (planted over http or by a sibling) is not a session"
    );
    assert_eq!(me(format!("__Host-fanhub_session={token}"), true).await.unwrap().status(), 200);

    // fanhub down: nginx's error log writes the whole request line of a failed proxying.
    drop(server);
    for path in &spellings {
        let res = c.get(format!("{}{path}", proxy.base)).send().await.unwrap();
        assert!(res.status().is_server_error(), "{path}: fanhub is down");
    }
    c.get(format!("{}/api/health?down=1", proxy.base)).send().await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    for file in ["fanhub.access.log", "fanhub.error.log", "error.log"] {
        let text = std::fs::read_to_string(proxy.dir.path().join(file)).unwrap_or_default();
        assert!(!text.contains(secret), "the key is in {file}: {text}");
    }
    let errors = std::fs::read_to_string(proxy.dir.path().join("error.log")).unwrap_or_default();
    assert!(errors.contains("connect() failed"), "the precondition: nginx logs failed proxying: {errors}");
}
