//! The admin side: access rules, keys, the phrase and direct-key flows,
//! CSRF, user management with last-admin protection, logs, settings, backups.

use crate::common::{Server, admin_key, browser, client, json};
use reqwest::StatusCode;
use serde_json::json;

const PROTECTED: &[(&str, &str)] = &[
    ("GET", "/api/admin/check-key"),
    ("GET", "/api/admin/stats"),
    ("GET", "/api/admin/users"),
    ("PATCH", "/api/admin/users/1"),
    ("DELETE", "/api/admin/users/1"),
    ("PATCH", "/api/admin/users/1/suspend"),
    ("GET", "/api/admin/login-logs"),
    ("GET", "/api/admin/app-logs"),
    ("GET", "/api/admin/exceptions"),
    ("GET", "/api/admin/health"),
    ("GET", "/api/admin/settings"),
    ("PUT", "/api/admin/settings"),
    ("GET", "/api/admin/keys"),
    ("DELETE", "/api/admin/keys/1"),
    ("POST", "/api/admin/clear-cache"),
    ("GET", "/api/admin/backup"),
    ("GET", "/api/admin/advertisements"),
    ("POST", "/api/admin/revert-banner"),
    ("POST", "/api/admin/deactivate-banner"),
];

fn request(c: &reqwest::Client, s: &Server, method: &str, path: &str) -> reqwest::RequestBuilder {
    c.request(method.parse().unwrap(), s.url(path)).json(&json!({}))
}

#[tokio::test]
async fn every_admin_endpoint_refuses_without_admin_access() {
    let s = Server::start();
    let c = browser(&s);
    c.post(s.url("/api/auth/register"))
        .json(&json!({"username": "plain_user", "password": "123456"}))
        .send()
        .await
        .unwrap();
    c.post(s.url("/api/auth/login"))
        .json(&json!({"username": "plain_user", "password": "123456"}))
        .send()
        .await
        .unwrap();
    let mut wrong_keys = 0;
    for (method, path) in PROTECTED {
        for (who, cl, key) in
            [("anonymous", &client(), None), ("signed-in user", &c, None), ("bad key", &client(), Some("fha_0000"))]
        {
            let mut req = request(cl, &s, method, path);
            if let Some(k) = key {
                req = req.header("x-admin-key", k);
                wrong_keys += 1;
            }
            let res = req.send().await.unwrap();
            // Past 10 wrong admin keys a minute from one address, the next is refused before it is looked at.
            let expected =
                if key.is_some() && wrong_keys > 10 { StatusCode::TOO_MANY_REQUESTS } else { StatusCode::UNAUTHORIZED };
            assert_eq!(res.status(), expected, "{who}: {method} {path}");
            assert!(json(res).await["error"].is_string());
        }
    }
    assert!(wrong_keys > 10, "the limit was reached and seen");
    let res = client().get(s.url("/api/admin/active-banner")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "the banner is a public read");
}

