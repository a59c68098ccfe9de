//! Roblox through Open Cloud with an API key, against the fake Roblox (tests/common/fake_roblox.rs):
//! join dates and ELC award dates without a cookie, private inventories said plainly, a refused
//! key falling back to the legacy hosts, Roblox's quota headers obeyed, group scans through the
//! memberships call (resumed after kill -9 by their page token, without spending a budget window
//! twice), `fanhub doctor`'s line, and every bad answer a clear error or a fallback, never a 500
//! or an endless loop.

use std::time::{Duration, Instant};

use crate::common::fake_roblox::{self, FAKE_OPEN_CLOUD_KEY, FakeRoblox};
use crate::common::{Server, SiteSetup, client, json};
use serde_json::{Value, json};

const ELC: &str = "elc = [2124001, 2124002, 2124003]";

/// A server on the fake with the Open Cloud key `key`, no cookie, ELC badges configured.
fn open_cloud_site(fake: &FakeRoblox, key: &str, edits: &[(&str, &str)]) -> SiteSetup {
    let (template, open_cloud) = (fake.template(), fake.open_cloud_api());
    let envs = [
        ("FANHUB_ROBLOX_API", template.as_str()),
        ("FANHUB_ROBLOX_OPEN_CLOUD_API", open_cloud.as_str()),
        ("FANHUB_ROBLOX_OPEN_CLOUD_KEY", key),
        ("FANHUB_ROBLOX_TIMEOUT_MS", "1500"),
        ("FANHUB_METRICS", "true"),
    ];
    SiteSetup::new([("elc = []", ELC)].iter().chain(edits), &envs)
}

/// A developer key of its own (the site's public key allows few uncached lookups per address).
async fn developer_key(server: &Server) -> String {
    let res =
        client().post(server.url("/api/generate-key")).json(&json!({"name": "open cloud tests"})).send().await.unwrap();
    assert_eq!(res.status(), 201);
    json(res).await["apiKey"]["key"].as_str().unwrap().to_string()
}

async fn newgen(server: &Server, key: &str, name: &str) -> (u16, Value) {
    let res =
        client().get(server.url(&format!("/api/newgen-check/{name}"))).header("x-api-key", key).send().await.unwrap();
    let status = res.status().as_u16();
    (status, json(res).await)
}

async fn get(server: &Server, key: &str, path: &str) -> (u16, Value) {
    let res = client().get(server.url(path)).header("x-api-key", key).send().await.unwrap();
    let status = res.status().as_u16();
    (status, json(res).await)
}

async fn health(server: &Server) -> Vec<Value> {
    let admin = crate::common::admin_key(server);
    let res = client().get(server.url("/api/admin/health")).header("x-admin-key", admin).send().await.unwrap();
    assert_eq!(res.status(), 200);
    json(res).await["checks"].as_array().unwrap().clone()
}

fn check<'a>(checks: &'a [Value], name: &str) -> &'a Value {
    checks.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no {name} check in {checks:?}"))
}

