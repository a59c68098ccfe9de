//! Roblox lookups against the fake Roblox (tests/common/fake_roblox.rs), never the internet:
//! the newgen check, the bot API, every upstream fault (storms, hangs, broken answers, refused
//! award dates, spent budgets), coalescing, the persisted cache, budgets and the badge monitor.
//! No fault may give a 500.

use std::time::{Duration, Instant};

use crate::common::fake_roblox::{self, FakeRoblox};
use crate::common::{Server, SiteSetup, client, json, public_key};
use serde_json::Value;

const ELC: &str = "elc = [2124001, 2124002, 2124003]";

/// A data dir and the bundled site file with the ELC badges and `replacements`, for a server
/// pointed at `fake` with `envs` beside.
fn roblox_site(fake: &FakeRoblox, replacements: &[(&str, &str)], envs: &[(&str, &str)]) -> SiteSetup {
    SiteSetup::with_roblox(&fake.template(), 1500, [("elc = []", ELC)].iter().chain(replacements), envs)
}

async fn newgen(server: &Server, key: &str, name: &str) -> (u16, reqwest::header::HeaderMap, Value) {
    let res =
        client().get(server.url(&format!("/api/newgen-check/{name}"))).header("x-api-key", key).send().await.unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    (status, headers, json(res).await)
}

async fn get(server: &Server, path: &str) -> (u16, reqwest::header::HeaderMap, Value) {
    let res = client().get(server.url(path)).send().await.unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    (status, headers, json(res).await)
}

fn assert_error_shape(status: u16, body: &Value, want: u16) {
    assert_eq!(status, want, "{body}");
    assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{body}");
    assert!(body["message"].as_str().is_some_and(|e| !e.is_empty()), "{body}");
}