#[tokio::test]
async fn cli_key_works_as_header_and_as_session_and_can_be_revoked() {
    let s = Server::start();
    let key = admin_key(&s);
    let c = client();
    let res = c.get(s.url("/api/admin/check-key")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(json(res).await["via"], "key");

    let b = browser(&s);
    let res = b.post(s.url("/api/admin/verify-key")).json(&json!({"key": "fha_wrong"})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(json(res).await["error"], "Invalid admin key");
    let res = b.post(s.url("/api/admin/verify-key")).json(&json!({"key": format!("  {key} ")})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .find(|c| c.starts_with("fanhub_admin="))
        .unwrap();
    assert!(
        cookie.starts_with("fanhub_admin=")
            && cookie.contains("HttpOnly")
            && cookie.contains("SameSite=Strict")
            && cookie.contains("Max-Age=43200"),
        "{cookie}"
    );
    assert_eq!(json(b.get(s.url("/api/admin/check-key")).send().await.unwrap()).await["via"], "session");

    let keys = json(b.get(s.url("/api/admin/keys")).send().await.unwrap()).await;
    let listed = &keys["keys"][0];
    assert_eq!(listed["prefix"], &key[..12]);
    assert!(listed.get("key").is_none() && !keys.to_string().contains(&key[12..]), "the full key must never be listed");
    assert!(!listed["lastUsed"].is_null());
    let id = listed["id"].as_i64().unwrap();
    assert_eq!(b.delete(s.url(&format!("/api/admin/keys/{id}"))).send().await.unwrap().status(), StatusCode::OK);
    assert_eq!(
        b.get(s.url("/api/admin/check-key")).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED,
        "session ends with its key"
    );
    let res = c.get(s.url("/api/admin/check-key")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn cookie_writes_from_another_site_are_refused() {
    let s = Server::start();
    let key = admin_key(&s);
    let b = browser(&s);
    b.post(s.url("/api/admin/verify-key")).json(&json!({"key": key})).send().await.unwrap();
    let colors = json!({"banner": {"backgroundColor": "#112233", "textColor": "#ffffff", "borderColor": "#445566"}});
    let res = b
        .put(s.url("/api/admin/settings"))
        .header("origin", "https://evil.example")
        .json(&colors)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(json(res).await["error"].as_str().unwrap().contains("Cross-site"));
    let res =
        b.put(s.url("/api/admin/settings")).header("sec-fetch-site", "cross-site").json(&colors).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let banner = json(client().get(s.url("/api/admin/active-banner")).send().await.unwrap()).await;
    assert_eq!(banner["banner"]["backgroundColor"], "#7c3aed", "nothing changed");
    let res = b.put(s.url("/api/admin/settings")).json(&colors).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let banner = json(client().get(s.url("/api/admin/active-banner")).send().await.unwrap()).await;
    assert_eq!(banner["banner"]["backgroundColor"], "#112233");
    let res = b
        .put(s.url("/api/admin/settings"))
        .json(&json!({"banner": {"backgroundColor": "red", "textColor": "#fff", "borderColor": "#000000"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert_eq!(b.post(s.url("/api/admin/revert-banner")).send().await.unwrap().status(), StatusCode::OK);
    let banner = json(client().get(s.url("/api/admin/active-banner")).send().await.unwrap()).await;
    assert_eq!(banner["banner"]["backgroundColor"], "#7c3aed");
}

#[tokio::test]
async fn direct_key_only_for_loopback_without_forwarding() {
    let s = Server::start();
    let c = client();
    let origin = s.base.clone();
    let direct = || c.post(s.url("/api/admin/generate-direct-key")).header("origin", &origin);
    let res = direct().header("x-forwarded-for", "203.0.113.7").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(json(res).await["error"].as_str().unwrap().contains("fanhub admin-key"));
    let res = direct().header("forwarded", "for=203.0.113.7").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = direct().send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let key = json(res).await["key"].as_str().unwrap().to_string();
    let res = c.get(s.url("/api/admin/check-key")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    // The page of the site on the server, as a browser sends it (localhost works as well).
    let port = s.addr().rsplit_once(':').unwrap().1.to_string();
    let res = c
        .post(s.url("/api/admin/generate-direct-key"))
        .header("host", format!("localhost:{port}"))
        .header("sec-fetch-site", "same-origin")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
}

/// DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 reaches the
/// server from loopback, with its own name as Host and its own origin; a cross-site page
/// posting to 127.0.0.1 carries a foreign Origin; a local tool or header-less proxy sends none.
#[tokio::test]
async fn direct_key_refuses_rebound_hosts_and_cross_site_pages() {
    let s = Server::start();
    let c = client();
    let port = s.addr().rsplit_once(':').unwrap().1.to_string();
    let evil = format!("evil.example:{port}");
    let attempts = [
        ("rebound host, same-origin to it", vec![("host", evil.clone()), ("origin", format!("http://{evil}"))]),
        ("rebound host, fetch metadata", vec![("host", evil.clone()), ("sec-fetch-site", "same-origin".to_string())]),
        ("cross-site origin", vec![("origin", "http://evil.example".to_string())]),
        ("cross-site fetch metadata", vec![("origin", s.base.clone()), ("sec-fetch-site", "cross-site".to_string())]),
        ("no origin at all", vec![]),
    ];
    for (what, headers) in attempts {
        let mut req = c.post(s.url("/api/admin/generate-direct-key"));
        for (k, v) in headers {
            req = req.header(k, v);
        }
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{what}");
        assert!(json(res).await["error"].as_str().unwrap().contains("fanhub admin-key"), "{what}");
    }
    let keys = json(c.get(s.url("/api/admin/keys")).header("x-admin-key", admin_key(&s)).send().await.unwrap()).await;
    assert_eq!(keys["keys"].as_array().unwrap().len(), 1, "only the CLI key exists: {keys}");
}

/// The token of a new admin session for `key`, as its `fanhub_admin` cookie carries it.
async fn admin_session(s: &Server, key: &str) -> String {
    let res = client().post(s.url("/api/admin/verify-key")).json(&json!({"key": key})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap())
        .find(|c| c.starts_with("fanhub_admin="))
        .unwrap()
        .to_string();
    cookie.split(';').next().unwrap()["fanhub_admin=".len()..].to_string()
}

#[tokio::test]
async fn admin_sign_out_ends_that_session_only_and_a_replayed_cookie_is_refused() {
    let s = Server::start();
    let key = admin_key(&s);
    let (one, two) = (admin_session(&s, &key).await, admin_session(&s, &key).await);
    let check = |token: &str| {
        client().get(s.url("/api/admin/check-key")).header("cookie", format!("fanhub_admin={token}")).send()
    };
    let sign_out = |token: &str, origin: &str| {
        client()
            .post(s.url("/api/admin/logout"))
            .header("cookie", format!("fanhub_admin={token}; fanhub_hint_admin=1"))
            .header("origin", origin)
            .send()
    };
    assert_eq!(check(&one).await.unwrap().status(), StatusCode::OK);
    assert_eq!(check(&two).await.unwrap().status(), StatusCode::OK);

    let res = sign_out(&one, "http://evil.example").await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN, "a cross-site sign-out is refused like any cookie write");
    assert_eq!(check(&one).await.unwrap().status(), StatusCode::OK);

    let res = sign_out(&one, &s.base).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let set: Vec<String> =
        res.headers().get_all("set-cookie").iter().map(|v| v.to_str().unwrap().to_string()).collect();
    for name in ["fanhub_admin=;", "fanhub_hint_admin=;"] {
        assert!(set.iter().any(|c| c.starts_with(name) && c.contains("Max-Age=0")), "{name} cleared: {set:?}");
    }
    for (method, path) in [("GET", "/api/admin/check-key"), ("GET", "/api/admin/stats"), ("GET", "/api/admin/keys")] {
        let res = client()
            .request(method.parse().unwrap(), s.url(path))
            .header("cookie", format!("fanhub_admin={one}"))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "the old cookie replayed: {method} {path}");
    }
    assert_eq!(check(&two).await.unwrap().status(), StatusCode::OK, "the other admin session stays");
    let res = client().post(s.url("/api/admin/logout")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "signing out without a session is fine");
}

#[tokio::test]
async fn phrase_flow_is_off_without_a_phrase() {
    let s = Server::start();
    let res = client()
        .post(s.url("/api/admin/generate-challenge"))
        .json(&json!({"phrase": "anything"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(json(res).await["error"].is_string());
}

#[tokio::test]
async fn phrase_flow_gives_a_single_use_challenge_and_an_ip_bound_key() {
    let s = Server::launch(crate::common::Launch {
        args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()],
        envs: vec![("FANHUB_ADMIN_PHRASE".into(), "open sesame blocks".into())],
        ..Default::default()
    });
    let c = client();
    let from = |ip: &'static str| move |r: reqwest::RequestBuilder| r.header("x-forwarded-for", ip);
    let home = from("203.0.113.5");
    let away = from("203.0.113.9");

    let res =
        home(c.post(s.url("/api/admin/generate-challenge"))).json(&json!({"phrase": "wrong"})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert_eq!(json(res).await["error"], "Invalid secret phrase");

    let res = home(c.post(s.url("/api/admin/generate-challenge")))
        .json(&json!({"phrase": "open sesame blocks"}))
        .send()
        .await
        .unwrap();
    let body = json(res).await;
    assert_eq!(body["success"], true);
    assert_eq!(body["ip"], "203.0.113.5");
    let challenge = body["challenge"].as_str().unwrap().to_string();

    let res = away(c.post(s.url("/api/admin/create-lifetime-key")))
        .json(&json!({"phrase": "open sesame blocks", "challenge": challenge}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN, "a challenge belongs to the IP that asked");

    let res = home(c.post(s.url("/api/admin/generate-challenge")))
        .json(&json!({"phrase": "open sesame blocks"}))
        .send()
        .await
        .unwrap();
    let challenge = json(res).await["challenge"].as_str().unwrap().to_string();
    let res = home(c.post(s.url("/api/admin/create-lifetime-key")))
        .json(&json!({"phrase": "open sesame blocks", "challenge": challenge}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let key = json(res).await["key"].as_str().unwrap().to_string();
    let res = home(c.post(s.url("/api/admin/create-lifetime-key")))
        .json(&json!({"phrase": "open sesame blocks", "challenge": challenge}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN, "challenge reuse");

    let res = away(c.post(s.url("/api/admin/verify-key"))).json(&json!({"key": key})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN, "key bound to another IP");
    let res = away(c.get(s.url("/api/admin/users"))).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = home(c.post(s.url("/api/admin/verify-key"))).json(&json!({"key": key})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let keys = json(home(c.get(s.url("/api/admin/keys"))).header("x-admin-key", &key).send().await.unwrap()).await;
    assert_eq!(keys["keys"][0]["boundIp"], "203.0.113.5");

    let html = s.stderr();
    assert!(!html.contains("open sesame"), "the phrase must never be logged");
}

#[tokio::test]
async fn brute_force_on_admin_access_is_limited() {
    let s = Server::with_env(&[("FANHUB_ADMIN_PHRASE", "a phrase of sixteen or more")]);
    let c = client();
    for _ in 0..10 {
        c.post(s.url("/api/admin/verify-key")).json(&json!({"key": "fha_guess"})).send().await.unwrap();
    }
    let res = c.post(s.url("/api/admin/verify-key")).json(&json!({"key": "fha_guess"})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(res.headers().contains_key("retry-after"));
    for _ in 0..10 {
        c.post(s.url("/api/admin/generate-challenge")).json(&json!({"phrase": "guess"})).send().await.unwrap();
    }
    let res = c.post(s.url("/api/admin/generate-challenge")).json(&json!({"phrase": "p"})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
}

async fn make_user(s: &Server, name: &str) -> i64 {
    let res = client()
        .post(s.url("/api/auth/register"))
        .json(&json!({"username": name, "password": "123456"}))
        .send()
        .await
        .unwrap();
    json(res).await["user"]["id"].as_i64().unwrap()
}

#[tokio::test]
async fn user_management_protects_the_last_admin() {
    let s = Server::start();
    let key = admin_key(&s);
    let c = client();
    let admin = |r: reqwest::RequestBuilder| r.header("x-admin-key", key.clone());
    let a = make_user(&s, "admin_a").await;
    let b = make_user(&s, "admin_b").await;

    let res = admin(c.patch(s.url(&format!("/api/admin/users/{a}"))))
        .json(&json!({"role": "superuser"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = admin(c.patch(s.url(&format!("/api/admin/users/{a}")))).json(&json!({})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = admin(c.patch(s.url("/api/admin/users/99999"))).json(&json!({"role": "admin"})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = admin(c.patch(s.url("/api/admin/users/abc"))).json(&json!({"role": "admin"})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = admin(c.delete(s.url("/api/admin/users/99999"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);

    let res =
        admin(c.patch(s.url(&format!("/api/admin/users/{a}")))).json(&json!({"role": "admin"})).send().await.unwrap();
    assert_eq!(json(res).await["user"]["role"], "admin");
    let res =
        admin(c.patch(s.url(&format!("/api/admin/users/{a}")))).json(&json!({"role": "user"})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CONFLICT);
    let res = admin(c.patch(s.url(&format!("/api/admin/users/{a}/suspend"))))
        .json(&json!({"isActive": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CONFLICT);
    let res = admin(c.delete(s.url(&format!("/api/admin/users/{a}")))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CONFLICT);
    assert!(json(res).await["error"].as_str().unwrap().contains("last active admin"));

    admin(c.patch(s.url(&format!("/api/admin/users/{b}")))).json(&json!({"role": "admin"})).send().await.unwrap();
    // Two admins demote each other at once: exactly one demotion may win.
    let (r1, r2) = tokio::join!(
        admin(c.patch(s.url(&format!("/api/admin/users/{a}")))).json(&json!({"role": "moderator"})).send(),
        admin(c.patch(s.url(&format!("/api/admin/users/{b}")))).json(&json!({"role": "moderator"})).send(),
    );
    let mut statuses = [r1.unwrap().status(), r2.unwrap().status()];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT]);
    let users = json(admin(c.get(s.url("/api/admin/users"))).send().await.unwrap()).await;
    let admins = users["users"].as_array().unwrap().iter().filter(|u| u["role"] == "admin").count();
    assert_eq!(admins, 1);
}

#[tokio::test]
async fn a_signed_in_admin_user_is_an_admin_and_deleting_a_user_ends_their_sessions() {
    let s = Server::start();
    let key = admin_key(&s);
    let c = client();
    let boss = make_user(&s, "boss_user").await;
    c.patch(s.url(&format!("/api/admin/users/{boss}")))
        .header("x-admin-key", &key)
        .json(&json!({"role": "admin"}))
        .send()
        .await
        .unwrap();
    let b = browser(&s);
    b.post(s.url("/api/auth/login"))
        .json(&json!({"username": "boss_user", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(json(b.get(s.url("/api/admin/check-key")).send().await.unwrap()).await["via"], "user");

    let victim = make_user(&s, "leaving_user").await;
    let elsewhere = browser(&s);
    elsewhere
        .post(s.url("/api/auth/login"))
        .json(&json!({"username": "leaving_user", "password": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(elsewhere.get(s.url("/api/auth/user")).send().await.unwrap().status(), StatusCode::OK);
    let res = b.delete(s.url(&format!("/api/admin/users/{victim}"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(elsewhere.get(s.url("/api/auth/user")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let res = b.delete(s.url(&format!("/api/admin/users/{victim}"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);

    // Suspending signs the user out everywhere too.
    let res =
        b.patch(s.url(&format!("/api/admin/users/{boss}"))).json(&json!({"isActive": false})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CONFLICT, "the only admin cannot suspend themselves");
}

#[tokio::test]
async fn dashboard_logs_health_and_backup_are_real() {
    let s = Server::start();
    let key = admin_key(&s);
    let c = client();
    let admin = |r: reqwest::RequestBuilder| r.header("x-admin-key", key.clone());
    make_user(&s, "counted_user").await;
    c.get(s.url("/guides")).header("user-agent", "Mozilla/5.0").send().await.unwrap();

    let stats = json(admin(c.get(s.url("/api/admin/stats"))).send().await.unwrap()).await;
    assert_eq!(stats["totalUsers"], 1);
    assert_eq!(stats["newUsersToday"], 1);
    assert_eq!(stats["pageViews"], 1);
    assert_eq!(stats["pageViewsToday"], 1);
    assert!(stats["uptimeSeconds"].as_i64().unwrap() >= 0);
    assert!(!stats["lastAdminAccess"].is_null());
    for key in ["adminSessions", "ads", "scans", "elcBadgesFound", "scanProgress", "startedAt"] {
        assert!(!stats[key].is_null(), "{key}");
    }

    let logs = json(admin(c.get(s.url("/api/admin/app-logs"))).send().await.unwrap()).await;
    assert!(
        logs["logs"].as_array().unwrap().iter().any(|l| l["message"].as_str().unwrap().contains("account created")),
        "{logs}"
    );
    let ex = json(admin(c.get(s.url("/api/admin/exceptions"))).send().await.unwrap()).await;
    assert_eq!(ex["errors"], 0);
    assert!(ex["info"].as_u64().unwrap() > 0);

    let health = json(admin(c.get(s.url("/api/admin/health"))).send().await.unwrap()).await;
    let checks = health["checks"].as_array().unwrap();
    let db = checks.iter().find(|x| x["name"] == "Database").unwrap();
    assert_eq!(db["status"], "ok");
    for name in ["Discord Bot", "Roblox API", "Webhooks"] {
        assert!(checks.iter().any(|x| x["name"] == name), "{name}");
    }

    let res = admin(c.post(s.url("/api/admin/clear-cache"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(json(res).await["message"].is_string());

    let res = admin(c.get(s.url("/api/admin/backup"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(res.headers()["content-disposition"].to_str().unwrap().starts_with("attachment"));
    let bytes = res.bytes().await.unwrap();
    assert!(bytes.starts_with(b"SQLite format 3\0"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("b.db");
    std::fs::write(&file, &bytes).unwrap();
    let conn = rusqlite::Connection::open(&file).unwrap();
    let users: i64 = conn.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0)).unwrap();
    assert_eq!(users, 1);
    let leftovers: Vec<_> = std::fs::read_dir(&s.data_dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".backup"))
        .collect();
    assert!(leftovers.is_empty(), "temporary backup files left behind");

    let page = json(admin(c.get(s.url("/api/admin/login-logs?page=1&limit=1"))).send().await.unwrap()).await;
    assert_eq!(page["limit"], 1);
    assert!(page["logs"].as_array().is_some_and(|l| l.len() <= 1), "{page}");
    for bad in ["?page=0", "?limit=1000", "?limit=0", "?page=abc"] {
        let res = admin(c.get(s.url(&format!("/api/admin/login-logs{bad}")))).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    let ads = json(admin(c.get(s.url("/api/admin/advertisements"))).send().await.unwrap()).await;
    assert!(ads["applications"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn admin_key_command_prints_one_key() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d");
    let (code, out, err) = crate::common::run(&["admin-key", "--name", "ops"], Some(&data));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim().lines().count(), 1);
    assert!(out.trim().starts_with("fha_") && out.trim().len() >= 44);
    let conn = rusqlite::Connection::open(data.join("fanhub.db")).unwrap();
    let (name, source): (String, String) =
        conn.query_row("SELECT name, source FROM admin_keys", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert_eq!((name.as_str(), source.as_str()), ("ops", "cli"));
}

#[tokio::test]
async fn wrong_admin_keys_are_limited_per_address_and_right_ones_cost_nothing() {
    let s = Server::start();
    let key = admin_key(&s);
    let c = client();
    let check = |k: &str| c.get(s.url("/api/admin/check-key")).header("x-admin-key", k.to_string()).send();
    // The precondition: the right key works, and using it many times costs nothing against the limit.
    for _ in 0..15 {
        assert_eq!(check(&key).await.unwrap().status(), StatusCode::OK);
    }
    for n in 0..10 {
        let res = check(&format!("fha_wrong{n}")).await.unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "wrong admin key {n}");
    }
    let res = check("fha_wrong-eleven").await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "the 11th wrong admin key in a minute");
    let wait: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=61).contains(&wait), "Retry-After {wait}");
    assert_eq!(json(res).await["message"], "At most 10 wrong admin keys a minute from one address.");
    let res = check(&key).await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "refused before any key is looked at");
}

#[tokio::test]
async fn the_admin_phrase_may_come_as_a_systemd_credential() {
    // systemd's LoadCredential= puts the secret in a file of $CREDENTIALS_DIRECTORY, named as the variable.
    let credentials = tempfile::tempdir().unwrap();
    std::fs::write(credentials.path().join("FANHUB_ADMIN_PHRASE"), "a credential phrase, long enough\n").unwrap();
    let s = Server::with_env(&[("CREDENTIALS_DIRECTORY", credentials.path().to_str().unwrap())]);
    let c = client();
    let wrong = c.post(s.url("/api/admin/generate-challenge")).json(&json!({"phrase": "guess"})).send().await.unwrap();
    assert_eq!(wrong.status(), StatusCode::FORBIDDEN, "the phrase flow is on, and a wrong phrase is refused");
    let right = c
        .post(s.url("/api/admin/generate-challenge"))
        .json(&json!({"phrase": "a credential phrase, long enough"}))
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), StatusCode::OK, "the file's phrase, without its line end");
    assert!(json(right).await["challenge"].as_str().is_some_and(|c| !c.is_empty()));

    let without = Server::start();
    let off =
        c.post(without.url("/api/admin/generate-challenge")).json(&json!({"phrase": "guess"})).send().await.unwrap();
    assert_eq!(off.status(), StatusCode::SERVICE_UNAVAILABLE, "no phrase anywhere: the flow is off");
}