#[tokio::test]
async fn with_the_key_join_dates_and_elc_award_dates_come_from_open_cloud_without_a_cookie() {
    let fake = FakeRoblox::start();
    let setup = open_cloud_site(&fake, FAKE_OPEN_CLOUD_KEY, &[]);
    let server = setup.start();
    let key = developer_key(&server).await;

    let (status, vet) = newgen(&server, &key, "VetOpenCloud").await;
    assert_eq!(status, 200, "{vet}");
    assert_eq!(vet["elcBadges"]["available"], true, "{vet}");
    assert_eq!(vet["elcBadges"]["count"], 3, "{vet}");
    assert_eq!(vet["generation"], "VETERAN");
    assert_eq!(vet["joinDate"], "2012-03-04T10:20:30.4567891Z");
    assert_eq!(vet["robloxSources"], json!({"profile": "openCloud", "awardDates": "openCloud"}));
    let dates: Vec<&str> =
        vet["elcBadges"]["badges"].as_array().unwrap().iter().map(|b| b["awardedDate"].as_str().unwrap()).collect();
    assert!(dates.iter().all(|d| d.starts_with("2013-")), "the inventory's addTime is the award date: {dates:?}");

    // A player who owns badges, but none of the ELC ones: "owns none" (the inventory shows badges).
    let (_, new) = newgen(&server, &key, "NewOpenCloud").await;
    assert_eq!(
        (new["elcBadges"]["available"].as_bool(), new["elcBadges"]["count"].as_u64()),
        (Some(true), Some(0)),
        "{new}"
    );
    assert_eq!(new["generation"], "NEWGEN");

    assert_eq!(fake.calls(fake_roblox::USER), 0, "the join date came from Open Cloud");
    assert_eq!(fake.calls(fake_roblox::AWARDED_DATES), 0, "no legacy award-dates call");
    assert_eq!(fake.calls(fake_roblox::CLOUD_USER), 2);
    assert_eq!(fake.key_calls(fake_roblox::CLOUD_USER), 2, "the key goes with every Open Cloud call");
    assert_eq!(fake.cookie_calls(fake_roblox::CLOUD_USER), 0);
    // One inventory call for the veteran; two for the newgen (the ELC filter, then any badge at all).
    assert_eq!(fake.calls(fake_roblox::CLOUD_INVENTORY), 3);
    assert_eq!(fake.key_calls(fake_roblox::USERNAMES), 0, "the key goes only to Open Cloud");

    // The bot's answers name their sources too.
    for path in ["/api/discord-bot/analyze/VetOpenCloud", "/api/discord-bot/check/VetOpenCloud"] {
        let body = json(client().get(server.url(path)).send().await.unwrap()).await;
        assert_eq!(body["robloxSources"], json!({"profile": "openCloud", "awardDates": "openCloud"}), "{path}: {body}");
    }

    // Cached: no new call.
    let (_, again) = newgen(&server, &key, "vetopencloud").await;
    assert_eq!(again["elcBadges"]["count"], 3);
    assert_eq!(fake.calls(fake_roblox::CLOUD_USER), 2);

    let checks = health(&server).await;
    assert_eq!(check(&checks, "Roblox Open Cloud key")["status"], "ok");
    let paths = check(&checks, "Roblox paths")["detail"].as_str().unwrap().to_string();
    assert!(paths.contains("join dates: Open Cloud") && paths.contains("award dates: Open Cloud"), "{paths}");
    let budgets = check(&checks, "Roblox budgets")["detail"].as_str().unwrap().to_string();
    assert!(budgets.contains("cloud/v2/users/{id} 2/900, Roblox: 998 of 1000 left"), "{budgets}");

    let admin = crate::common::admin_key(&server);
    let metrics =
        client().get(server.url("/metrics")).header("x-admin-key", admin).send().await.unwrap().text().await.unwrap();
    assert!(metrics.contains("fanhub_roblox_quota_remaining{endpoint=\"cloud/v2/users/{id}\"} 998"), "{metrics}");
    assert!(metrics.contains("fanhub_roblox_quota_limit{endpoint=\"cloud/v2/users/{id}\"} 1000"));
    assert!(metrics.contains("fanhub_roblox_budget_limit{endpoint=\"cloud/v2/users/{id}/inventory-items\"} 90"));

    // The key is in no answer, page or log.
    let site = client().get(server.url("/api/site")).send().await.unwrap().text().await.unwrap();
    let page = client().get(server.url("/")).send().await.unwrap().text().await.unwrap();
    for text in [site, page, metrics, serde_json::to_string(&checks).unwrap(), server.stderr()] {
        assert!(!text.contains(FAKE_OPEN_CLOUD_KEY), "the key leaked");
    }
}