#[tokio::test]
async fn a_newgen_check_classifies_from_robloxs_data_and_counts_against_the_key() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.award_dates_need_cookie = false);
    let setup = roblox_site(&fake, &[], &[]);
    let server = setup.start();
    let key = public_key(&server).await;

    let (status, headers, vet) = newgen(&server, &key, "VetAlpha").await;
    assert_eq!(status, 200, "{vet}");
    assert_eq!(vet["success"], true);
    assert_eq!(vet["username"], "VetAlpha");
    assert_eq!(vet["displayName"], "VetAlpha Display");
    assert!(vet["userId"].as_u64().unwrap() > 0);
    assert!(vet["avatarUrl"].as_str().unwrap().starts_with("https://tr.rbxcdn.com/"), "{vet}");
    assert_eq!(vet["joinDate"], "2012-03-04T10:20:30.4567891Z");
    assert!(vet["accountAge"].as_i64().unwrap() > 365 * 10);
    // The documented code, with the site's name for the era beside it.
    assert_eq!((vet["generation"].as_str(), vet["generationLabel"].as_str()), (Some("VETERAN"), Some("OG")));
    assert_eq!((vet["isVeteran"].as_bool(), vet["isNewgen"].as_bool()), (Some(true), Some(false)));
    assert_eq!(vet["classification"], "ELC Veteran");
    assert_eq!(vet["confidence"], 95);
    assert_eq!(vet["elcBadges"]["count"], 3);
    assert_eq!(vet["elcBadges"]["total"], 3);
    assert_eq!(vet["elcBadges"]["available"], true);
    let first = &vet["elcBadges"]["badges"][0];
    assert_eq!(first["name"], "Badge 2124001", "names come from Roblox's badge info");
    assert!(first["badgeId"].as_u64().is_some() && first["awardedDate"].as_str().unwrap().starts_with("2013-"));
    assert!(vet["reason"].as_str().unwrap().contains("Owns 3 of 3 ELC badges"), "{vet}");
    assert!(vet["evidence"].as_array().unwrap().iter().any(|e| e["kind"] == "elcBadge"));
    assert!(vet["apiKey"]["name"].as_str().is_some_and(|n| !n.is_empty()));
    assert!(vet["apiKey"]["requests"].as_i64().unwrap() >= 1);
    assert!(vet["checkedAt"].as_str().unwrap().ends_with('Z'));
    assert!(headers.contains_key("x-ratelimit-remaining"), "counted against the key");

    let (_, _, new) = newgen(&server, &key, "NewKid").await;
    assert_eq!(
        (new["generation"].as_str(), new["isNewgen"].as_bool(), new["confidence"].as_u64()),
        (Some("NEWGEN"), Some(true), Some(80))
    );
    assert_eq!(new["generationLabel"], "Newgen");
    assert_eq!(new["elcBadges"]["count"], 0);

    // The key guard: no key 401; bad usernames 400; unknown users 404; all in the error shape.
    let res = client().get(server.url("/api/newgen-check/VetAlpha")).send().await.unwrap();
    assert_eq!(res.status(), 401);
    for bad in ["ab", "a_b_c", "_abc", "abc_", "toolongusername123456", "x%20y", "%C3%BCber"] {
        let (status, _, body) = newgen(&server, &key, bad).await;
        assert_error_shape(status, &body, 400);
    }
    let (status, _, body) = newgen(&server, &key, "GhostPlayer").await;
    assert_error_shape(status, &body, 404);
    assert_eq!(body["error"], "Player not found");

    // The bot API, same data, the bot answers' shapes.
    let (status, _, a) = get(&server, "/api/discord-bot/analyze/vetalpha").await;
    assert_eq!(status, 200, "{a}");
    assert_eq!(a["username"], "VetAlpha", "case-insensitive lookups share the cache");
    assert_eq!(a["description"], "Hi, I am VetAlpha.");
    assert_eq!(a["status"]["classification"], "ELC Veteran");
    assert_eq!(a["status"]["confidence"], 95);
    assert_eq!(
        (a["status"]["generation"].as_str(), a["status"]["generationLabel"].as_str()),
        (Some("VETERAN"), Some("OG"))
    );
    assert_eq!(a["badges"]["elcCount"], 3);
    assert_eq!(a["badges"]["elcBadges"].as_array().unwrap().len(), 3);
    assert!(a["badges"]["elcBadges"][0]["description"].is_string());
    let (status, _, q) = get(&server, "/api/discord-bot/check/VetAlpha").await;
    assert_eq!(status, 200);
    assert_eq!(
        (q["status"].as_str(), q["elcBadgeCount"].as_u64(), q["totalBadgeCount"].as_u64()),
        (Some("ELC Veteran"), Some(3), Some(3))
    );
    assert_eq!(q["earliestBadge"]["name"], "Badge 2124001");
    assert_eq!((q["generation"].as_str(), q["generationLabel"].as_str()), (Some("VETERAN"), Some("OG")));
    let (status, _, t) = get(&server, "/api/discord-bot/test").await;
    assert_eq!((status, t["success"].as_bool(), t["endpoints"].as_array().unwrap().len()), (200, Some(true), 3));
    let (status, _, body) = get(&server, "/api/discord-bot/check/a_b_c").await;
    assert_error_shape(status, &body, 400);

    // Players are stored; the dashboard sums their ELC badges; the health line is real.
    let admin = crate::common::admin_key(&server);
    let stats =
        json(client().get(server.url("/api/admin/stats")).header("x-admin-key", &admin).send().await.unwrap()).await;
    assert_eq!(stats["elcBadgesFound"], 3, "{stats}");
    let health =
        json(client().get(server.url("/api/admin/health")).header("x-admin-key", &admin).send().await.unwrap()).await;
    let line = health["checks"].as_array().unwrap().iter().find(|c| c["name"] == "Roblox API").unwrap().clone();
    assert_eq!(line["status"], "ok", "{line}");
    assert!(line["detail"].as_str().unwrap().contains("reachable"), "{line}");
    let db = rusqlite::Connection::open(setup.dir.path().join("data/fanhub.db")).unwrap();
    let (n, vet_row): (i64, String) = db
        .query_row("SELECT COUNT(*), MAX(CASE WHEN username = 'VetAlpha' THEN generation || '/' || elc_count || '/' || confidence END) FROM players", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((n, vet_row.as_str()), (2, "VETERAN/3/95"), "players are stored by code");
}

