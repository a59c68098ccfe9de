//! Following players: a player's history, follows, the background re-checks and the alerts to
//! a fan's Discord webhook, against the fake Roblox and the fake Discord (never the internet).
//! Re-checks run every ~2 s here (`[follows] recheck_hours = 0.0005`).

use std::time::{Duration, Instant};

use crate::common::fake_discord::FakeDiscord;
use crate::common::fake_roblox::{self, FakeRoblox};
use crate::common::{Server, SiteSetup, browser, client, json, public_key};
use reqwest::StatusCode;
use serde_json::{Value, json};

const ELC: &str = "elc = [2124001, 2124002, 2124003]";
const TOKEN: &str = "aB3_dE-fGhIjKlMnOpQrStUvWxYz0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ012345";
const HOOK_ID: &str = "123456789012345678";

fn webhook_url() -> String {
    format!("https://discord.com/api/webhooks/{HOOK_ID}/{TOKEN}")
}

/// A site pointed at both fakes, re-checking every ~2 s, with `edits` beside.
fn site(roblox: &FakeRoblox, discord: &FakeDiscord, edits: &[(&str, &str)]) -> SiteSetup {
    let mut all = vec![("elc = []", ELC), ("recheck_hours = 6", "recheck_hours = 0.0005")];
    all.extend_from_slice(edits);
    SiteSetup::with_roblox(&roblox.template(), 1500, all.iter(), &[("FANHUB_DISCORD_API", discord.base.as_str())])
}