#[tokio::test]
async fn a_private_inventory_is_said_plainly_and_an_empty_one_is_not_taken_for_no_badges() {
    let fake = FakeRoblox::start();
    let setup = open_cloud_site(&fake, FAKE_OPEN_CLOUD_KEY, &[]);
    let server = setup.start();
    let key = developer_key(&server).await;

    let (status, private) = newgen(&server, &key, "PrivateVet").await;
    assert_eq!(status, 200, "{private}");
    let elc = &private["elcBadges"];
    assert_eq!(
        (elc["available"].as_bool(), elc["unavailableCode"].as_str()),
        (Some(false), Some("private")),
        "{private}"
    );
    let reason = elc["unavailableReason"].as_str().unwrap();
    assert!(reason.contains("inventory is private") && reason.contains("Everyone"), "{reason}");
    assert_eq!(private["robloxSources"]["awardDates"], Value::Null);
    assert!(private["confidence"].as_u64().unwrap() <= 55, "join date only: {private}");

    // Roblox may answer a private inventory with an empty list: ambiguous, and said so.
    let (_, closed) = newgen(&server, &key, "ClosedVet").await;
    let elc = &closed["elcBadges"];
    assert_eq!(
        (elc["available"].as_bool(), elc["unavailableCode"].as_str()),
        (Some(false), Some("nothingVisible")),
        "{closed}"
    );
    assert!(elc["unavailableReason"].as_str().unwrap().contains("unknown"));
    // A player who owns no badge at all looks the same.
    let (_, nobadge) = newgen(&server, &key, "NobadgePlayer").await;
    assert_eq!(nobadge["elcBadges"]["unavailableCode"], "nothingVisible", "{nobadge}");
    assert_eq!(fake.calls(fake_roblox::AWARDED_DATES), 0);
}

#[tokio::test]
async fn a_refused_key_is_logged_once_shown_in_health_and_lookups_fall_back_to_the_legacy_hosts() {
    for (label, forbidden) in [("wrong key", false), ("key refused from this address", true)] {
        let fake = FakeRoblox::start();
        fake.set(|m| m.award_dates_need_cookie = true);
        let key_value = if forbidden {
            fake.set(|m| m.open_cloud_key_forbidden = true);
            FAKE_OPEN_CLOUD_KEY
        } else {
            "not-the-key"
        };
        let setup = open_cloud_site(&fake, key_value, &[]);
        let server = setup.start();
        let key = developer_key(&server).await;
        for name in ["VetFallback", "OgFallback", "MidFallback"] {
            let (status, body) = newgen(&server, &key, name).await;
            assert_eq!(status, 200, "{label}: {body}");
            assert_eq!(body["robloxSources"]["profile"], "anonymous", "{label}: {body}");
            assert_eq!(
                body["elcBadges"]["unavailableCode"], "needsCookie",
                "{label}: the legacy path, without a cookie"
            );
        }
        assert_eq!(fake.calls(fake_roblox::CLOUD_USER), 1, "{label}: the refused key is not asked again for a while");
        assert_eq!(fake.calls(fake_roblox::USER), 3, "{label}: the legacy profile answered");
        let log = server.stderr();
        assert_eq!(log.matches("Roblox refused the Open Cloud key").count(), 1, "{label}: logged once:\n{log}");
        let checks = health(&server).await;
        let key_check = check(&checks, "Roblox Open Cloud key");
        assert_eq!(key_check["status"], "error", "{label}: {key_check}");
        assert!(key_check["detail"].as_str().unwrap().contains("Roblox refused the key (HTTP 40"), "{key_check}");
        assert!(check(&checks, "Roblox paths")["detail"].as_str().unwrap().contains("join dates: legacy hosts"));
    }
}