#[tokio::test]
async fn award_dates_refused_without_a_cookie_fall_back_to_the_join_date() {
    let fake = FakeRoblox::start();
    let setup = roblox_site(&fake, &[], &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    let (status, _, r) = newgen(&server, &key, "VetBravo").await;
    assert_eq!(status, 200, "never a 500: {r}");
    assert_eq!(r["elcBadges"]["available"], false);
    assert_eq!(r["elcBadges"]["unavailableCode"], "needsCookie");
    assert!(r["elcBadges"]["unavailableReason"].as_str().unwrap().contains("cookie"), "{r}");
    assert_eq!((r["generation"].as_str(), r["confidence"].as_u64()), (Some("VETERAN"), Some(55)));
    assert_eq!(r["classification"], "Veteran", "the join date decides");
    assert!(r["reason"].as_str().unwrap().starts_with("ELC badges unavailable"), "{r}");
    let (_, _, q) = get(&server, "/api/discord-bot/check/VetBravo").await;
    assert_eq!((q["elcAvailable"].as_bool(), q["earliestBadge"].is_null()), (Some(false), true));
    let (_, _, a) = get(&server, "/api/discord-bot/analyze/VetBravo").await;
    assert_eq!(a["badges"]["available"], false);
    assert_eq!(fake.cookie_calls(fake_roblox::AWARDED_DATES), 0);
    // Roblox refuses everyone's award dates without a cookie: the next player is not asked for.
    let (status, _, r) = newgen(&server, &key, "OgCharlie").await;
    assert_eq!((status, r["elcBadges"]["unavailableCode"].as_str()), (200, Some("needsCookie")), "{r}");
    assert_eq!(fake.calls(fake_roblox::AWARDED_DATES), 1, "a refusal for everyone is asked once");
    drop(server);

    // A cookie the fake accepts: award dates are read, and the cookie never reaches the log.
    let fake = FakeRoblox::start();
    fake.set(|m| m.expected_cookie = Some("good-secret-cookie".into()));
    let setup = roblox_site(&fake, &[], &[("FANHUB_ROBLOX_COOKIE", "good-secret-cookie")]);
    let server = setup.start();
    let key = public_key(&server).await;
    let (_, _, r) = newgen(&server, &key, "VetBravo").await;
    assert_eq!((r["elcBadges"]["available"].as_bool(), r["elcBadges"]["count"].as_u64()), (Some(true), Some(3)), "{r}");
    assert!(fake.cookie_calls(fake_roblox::AWARDED_DATES) >= 1);
    let admin = crate::common::admin_key(&server);
    let health =
        json(client().get(server.url("/api/admin/health")).header("x-admin-key", &admin).send().await.unwrap()).await;
    assert!(health.to_string().contains("cookie accepted"), "{health}");
    assert!(!server.stderr().contains("good-secret-cookie"));
    drop(server);

    // A cookie Roblox rejects: a plain statement, the join date, and the health check says so.
    let setup = roblox_site(&fake, &[], &[("FANHUB_ROBLOX_COOKIE", "expired-cookie")]);
    let server = setup.start();
    let key = public_key(&server).await;
    let (status, _, r) = newgen(&server, &key, "OgCharlie").await;
    assert_eq!(status, 200);
    assert_eq!(r["elcBadges"]["unavailableCode"], "cookieRejected");
    let admin = crate::common::admin_key(&server);
    let health =
        json(client().get(server.url("/api/admin/health")).header("x-admin-key", &admin).send().await.unwrap()).await;
    let line = health["checks"].as_array().unwrap().iter().find(|c| c["name"] == "Roblox API").unwrap().clone();
    assert_eq!(line["status"], "error");
    assert!(line["detail"].as_str().unwrap().contains("cookie rejected"), "{line}");
}

#[tokio::test]
async fn identical_lookups_run_once_and_a_restart_does_not_refetch() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.award_dates_need_cookie = false;
        m.latency_ms = 150;
    });
    let setup = roblox_site(&fake, &[], &[]);
    let mut server = setup.start();
    let key = public_key(&server).await;
    let names = ["VetOne", "NewTwo", "MidThree", "ElcFour", "PlainFive"];
    let mut tasks = Vec::new();
    for i in 0..60 {
        let url = server.url(&format!("/api/newgen-check/{}", names[i % names.len()]));
        let key = key.clone();
        tasks.push(tokio::spawn(async move {
            client().get(url).header("x-api-key", key).send().await.unwrap().status().as_u16()
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), 200);
    }
    let name_calls = fake.calls(fake_roblox::USERNAMES);
    assert!(
        (1..=5).contains(&name_calls),
        "{name_calls}: at most one username call per player (names asked together share one)"
    );
    assert_eq!(fake.calls(fake_roblox::USER), 5, "one profile call per player");
    assert_eq!(fake.calls(fake_roblox::AWARDED_DATES), 5, "one award-dates call per player");
    assert_eq!(fake.calls(fake_roblox::HEADSHOTS), 5);
    server.stop();
    fake.reset_calls();
    let server = setup.start();
    let key = public_key(&server).await;
    for name in names {
        let (status, _, body) = newgen(&server, &key, &name.to_lowercase()).await;
        assert_eq!(status, 200, "{body}");
    }
    let (_, _, elc) = newgen(&server, &key, "ElcFour").await;
    assert_eq!(elc["elcBadges"]["count"], 1, "award dates come back from SQLite");
    let refetched: u64 =
        [fake_roblox::USERNAMES, fake_roblox::USER, fake_roblox::AWARDED_DATES, fake_roblox::HEADSHOTS]
            .iter()
            .map(|e| fake.calls(e))
            .sum();
    assert_eq!(refetched, 0, "the persisted cache answers after a restart");
}

