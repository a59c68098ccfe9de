//! The developer API against the real binary: keys and their owners, rate limits and usage under
//! concurrency, durability after kill -9, and every /api/v1 endpoint with good and bad input.

use std::time::Duration;

use crate::common::{Launch, Server, browser, client, json};
use reqwest::StatusCode;
use serde_json::Value;

async fn generate(http: &reqwest::Client, server: &Server, name: &str) -> reqwest::Response {
    http.post(server.url("/api/generate-key")).json(&serde_json::json!({ "name": name })).send().await.unwrap()
}

async fn new_key(http: &reqwest::Client, server: &Server, name: &str) -> String {
    let res = generate(http, server, name).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    json(res).await["apiKey"]["key"].as_str().unwrap().to_string()
}

fn keyed(server: &Server, key: &str, path: &str) -> impl Future<Output = reqwest::Response> + use<> {
    let request = client().get(server.url(path)).header("x-api-key", key);
    async move { request.send().await.unwrap() }
}

async fn my_keys(http: &reqwest::Client, server: &Server) -> Vec<Value> {
    json(http.get(server.url("/api/keys")).send().await.unwrap()).await["keys"].as_array().unwrap().clone()
}

/// Fixed minute windows: start a limit test early in a minute so it cannot straddle two.
async fn early_in_a_minute() {
    let second = jiff::Timestamp::now().as_second().rem_euclid(60);
    if second > 20 {
        tokio::time::sleep(Duration::from_secs((61 - second) as u64)).await;
    }
}

#[tokio::test]
async fn keys_are_shown_once_listed_by_prefix_to_their_owner_and_revoked() {
    let server = Server::start();
    let alice = browser(&server);
    let res = generate(&alice, &server, "  alice bot ").await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let cookie = res.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.starts_with("fanhub_owner=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    let created = json(res).await["apiKey"].clone();
    let key = created["key"].as_str().unwrap().to_string();
    assert!(key.starts_with("fhk_") && key.len() == 44, "{key}");
    assert_eq!(created["name"], "alice bot");
    assert_eq!(created["requests"], 0);

    let listed = my_keys(&alice, &server).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["key"], &key[..12]);
    assert!(!listed[0].to_string().contains(&key[12..]), "the full key is never listed again");

    let bob = browser(&server);
    assert!(my_keys(&bob, &server).await.is_empty());
    new_key(&bob, &server, "bob bot").await;
    let res = bob.delete(server.url(&format!("/api/keys/{}", &key[..12]))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND, "another owner's prefix is not found, not forbidden");
    assert_eq!(keyed(&server, &key, "/api/v1/stats").await.status(), StatusCode::OK);

    let res = alice.delete(server.url("/api/keys/not-a-prefix")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = alice.delete(server.url(&format!("/api/keys/{}", &key[..12]))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(my_keys(&alice, &server).await.is_empty());
    let res = keyed(&server, &key, "/api/v1/stats").await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "a revoked key stops working at once");
    assert_eq!(json(res).await["error"], "Invalid API key");
    let res = alice.delete(server.url(&format!("/api/keys/{}", &key[..12]))).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);

    // Deleting without the owner's cookie, from another site, is refused before anything happens.
    let res = client()
        .delete(server.url("/api/keys/fhk_00000000"))
        .header("cookie", "fanhub_owner=".to_string() + &"a".repeat(64))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn key_names_are_checked_and_bodies_are_bounded() {
    let server = Server::start();
    let http = browser(&server);
    for (name, sentence) in [
        ("", "Please enter a key name"),
        ("   \t ", "Please enter a key name"),
        (&"n".repeat(65), "Key names may be at most 64 characters"),
        ("bell\u{7}", "Key names may not contain control characters"),
        ("two\nlines", "Key names may not contain control characters"),
    ] {
        let res = generate(&http, &server, name).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{name:?}");
        let body = json(res).await;
        assert_eq!(body["error"], sentence);
        assert_eq!(body["fields"]["name"], sentence);
    }
    let ok = generate(&http, &server, &"é".repeat(64)).await;
    assert_eq!(ok.status(), StatusCode::CREATED, "64 characters are fine, whatever their bytes");
    let res = http.post(server.url("/api/generate-key")).body("name=x").send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let huge = serde_json::json!({ "name": "x".repeat(70 * 1024) });
    let res = http.post(server.url("/api/generate-key")).json(&huge).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let res = http
        .post(server.url("/api/generate-key"))
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert_eq!(my_keys(&http, &server).await.len(), 1, "only the good request made a key");
}

#[tokio::test]
async fn a_signed_in_users_keys_are_theirs_and_new_keys_are_limited_per_ip() {
    let server = Server::start();
    let fan = browser(&server);
    let creds = serde_json::json!({"username": "keyfan", "password": "secret123"});
    assert_eq!(fan.post(server.url("/api/auth/register")).json(&creds).send().await.unwrap().status(), 201);
    assert_eq!(fan.post(server.url("/api/auth/login")).json(&creds).send().await.unwrap().status(), 200);
    let res = generate(&fan, &server, "signed in").await;
    assert!(res.headers().get("set-cookie").is_none(), "a signed-in owner needs no owner cookie");
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(my_keys(&fan, &server).await.len(), 1);
    fan.post(server.url("/api/auth/logout")).send().await.unwrap();
    assert!(my_keys(&fan, &server).await.is_empty(), "signed out, the account's keys are not shown");

    // 1 made so far from this IP; 9 more are allowed this hour, the 11th is refused.
    let other = browser(&server);
    for i in 0..9 {
        assert_eq!(generate(&other, &server, &format!("k{i}")).await.status(), StatusCode::CREATED);
    }
    let res = generate(&other, &server, "one too many").await;
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=3600).contains(&wait), "{wait}");
    assert_eq!(my_keys(&other, &server).await.len(), 9);
}