#[tokio::test]
async fn bad_open_cloud_answers_give_a_clear_error_or_a_fallback_never_a_500_or_a_loop() {
    let fake = FakeRoblox::start();
    let setup = open_cloud_site(&fake, FAKE_OPEN_CLOUD_KEY, &[]);
    let server = setup.start();
    let key = developer_key(&server).await;
    let expect = |status: u16, body: &Value, want: u16, words: &str| {
        assert_eq!(status, want, "{body}");
        let text = format!("{} {}", body["error"], body["message"]);
        assert!(text.contains(words), "{words:?} in {body}");
    };

    fake.set(|m| m.cloud_no_create_time = true);
    let (s, b) = newgen(&server, &key, "VetNoDate").await;
    expect(s, &b, 502, "createTime");
    fake.set(|m| {
        m.cloud_no_create_time = false;
        m.cloud_odd_dates = true;
    });
    let (s, b) = newgen(&server, &key, "VetOddDate").await;
    expect(s, &b, 502, "join date");
    fake.set(|m| {
        m.cloud_odd_dates = false;
        m.malformed = vec![fake_roblox::CLOUD_USER.into()];
    });
    let (s, b) = newgen(&server, &key, "VetMalformed").await;
    expect(s, &b, 502, "cannot read");
    fake.set(|m| {
        m.malformed.clear();
        m.hang = vec![fake_roblox::CLOUD_USER.into()];
    });
    let started = Instant::now();
    let (s, b) = newgen(&server, &key, "VetHang").await;
    expect(s, &b, 504, "did not answer");
    assert!(started.elapsed() < Duration::from_secs(10));
    fake.set(|m| m.hang.clear());

    // Award-date trouble leaves the join date to decide, and says why.
    fake.set(|m| m.malformed = vec![fake_roblox::CLOUD_INVENTORY.into()]);
    let (s, b) = newgen(&server, &key, "VetBadInventory").await;
    assert_eq!((s, b["elcBadges"]["unavailableCode"].as_str()), (200, Some("temporary")), "{b}");
    fake.set(|m| {
        m.malformed.clear();
        m.cloud_repeat_page_token = true;
    });
    let before = fake.calls(fake_roblox::CLOUD_INVENTORY);
    let (s, b) = newgen(&server, &key, "VetRepeatToken").await;
    assert_eq!((s, b["elcBadges"]["unavailableCode"].as_str()), (200, Some("temporary")), "{b}");
    assert!(b["elcBadges"]["unavailableReason"].as_str().unwrap().contains("same page token"), "{b}");
    assert!(fake.calls(fake_roblox::CLOUD_INVENTORY) - before <= 2, "the repeated token is not followed");
    fake.set(|m| {
        m.cloud_repeat_page_token = false;
        m.cloud_huge_page = Some(10_000);
    });
    let (s, b) = newgen(&server, &key, "OgHugePage").await;
    assert_eq!(
        (s, b["elcBadges"]["count"].as_u64()),
        (200, Some(3)),
        "ten thousand items in a page: the ELC ones are found"
    );
    fake.set(|m| m.cloud_huge_page = None);

    // Roblox takes fewer badge ids per filter than asked: the filter is split, and the smaller
    // size kept for the next player.
    fake.set(|m| m.max_filter_ids = 2);
    let before = fake.calls(fake_roblox::CLOUD_INVENTORY);
    let (s, b) = newgen(&server, &key, "OgFewIds").await;
    assert_eq!((s, b["elcBadges"]["count"].as_u64()), (200, Some(3)), "{b}");
    assert_eq!(fake.calls(fake_roblox::CLOUD_INVENTORY) - before, 3, "3 ids refused, then 2 and 1");
    let before = fake.calls(fake_roblox::CLOUD_INVENTORY);
    let (s, b) = newgen(&server, &key, "VetFewIds").await;
    assert_eq!((s, b["elcBadges"]["count"].as_u64()), (200, Some(3)), "{b}");
    assert_eq!(fake.calls(fake_roblox::CLOUD_INVENTORY) - before, 2, "2 ids at a time from then on");
    fake.set(|m| m.max_filter_ids = 100);

    // A storm of 429s without Retry-After: bounded retries, then a 503 with Retry-After.
    fake.set(|m| {
        m.storm = fake_roblox::Storm {
            remaining: 50,
            endpoint: Some(fake_roblox::CLOUD_USER.into()),
            retry_after: None,
            reset: None,
        }
    });
    let before = fake.calls(fake_roblox::CLOUD_USER);
    let res = client().get(server.url("/api/newgen-check/VetStorm")).header("x-api-key", &key).send().await.unwrap();
    assert_eq!(res.status(), 503);
    assert!(res.headers().get("retry-after").is_some());
    assert!(fake.calls(fake_roblox::CLOUD_USER) - before <= 3, "no tight loop on a 429");
    // While Roblox's pause holds, the next lookup does not even ask.
    let (s, _) = newgen(&server, &key, "VetStormTwo").await;
    assert_eq!(s, 503);
    assert!(fake.calls(fake_roblox::CLOUD_USER) - before <= 3);

    assert!(!server.stderr().contains("panicked"));
}