#[tokio::test]
async fn banned_players_hidden_inventories_and_pending_thumbnails() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.award_dates_need_cookie = false);
    let setup = roblox_site(&fake, &[], &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    let (status, _, banned) = newgen(&server, &key, "BannedBob").await;
    assert_eq!((status, banned["isBanned"].as_bool()), (200, Some(true)), "{banned}");
    let (status, _, hidden) = newgen(&server, &key, "HiddenHal").await;
    assert_eq!(status, 200, "{hidden}");
    assert_eq!(hidden["elcBadges"]["unavailableCode"], "hidden");
    assert_eq!(hidden["confidence"], 55);

    // One Pending answer: asked again, then the real URL.
    fake.set(|m| m.pending_thumbnails = 1);
    fake.reset_calls();
    let (_, _, r) = newgen(&server, &key, "PendingPat").await;
    assert!(r["avatarUrl"].as_str().unwrap().starts_with("https://"), "{r}");
    assert_eq!(fake.calls(fake_roblox::HEADSHOTS), 2);
    // Still Pending after the retries: the placeholder, not cached.
    fake.set(|m| m.pending_thumbnails = 10);
    fake.reset_calls();
    let (status, _, r) = newgen(&server, &key, "PendingQuinn").await;
    assert_eq!(status, 200);
    assert!(r["avatarUrl"].as_str().unwrap().starts_with("data:image/svg+xml"), "{r}");
    assert_eq!(fake.calls(fake_roblox::HEADSHOTS), 3, "the first ask and two retries");
    // The placeholder is not kept either: the next lookup asks for the headshot (only it) again.
    fake.set(|m| m.pending_thumbnails = 0);
    let (_, _, r) = newgen(&server, &key, "PendingQuinn").await;
    assert!(r["avatarUrl"].as_str().unwrap().starts_with("https://"), "{r}");
    assert_eq!((fake.calls(fake_roblox::HEADSHOTS), fake.calls(fake_roblox::USER)), (4, 1));
}

#[tokio::test]
async fn a_temporary_failure_of_the_award_dates_is_asked_again_at_the_next_lookup() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.award_dates_need_cookie = false;
        m.malformed = vec![fake_roblox::AWARDED_DATES.into()];
    });
    let setup = roblox_site(&fake, &[], &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    let (status, _, r) = newgen(&server, &key, "VetBravo").await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(
        (r["elcBadges"]["available"].as_bool(), r["elcBadges"]["unavailableCode"].as_str()),
        (Some(false), Some("temporary"))
    );

    fake.set(|m| m.malformed.clear());
    let (_, _, r) = newgen(&server, &key, "VetBravo").await;
    assert_eq!((r["elcBadges"]["available"].as_bool(), r["elcBadges"]["count"].as_u64()), (Some(true), Some(3)), "{r}");
    assert_eq!(fake.calls(fake_roblox::USER), 1, "the profile stayed cached");

    // Known award dates are kept: another lookup asks Roblox nothing.
    let before = (fake.calls(fake_roblox::AWARDED_DATES), fake.calls(fake_roblox::HEADSHOTS));
    let (_, _, again) = newgen(&server, &key, "VetBravo").await;
    assert_eq!(again["elcBadges"]["count"], 3);
    assert_eq!((fake.calls(fake_roblox::AWARDED_DATES), fake.calls(fake_roblox::HEADSHOTS)), before);
}

