//! Accounts: registration, sign-in, sessions, logs, limits, favorites.

use crate::common::{Server, admin_key, browser, client, json};
use reqwest::StatusCode;
use serde_json::json;

async fn register(c: &reqwest::Client, s: &Server, name: &str, pass: &str) -> reqwest::Response {
    c.post(s.url("/api/auth/register")).json(&json!({"username": name, "password": pass})).send().await.unwrap()
}

async fn login(c: &reqwest::Client, s: &Server, name: &str, pass: &str) -> reqwest::Response {
    c.post(s.url("/api/auth/login")).json(&json!({"username": name, "password": pass})).send().await.unwrap()
}

#[tokio::test]
async fn register_sign_in_current_user_and_sign_out() {
    let s = Server::start();
    let c = browser(&s);
    let res = register(&c, &s, "builder_01", "hunter22").await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let body = json(res).await;
    assert_eq!(body["user"]["username"], "builder_01");
    assert_eq!(body["user"]["role"], "user");
    assert!(body["user"].get("password").is_none() && body["user"].get("passwordHash").is_none());

    assert_eq!(c.get(s.url("/api/auth/user")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let res = login(&c, &s, "BUILDER_01", "hunter22").await;
    assert_eq!(res.status(), StatusCode::OK);
    let cookies: Vec<String> =
        res.headers().get_all("set-cookie").iter().map(|v| v.to_str().unwrap().to_string()).collect();
    let cookie = cookies.iter().find(|c| c.starts_with("fanhub_session=")).expect("session cookie").clone();
    let hint = cookies.iter().find(|c| c.starts_with("fanhub_hint_user=1")).expect("hint cookie");
    assert!(!hint.contains("HttpOnly"), "the app reads the hint");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(flag), "{cookie} lacks {flag}");
    }
    assert!(!cookie.contains("Secure"), "plain http must not set Secure: {cookie}");
    let token = cookie.split(';').next().unwrap().split('=').nth(1).unwrap();
    assert_eq!(token.len(), 64, "a 256-bit token");

    let me = json(c.get(s.url("/api/auth/user")).send().await.unwrap()).await;
    assert_eq!(me["username"], "builder_01");
    for key in ["id", "role", "isActive", "createdAt", "lastLogin"] {
        assert!(!me[key].is_null(), "{key} missing: {me}");
    }
    assert_eq!(c.post(s.url("/api/auth/logout")).send().await.unwrap().status(), StatusCode::OK);
    assert_eq!(c.get(s.url("/api/auth/user")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
}

/// The cookies of an answer by name (the part before `=`), with their attributes.
fn set_cookies(res: &reqwest::Response) -> Vec<(String, String)> {
    res.headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .map(|c| (c.split('=').next().unwrap().to_string(), c))
        .collect()
}

fn cookie_value(cookie: &str) -> String {
    cookie.split(';').next().unwrap().split_once('=').unwrap().1.to_string()
}

/// Over https the session cookie is `__Host-fanhub_session` (Secure, Path=/, no Domain), read
/// back under that name; a bare `fanhub_session` (planted, or from before) is not a session over
/// https; signing out ends both.
async fn host_prefixed_cookies(s: &Server, https: &[(&str, &str)], name: &str) {
    let c = client();
    register(&c, s, name, "hunter22").await;
    let with = |req: reqwest::RequestBuilder| https.iter().fold(req, |req, (k, v)| req.header(*k, *v));
    let res = with(c.post(s.url("/api/auth/login")))
        .json(&json!({"username": name, "password": "hunter22"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let set = set_cookies(&res);
    let (_, session) = set.iter().find(|(n, _)| n == "__Host-fanhub_session").unwrap_or_else(|| panic!("{set:?}"));
    for flag in ["; Secure", "Path=/", "HttpOnly", "SameSite=Strict"] {
        assert!(session.contains(flag), "{session} lacks {flag}");
    }
    assert!(!session.contains("Domain"), "{session}");
    assert!(set.iter().any(|(n, c)| n == "__Host-fanhub_hint_user" && c.contains("; Secure")), "{set:?}");
    assert!(!set.iter().any(|(n, _)| n == "fanhub_session"), "{set:?}");
    let token = cookie_value(session);
    let me = |cookie: String| with(c.get(s.url("/api/auth/user"))).header("cookie", cookie).send();
    assert_eq!(me(format!("__Host-fanhub_session={token}")).await.unwrap().status(), StatusCode::OK);
    assert_eq!(
        me(format!("fanhub_session={token}")).await.unwrap().status(),
        StatusCode::UNAUTHORIZED,
        "over https only the __Host- name counts"
    );

    let legacy = {
        let res = login(&c, s, name, "hunter22").await;
        let set = set_cookies(&res);
        cookie_value(&set.iter().find(|(n, _)| n == "fanhub_session").unwrap().1)
    };
    let plain = c.get(s.url("/api/auth/user")).header("cookie", format!("fanhub_session={legacy}")).send();
    assert_eq!(plain.await.unwrap().status(), StatusCode::OK, "the precondition: the bare session works over http");
    let res = with(c.post(s.url("/api/auth/logout")))
        .header("cookie", format!("__Host-fanhub_session={token}; fanhub_session={legacy}"))
        .header(
            "origin",
            https.iter().find(|(k, _)| *k == "host").map(|(_, h)| format!("https://{h}")).unwrap_or(s.base.clone()),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let set = set_cookies(&res);
    for cleared in ["__Host-fanhub_session", "fanhub_session"] {
        assert!(set.iter().any(|(n, c)| n == cleared && c.contains("Max-Age=0")), "{cleared}: {set:?}");
    }
    assert_eq!(me(format!("__Host-fanhub_session={token}")).await.unwrap().status(), StatusCode::UNAUTHORIZED);
    // The bare-named session was ended too (seen over plain http, where that name counts).
    let plain = c.get(s.url("/api/auth/user")).header("cookie", format!("fanhub_session={legacy}")).send();
    assert_eq!(plain.await.unwrap().status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn secure_cookie_behind_an_https_proxy() {
    let s = Server::launch(crate::common::Launch {
        args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()],
        ..Default::default()
    });
    host_prefixed_cookies(&s, &[("x-forwarded-for", "198.51.100.4"), ("x-forwarded-proto", "https")], "secure_one")
        .await;
    // The same proxy over plain http: today's names, no Secure.
    let res = client()
        .post(s.url("/api/auth/login"))
        .header("x-forwarded-for", "198.51.100.4")
        .json(&json!({"username": "secure_one", "password": "hunter22"}))
        .send()
        .await
        .unwrap();
    let set = set_cookies(&res);
    assert!(set.iter().any(|(n, c)| n == "fanhub_session" && !c.contains("Secure")), "{set:?}");
}

#[tokio::test]
async fn an_https_base_url_gives_host_prefixed_cookies_under_its_host_and_loopback_keeps_the_plain_names() {
    let dir = tempfile::tempdir().unwrap();
    let site = crate::common::edited_site_file(
        dir.path(),
        &[("# base_url = \"https://fans.example.org\"", "base_url = \"https://fans.example.org\"")],
    );
    let s = Server::launch(crate::common::Launch {
        args: vec!["--site".into(), site.display().to_string()],
        ..Default::default()
    });
    host_prefixed_cookies(&s, &[("host", "fans.example.org")], "base_one").await;
    let res = login(&client(), &s, "base_one", "hunter22").await;
    let set = set_cookies(&res);
    assert!(set.iter().any(|(n, c)| n == "fanhub_session" && !c.contains("Secure")), "plain http on loopback: {set:?}");
    assert!(!set.iter().any(|(n, _)| n.starts_with("__Host-")), "{set:?}");

    // The admin session too: set and read under the prefixed name.
    let key = crate::common::admin_key(&s);
    let res = client()
        .post(s.url("/api/admin/verify-key"))
        .header("host", "fans.example.org")
        .json(&json!({"key": key}))
        .send()
        .await
        .unwrap();
    let set = set_cookies(&res);
    let (_, admin) = set.iter().find(|(n, _)| n == "__Host-fanhub_admin").unwrap_or_else(|| panic!("{set:?}"));
    let res = client()
        .get(s.url("/api/admin/check-key"))
        .header("host", "fans.example.org")
        .header("cookie", format!("__Host-fanhub_admin={}", cookie_value(admin)))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    // A cross-site write with the prefixed cookie is refused like with the bare one.
    let res = client()
        .post(s.url("/api/admin/clear-cache"))
        .header("host", "fans.example.org")
        .header("origin", "https://evil.example")
        .header("cookie", format!("__Host-fanhub_admin={}", cookie_value(admin)))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

/// Signing out of the site ends the browser's admin session as well.
#[tokio::test]
async fn sign_out_ends_the_admin_session_too() {
    let s = Server::start();
    let b = browser(&s);
    register(&b, &s, "two_hats", "hunter22").await;
    assert_eq!(login(&b, &s, "two_hats", "hunter22").await.status(), StatusCode::OK);
    let key = crate::common::admin_key(&s);
    let res = b.post(s.url("/api/admin/verify-key")).json(&json!({"key": key})).send().await.unwrap();
    let admin = cookie_value(&set_cookies(&res).into_iter().find(|(n, _)| n == "fanhub_admin").unwrap().1);
    assert_eq!(json(b.get(s.url("/api/admin/check-key")).send().await.unwrap()).await["via"], "session");
    let res = b.post(s.url("/api/auth/logout")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let set = set_cookies(&res);
    for cleared in ["fanhub_session", "fanhub_admin", "fanhub_hint_admin", "fanhub_hint_user"] {
        assert!(set.iter().any(|(n, c)| n == cleared && c.contains("Max-Age=0")), "{cleared}: {set:?}");
    }
    assert_eq!(b.get(s.url("/api/admin/check-key")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let replay = client()
        .get(s.url("/api/admin/check-key"))
        .header("cookie", format!("fanhub_admin={admin}"))
        .send()
        .await
        .unwrap();
    assert_eq!(replay.status(), StatusCode::UNAUTHORIZED, "the admin session row is gone");
}

#[tokio::test]
async fn registration_validation_and_conflicts() {
    let s = Server::start();
    let c = client();
    let res = register(&c, &s, "ab", "123456").await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let body = json(res).await;
    assert_eq!(body["fields"]["username"], "Username must be at least 3 characters");
    let body = json(register(&c, &s, "abc", "12345").await).await;
    assert_eq!(body["fields"]["password"], "Password must be at least 6 characters");
    for (name, pass) in [
        ("x".repeat(33), "123456".to_string()),
        ("bad name".into(), "123456".into()),
        ("".into(), "".into()),
        ("ok_name".into(), "p".repeat(129)),
    ] {
        assert_eq!(register(&c, &s, &name, &pass).await.status(), StatusCode::BAD_REQUEST, "{name:?}");
    }
    assert_eq!(register(&c, &s, "taken_name", "123456").await.status(), StatusCode::CREATED);
    let res = register(&c, &s, "TAKEN_NAME", "123456").await;
    assert_eq!(res.status(), StatusCode::CONFLICT);
    assert_eq!(json(res).await["error"], "That username is taken");
    let res = c.post(s.url("/api/auth/register")).json(&json!({"username": 5, "password": []})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = c
        .post(s.url("/api/auth/register"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = c.post(s.url("/api/auth/register")).body("username=a").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(json(res).await["error"].is_string());
}

#[tokio::test]
async fn concurrent_registrations_of_one_name_make_one_account() {
    let s = Server::start();
    let c = client();
    let tries = (0..6).map(|_| register(&c, &s, "race_name", "123456"));
    let statuses: Vec<StatusCode> = futures_join(tries).await.into_iter().map(|r| r.status()).collect();
    assert_eq!(statuses.iter().filter(|st| **st == StatusCode::CREATED).count(), 1, "{statuses:?}");
    assert!(statuses.iter().all(|st| *st == StatusCode::CREATED || *st == StatusCode::CONFLICT), "{statuses:?}");
}

async fn futures_join<F: std::future::Future>(futs: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut handles = Vec::new();
    for f in futs {
        handles.push(f);
    }
    let mut out = Vec::new();
    // Drive them together.
    let mut pinned: Vec<_> = handles.into_iter().map(Box::pin).collect();
    let mut results: Vec<Option<F::Output>> = pinned.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in pinned.iter_mut().enumerate() {
            if results[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => results[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending { std::task::Poll::Pending } else { std::task::Poll::Ready(()) }
    })
    .await;
    for r in results {
        out.push(r.unwrap());
    }
    out
}

#[tokio::test]
async fn sign_in_with_missing_fields_is_a_validation_error_naming_them() {
    let s = Server::start();
    let c = client();
    for (body, fields) in [
        (json!({}), vec!["password", "username"]),
        (json!({"username": "   ", "password": "x"}), vec!["username"]),
        (json!({"username": "someone"}), vec!["password"]),
        (json!({"username": "someone", "password": ""}), vec!["password"]),
    ] {
        let res = c.post(s.url("/api/auth/login")).json(&body).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{body}");
        let answer = json(res).await;
        assert!(answer["error"].is_string(), "{answer}");
        let named: Vec<&str> = answer["fields"].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(named, fields, "{body} -> {answer}");
    }
    // A complete but wrong pair stays a 401.
    assert_eq!(login(&c, &s, "someone", "x").await.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn wrong_password_and_suspended_accounts_are_refused_and_logged() {
    let s = Server::start();
    let c = client();
    register(&c, &s, "logged_user", "right-pass").await;
    let res = login(&c, &s, "logged_user", "wrong-pass").await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(json(res).await["error"], "Invalid username or password");
    let res = login(&c, &s, "nobody_here", "whatever").await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(json(res).await["error"], "Invalid username or password");
    let res = c
        .post(s.url("/api/auth/login"))
        .header("cookie", "fanhub_privacy=%7B%22ipLogging%22%3Atrue%7D")
        .header("origin", s.base.as_str())
        .json(&json!({"username": "logged_user", "password": "right-pass"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);

    let key = crate::common::admin_key(&s);
    let logs = json(c.get(s.url("/api/admin/login-logs")).header("x-admin-key", &key).send().await.unwrap()).await;
    let logs = logs["logs"].as_array().unwrap().clone();
    assert_eq!(logs.len(), 3);
    assert_eq!(logs[0]["loginStatus"], "success");
    assert_eq!(logs[0]["ipAddress"], "127.0.0.1", "ip logging allowed by the visitor");
    assert_eq!(logs[1]["ipAddress"], "127.0.0.0", "anonymised by default");
    assert_eq!(logs[2]["loginStatus"], "failure");

    let users = json(c.get(s.url("/api/admin/users")).header("x-admin-key", &key).send().await.unwrap()).await;
    let id = users["users"][0]["id"].as_i64().unwrap();
    let res = c
        .patch(s.url(&format!("/api/admin/users/{id}")))
        .header("x-admin-key", &key)
        .json(&json!({"isActive": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let res = login(&c, &s, "logged_user", "right-pass").await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn passwords_are_stored_as_argon2id_only() {
    let s = Server::start();
    register(&client(), &s, "hash_check", "plain-text-secret").await;
    let conn = rusqlite::Connection::open(s.data_dir.join("fanhub.db")).unwrap();
    let stored: String = conn.query_row("SELECT password_hash FROM users", [], |r| r.get(0)).unwrap();
    assert!(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{stored}");
    let dump: Vec<String> = conn
        .prepare("SELECT username || password_hash FROM users")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert!(dump.iter().all(|row| !row.contains("plain-text-secret")));
    let sessions: i64 = conn.query_row("SELECT COUNT(*) FROM sessions", [], |r| r.get(0)).unwrap();
    assert_eq!(sessions, 0);
}

#[tokio::test]
async fn sign_in_is_limited_per_ip_and_slowed_per_username() {
    let s = Server::start();
    let c = client();
    register(&c, &s, "target_user", "right-pass").await;
    for _ in 0..5 {
        assert_eq!(login(&c, &s, "target_user", "nope-nope").await.status(), StatusCode::UNAUTHORIZED);
    }
    let res = login(&c, &s, "target_user", "right-pass").await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "username slowed after 5 failures");
    assert!(res.headers().contains_key("retry-after"));
    for _ in 0..4 {
        login(&c, &s, "someone_else", "x").await;
    }
    let res = login(&c, &s, "someone_else", "x").await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "11th attempt a minute from one IP");
    let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    assert!(json(res).await["error"].is_string());

    for _ in 0..50 {
        assert_eq!(login(&c, &s, "someone_else", "x").await.status(), StatusCode::TOO_MANY_REQUESTS);
    }
    let conn = rusqlite::Connection::open(s.data_dir.join("fanhub.db")).unwrap();
    let rows: i64 = conn.query_row("SELECT COUNT(*) FROM login_logs", [], |r| r.get(0)).unwrap();
    assert_eq!(rows, 9, "only the 9 attempts checked against a password are logged; refused ones write nothing");
}

#[tokio::test]
async fn an_ipv6_client_is_limited_per_64() {
    let s = Server::launch(crate::common::Launch {
        args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()],
        ..Default::default()
    });
    let c = client();
    let from = |ip: String| {
        c.post(s.url("/api/auth/register"))
            .header("x-forwarded-for", ip)
            .json(&json!({"username": "v6", "password": "x"}))
            .send()
    };
    for n in 0..10 {
        assert_eq!(from(format!("2001:db8:aa:bb::{n:x}")).await.unwrap().status(), StatusCode::BAD_REQUEST);
    }
    let res = from("2001:db8:aa:bb:1234:5678:9abc:def0".into()).await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "another address of the same /64");
    assert_eq!(from("2001:db8:aa:bc::1".into()).await.unwrap().status(), StatusCode::BAD_REQUEST, "another /64");
    for n in 0..10 {
        assert_eq!(from(format!("::ffff:192.0.2.{n}")).await.unwrap().status(), StatusCode::BAD_REQUEST);
    }
}

#[tokio::test]
async fn registration_is_limited_per_ip() {
    let s = Server::start();
    let c = client();
    for i in 0..10 {
        register(&c, &s, &format!("bulk_{i}"), "x").await;
    }
    assert_eq!(register(&c, &s, "bulk_x", "123456").await.status(), StatusCode::TOO_MANY_REQUESTS);
}

#[tokio::test]
async fn favorites_and_ratings_belong_to_the_signed_in_user() {
    let s = Server::start();
    let c = browser(&s);
    register(&c, &s, "fan_one", "123456").await;
    let me = json(login(&c, &s, "fan_one", "123456").await).await;
    let uid = me["user"]["id"].as_i64().unwrap();
    let commands = json(c.get(s.url("/api/commands")).send().await.unwrap()).await;
    let cid = commands[0]["id"].as_i64().unwrap();

    assert_eq!(client().get(s.url("/api/favorites")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let res = c
        .post(s.url("/api/favorites"))
        .json(&json!({"userId": uid + 1, "itemType": "command", "itemId": cid}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = c
        .post(s.url("/api/favorites"))
        .json(&json!({"userId": uid, "itemType": "guide", "itemId": cid}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = c
        .post(s.url("/api/favorites"))
        .json(&json!({"userId": uid, "itemType": "command", "itemId": 999_999}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = c
        .post(s.url("/api/favorites"))
        .json(&json!({"userId": uid, "itemType": "command", "itemId": cid}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let favs = json(c.get(s.url(&format!("/api/favorites/{uid}"))).send().await.unwrap()).await;
    assert_eq!(favs[0]["itemId"], cid);
    assert_eq!(
        c.get(s.url(&format!("/api/favorites/{}", uid + 1))).send().await.unwrap().status(),
        StatusCode::FORBIDDEN
    );

    for bad in [0, 6, -1] {
        let res = c
            .post(s.url(&format!("/api/commands/{cid}/rating")))
            .json(&json!({"userId": uid, "rating": bad}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "rating {bad}");
    }
    let res = c
        .post(s.url(&format!("/api/commands/{cid}/rating")))
        .json(&json!({"userId": uid, "rating": 4}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body = json(res).await;
    assert_eq!((body["avgRating"].as_f64(), body["ratingCount"].as_i64()), (Some(4.0), Some(1)));

    let popular = json(c.get(s.url("/api/commands/popular")).send().await.unwrap()).await;
    assert_eq!(popular[0]["id"], cid);
    assert_eq!(popular[0]["favoriteCount"], 1);
    let all = json(c.get(s.url("/api/commands")).send().await.unwrap()).await;
    let rated = all.as_array().unwrap().iter().find(|x| x["id"] == cid).unwrap();
    assert_eq!(rated["avgRating"], 4.0);

    let res = c.delete(s.url(&format!("/api/favorites/{uid}/command/{cid}"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let favs = json(c.get(s.url("/api/favorites")).send().await.unwrap()).await;
    assert!(favs.as_array().unwrap().is_empty());
}

/// The key prefixes `/api/keys` lists for this client.
async fn key_prefixes(c: &reqwest::Client, s: &Server) -> Vec<String> {
    let body = json(c.get(s.url("/api/keys")).send().await.unwrap()).await;
    body["keys"].as_array().unwrap().iter().map(|k| k["key"].as_str().unwrap()[..12].to_string()).collect()
}

#[tokio::test]
async fn suspending_a_user_ends_their_live_session_on_every_call() {
    let s = Server::start();
    let key = admin_key(&s);
    let set_active = |id: i64, active: bool| {
        client()
            .patch(s.url(&format!("/api/admin/users/{id}/suspend")))
            .header("x-admin-key", key.clone())
            .json(&json!({"isActive": active}))
            .send()
    };
    let c = browser(&s);
    register(&c, &s, "soon_gone", "123456").await;
    let uid = json(login(&c, &s, "soon_gone", "123456").await).await["user"]["id"].as_i64().unwrap();
    let commands = json(c.get(s.url("/api/commands")).send().await.unwrap()).await;
    let (cid, other) = (commands[0]["id"].as_i64().unwrap(), commands[1]["id"].as_i64().unwrap());
    let favorite =
        |id: i64| c.post(s.url("/api/favorites")).json(&json!({"userId": uid, "itemType": "command", "itemId": id}));
    assert_eq!(favorite(cid).send().await.unwrap().status(), StatusCode::CREATED);
    let res = c.post(s.url("/api/generate-key")).json(&json!({"name": "before"})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let own_key = json(res).await["apiKey"]["key"].as_str().unwrap()[..12].to_string();
    assert_eq!(key_prefixes(&c, &s).await, std::slice::from_ref(&own_key));

    let res = set_active(uid, false).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(json(res).await["user"]["isActive"], false);

    // The cookie the user still holds opens nothing any more.
    let unauthorized = [
        ("GET /api/auth/user", c.get(s.url("/api/auth/user"))),
        ("GET /api/favorites", c.get(s.url("/api/favorites"))),
        ("GET /api/favorites/{uid}", c.get(s.url(&format!("/api/favorites/{uid}")))),
        ("POST /api/favorites", favorite(other)),
        ("DELETE /api/favorites/{uid}/command/{cid}", c.delete(s.url(&format!("/api/favorites/{uid}/command/{cid}")))),
        (
            "POST /api/commands/{cid}/rating",
            c.post(s.url(&format!("/api/commands/{cid}/rating"))).json(&json!({"userId": uid, "rating": 5})),
        ),
    ];
    for (call, request) in unauthorized {
        assert_eq!(request.send().await.unwrap().status(), StatusCode::UNAUTHORIZED, "{call}");
    }
    assert!(key_prefixes(&c, &s).await.is_empty(), "the user's keys are not listed to the old cookie");
    let res = c.delete(s.url(&format!("/api/keys/{own_key}"))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND, "nor revoked by it");
    // A key made now belongs to an anonymous owner (a new owner cookie), not to the suspended user.
    let res = c.post(s.url("/api/generate-key")).json(&json!({"name": "after"})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    assert!(res.headers().get_all("set-cookie").iter().any(|v| v.to_str().unwrap().starts_with("fanhub_owner=")));
    let res = login(&client(), &s, "soon_gone", "123456").await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN, "nor a new sign-in");

    // Reactivated, the old session stays ended; a new sign-in finds the user's data untouched.
    assert_eq!(set_active(uid, true).await.unwrap().status(), StatusCode::OK);
    assert_eq!(c.get(s.url("/api/auth/user")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let again = browser(&s);
    assert_eq!(login(&again, &s, "soon_gone", "123456").await.status(), StatusCode::OK);
    assert_eq!(key_prefixes(&again, &s).await, [own_key], "only the key made while signed in");
    let favs = json(again.get(s.url("/api/favorites")).send().await.unwrap()).await;
    assert_eq!(favs.as_array().unwrap().iter().map(|f| f["itemId"].as_i64().unwrap()).collect::<Vec<_>>(), [cid]);

    // A suspended admin's session loses admin access too.
    let (boss, second) = (browser(&s), browser(&s));
    for (b, name) in [(&boss, "boss_one"), (&second, "boss_two")] {
        register(b, &s, name, "123456").await;
        let id = json(login(b, &s, name, "123456").await).await["user"]["id"].as_i64().unwrap();
        client()
            .patch(s.url(&format!("/api/admin/users/{id}")))
            .header("x-admin-key", key.clone())
            .json(&json!({"role": "admin"}))
            .send()
            .await
            .unwrap();
    }
    assert_eq!(second.get(s.url("/api/admin/check-key")).send().await.unwrap().status(), StatusCode::OK);
    let second_id = json(second.get(s.url("/api/auth/user")).send().await.unwrap()).await["id"].as_i64().unwrap();
    let res = boss
        .patch(s.url(&format!("/api/admin/users/{second_id}/suspend")))
        .json(&json!({"isActive": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(second.get(s.url("/api/admin/check-key")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    assert_eq!(second.get(s.url("/api/admin/users")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
}

/// A browser at `ip` behind the trusted proxy (its own cookie jar; same-origin headers).
fn browser_at(s: &Server, ip: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("origin", s.base.parse().unwrap());
    headers.insert("x-forwarded-for", ip.parse().unwrap());
    fanhub::llm::install_crypto();
    reqwest::Client::builder().cookie_store(true).default_headers(headers).build().unwrap()
}

#[tokio::test]
async fn failures_from_elsewhere_do_not_lock_the_owner_out_of_a_browser_they_signed_in_from() {
    let s = crate::common::Server::launch(crate::common::Launch {
        args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()],
        ..Default::default()
    });
    let home = browser_at(&s, "198.51.100.1");
    assert_eq!(register(&home, &s, "device_bob", "bob's long password").await.status(), StatusCode::CREATED);
    let res = login(&home, &s, "device_bob", "bob's long password").await;
    assert_eq!(res.status(), StatusCode::OK);
    let device_cookie = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("fanhub_device="))
        .expect("a device cookie at sign-in")
        .to_string();
    assert!(device_cookie.contains("HttpOnly") && device_cookie.contains("SameSite=Strict"), "{device_cookie}");
    assert!(device_cookie.contains("Max-Age=31536000"), "{device_cookie}");
    assert_eq!(home.post(s.url("/api/auth/logout")).send().await.unwrap().status(), StatusCode::OK);

    // A stranger sends wrong passwords for the name from several addresses: the name is held back,
    // longer after each failure past 5 (1, 2, 4, 8, then 16 s).
    for n in 0..9u64 {
        let stranger = browser_at(&s, &format!("203.0.113.{n}"));
        if n > 4 {
            let res = login(&stranger, &s, "device_bob", "guess").await;
            assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "held back before stranger attempt {n}");
            tokio::time::sleep(std::time::Duration::from_millis((1000 << (n - 5)) + 150)).await;
        }
        let res = login(&stranger, &s, "device_bob", "guess").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "stranger attempt {n}");
    }
    let new_browser = browser_at(&s, "198.51.100.3");
    let res = login(&new_browser, &s, "device_bob", "bob's long password").await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "a new browser still meets the throttle");
    assert_eq!(json(res).await["message"], "Too many failed sign-ins for this username.");

    // The admin panel's user list says so.
    let admin = admin_key(&s);
    let list = json(client().get(s.url("/api/admin/users")).header("x-admin-key", &admin).send().await.unwrap()).await;
    let throttled = list["throttled"].as_array().expect("the throttled accounts");
    assert_eq!(throttled.len(), 1, "{list}");
    assert_eq!(throttled[0]["username"], "device_bob");
    assert_eq!(throttled[0]["failedSignIns"], 9, "{list}");
    assert!((1..=17).contains(&throttled[0]["retryAfterSeconds"].as_u64().unwrap()), "{list}");

    // The owner's own browser signs in at once.
    let res = login(&home, &s, "device_bob", "bob's long password").await;
    assert_eq!(res.status(), StatusCode::OK, "the browser bob signed in from before");
    assert_eq!(home.post(s.url("/api/auth/logout")).send().await.unwrap().status(), StatusCode::OK);

    // That browser's own failures are limited too: past 5, it is a new browser again.
    for n in 0..5 {
        assert_eq!(login(&home, &s, "device_bob", "wrong").await.status(), StatusCode::UNAUTHORIZED, "own failure {n}");
    }
    let res = login(&home, &s, "device_bob", "bob's long password").await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "a device cookie that failed 5 times exempts nothing");
    let list = json(client().get(s.url("/api/admin/users")).header("x-admin-key", &admin).send().await.unwrap()).await;
    assert_eq!(list["throttled"][0]["failedSignIns"], 9, "the owner's own failures were its browser's: {list}");

    // A forged or foreign device cookie exempts nothing either.
    let forged = browser_at(&s, "198.51.100.4");
    let res = forged
        .post(s.url("/api/auth/login"))
        .header("cookie", "fanhub_device=1.00000000000000000000000000000000.abcd")
        .json(&json!({"username": "device_bob", "password": "bob's long password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
}

/// Guesses sent all at once take their places in the count before they are checked: of 50 wrong
/// passwords for one name sent together from 50 addresses, at most 5 are checked (401) and the
/// rest refused (429), and the right password sent with them gets no further than the sixth.
#[tokio::test]
async fn guesses_sent_at_once_are_checked_no_more_than_the_free_failures() {
    let s = crate::common::Server::launch(crate::common::Launch {
        args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()],
        ..Default::default()
    });
    let owner = browser_at(&s, "198.51.100.9");
    assert_eq!(register(&owner, &s, "rush_target", "the right password").await.status(), StatusCode::CREATED);
    assert_eq!(owner.post(s.url("/api/auth/logout")).send().await.unwrap().status(), StatusCode::OK);
    let guessers: Vec<_> =
        (0..50u32).map(|n| browser_at(&s, &format!("203.0.{}.{}", 113 + n / 200, n % 200 + 1))).collect();
    let statuses: Vec<StatusCode> = futures_join(guessers.iter().enumerate().map(|(n, c)| {
        let password = if n == 49 { "the right password".to_string() } else { format!("guess {n}") };
        let s = &s;
        async move { login(c, s, "rush_target", &password).await.status() }
    }))
    .await;
    let checked_wrong = statuses.iter().filter(|st| **st == StatusCode::UNAUTHORIZED).count();
    let refused = statuses.iter().filter(|st| **st == StatusCode::TOO_MANY_REQUESTS).count();
    let signed_in = statuses.iter().filter(|st| **st == StatusCode::OK).count();
    assert!(checked_wrong <= 5, "{checked_wrong} wrong passwords were checked: {statuses:?}");
    assert_eq!(checked_wrong + refused + signed_in, 50, "{statuses:?}");
    assert!(refused >= 44, "{statuses:?}");
    // Once five were counted, the right password waits like any other.
    if checked_wrong == 5 {
        let late = browser_at(&s, "203.0.120.1");
        assert_eq!(login(&late, &s, "rush_target", "the right password").await.status(), StatusCode::TOO_MANY_REQUESTS);
    }
}

/// Wrong admin keys and API keys sent at once from one address are checked no more than the
/// minute's allowance (10 and 20): each takes its place before the key is looked up.
#[tokio::test]
async fn wrong_keys_sent_at_once_are_checked_no_more_than_the_minutes_allowance() {
    let s = Server::start();
    let c = client();
    let admin: Vec<StatusCode> = futures_join((0..50).map(|n| {
        let (c, s) = (&c, &s);
        async move {
            c.get(s.url("/api/admin/users"))
                .header("x-admin-key", format!("fh_admin_wrong_{n:040}"))
                .send()
                .await
                .unwrap()
                .status()
        }
    }))
    .await;
    let checked = admin.iter().filter(|st| **st == StatusCode::UNAUTHORIZED).count();
    assert!(checked <= 10, "{checked} wrong admin keys were checked: {admin:?}");
    assert_eq!(checked + admin.iter().filter(|st| **st == StatusCode::TOO_MANY_REQUESTS).count(), 50, "{admin:?}");

    let api: Vec<StatusCode> = futures_join((0..50).map(|n| {
        let (c, s) = (&c, &s);
        async move {
            c.get(s.url("/api/v1/commands"))
                .header("x-api-key", format!("fh_wrong_{n:032}"))
                .send()
                .await
                .unwrap()
                .status()
        }
    }))
    .await;
    let checked = api.iter().filter(|st| **st == StatusCode::UNAUTHORIZED).count();
    assert!(checked <= 20, "{checked} wrong API keys were checked: {api:?}");
    assert!(checked >= 1, "{api:?}");
    assert_eq!(checked + api.iter().filter(|st| **st == StatusCode::TOO_MANY_REQUESTS).count(), 50, "{api:?}");
}