#[tokio::test]
async fn roblox_s_remaining_quota_holds_calls_back_before_a_429() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.limits.insert(fake_roblox::CLOUD_USER.into(), 3);
    });
    let setup = open_cloud_site(&fake, FAKE_OPEN_CLOUD_KEY, &[]);
    let server = setup.start();
    let key = developer_key(&server).await;
    let mut statuses = Vec::new();
    for i in 0..5 {
        let (s, _) = newgen(&server, &key, &format!("VetQuota{i}")).await;
        statuses.push(s);
    }
    assert_eq!(statuses, [200, 200, 200, 503, 503], "the third answer said 0 left");
    assert_eq!(fake.calls(&format!("429 {}", fake_roblox::CLOUD_USER)), 0, "no 429 received: {statuses:?}");
}

#[tokio::test]
async fn a_group_scan_walks_open_cloud_memberships_with_role_names_and_skips_malformed_members() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 250;
        m.cloud_bad_member_user = true;
        m.open_cloud_limit_scale = 20.0;
    });
    // Roblox's limits and the site's budgets scaled up together, so the scan takes seconds.
    let budgets = "[roblox.budgets]\n\"cloud/v2/users/{id}\" = 18000\n\"cloud/v2/users/{id}/inventory-items\" = 1800";
    let setup = open_cloud_site(
        &fake,
        FAKE_OPEN_CLOUD_KEY,
        &[("budgets_above_probed_limits = false", "budgets_above_probed_limits = true"), ("[roblox.budgets]", budgets)],
    );
    let server = setup.start();
    let key = developer_key(&server).await;
    let res = client()
        .post(server.url("/api/v1/scan-group"))
        .header("x-api-key", &key)
        .json(&json!({"groupId": 7101, "scannedBy": "tests"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let id = json(res).await["scanId"].as_i64().unwrap();
    let started = Instant::now();
    let scan = loop {
        tokio::time::sleep(Duration::from_millis(700)).await;
        let (status, s) = get(&server, &key, &format!("/api/v1/scan-status/{id}")).await;
        if status == 429 {
            continue;
        }
        assert_eq!(status, 200, "{s}");
        let state = s["scan"]["state"].as_str().unwrap_or("").to_string();
        if state != "queued" && state != "running" {
            break s["scan"].clone();
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{s}");
    };
    assert_eq!(scan["state"], "completed", "{scan}");
    // Every 7th and every 11th member had a `user` that is not users/<digits>.
    let bad = (1..=250).filter(|n| n % 7 == 0 || n % 11 == 0).count() as u64;
    assert_eq!(scan["processed"].as_u64().unwrap(), 250 - bad, "{scan}");
    assert_eq!(scan["failed"], 0, "{scan}");
    assert_eq!(fake.calls(fake_roblox::GROUP_USERS), 0, "the member list came from Open Cloud");
    assert_eq!(fake.calls(fake_roblox::CLOUD_MEMBERSHIPS), 3);
    assert_eq!(fake.calls(fake_roblox::GROUP_ROLES), 1, "role names once per group");
    let (_, board) = get(&server, &key, "/api/v1/group-leaderboard/7101?limit=100").await;
    let players = board["players"].as_array().or_else(|| board["data"].as_array()).expect("a list of players");
    assert!(players.iter().any(|p| p["username"].as_str().is_some_and(|n| n.starts_with("Vet7101x"))), "{board}");
    assert!(players.iter().all(|p| p["roleName"].as_str().is_some_and(|r| r == "Member" || r == "Owner")), "{board}");
    assert!(server.stderr().contains("skipped"), "the malformed memberships are logged");
}

#[test]
fn doctor_checks_the_key_with_one_lookup_and_shows_the_quota() {
    let fake = FakeRoblox::start();
    let run = |key: Option<&str>, cookie: bool| {
        let mut cmd = std::process::Command::new(crate::common::BIN);
        cmd.arg("doctor");
        for (k, _) in std::env::vars() {
            if k.starts_with("FANHUB_") {
                cmd.env_remove(k);
            }
        }
        cmd.env("FANHUB_ROBLOX_API", fake.template()).env("FANHUB_ROBLOX_OPEN_CLOUD_API", fake.open_cloud_api());
        if let Some(k) = key {
            cmd.env("FANHUB_ROBLOX_OPEN_CLOUD_KEY", k);
        }
        if cookie {
            cmd.env("FANHUB_ROBLOX_COOKIE", "fake-cookie");
        }
        let out = cmd.output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let line = |out: &str| {
        out.lines().find(|l| l.contains("Roblox Open Cloud key:")).unwrap_or_else(|| panic!("{out}")).to_string()
    };
    let good = run(Some(FAKE_OPEN_CLOUD_KEY), false);
    let l = line(&good);
    assert!(l.starts_with("✓ ") && l.contains("of 1000 user lookups left this minute"), "{good}");
    assert!(good.lines().any(|l| l.contains("Roblox cookie:") && l.contains("not needed")), "{good}");
    let bad = run(Some("wrong"), false);
    let l = line(&bad);
    assert!(l.starts_with("✗ ") && l.contains("refused (HTTP 401)") && l.contains("Creator Dashboard"), "{bad}");
    let unset = run(None, true);
    assert!(line(&unset).contains("not set (recommended"), "{unset}");
    assert!(
        unset.lines().any(|l| l.contains("Roblox cookie:") && l.contains("preferred way")),
        "with only a cookie the cookie line points to the key: {unset}"
    );
    assert!(!good.contains(FAKE_OPEN_CLOUD_KEY) && !bad.contains("wrong\n"));
}

#[tokio::test]
async fn usernames_asked_for_meanwhile_share_one_lookup_call() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.latency_ms = 300);
    let setup = open_cloud_site(&fake, FAKE_OPEN_CLOUD_KEY, &[]);
    let server = setup.start();
    let key = developer_key(&server).await;
    let mut checks = tokio::task::JoinSet::new();
    for i in 0..30 {
        let (url, key) = (server.url(&format!("/api/newgen-check/VetBatch{i}")), key.clone());
        checks.spawn(async move {
            let res = client().get(url).header("x-api-key", key).send().await.unwrap();
            (i, res.status().as_u16(), json(res).await)
        });
    }
    while let Some(done) = checks.join_next().await {
        let (i, status, body) = done.unwrap();
        assert_eq!(status, 200, "VetBatch{i}: {body}");
        assert_eq!(
            body["username"].as_str().unwrap().to_ascii_lowercase(),
            format!("vetbatch{i}"),
            "each gets its own player"
        );
    }
    let calls = fake.calls(fake_roblox::USERNAMES);
    assert!(calls <= 4, "30 names at once: {calls} username calls (a lone call, then the rest together)");
    // In one call, an unknown name is unknown and the other found.
    let (a, b) = tokio::join!(newgen(&server, &key, "GhostBatch"), newgen(&server, &key, "OgBatchFound"));
    assert_eq!((a.0, b.0), (404, 200), "{a:?} {b:?}");
}

#[tokio::test]
async fn a_scan_killed_mid_window_resumes_by_its_page_token_without_spending_the_window_twice() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 12;
        m.member_page_size = Some(6);
        // Roblox lets 12 profile reads a minute through, the site's whole budget: the scan's 6 a
        // window, and the next window's 6 when its start falls just before Roblox's (the windows
        // are not aligned). A restart that forgot its window would add 6 more and meet 429s.
        m.limits.insert(fake_roblox::CLOUD_USER.into(), 12);
    });
    // A profile budget of 12 a minute with the default background share (half): a scan reads 6
    // profiles a window, one page of members (inventories, a page or more each, have room).
    let budgets = "[roblox.budgets]\n\"cloud/v2/users/{id}\" = 12\n\"cloud/v2/users/{id}/inventory-items\" = 80";
    let setup = open_cloud_site(&fake, FAKE_OPEN_CLOUD_KEY, &[("[roblox.budgets]", budgets)]);
    let mut server = setup.start();
    let key = developer_key(&server).await;
    let res = client()
        .post(server.url("/api/v1/scan-group"))
        .header("x-api-key", &key)
        .json(&json!({"groupId": 7102, "scannedBy": "tests"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let id = json(res).await["scanId"].as_i64().unwrap();
    let status = |server: &Server| {
        let (server_url, key) = (server.url(&format!("/api/v1/scan-status/{id}")), key.clone());
        async move {
            let res = client().get(server_url).header("x-api-key", key).send().await.unwrap();
            json(res).await["scan"].clone()
        }
    };

    // The first window's share is spent: 6 profiles read, the scan waits for the next window.
    let started = Instant::now();
    while fake.calls(fake_roblox::CLOUD_USER) < 6 {
        assert!(started.elapsed() < Duration::from_secs(20), "{}", status(&server).await);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before_kill = status(&server).await;
    server.kill9();
    let killed_at = started.elapsed();
    // The kill must land mid-scan with the window spent, or the restart below proves nothing.
    assert_eq!(before_kill["state"], "running", "{before_kill}");
    assert!(before_kill["processed"].as_u64().unwrap() < 12, "{before_kill}");
    assert_eq!(fake.calls(fake_roblox::CLOUD_USER), 6, "the budget held the scan at its share");
    assert!(killed_at < Duration::from_secs(30), "{killed_at:?}: the window has half a minute left at least");

    // Restarted in the same window: the scan resumes (running), but no profile is read until
    // the window its first run began is over.
    let server = setup.start();
    tokio::time::sleep(Duration::from_secs(4)).await;
    let resumed = status(&server).await;
    assert_eq!(resumed["state"], "running", "{resumed}");
    assert_eq!(fake.calls(fake_roblox::CLOUD_USER), 6, "the restart did not spend the window again: {resumed}");
    let checks = health(&server).await;
    let budgets = check(&checks, "Roblox budgets")["detail"].as_str().unwrap().to_string();
    // The window's use came back with the server: the 6 calls, and at most the tenth of the
    // budget (1) reserved ahead of them.
    let used = budgets.split("cloud/v2/users/{id} ").nth(1).and_then(|rest| rest.split('/').next());
    assert!(matches!(used, Some("6" | "7")), "{budgets}");

    let scan = loop {
        let s = status(&server).await;
        if s["state"] != "running" && s["state"] != "queued" {
            break s;
        }
        if started.elapsed() > Duration::from_secs(100) {
            let checks = health(&server).await;
            panic!("{s}\n{}\n{}", check(&checks, "Roblox budgets")["detail"], server.stderr());
        }
        // Under the key's 100 calls a minute.
        tokio::time::sleep(Duration::from_secs(1)).await;
    };
    assert_eq!(scan["state"], "completed", "{scan}");
    assert_eq!((scan["processed"].as_u64(), scan["failed"].as_u64()), (Some(12), Some(0)), "{scan}");
    assert_eq!(fake.calls(&format!("429 {}", fake_roblox::CLOUD_USER)), 0, "Roblox never had to refuse a call");
    assert_eq!(fake.calls(fake_roblox::CLOUD_USER), 12, "each member's profile read once");
    let from_start = fake.calls(&format!("{} from 0", fake_roblox::CLOUD_MEMBERSHIPS));
    assert_eq!(from_start, 1, "the resumed scan went on from its page token, not from the first page");
    assert!(fake.calls(&format!("{} from 6", fake_roblox::CLOUD_MEMBERSHIPS)) >= 1, "the second page was read");
}