#[tokio::test]
async fn storms_hangs_and_broken_answers_are_clear_errors_never_500() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.award_dates_need_cookie = false);
    let setup = roblox_site(&fake, &[], &[]);
    let server = setup.start();
    let key = public_key(&server).await;

    // A short storm with Retry-After: waited out within the visitor's request.
    fake.set(|m| {
        m.storm = fake_roblox::Storm {
            remaining: 1,
            endpoint: Some(fake_roblox::USER.into()),
            retry_after: Some(1),
            reset: None,
        }
    });
    let t = Instant::now();
    let (status, _, body) = newgen(&server, &key, "StormyOne").await;
    assert_eq!(status, 200, "{body}");
    assert!(t.elapsed() >= Duration::from_millis(900), "waited for Retry-After");
    assert_eq!(fake.calls(fake_roblox::USER), 2);

    // A long Retry-After: no waiting, 503 with Retry-After, and Roblox is not asked again meanwhile.
    fake.set(|m| {
        m.storm = fake_roblox::Storm {
            remaining: 50,
            endpoint: Some(fake_roblox::USER.into()),
            retry_after: Some(30),
            reset: None,
        }
    });
    let res = client().get(server.url("/api/newgen-check/StormyTwo")).header("x-api-key", &key).send().await.unwrap();
    assert_eq!(res.status(), 503);
    let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((25..=31).contains(&retry), "{retry}");
    assert_error_shape(503, &json(res).await, 503);
    let before = fake.calls(fake_roblox::USER);
    let (status, _, _) = get(&server, "/api/discord-bot/analyze/StormyThree").await;
    assert_eq!(status, 503);
    assert_eq!(fake.calls(fake_roblox::USER), before, "held back until the reset");

    // A storm without Retry-After (own backoff 1 s, 2 s) that outlasts the retries: 503.
    let fake2 = FakeRoblox::start();
    fake2.set(|m| {
        m.storm = fake_roblox::Storm {
            remaining: 50,
            endpoint: Some(fake_roblox::USER.into()),
            retry_after: None,
            reset: None,
        }
    });
    let setup2 = roblox_site(&fake2, &[], &[]);
    let server2 = setup2.start();
    let (status, headers, body) = get(&server2, "/api/discord-bot/check/StormyFour").await;
    assert_error_shape(status, &body, 503);
    assert!(headers.contains_key("retry-after"));
    // Bounded: one call and at most two retries (the second backoff, 2 s plus up to half again
    // at random, is often longer than the 2 s a visitor's call waits, and is then not made).
    let calls = fake2.calls(fake_roblox::USER);
    assert!((2..=3).contains(&calls), "{calls} calls");

    // Hangs time out: 504 (on the username endpoint: the profile one is held back by the storm).
    fake2.set(|m| {
        m.storm = Default::default();
        m.hang = vec![fake_roblox::USERNAMES.into()];
    });
    let t = Instant::now();
    let (status, _, body) = get(&server2, "/api/discord-bot/check/HangingHank").await;
    assert_error_shape(status, &body, 504);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());

    // Malformed JSON: 502.
    fake2.set(|m| {
        m.hang.clear();
        m.malformed = vec![fake_roblox::USERNAMES.into()];
    });
    let (status, _, body) = get(&server2, "/api/discord-bot/analyze/BrokenBen").await;
    assert_error_shape(status, &body, 502);

    // Everything down: 502 after bounded retries, and the page still renders (no 500 anywhere).
    fake2.set(|m| {
        m.malformed.clear();
        m.down = true;
    });
    let (status, _, body) = get(&server2, "/api/discord-bot/analyze/DownDan").await;
    assert_error_shape(status, &body, 502);
    let (status, _, _) = get(&server2, "/api/badge-monitor").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_spent_budget_answers_503_instead_of_calling_roblox() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.award_dates_need_cookie = false;
        m.limits.insert(fake_roblox::USER.into(), 3);
    });
    let setup = roblox_site(&fake, &[("# \"users/v1/users/{id}\" = 24", "\"users/v1/users/{id}\" = 2")], &[]);
    let server = setup.start();
    // The bot API: with a budget of 2, the public key would allow one lookup an address.
    for name in ["BudgetA", "BudgetB"] {
        let (status, _, body) = get(&server, &format!("/api/discord-bot/check/{name}")).await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, headers, body) = get(&server, "/api/discord-bot/check/BudgetC").await;
    assert_error_shape(status, &body, 503);
    assert!(headers["retry-after"].to_str().unwrap().parse::<u64>().unwrap() > 2);
    assert_eq!(fake.calls(fake_roblox::USER), 2, "the site kept under its budget, so Roblox never said 429");
    let key = public_key(&server).await;
    let (status, _, _) = newgen(&server, &key, "BudgetA").await;
    assert_eq!(status, 200, "cached players still answer");
}