/// A signed-in fan (registered with `name`).
async fn fan(s: &Server, name: &str) -> reqwest::Client {
    let b = browser(s);
    let res = b
        .post(s.url("/api/auth/register"))
        .json(&json!({"username": name, "password": "fan password 22"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED, "{}\n{}", res.text().await.unwrap(), s.stderr());
    let res = b
        .post(s.url("/api/auth/login"))
        .json(&json!({"username": name, "password": "fan password 22"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    b
}

/// Checks `name` with the site's public key (as the Newgen Detector does): its user id.
async fn check(s: &Server, name: &str) -> u64 {
    let key = public_key(s).await;
    let res = client().get(s.url(&format!("/api/newgen-check/{name}"))).header("x-api-key", key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{name}: {}", res.text().await.unwrap());
    json(res).await["userId"].as_u64().unwrap()
}

async fn follow(b: &reqwest::Client, s: &Server, user_id: Value) -> (StatusCode, Value) {
    let res = b.post(s.url("/api/account/follows")).json(&json!({"userId": user_id})).send().await.unwrap();
    let status = res.status();
    (status, json(res).await)
}

async fn get(b: &reqwest::Client, s: &Server, path: &str) -> Value {
    let res = b.get(s.url(path)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{path}");
    json(res).await
}

async fn until<F, Fut>(what: &str, secs: u64, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !f().await {
        assert!(start.elapsed() < Duration::from_secs(secs), "{what} within {secs} s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The alert embeds the fake Discord took for the fans' webhook (the test message included).
fn embeds(discord: &FakeDiscord) -> Vec<Value> {
    discord
        .webhooks()
        .into_iter()
        .filter(|(method, path, _)| method == "POST" && path.contains(HOOK_ID))
        .map(|(_, _, body)| body["embeds"][0].clone())
        .collect()
}

fn titles(discord: &FakeDiscord) -> Vec<String> {
    embeds(discord).iter().map(|e| e["title"].as_str().unwrap_or_default().to_string()).collect()
}

#[tokio::test]
async fn a_followed_player_who_earns_badges_and_changes_names_is_noticed_and_each_alert_sent_once() {
    let roblox = FakeRoblox::start();
    roblox.set(|m| m.award_dates_need_cookie = false);
    let discord = FakeDiscord::start().await;
    let setup = site(&roblox, &discord, &[]);
    let server = setup.start();
    let b = fan(&server, "watcher_1").await;
    let key = public_key(&server).await;
    let id = check(&server, "MidAlpha").await;

    // The history starts with the first check.
    let history = get(&b, &server, &format!("/api/players/{id}/history")).await;
    let kinds: Vec<&str> = history["events"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["first_seen"], "{history}");

    let (status, body) = follow(&b, &server, json!(id)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!((body["count"].as_u64(), body["max"].as_u64()), (Some(1), Some(50)));
    assert_eq!(follow(&b, &server, json!(id)).await.0, StatusCode::OK, "following twice is one follow");

    // The webhook: saved only after its test message arrived.
    let res = b
        .put(server.url("/api/account/alerts"))
        .json(&json!({"url": webhook_url(), "kinds": ["elc_badge", "classification", "name"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let alerts = json(res).await;
    assert_eq!(alerts["webhook"]["url"], format!("https://discord.com/api/webhooks/{HOOK_ID}/…"));
    assert!(!alerts.to_string().contains(TOKEN), "the token is never shown back");
    assert_eq!(titles(&discord).len(), 1, "one test message");
    assert!(alerts["webhook"]["lastDeliveredAt"].as_str().is_some(), "the test message was a delivery: {alerts}");

    // Between two checks the player earns the three ELC badges and a new display name; Discord
    // first says slow down, then fails once: each alert still arrives, once.
    discord.inner.lock().unwrap().webhook_answers.extend([429, 500]);
    roblox.set(|m| {
        m.elc_owners.push("midalpha".into());
        m.display_names.insert("midalpha".into(), "Alpha The Great".into());
    });
    until("the three badges, the new display name and the classification noticed and sent", 40, || async {
        titles(&discord).len() >= 6
    })
    .await;
    let sent = titles(&discord);
    for badge in ["Badge 2124001", "Badge 2124002", "Badge 2124003"] {
        assert_eq!(sent.iter().filter(|t| **t == format!("MidAlpha earned {badge}")).count(), 1, "{sent:?}");
    }
    assert_eq!(sent.iter().filter(|t| t.contains("display name is now Alpha The Great")).count(), 1, "{sent:?}");
    assert_eq!(sent.iter().filter(|t| t.starts_with("MidAlpha is now ")).count(), 1, "{sent:?}");
    for embed in embeds(&discord).iter().skip(1) {
        let url = embed["url"].as_str().unwrap();
        assert!(url.ends_with("/newgen-detector?username=MidAlpha"), "{embed}");
        assert!(embed["color"].as_u64().is_some_and(|c| c > 0), "the site's colour");
        // Names, dates and the site's own link: never the webhook's token or the site's key.
        let text = embed.to_string();
        assert!(!text.contains(TOKEN) && !text.contains(&key), "{text}");
    }
    let attempts = discord.calls().iter().filter(|c| c.1.contains(HOOK_ID)).count();
    assert_eq!(attempts, sent.len() + 2, "the 429 and the 500 were tried again");

    // More re-checks without change: nothing more is sent or stored.
    let before = get(&b, &server, &format!("/api/players/{id}/history")).await["events"].as_array().unwrap().len();
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(titles(&discord).len(), sent.len(), "sent once");
    let history = get(&b, &server, &format!("/api/players/{id}/history")).await;
    assert_eq!(history["events"].as_array().unwrap().len(), before, "nothing stored twice: {history}");
    let badge = history["events"].as_array().unwrap().iter().find(|e| e["kind"] == "elc_badge").unwrap().clone();
    assert!(badge["awardedAt"].as_str().unwrap().starts_with("2013-"), "{badge}");
    assert_eq!(badge["baseline"], false);

    // The account page: the changes are new until the fan has seen them.
    let follows = get(&b, &server, "/api/account/follows").await;
    let followed = &follows["follows"][0];
    assert_eq!(followed["player"]["displayName"], "Alpha The Great");
    assert_eq!(followed["player"]["elcCount"], 3);
    let new_events = followed["newEvents"].as_array().unwrap().clone();
    assert_eq!(new_events.len(), 5, "{followed}");
    // Seen up to the second newest: the newest stays new (as one noticed after the page was read).
    let mut ids: Vec<i64> = new_events.iter().map(|e| e["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    for bad in [json!({}), json!({"upTo": -1}), json!({"upTo": "x"}), json!({"upTo": 1, "more": 1})] {
        let res = b.post(server.url("/api/account/follows/seen")).json(&bad).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    let res = b.post(server.url("/api/account/follows/seen")).json(&json!({"upTo": ids[3]})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let follows = get(&b, &server, "/api/account/follows").await;
    let still_new: Vec<i64> =
        follows["follows"][0]["newEvents"].as_array().unwrap().iter().map(|e| e["id"].as_i64().unwrap()).collect();
    assert_eq!(still_new, [ids[4]]);
    let res = b.post(server.url("/api/account/follows/seen")).json(&json!({"upTo": ids[4]})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    let follows = get(&b, &server, "/api/account/follows").await;
    assert!(follows["follows"][0]["newEvents"].as_array().unwrap().is_empty());
    let alerts = get(&b, &server, "/api/account/alerts").await;
    assert!(alerts["webhook"]["lastDeliveredAt"].as_str().is_some(), "{alerts}");

    // Unfollow is one call; a second says so.
    assert_eq!(b.delete(server.url(&format!("/api/account/follows/{id}"))).send().await.unwrap().status(), 204);
    assert_eq!(b.delete(server.url(&format!("/api/account/follows/{id}"))).send().await.unwrap().status(), 404);
}

#[tokio::test]
async fn an_alert_noticed_before_a_crash_is_sent_once_after_the_restart() {
    let roblox = FakeRoblox::start();
    roblox.set(|m| m.award_dates_need_cookie = false);
    let discord = FakeDiscord::start().await;
    let setup = site(&roblox, &discord, &[]);
    let mut server = setup.start();
    let b = fan(&server, "watcher_2").await;
    let id = check(&server, "MidBravo").await;
    assert_eq!(follow(&b, &server, json!(id)).await.0, StatusCode::CREATED);
    let res =
        b.put(server.url("/api/account/alerts")).json(&json!({"url": webhook_url(), "kinds": ["name"]})).send().await;
    assert_eq!(res.unwrap().status(), StatusCode::OK);
    // Discord fails while the change is noticed: the alert waits in the outbox.
    discord.inner.lock().unwrap().webhook_answers.extend([503; 50]);
    roblox.set(|m| {
        m.display_names.insert("midbravo".into(), "Bravo Renamed".into());
    });
    until("the alert tried", 20, || async { discord.calls().iter().filter(|c| c.1.contains(HOOK_ID)).count() >= 2 })
        .await;
    let alerts = get(&b, &server, "/api/account/alerts").await;
    assert_eq!(alerts["webhook"]["pending"], 1, "{alerts}");
    server.kill9();
    assert_eq!(titles(&discord).len(), 1, "only the test message so far");

    discord.inner.lock().unwrap().webhook_answers.clear();
    let server = setup.start();
    until("the alert sent after the restart", 30, || async { titles(&discord).len() >= 2 }).await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    let sent = titles(&discord);
    assert_eq!(sent.len(), 2, "sent once: {sent:?}");
    assert_eq!(sent[1], "MidBravo's display name is now Bravo Renamed");
    let b = browser(&server);
    let res = b
        .post(server.url("/api/auth/login"))
        .json(&json!({"username": "watcher_2", "password": "fan password 22"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(get(&b, &server, "/api/account/alerts").await["webhook"]["pending"], 0);
}

#[tokio::test]
async fn a_webhook_discord_keeps_refusing_is_marked_broken_and_left_alone() {
    let roblox = FakeRoblox::start();
    roblox.set(|m| m.award_dates_need_cookie = false);
    let discord = FakeDiscord::start().await;
    let setup = site(&roblox, &discord, &[("broken_after = 3", "broken_after = 2")]);
    let server = setup.start();
    let b = fan(&server, "watcher_3").await;
    let id = check(&server, "MidCharlie").await;
    follow(&b, &server, json!(id)).await;
    let res =
        b.put(server.url("/api/account/alerts")).json(&json!({"url": webhook_url(), "kinds": ["name"]})).send().await;
    assert_eq!(res.unwrap().status(), StatusCode::OK);
    discord.inner.lock().unwrap().webhook_answers.extend([404; 2]);
    // Four alerts at once (three badges and a name): the two refusals break the webhook and the
    // rest of the batch is not sent.
    let res = b.patch(server.url("/api/account/alerts")).json(&json!({"kinds": ["name", "elc_badge"]})).send().await;
    assert_eq!(res.unwrap().status(), StatusCode::OK);
    roblox.set(|m| {
        m.display_names.insert("midcharlie".into(), "Charlie Renamed".into());
        m.elc_owners.push("midcharlie".into());
    });
    until("the webhook marked broken", 30, || async {
        get(&b, &server, "/api/account/alerts").await["webhook"]["broken"] == true
    })
    .await;
    let alerts = get(&b, &server, "/api/account/alerts").await;
    assert_eq!(alerts["webhook"]["pending"], 0, "nothing waits for a broken webhook: {alerts}");
    let tried = discord.calls().iter().filter(|c| c.1.contains(HOOK_ID)).count();
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(discord.calls().iter().filter(|c| c.1.contains(HOOK_ID)).count(), tried, "not tried for ever");
    assert_eq!(tried, 1 + 2, "the test message and two refusals, nothing after");
    assert_eq!(titles(&discord).len(), 1, "only the test message arrived");

    // A test message Discord refuses is not saved.
    tokio::time::sleep(Duration::from_secs(10)).await;
    discord.inner.lock().unwrap().webhook_answers.push_back(404);
    let res =
        b.put(server.url("/api/account/alerts")).json(&json!({"url": webhook_url(), "kinds": ["name"]})).send().await;
    let res = res.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(json(res).await["fields"]["url"].as_str().unwrap().contains("404"));
    // Saved again once Discord takes it (after the pause between tries): working, refusals forgotten.
    discord.inner.lock().unwrap().webhook_answers.clear();
    let res =
        b.put(server.url("/api/account/alerts")).json(&json!({"url": webhook_url(), "kinds": ["name"]})).send().await;
    assert_eq!(res.unwrap().status(), StatusCode::TOO_MANY_REQUESTS, "a try right after a refused one waits");
    // The pause, and a second more: the server closes a keep-alive connection idle for the read
    // timeout (10 s), and a request sent on it at that instant would fail in the client.
    tokio::time::sleep(Duration::from_secs(11)).await;
    let res =
        b.put(server.url("/api/account/alerts")).json(&json!({"url": webhook_url(), "kinds": ["name"]})).send().await;
    let res = res.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(json(res).await["webhook"]["broken"], false);
}

#[tokio::test]
async fn hostile_webhooks_and_follows_are_refused_clearly_and_an_accounts_follows_go_with_it() {
    let roblox = FakeRoblox::start();
    roblox.set(|m| m.award_dates_need_cookie = false);
    let discord = FakeDiscord::start().await;
    let setup = site(&roblox, &discord, &[("max_per_account = 50", "max_per_account = 2")]);
    let server = setup.start();

    // Not signed in.
    let anonymous = browser(&server);
    assert_eq!(anonymous.get(server.url("/api/account/follows")).send().await.unwrap().status(), 401);
    assert_eq!(follow(&anonymous, &server, json!(1)).await.0, StatusCode::UNAUTHORIZED);

    let b = fan(&server, "watcher_4").await;
    for url in [
        "http://discord.com/api/webhooks/123456789012345678/".to_string() + TOKEN,
        "https://evil.example/api/webhooks/123456789012345678/".to_string() + TOKEN,
        "https://discord.com.evil.example/api/webhooks/123456789012345678/".to_string() + TOKEN,
        "https://user:pass@discord.com/api/webhooks/123456789012345678/".to_string() + TOKEN,
        "https://162.159.128.233/api/webhooks/123456789012345678/".to_string() + TOKEN,
        "https://discord.com/api/webhooks/123456789012345678/".to_string() + TOKEN + "?x=https://evil.example",
        "https://discord.com/api/webhooks/123456789012345678/".to_string() + &"a".repeat(5000),
        "not a url".to_string(),
        String::new(),
    ] {
        let res = b.put(server.url("/api/account/alerts")).json(&json!({"url": url, "kinds": ["name"]})).send().await;
        let res = res.unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{url}");
        let body = json(res).await;
        assert!(body["fields"]["url"].as_str().is_some_and(|s| !s.is_empty()), "{url}: {body}");
    }
    for kinds in [json!([]), json!(["everything"]), json!("name")] {
        let res =
            b.put(server.url("/api/account/alerts")).json(&json!({"url": webhook_url(), "kinds": kinds})).send().await;
        assert_eq!(res.unwrap().status(), StatusCode::BAD_REQUEST, "{kinds}");
    }
    assert!(discord.calls().is_empty(), "nothing hostile reached Discord");

    // Follows of what cannot be followed.
    for bad in [json!("abc"), json!(-1), json!(0), json!(1.5), json!(null), json!(u64::MAX)] {
        assert_eq!(follow(&b, &server, bad.clone()).await.0, StatusCode::BAD_REQUEST, "{bad}");
    }
    let (status, body) = follow(&b, &server, json!(987654321)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "never checked: {body}");
    assert!(body["message"].as_str().unwrap().contains("Check the player"));
    let banned = check(&server, "BannedDelta").await;
    let (status, body) = follow(&b, &server, json!(banned)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(body["error"].as_str().unwrap().contains("banned"));

    // The limit holds under concurrent follows: exactly two of four (five lookups: under the
    // public key's six a minute for players not looked up recently).
    let mut ids = Vec::new();
    for name in ["MidE1", "MidE2", "MidE3", "MidE4"] {
        ids.push(check(&server, name).await);
    }
    let mut running = tokio::task::JoinSet::new();
    for id in &ids {
        let (b, url, id) = (b.clone(), server.url("/api/account/follows"), *id);
        running.spawn(async move {
            let res = b.post(url).json(&json!({"userId": id})).send().await.unwrap();
            let status = res.status();
            (status, json(res).await)
        });
    }
    let answers = running.join_all().await;
    let created = answers.iter().filter(|(s, _)| *s == StatusCode::CREATED).count();
    let refused: Vec<&Value> = answers.iter().filter(|(s, _)| *s == StatusCode::CONFLICT).map(|(_, b)| b).collect();
    assert_eq!((created, refused.len()), (2, 2), "{answers:?}");
    assert!(refused[0]["message"].as_str().unwrap().contains("may follow 2 players"));
    assert_eq!(get(&b, &server, "/api/account/follows").await["follows"].as_array().unwrap().len(), 2);

    // Deleting the account deletes its follows (and the re-checks' count with them).
    let key = crate::common::admin_key(&server);
    let users =
        json(client().get(server.url("/api/admin/users")).header("x-admin-key", &key).send().await.unwrap()).await;
    let me = users["users"].as_array().unwrap().iter().find(|u| u["username"] == "watcher_4").unwrap()["id"].clone();
    let res = client().delete(server.url(&format!("/api/admin/users/{me}"))).header("x-admin-key", &key).send().await;
    assert_eq!(res.unwrap().status(), StatusCode::OK);
    let b = fan(&server, "watcher_4").await;
    assert!(get(&b, &server, "/api/account/follows").await["follows"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn players_followed_by_many_fans_are_checked_once_each_and_show_in_system_health() {
    let roblox = FakeRoblox::start();
    roblox.set(|m| m.award_dates_need_cookie = false);
    let discord = FakeDiscord::start().await;
    let setup = site(&roblox, &discord, &[("recheck_hours = 0.0005", "recheck_hours = 0.001")]);
    let server = setup.start();
    let players = [check(&server, "MidF1").await, check(&server, "MidF2").await];
    let mut fans = Vec::new();
    for i in 0..4 {
        let b = fan(&server, &format!("crowd_{i}")).await;
        for id in players {
            assert_eq!(follow(&b, &server, json!(id)).await.0, StatusCode::CREATED);
        }
        fans.push(b);
    }
    let before = roblox.calls(fake_roblox::USER);
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(9)).await;
    let rounds = (started.elapsed().as_secs_f64() / 3.6).ceil() as u64 + 1;
    let calls = roblox.calls(fake_roblox::USER) - before;
    assert!(calls >= 2, "the followed players were checked again");
    assert!(calls <= 2 * rounds, "{calls} profile calls in {rounds} intervals: one per player, not one per fan");

    let key = crate::common::admin_key(&server);
    let health =
        json(client().get(server.url("/api/admin/health")).header("x-admin-key", &key).send().await.unwrap()).await;
    let line = health["checks"].as_array().unwrap().iter().find(|c| c["name"] == "Followed players").unwrap().clone();
    assert!(line["detail"].as_str().unwrap().starts_with("2 players followed by 4 accounts"), "{line}");
}

/// Each try at saving a webhook sends Discord a test message, so the pause counts tries, refused
/// and concurrent ones too: 40 tries in a row and 10 at once each reach Discord once.
#[tokio::test]
async fn saving_a_webhook_sends_one_test_message_per_pause_however_often_it_is_tried() {
    let roblox = FakeRoblox::start();
    let discord = FakeDiscord::start().await;
    // The setup owns the data dir: it lives as long as the server.
    let setup = site(&roblox, &discord, &[]);
    let server = setup.start();
    let b = fan(&server, "watcher_9").await;
    discord.inner.lock().unwrap().webhook_answers.extend([404; 40]);
    let mut statuses = Vec::new();
    for _ in 0..40 {
        let res =
            b.put(server.url("/api/account/alerts")).json(&json!({"url": webhook_url(), "kinds": ["name"]})).send();
        statuses.push(res.await.unwrap().status());
    }
    assert_eq!(statuses[0], StatusCode::BAD_REQUEST, "the first try reached Discord and was refused");
    assert!(statuses[1..].iter().all(|s| *s == StatusCode::TOO_MANY_REQUESTS), "{statuses:?}");
    assert_eq!(discord.calls().iter().filter(|c| c.1.contains(HOOK_ID)).count(), 1, "one post to Discord");

    // The pause, and a second more (an idle keep-alive connection closes at 10 s).
    tokio::time::sleep(Duration::from_secs(11)).await;
    discord.inner.lock().unwrap().webhook_answers.clear();
    let mut tries = tokio::task::JoinSet::new();
    for _ in 0..10 {
        let put = b.put(server.url("/api/account/alerts")).json(&json!({"url": webhook_url(), "kinds": ["name"]}));
        tries.spawn(async move { put.send().await.unwrap().status() });
    }
    let statuses: Vec<StatusCode> = tries.join_all().await;
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::OK).count(), 1, "{statuses:?}\n{}", server.stderr());
    assert_eq!(
        statuses.iter().filter(|s| **s == StatusCode::TOO_MANY_REQUESTS).count(),
        9,
        "{statuses:?}\n{}",
        server.stderr()
    );
    assert_eq!(titles(&discord).len(), 1, "one test message for ten tries at once");
}