#[tokio::test]
async fn keyed_calls_need_a_real_key_and_carry_the_limit_headers() {
    let server = Server::start();
    let key = new_key(&browser(&server), &server, "headers").await;
    let res = client().get(server.url("/api/v1/stats")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(json(res).await["error"].as_str().unwrap().contains("X-API-Key"));
    let forged = format!("fhk_{}", "0".repeat(40));
    for bad in [forged.as_str(), &key[..20], "", "   ", &format!("{key}x"), &"k".repeat(500)] {
        let res = keyed(&server, bad, "/api/v1/commands").await;
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{bad:?}");
    }
    early_in_a_minute().await;
    let res = keyed(&server, &key, "/api/v1/commands").await;
    assert_eq!(res.status(), StatusCode::OK);
    let h = res.headers();
    assert_eq!(h["x-ratelimit-limit"], "100");
    assert_eq!(h["x-ratelimit-remaining"], "99");
    let reset: i64 = h["x-ratelimit-reset"].to_str().unwrap().parse().unwrap();
    let now = jiff::Timestamp::now().as_second();
    assert!(reset > now && reset <= now + 60 && reset % 60 == 0, "{reset} vs {now}");
    // Errors of a keyed call are counted and carry the headers too.
    let res = keyed(&server, &key, "/api/v1/commands?limit=0").await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert_eq!(res.headers()["x-ratelimit-remaining"], "98");
    assert_eq!(keyed(&server, &key, "/api/v1/health").await.status(), StatusCode::OK);
    assert_eq!(client().get(server.url("/api/v1/health")).send().await.unwrap().status(), StatusCode::OK);
}

#[tokio::test]
async fn concurrent_calls_from_two_keys_are_counted_and_limited_exactly() {
    // A thousand calls at once from one address: as many connections as it opens are allowed here.
    let server = Server::launch(Launch {
        args: vec!["--max-connections-per-address".into(), "1000".into()],
        ..Default::default()
    });
    let owner = browser(&server);
    let keys = [new_key(&owner, &server, "one").await, new_key(&owner, &server, "two").await];
    early_in_a_minute().await;
    let http = client();
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..1000 {
        let (http, url, key) = (http.clone(), server.url("/api/v1/stats"), keys[i % 2].clone());
        calls.spawn(async move {
            let res = http.get(url).header("x-api-key", &key).send().await.unwrap();
            (key, res.status(), res.headers().get("retry-after").is_some())
        });
    }
    let mut ok = [0, 0];
    let mut refused = [0, 0];
    while let Some(joined) = calls.join_next().await {
        let (key, status, retry_after) = joined.unwrap();
        let i = usize::from(key == keys[1]);
        match status {
            StatusCode::OK => ok[i] += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                assert!(retry_after, "a 429 says when to come back");
                refused[i] += 1;
            }
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(ok, [100, 100]);
    assert_eq!(refused, [400, 400]);
    let listed = my_keys(&owner, &server).await;
    assert_eq!(listed.iter().map(|k| k["requests"].as_i64().unwrap()).collect::<Vec<_>>(), [100, 100]);
    assert!(listed.iter().all(|k| k["uniqueIps"] == 1 && k["lastUsedFromIp"] == "127.0.0.0"));
}

#[tokio::test]
async fn the_public_key_is_stable_and_limited_per_caller() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let launch = || Launch {
        data_dir: Some(data_dir.clone()),
        args: vec!["--trusted-proxy".into(), "127.0.0.1/32".into()],
        ..Default::default()
    };
    let mut server = Server::launch(launch());
    let public = json(client().get(server.url("/api/site")).send().await.unwrap()).await["publicApiKey"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(public.starts_with("fhk_"));
    let http = client();
    early_in_a_minute().await;
    let from = |ip: &'static str| {
        let request = http.get(server.url("/api/v1/stats")).header("x-api-key", &public).header("x-forwarded-for", ip);
        async move { request.send().await.unwrap() }
    };
    for _ in 0..100 {
        assert_eq!(from("203.0.113.5").await.status(), StatusCode::OK);
    }
    assert_eq!(from("203.0.113.5").await.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(from("198.51.100.9").await.status(), StatusCode::OK, "another fan is not held up");
    server.stop();
    let server = Server::launch(launch());
    let again = json(client().get(server.url("/api/site")).send().await.unwrap()).await;
    assert_eq!(again["publicApiKey"], public, "the same key after a restart");
}

#[tokio::test]
async fn keys_and_counts_survive_kill_9_right_after_their_answers_and_a_clean_stop() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let launch = || Launch { data_dir: Some(data_dir.clone()), ..Default::default() };
    let mut server = Server::launch(launch());
    let owner = browser(&server);
    let key = new_key(&owner, &server, "durable").await;
    for _ in 0..7 {
        assert_eq!(keyed(&server, &key, "/api/v1/commands/popular").await.status(), StatusCode::OK);
    }
    // No pause: every answered call's count is in the usage journal before its answer.
    server.kill9();
    let mut server = Server::launch(launch());
    let listed = my_keys(&owner, &server).await;
    assert_eq!(listed.len(), 1, "the owner cookie still finds the key");
    assert_eq!(listed[0]["requests"], 7, "every call answered before the kill -9 is counted");
    assert!(listed[0]["lastUsed"].is_string());
    // Killed again at once, after the replay: the replayed calls are not counted twice.
    server.kill9();
    let mut server = Server::launch(launch());
    assert_eq!(my_keys(&owner, &server).await[0]["requests"], 7, "a replayed journal is not replayed again");
    for _ in 0..5 {
        assert_eq!(keyed(&server, &key, "/api/v1/stats").await.status(), StatusCode::OK);
    }
    server.stop();
    let server = Server::launch(launch());
    assert_eq!(my_keys(&owner, &server).await[0]["requests"], 12, "a clean stop writes the counts");
}

#[tokio::test]
async fn the_owner_sees_every_answered_call_at_once() {
    let server = Server::start();
    let owner = browser(&server);
    let key = new_key(&owner, &server, "fresh counts").await;
    for _ in 0..3 {
        assert_eq!(keyed(&server, &key, "/api/v1/stats").await.status(), StatusCode::OK);
    }
    assert_eq!(my_keys(&owner, &server).await[0]["requests"], 3, "listing writes the queued counts first");
}

#[tokio::test]
async fn v1_content_endpoints_page_filter_and_search() {
    let server = Server::start();
    let key = new_key(&browser(&server), &server, "content").await;
    let get = |path: &str| keyed(&server, &key, path);

    let all = json(get("/api/v1/commands?limit=100").await).await;
    assert!(all["total"].as_u64().unwrap() >= 100);
    assert_eq!(all["commands"].as_array().unwrap().len(), 100);
    let site_list = json(client().get(server.url("/api/commands")).send().await.unwrap()).await;
    assert_eq!(all["commands"][0], site_list[0], "the same command shape as the site's own list");
    let last = json(get("/api/v1/commands?page=2&limit=100").await).await;
    assert_eq!(last["commands"].as_array().unwrap().len() as u64, all["total"].as_u64().unwrap() - 100);
    assert!(json(get("/api/v1/commands?page=1000").await).await["commands"].as_array().unwrap().is_empty());

    let category = all["commands"][0]["category"].as_str().unwrap().to_string();
    let by_path = json(get(&format!("/api/v1/commands/category/{}", category.to_uppercase())).await).await;
    assert!(by_path["total"].as_u64().unwrap() >= 1);
    assert!(by_path["commands"].as_array().unwrap().iter().all(|c| c["category"] == category.as_str()));
    let filtered = json(get(&format!("/api/v1/commands?category={category}&permission=oa")).await).await;
    assert!(
        filtered["commands"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["category"] == category.as_str() && c["permission"] == "OA")
    );
    assert_eq!(get("/api/v1/commands/category/no-such-thing").await.status(), StatusCode::NOT_FOUND);

    let fly = json(get("/api/v1/commands/search?q=fly").await).await;
    assert_eq!(fly["commands"][0]["name"], "fly", "an exact name ranks first");
    let guides = json(get("/api/v1/guides?limit=5").await).await;
    assert_eq!(guides["guides"].as_array().unwrap().len(), 5);
    let beginner = json(get("/api/v1/guides/category/beginner").await).await;
    assert!(beginner["guides"].as_array().unwrap().iter().all(|g| g["category"] == "Beginner"));
    assert_eq!(get("/api/v1/guides/category/Cooking").await.status(), StatusCode::NOT_FOUND);
    let found = json(get("/api/v1/guides/search?q=election").await).await;
    assert!(found["total"].as_u64().unwrap() >= 1);
    let wiki = json(get("/api/v1/wiki?q=build&category=Building&limit=5").await).await;
    let results = wiki["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.len() <= 5);
    assert!(results.iter().all(|r| r["category"] == "Building"));
    assert!(results.windows(2).all(|w| w[0]["score"].as_u64() >= w[1]["score"].as_u64()), "ranked");
    assert!(json(get("/api/v1/commands/popular").await).await["commands"].is_array());

    for bad in [
        "/api/v1/commands?page=0",
        "/api/v1/commands?page=abc",
        "/api/v1/commands?page=-5",
        "/api/v1/commands?limit=1000",
        "/api/v1/commands?limit=1.5",
        "/api/v1/commands?permission=XX",
        "/api/v1/commands?category=nope",
        "/api/v1/commands/search",
        "/api/v1/commands/search?q=%20%20",
        "/api/v1/guides?page=&limit=",
        "/api/v1/wiki",
        "/api/v1/wiki?q=fly&category=nope",
        "/api/v1/wiki?q=fly&limit=51",
        "/api/v1/analytics?days=0",
        "/api/v1/analytics?days=91",
        "/api/v1/events?since=-1",
        "/api/v1/events?type=nothing",
        "/api/v1/events?type=",
        "/api/v1/events?type=%20member.joined",
        "/api/v1/events?limit=abc",
    ] {
        let res = get(bad).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{bad}");
        let body = json(res).await;
        assert!(body["error"].is_string() && body["fields"].is_object(), "{bad}: {body}");
    }
    let long = format!("/api/v1/commands/search?q={}", "x".repeat(101));
    assert_eq!(get(&long).await.status(), StatusCode::BAD_REQUEST);
    let huge = format!("/api/v1/commands/search?q={}", "x".repeat(10 * 1024));
    assert_eq!(get(&huge).await.status(), StatusCode::URI_TOO_LONG, "a 10 KB query is refused, not searched");
}

#[tokio::test]
async fn v1_site_endpoints_report_what_the_server_measured() {
    let server = Server::start();
    let owner = browser(&server);
    let key = new_key(&owner, &server, "site").await;
    let get = |path: &str| keyed(&server, &key, path);

    let db = json(get("/api/v1/database").await).await;
    assert_eq!(db["success"], true);
    assert_eq!(db["database"]["schemaVersion"], db["database"]["latestSchemaVersion"]);
    assert_eq!(db["database"]["journalMode"], "wal");
    assert!(db["database"]["sizeBytes"].as_i64().unwrap() > 0);
    assert_eq!(json(get("/api/database").await).await, db, "the site's check is the same");
    // The counts and the backup time are the admin's.
    let admin_key = crate::common::admin_key(&server);
    let (admin, srv) = (&admin_key, &server);
    let admin_db = move || async move {
        json(client().get(srv.url("/api/admin/database")).header("x-admin-key", admin).send().await.unwrap()).await
    };
    let full = admin_db().await;
    assert_eq!(full["database"]["schemaVersion"], db["database"]["schemaVersion"]);
    assert_eq!(full["database"]["tables"]["api_keys"], 2, "the public key and this one");
    assert!(full["database"]["lastBackup"].is_null());
    tokio::time::sleep(fanhub::keys::usage::FLUSH_INTERVAL + Duration::from_millis(500)).await;
    assert!(
        admin_db().await["database"]["tables"]["api_key_hourly"].as_i64().unwrap() >= 1,
        "usage is in the database within the flush interval"
    );
    let res = client().get(server.url("/api/admin/backup")).header("x-admin-key", &admin_key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(admin_db().await["database"]["lastBackup"].is_string());

    let stats = json(get("/api/v1/stats").await).await;
    let site_stats = json(client().get(server.url("/api/stats")).send().await.unwrap()).await;
    assert_eq!(stats, site_stats);

    // Three page views of two routes by one visitor, counted by the server.
    let visitor = client();
    for path in ["/", "/commands", "/commands"] {
        visitor.get(server.url(path)).header("user-agent", "Mozilla/5.0 test").send().await.unwrap();
    }
    let creds = serde_json::json!({"username": "eventfan", "password": "secret123"});
    assert_eq!(owner.post(server.url("/api/auth/register")).json(&creds).send().await.unwrap().status(), 201);
    let mut analytics = Value::Null;
    for _ in 0..40 {
        analytics = json(get("/api/v1/analytics?days=7").await).await;
        if analytics["totals"]["pageViews"] == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(analytics["totals"]["pageViews"], 3, "{analytics}");
    assert_eq!(analytics["totals"]["visitors"], 1);
    assert_eq!(analytics["daily"].as_array().unwrap().len(), 7);
    assert_eq!(analytics["routes"][0], serde_json::json!({"route": "/commands", "pageViews": 2}));

    let events = json(get("/api/v1/events").await).await;
    let joined = &events["events"][0];
    assert_eq!(joined["type"], "member.joined");
    assert_eq!(joined["data"]["members"], 1);
    assert!(!events.to_string().contains("eventfan"), "events name no one");
    let since = events["nextSince"].as_i64().unwrap();
    let newer = json(get(&format!("/api/v1/events?since={since}")).await).await;
    assert!(newer["events"].as_array().unwrap().is_empty());
    assert_eq!(newer["nextSince"], since);

    let signals = json(get("/api/v1/commands-stats").await).await;
    assert_eq!(signals["totals"]["ratings"], 0);
    assert!(signals["commands"].as_array().unwrap().len() >= 100);
    let updates = json(get("/api/v1/discord-updates").await).await;
    assert_eq!(updates["configured"], false, "no Discord token: {updates}");
    let game = &updates["products"][0];
    assert_eq!(game["product"], "game", "the bundled site file's product");
    assert!(
        game["gameUpdates"].as_array().unwrap().is_empty()
            && game["communityHighlights"].as_array().unwrap().is_empty()
    );
}

/// The database check tells a key holder that the database answers, not how many admin keys,
/// sessions or accounts there are, nor when it was last backed up.
#[tokio::test]
async fn the_database_check_shows_no_internals_to_key_holders() {
    let server = Server::start();
    let owner = browser(&server);
    let key = new_key(&owner, &server, "db").await;
    let admin_key = crate::common::admin_key(&server);
    let res = client().get(server.url("/api/admin/backup")).header("x-admin-key", &admin_key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    for path in ["/api/v1/database", "/api/database"] {
        let db = json(keyed(&server, &key, path).await).await;
        assert_eq!(db["success"], true, "{path}: {db}");
        let mut fields: Vec<&str> = db["database"].as_object().unwrap().keys().map(String::as_str).collect();
        fields.sort();
        assert_eq!(fields, ["journalMode", "latestSchemaVersion", "schemaVersion", "sizeBytes"], "{path}: {db}");
        let text = db.to_string();
        for internal in ["admin_keys", "admin_sessions", "sessions", "lastBackup", "tables"] {
            assert!(!text.contains(internal), "{path} shows {internal}: {text}");
        }
        let anonymous = client().get(server.url(path)).send().await.unwrap();
        assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED, "{path}");
        assert!(!anonymous.text().await.unwrap().contains("tables"));
    }
    for (who, req) in [
        ("anonymous", client().get(server.url("/api/admin/database"))),
        ("API key", client().get(server.url("/api/admin/database")).header("x-api-key", &key)),
    ] {
        assert_eq!(req.send().await.unwrap().status(), StatusCode::UNAUTHORIZED, "{who}");
    }
}

#[tokio::test]
async fn wrong_api_keys_are_limited_per_address_and_a_missing_key_is_not_counted() {
    let s = Server::start();
    let key = crate::common::public_key(&s).await;
    let from = |ip: &str| {
        fanhub::llm::install_crypto();
        reqwest::Client::builder().local_address(ip.parse::<std::net::IpAddr>().unwrap()).build().unwrap()
    };
    let (here, elsewhere) = (from("127.0.0.1"), from("127.0.0.2"));
    let call = |c: &reqwest::Client, k: Option<&str>| {
        let mut req = c.get(s.url("/api/v1/stats"));
        if let Some(k) = k {
            req = req.header("x-api-key", k.to_string());
        }
        req.send()
    };
    // The precondition: the key works, from both addresses.
    assert_eq!(call(&here, Some(&key)).await.unwrap().status(), StatusCode::OK);
    assert_eq!(call(&elsewhere, Some(&key)).await.unwrap().status(), StatusCode::OK);
    for _ in 0..25 {
        let res = call(&here, None).await.unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(json(res).await["error"], "An API key is required. Send it in the X-API-Key header.");
    }
    for n in 0..20 {
        let wrong = if n == 19 { "x".repeat(5_000) } else { format!("fhk_wrong{n}") };
        let res = call(&here, Some(&wrong)).await.unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "wrong key {n}: missing keys did not count");
    }
    let res = call(&here, Some("fhk_wrong-21")).await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "the 21st wrong key in a minute");
    let wait: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=61).contains(&wait), "Retry-After {wait}");
    assert_eq!(json(res).await["message"], "At most 20 wrong API keys a minute from one address.");
    let res = call(&here, Some(&key)).await.unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS, "refused before any key is looked at");
    assert_eq!(call(&elsewhere, Some(&key)).await.unwrap().status(), StatusCode::OK, "another address is not held");
}