async fn poll_until(server: &Server, what: &str, f: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (_, _, body) = get(server, "/api/badge-monitor").await;
        if f(&body) {
            return body;
        }
        assert!(Instant::now() < deadline, "{what}: {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn etag_of(server: &Server) -> reqwest::header::HeaderValue {
    let res = client().get(server.url("/api/badge-monitor")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    res.headers()["etag"].clone()
}

/// The badge monitor's ETag once it has stayed the same over more than one poll interval (1 s).
async fn settled_etag(server: &Server) -> reqwest::header::HeaderValue {
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut last = etag_of(server).await;
    loop {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let now = etag_of(server).await;
        if now == last {
            return now;
        }
        assert!(Instant::now() < deadline, "the badge monitor's ETag kept changing");
        last = now;
    }
}

#[tokio::test]
async fn the_badge_monitor_pages_a_universe_serves_from_memory_and_goes_stale() {
    let fake = FakeRoblox::start();
    let setup = roblox_site(
        &fake,
        &[("# universe = 1234567", "universe = 77"), ("badge_monitor_secs = 60", "badge_monitor_secs = 1")],
        &[],
    );
    let mut server = setup.start();
    let body =
        poll_until(&server, "150 badges over two pages", |b| b["badges"].as_array().is_some_and(|a| a.len() == 150))
            .await;
    assert!(fake.calls(fake_roblox::UNIVERSE_BADGES) >= 2, "100 per page");
    assert_eq!(body["totalTracked"], 150);
    assert_eq!(body["stale"], false);
    let first = &body["badges"][0];
    assert_eq!(first["badgeId"], 77001);
    for key in ["name", "description", "rarity", "difficulty"] {
        assert!(first[key].is_string(), "{first}");
    }
    // The site's rarity levels by win rate, Roblox's own word beside them (the fake's rates run
    // from 0.1 % to 15 %).
    for b in body["badges"].as_array().unwrap() {
        let expected = match b["winRatePercentage"].as_f64().unwrap() {
            p if p <= 1.0 => ("impossible", "Impossible"),
            p if p <= 5.0 => ("insane", "Insane"),
            p if p <= 10.0 => ("extremely hard", "Extreme"),
            p if p <= 20.0 => ("hard", "Hard"),
            p => panic!("the fake's rates stay under 20 %: {p}"),
        };
        assert_eq!((b["rarity"].as_str().unwrap(), b["difficulty"].as_str().unwrap()), expected, "{b}");
    }
    assert!(first["imageUrl"].as_str().unwrap().starts_with("https://tr.rbxcdn.com/"));
    // The two fallback pictures: the icon image asset (iconImageId = id + 1 in the fake) at two sizes.
    assert_eq!(
        first["imageFallbacks"],
        serde_json::json!([
            "https://tr.rbxcdn.com/fake-asset-77002/150/150/Image/Png",
            "https://tr.rbxcdn.com/fake-asset-77002/420/420/Image/Png"
        ]),
        "{first}"
    );
    assert!(
        body["badges"].as_array().unwrap().iter().all(|b| b["imageFallbacks"].as_array().is_some_and(|f| f.len() == 2))
    );
    // Asked once per badge (2 sizes x 2 chunks of 100), not at every poll.
    let asked = fake.calls(fake_roblox::ASSET_THUMBNAILS);
    assert_eq!(asked, 4, "two sizes for each chunk of 100 badges");
    let polled = body["lastUpdated"].clone();
    let later =
        poll_until(&server, "another poll", |b| b["lastUpdated"] != polled && b["lastUpdated"].is_string()).await;
    assert_eq!(fake.calls(fake_roblox::ASSET_THUMBNAILS), asked, "fallbacks are carried over, not asked again");
    assert_eq!(later["badges"][0]["imageFallbacks"], first["imageFallbacks"]);
    assert!(first["dailyStats"]["today"].is_i64() && first["dailyStats"]["weekAverage"].is_i64(), "{first}");
    assert!(first["history"].as_array().is_some_and(|h| !h.is_empty()));
    assert!(body["globalStats"]["totalAwarded"].as_i64().unwrap() > 0);
    assert!(body["globalStats"]["mostPopular"].is_string() && body["globalStats"]["rarest"].is_string());
    assert!(body["lastUpdated"].is_string());

    let fresh_etag = etag_of(&server).await;

    // Roblox down: the last figures stay, marked stale with their time.
    fake.set(|m| m.down = true);
    let stale = poll_until(&server, "stale", |b| b["stale"] == true).await;
    assert_eq!(stale["badges"].as_array().unwrap().len(), 150);
    assert!(stale["error"].as_str().is_some_and(|e| !e.is_empty()), "{stale}");
    assert!(stale["lastUpdated"].is_string());

    // Served from memory with an ETag. While Roblox stays down every poll publishes the same
    // stale figures, so once the ETag has held over a poll the current one is matched: 304, no body.
    let etag = settled_etag(&server).await;
    let res =
        client().get(server.url("/api/badge-monitor")).header("if-none-match", etag.clone()).send().await.unwrap();
    assert_eq!(res.status(), 304);
    assert_eq!(res.headers()["etag"], etag);
    assert!(res.bytes().await.unwrap().is_empty(), "a 304 has no body");
    // The figures changed since the fresh ETag (now stale): 200 with the body and a new ETag.
    let res = client()
        .get(server.url("/api/badge-monitor"))
        .header("if-none-match", fresh_etag.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["etag"], etag);
    assert_ne!(etag, fresh_etag);
    assert_eq!(json(res).await["stale"], true);

    // After a restart (Roblox still down) the stored figures are served at once.
    server.stop();
    let server = setup.start();
    let (status, _, body) = get(&server, "/api/badge-monitor").await;
    assert_eq!(status, 200);
    assert_eq!(body["badges"].as_array().unwrap().len(), 150, "{body}");
    assert_eq!(body["badges"][0]["imageFallbacks"], first["imageFallbacks"], "stored with the figures");
}

#[tokio::test]
async fn group_pages_and_background_share_through_the_library() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 250;
        m.award_dates_need_cookie = false;
    });
    fanhub::llm::install_crypto();
    let dir = tempfile::tempdir().unwrap();
    let db = fanhub::db::Db::open(&dir.path().join("t.db")).unwrap();
    let site = fanhub::site::load(None).unwrap();
    let mut limits = site.roblox.clone();
    limits.budgets.insert("groups/v1/groups/{id}".into(), 4);
    let jobs = fanhub::jobs::Jobs::default();
    let roblox = fanhub::roblox::Roblox::new(
        fanhub::roblox::RobloxConfig {
            api_template: fake.template(),
            cookie: None,
            open_cloud: None,
            timeout: Duration::from_secs(2),
            badges: site.badges.clone(),
            classification: site.classification.clone(),
            poll: site.poll.clone(),
            limits,
        },
        db,
        jobs.clone(),
    );
    use fanhub::roblox::{Priority, RobloxError};
    let info = roblox.group_info(5150, Priority::Interactive).await.unwrap();
    assert_eq!((info.name.as_str(), info.member_count), ("Fake Group 5150", 250));
    assert_eq!(roblox.group_info(7404, Priority::Interactive).await.unwrap_err(), RobloxError::UnknownGroup(7404));
    let mut cursor = None;
    let mut members = Vec::new();
    loop {
        let page = roblox.group_members_page(5150, cursor.as_deref(), Priority::Background).await.unwrap();
        members.extend(page.members);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(members.len(), 250);
    assert_eq!(members[0].role_name, "Owner");
    let report = roblox.lookup_user_id(members[0].user_id, Priority::Background).await.unwrap();
    assert_eq!(report.profile.name, members[0].username);
    assert!(roblox.cached(&members[0].username).is_some(), "the by-id lookup fills the name cache");
    // Background work takes half of the group-info budget (4): the third call waits for the
    // window; a visitor still gets the rest.
    let waited = tokio::time::timeout(Duration::from_millis(500), roblox.group_info(5150, Priority::Background)).await;
    assert!(waited.is_err(), "background waits once its share is used");
    roblox.group_info(5150, Priority::Interactive).await.unwrap();
    let calls = jobs.upstream_snapshot();
    assert!(
        calls.iter().any(|(s, e, c)| s == "roblox" && e == "groups/v1/groups/{id}/users" && c.calls == 3),
        "{calls:?}"
    );
}

#[tokio::test]
async fn the_bot_api_limits_lookups_that_ask_roblox_per_address_never_cached_ones() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.award_dates_need_cookie = false);
    let setup = roblox_site(&fake, &[], &[]);
    let server = setup.start();
    let (status, _, body) = get(&server, "/api/discord-bot/check/VetCached").await;
    assert_eq!(status, 200, "{body}");
    // A name Roblox could not hold is refused before it counts.
    for _ in 0..25 {
        let (status, _, _) = get(&server, "/api/discord-bot/check/no!such!name").await;
        assert_eq!(status, 400);
    }
    for i in 2..=20 {
        let path = if i % 2 == 0 {
            format!("/api/discord-bot/check/NewLimit{i}")
        } else {
            format!("/api/discord-bot/analyze/VetLimit{i}")
        };
        let (status, _, body) = get(&server, &path).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    let asked = fake.calls(fake_roblox::USERNAMES);
    let (status, headers, body) = get(&server, "/api/discord-bot/analyze/OgOneTooMany").await;
    assert_error_shape(status, &body, 429);
    assert!(body["message"].as_str().unwrap().starts_with("At most 20 lookups"), "{body}");
    assert!(headers.contains_key("retry-after"));
    assert_eq!(fake.calls(fake_roblox::USERNAMES), asked, "the refused lookup never reached Roblox");
    // Players already looked up are still answered, from the cache.
    let (status, _, cached) = get(&server, "/api/discord-bot/analyze/VetCached").await;
    assert_eq!((status, cached["username"].as_str()), (200, Some("VetCached")), "{cached}");
    let (status, _, _) = get(&server, "/api/discord-bot/check/NewLimit2").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_public_key_limits_lookups_that_ask_roblox_per_address_to_a_share_of_the_budget() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.award_dates_need_cookie = false);
    let setup = roblox_site(&fake, &[], &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    // A quarter of the default profile budget of 24 a minute.
    for i in 1..=6 {
        let (status, _, body) = newgen(&server, &key, &format!("VetShare{i}")).await;
        assert_eq!(status, 200, "{body}");
    }
    let asked = fake.calls(fake_roblox::USERNAMES);
    let (status, headers, body) = newgen(&server, &key, "VetShare7").await;
    assert_error_shape(status, &body, 429);
    assert!(body["message"].as_str().unwrap().starts_with("At most 6 lookups with the public key"), "{body}");
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    assert_eq!(fake.calls(fake_roblox::USERNAMES), asked, "the refused lookup never reached Roblox");
    for _ in 0..20 {
        let (status, _, body) = newgen(&server, &key, "vetshare3").await;
        assert_eq!(status, 200, "players looked up recently are answered: {body}");
    }
    let (status, _, _) = newgen(&server, &key, "no!such!name").await;
    assert_eq!(status, 400, "a bad name is refused as such, uncounted");
}

/// The UTC day `back` days before today, `YYYY-MM-DD`.
fn utc_day_before(back: i64) -> String {
    let at = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24 * back);
    at.to_zoned(jiff::tz::TimeZone::UTC).date().to_string()
}

#[tokio::test]
async fn the_badge_history_keeps_a_row_a_day_and_answers_json_and_csv() {
    let fake = FakeRoblox::start();
    let setup = roblox_site(
        &fake,
        &[("tracked = []", "tracked = [2124001, 2124002]"), ("badge_monitor_secs = 60", "badge_monitor_secs = 1")],
        &[],
    );
    let server = setup.start();
    poll_until(&server, "two badges", |b| b["badges"].as_array().is_some_and(|a| a.len() == 2)).await;
    // Days the poller wrote before this run: yesterday (the best day by far), 40 days and 500
    // days ago (older than the 30 and 365-day ranges).
    let db = rusqlite::Connection::open(server.data_dir.join("fanhub.db")).unwrap();
    for (back, awarded, total) in [(1, 9_999_999, 5_000), (40, 50, 4_000), (500, 7, 1_000)] {
        db.execute(
            "INSERT INTO badge_days (badge_id, day, awarded, total, taken_at) VALUES (2124001, ?1, ?2, ?3, 0)",
            rusqlite::params![utc_day_before(back), awarded, total],
        )
        .unwrap();
    }
    let today = utc_day_before(0);

    let (status, headers, body) = get(&server, "/api/badge-monitor/history").await;
    assert_eq!(status, 200, "{body}");
    assert!(headers["cache-control"].to_str().unwrap().starts_with("public, max-age=0, s-maxage="), "{headers:?}");
    assert!(headers["content-type"].to_str().unwrap().starts_with("application/json"));
    assert_eq!((body["days"].as_u64(), body["to"].as_str()), (Some(30), Some(today.as_str())), "{body}");
    assert_eq!(body["from"], utc_day_before(29));
    let ids: Vec<u64> = body["badges"].as_array().unwrap().iter().map(|b| b["badgeId"].as_u64().unwrap()).collect();
    assert_eq!(ids, [2124001, 2124002], "the monitor's badges, in its order");
    let first = &body["badges"][0];
    let days: Vec<&str> = first["days"].as_array().unwrap().iter().map(|d| d["date"].as_str().unwrap()).collect();
    assert_eq!(days, [utc_day_before(1), today.clone()], "30 days: yesterday and today's polls; {first}");
    assert_eq!(first["since"], utc_day_before(500), "since: the first day held, whatever the range");
    assert_eq!(first["bestDay"]["date"], utc_day_before(1));
    assert_eq!(first["bestDay"]["pastDay"], 9_999_999);
    assert!(first["name"].as_str().is_some_and(|n| !n.is_empty()));
    let second = &body["badges"][1];
    assert_eq!(second["since"], today, "written by the polls of this run");

    let (_, _, year) = get(&server, "/api/badge-monitor/2124001/history?days=365").await;
    let days: Vec<&str> =
        year["badges"][0]["days"].as_array().unwrap().iter().map(|d| d["date"].as_str().unwrap()).collect();
    assert_eq!(days, [utc_day_before(40), utc_day_before(1), today.clone()], "{year}");
    assert_eq!(year["badges"].as_array().unwrap().len(), 1);

    let res = client().get(server.url("/api/badge-monitor/2124001/history?days=7&format=csv")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/csv"));
    let disposition = res.headers()["content-disposition"].to_str().unwrap().to_string();
    assert!(disposition.starts_with("attachment; filename=\"badge-2124001-history-7d-"), "{disposition}");
    let etag = res.headers()["etag"].clone();
    let csv = res.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "badge_id,badge_name,date,awarded_past_day,awarded_total");
    assert_eq!(lines.len(), 3, "yesterday and today: {csv}");
    assert!(
        lines[1].starts_with("2124001,\"") && lines[1].ends_with(&format!(",{},9999999,5000", utc_day_before(1))),
        "{csv}"
    );
    let res = client()
        .get(server.url("/api/badge-monitor/2124001/history?days=7&format=csv"))
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert!(matches!(res.status().as_u16(), 200 | 304), "304 unless a poll changed today's row meanwhile");

    for (path, field) in [
        ("/api/badge-monitor/history?days=0", "days"),
        ("/api/badge-monitor/history?days=401", "days"),
        ("/api/badge-monitor/history?days=ten", "days"),
        ("/api/badge-monitor/history?format=xml", "format"),
    ] {
        let (status, _, body) = get(&server, path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(body["fields"][field].as_str().is_some_and(|s| s.starts_with(field)), "{path}: {body}");
    }
    // Under the developer API: a key, the same answer, private to its caller.
    let (status, _, _) = get(&server, "/api/v1/badge-history").await;
    assert_eq!(status, 401, "no key");
    let key = public_key(&server).await;
    let res = client()
        .get(server.url("/api/v1/badge-history/2124001?days=365"))
        .header("x-api-key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers()["cache-control"].to_str().unwrap().starts_with("private"), "{:?}", res.headers());
    assert!(res.headers().contains_key("x-ratelimit-remaining"), "counted against the key");
    let keyed = json(res).await;
    let dates = |answer: &Value| -> Vec<String> {
        answer["badges"][0]["days"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["date"].as_str().unwrap().to_string())
            .collect()
    };
    // The dates, not the figures: today's row changes with every poll (each second here).
    assert_eq!(dates(&keyed), dates(&year));
    let (status, _, body) = get(&server, "/api/badge-monitor/999/history").await;
    assert_error_shape(status, &body, 404);
    let (status, _, body) = get(&server, "/api/badge-monitor/not-a-badge/history").await;
    assert_error_shape(status, &body, 400);
}
