//! Group scans, leaderboards, search and abuse reports against the fake Roblox
//! (tests/common/fake_roblox.rs): every bad input and upstream fault. Never a 500, never a
//! lost or double-counted member.

use std::time::{Duration, Instant};

use crate::common::fake_roblox::FakeRoblox;
use crate::common::{Server, SiteSetup, client, json, public_key};
use serde_json::{Value, json};

/// The budgets a scan may use at full speed in tests: Roblox's probed limits, all of it for background work.
const FAST: [(&str, &str); 2] = [
    ("background_share = 0.5", "background_share = 1.0"),
    ("[roblox.budgets]\n", "[roblox.budgets]\n\"users/v1/users/{id}\" = 30\n"),
];

/// A data dir and the bundled site file with the fast budgets and `replacements`, for a server
/// pointed at `fake`.
fn scan_site(fake: &FakeRoblox, replacements: &[(&str, &str)]) -> SiteSetup {
    SiteSetup::with_roblox(&fake.template(), 1000, FAST.iter().chain(replacements), &[])
}

async fn get(server: &Server, key: &str, path: &str) -> (u16, Value) {
    let res = client().get(server.url(path)).header("x-api-key", key).send().await.unwrap();
    let status = res.status().as_u16();
    (status, json(res).await)
}

async fn post(server: &Server, key: &str, path: &str, body: Value) -> (u16, Value) {
    let res = client().post(server.url(path)).header("x-api-key", key).json(&body).send().await.unwrap();
    let status = res.status().as_u16();
    (status, json(res).await)
}

fn assert_error(status: u16, body: &Value, want: u16) {
    assert_eq!(status, want, "{body}");
    assert!(body["error"].as_str().is_some_and(|e| !e.is_empty()), "{body}");
}

/// Polls scan-status until the scan leaves queued/running (or `limit` passes).
async fn wait_done(server: &Server, key: &str, id: i64, limit: Duration) -> Value {
    let start = Instant::now();
    loop {
        let (status, body) = get(server, key, &format!("/api/v1/scan-status/{id}")).await;
        if status == 429 {
            // The public key allows 100 calls a minute; a long wait polls past it.
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        }
        assert_eq!(status, 200, "{body}");
        let state = body["scan"]["state"].as_str().unwrap().to_string();
        if state != "queued" && state != "running" {
            return body["scan"].clone();
        }
        assert!(start.elapsed() < limit, "scan {id} still {state} after {limit:?}: {body}");
        tokio::time::sleep(Duration::from_millis(400)).await;
    }
}

async fn start_scan(server: &Server, key: &str, group: u64) -> i64 {
    let (status, body) = post(server, key, "/api/v1/scan-group", json!({"groupId": group, "scannedBy": "tests"})).await;
    assert_eq!(status, 202, "{body}");
    body["scanId"].as_i64().unwrap()
}

#[tokio::test]
async fn a_scan_walks_every_page_classifies_each_member_once_and_feeds_the_leaderboards() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 25;
        m.member_page_size = Some(10);
    });
    let setup = scan_site(&fake, &[]);
    let server = setup.start();
    let key = public_key(&server).await;

    // Two requests at once for one group: one scan; the second gets the running one.
    let body = json!({"groupId": 7001, "scannedBy": "Alice"});
    let (a, b) = tokio::join!(
        post(&server, &key, "/api/v1/scan-group", body.clone()),
        post(&server, &key, "/api/v1/scan-group", body.clone())
    );
    let mut statuses = [a.0, b.0];
    statuses.sort();
    assert_eq!(statuses, [200, 202], "{a:?} {b:?}");
    assert_eq!(a.1["scanId"], b.1["scanId"], "one scan per group");
    let id = a.1["scanId"].as_i64().unwrap();
    assert_eq!(a.1["scan"]["groupName"], "Fake Group 7001");
    assert_eq!(a.1["scan"]["total"], 25);

    let scan = wait_done(&server, &key, id, Duration::from_secs(30)).await;
    assert_eq!(scan["state"], "completed", "{scan}");
    assert_eq!(
        (scan["processed"].as_u64(), scan["total"].as_u64(), scan["failed"].as_u64()),
        (Some(25), Some(25), Some(0))
    );
    assert_eq!(scan["pages"], 3);
    assert_eq!(scan["percent"], 100.0);
    let (vets, newgens) = (scan["veterans"].as_u64().unwrap(), scan["newgens"].as_u64().unwrap());
    assert!(vets > 0 && newgens > 0 && vets + newgens <= 25, "{scan}");
    assert!(scan["maxRatePerMinute"].as_f64().unwrap() > 0.0);
    assert_eq!(fake.calls("groups/v1/groups/{id}/users"), 3, "each page fetched once");
    assert_eq!(fake.calls("users/v1/users/{id}"), 25, "each member's profile fetched once");
    assert_eq!(fake.calls("thumbnails/v1/users/avatar-headshot"), 3, "a page's headshots asked for at once");

    // The group leaderboard ranks veterans first; every member is there once.
    let (status, board) = get(&server, &key, "/api/v1/group-leaderboard/7001?limit=100").await;
    assert_eq!(status, 200, "{board}");
    assert_eq!(board["total"], 25);
    let players = board["players"].as_array().unwrap();
    assert_eq!(players.len(), 25);
    assert_eq!(players[0]["isVeteran"], true);
    assert_eq!(players[0]["rank"], 1);
    assert_eq!(players.iter().filter(|p| p["isVeteran"] == true).count() as u64, vets);
    assert_eq!(board["group"]["members"], 25);

    // A scan again (completed before): a new scan; the members already known cost no profile call.
    let again = start_scan(&server, &key, 7001).await;
    assert_ne!(again, id);
    let scan = wait_done(&server, &key, again, Duration::from_secs(30)).await;
    assert_eq!((scan["state"].as_str(), scan["processed"].as_u64()), (Some("completed"), Some(25)));
    assert_eq!(fake.calls("users/v1/users/{id}"), 25, "the newgen check's cache is shared: no member fetched twice");

    // The all-players leaderboard, filters, search, lists.
    let (status, all) = get(&server, &key, "/api/v1/leaderboard?generation=NEWGEN&sort=newest&limit=5").await;
    assert_eq!(status, 200, "{all}");
    assert_eq!((all["generation"].as_str(), all["generationLabel"].as_str()), (Some("NEWGEN"), Some("Newgen")));
    assert!(!all["players"].as_array().unwrap().is_empty(), "{all}");
    assert!(
        all["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["generation"] == "NEWGEN" && p["generationLabel"] == "Newgen")
    );
    // An era's name, or a code, in any case, is the same filter.
    for alias in ["newgen", "Newgen", "nEwGeN"] {
        let (status, same) =
            get(&server, &key, &format!("/api/v1/leaderboard?generation={alias}&sort=newest&limit=5")).await;
        assert_eq!(
            (status, &same["players"], &same["generation"]),
            (200, &all["players"], &all["generation"]),
            "{alias}"
        );
    }
    let (_, og) = get(&server, &key, "/api/v1/leaderboard?generation=og").await;
    assert_eq!((og["generation"].as_str(), og["generationLabel"].as_str()), (Some("VETERAN"), Some("OG")), "{og}");
    let codes = ["VETERAN", "OLDGEN", "MIDGEN", "NEWGEN"];
    assert!(
        board["players"].as_array().unwrap().iter().all(|p| codes.contains(&p["generation"].as_str().unwrap())
            && p["generationLabel"].as_str().is_some_and(|l| !l.is_empty())),
        "{board}"
    );
    let (_, search) = get(&server, &key, "/api/v1/search?q=vet7001&type=players").await;
    assert!(!search["players"].as_array().unwrap().is_empty(), "{search}");
    assert!(
        search["players"].as_array().unwrap().iter().all(|p| p["username"].as_str().unwrap().starts_with("Vet7001"))
    );
    let (_, search) = get(&server, &key, "/api/v1/search?q=Fake%20Group&type=groups").await;
    assert_eq!(search["groups"][0]["groupId"], 7001, "{search}");
    let (_, scans) = get(&server, &key, "/api/v1/all-scans").await;
    assert_eq!(scans["total"], 2);
    assert_eq!(scans["scans"][0]["id"], again, "newest first");
    let (_, groups) = get(&server, &key, "/api/v1/all-group-leaderboards").await;
    assert_eq!(groups["groups"][0]["groupId"], 7001);
    assert_eq!(groups["groups"][0]["veterans"].as_u64(), Some(vets));

    // The admin dashboard reads the same rows.
    let admin = crate::common::admin_key(&server);
    let stats =
        json(client().get(server.url("/api/admin/stats")).header("x-admin-key", &admin).send().await.unwrap()).await;
    assert_eq!(stats["scans"]["total"], 2, "{stats}");
    assert_eq!(stats["scans"]["running"], 0);
}

#[tokio::test]
async fn leaderboard_pages_kept_in_memory_follow_every_change_and_answer_304() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 6;
        m.award_dates_need_cookie = false;
    });
    let setup = scan_site(&fake, &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    let page = "/api/v1/leaderboard?sort=recent&limit=100";
    let (_, empty) = get(&server, &key, page).await;
    assert_eq!(empty["total"], 0, "{empty}");

    // A newgen check stores a player: the kept (empty) page is not served again.
    let res = client().get(server.url("/api/newgen-check/VetCache")).header("x-api-key", &key).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let (_, one) = get(&server, &key, page).await;
    assert_eq!((one["total"].as_u64(), one["players"][0]["username"].as_str()), (Some(1), Some("VetCache")), "{one}");

    // Unchanged: the same bytes, and 304 to a client that has them.
    let res = client().get(server.url(page)).header("x-api-key", &key).send().await.unwrap();
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    let res =
        client().get(server.url(page)).header("x-api-key", &key).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(res.status(), 304);

    // A scan adds members and a group: both boards follow it.
    let (status, before) = get(&server, &key, "/api/v1/group-leaderboard/7010").await;
    assert_eq!(status, 404, "never scanned: {before}");
    let id = start_scan(&server, &key, 7010).await;
    wait_done(&server, &key, id, Duration::from_secs(30)).await;
    let (_, all) = get(&server, &key, page).await;
    assert_eq!(all["total"], 7, "{all}");
    let (status, group) = get(&server, &key, "/api/v1/group-leaderboard/7010").await;
    assert_eq!((status, group["total"].as_u64()), (200, Some(6)), "{group}");
    let res =
        client().get(server.url(page)).header("x-api-key", &key).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(res.status(), 200, "the old ETag no longer matches");

    // Deep pages (from the 1,000th player on) are slices of the whole ranking: they continue the
    // shallow pages exactly, and follow a change like them.
    let db = rusqlite::Connection::open(setup.dir.path().join("data/fanhub.db")).unwrap();
    db.execute_batch(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1250)
         INSERT INTO players (user_id, username, display_name, verified, banned, created, generation, classification,
             is_newgen, is_veteran, elc_count, confidence, checked_at)
         SELECT 500000 + i, 'Deep' || i, 'Deep ' || i, 0, 0, printf('2015-01-%02dT00:00:00Z', 1 + i % 28), 'OLDGEN',
             'Veteran', 0, 1, NULL, 55, 1700000000000 + i FROM n",
    )
    .unwrap();
    let expected: Vec<u64> = db
        .prepare("SELECT user_id FROM players ORDER BY created, user_id")
        .unwrap()
        .query_map([], |r| r.get::<_, i64>(0).map(|id| id as u64))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(expected.len(), 1257);
    let mut walked = Vec::new();
    for n in 1..=14 {
        let (status, board) = get(&server, &key, &format!("/api/v1/leaderboard?sort=oldest&limit=100&page={n}")).await;
        assert_eq!((status, board["total"].as_u64()), (200, Some(1257)), "page {n}");
        for (i, p) in board["players"].as_array().unwrap().iter().enumerate() {
            assert_eq!(p["rank"].as_u64(), Some((n - 1) * 100 + i as u64 + 1), "page {n}");
            walked.push(p["userId"].as_u64().unwrap());
        }
    }
    assert_eq!(walked, expected, "every player once, in order, across the shallow and the deep pages");
    // The same walk by key: each page's nextCursor gives the next; the last page gives none.
    let (mut by_key, mut next) = (Vec::new(), "page=1".to_string());
    loop {
        let (status, board) = get(&server, &key, &format!("/api/v1/leaderboard?sort=oldest&limit=100&{next}")).await;
        assert_eq!(status, 200, "{board}");
        by_key.extend(board["players"].as_array().unwrap().iter().map(|p| p["userId"].as_u64().unwrap()));
        match board["nextCursor"].as_str() {
            Some(cursor) => next = format!("cursor={cursor}"),
            None => break,
        }
    }
    assert_eq!(by_key, expected, "by key as by page");
    db.execute("DELETE FROM players WHERE user_id = ?1", [expected[1100] as i64]).unwrap();
    let (_, board) = get(&server, &key, "/api/v1/leaderboard?sort=oldest&limit=100&page=12").await;
    assert_eq!(board["total"], 1256);
    assert_eq!(board["players"][0]["userId"].as_u64(), Some(expected[1101]), "{board}");
}

#[tokio::test]
async fn scan_status_answers_304_while_nothing_changes() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.member_count = 5);
    let setup = scan_site(&fake, &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    let id = start_scan(&server, &key, 7002).await;
    wait_done(&server, &key, id, Duration::from_secs(30)).await;
    let res =
        client().get(server.url(&format!("/api/v1/scan-status/{id}"))).header("x-api-key", &key).send().await.unwrap();
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    let res = client()
        .get(server.url(&format!("/api/v1/scan-status/{id}")))
        .header("x-api-key", &key)
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 304);
}

#[tokio::test]
async fn bad_scan_requests_get_clear_4xx() {
    let fake = FakeRoblox::start();
    let setup = scan_site(&fake, &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    for (body, field) in [
        (json!({"groupId": "abc", "scannedBy": "x"}), "groupId"),
        (json!({"groupId": -5, "scannedBy": "x"}), "groupId"),
        (json!({"groupId": 1.5, "scannedBy": "x"}), "groupId"),
        (json!({"groupId": 0, "scannedBy": "x"}), "groupId"),
        (json!({"groupId": "12 34", "scannedBy": "x"}), "groupId"),
        (json!({"groupId": 99999999999999999999u128 as f64, "scannedBy": "x"}), "groupId"),
        (json!({"scannedBy": "x"}), "groupId"),
        (json!({"groupId": 7003}), "scannedBy"),
        (json!({"groupId": 7003, "scannedBy": "   "}), "scannedBy"),
        (json!({"groupId": 7003, "scannedBy": "x".repeat(65)}), "scannedBy"),
        (json!({"groupId": 7003, "scannedBy": "a\u{0}b"}), "scannedBy"),
    ] {
        let (status, res) = post(&server, &key, "/api/v1/scan-group", body.clone()).await;
        assert_error(status, &res, 400);
        assert!(res["fields"][field].is_string(), "{body} -> {res}");
    }
    let res = client()
        .post(server.url("/api/v1/scan-group"))
        .header("x-api-key", &key)
        .body("{not json")
        .header("content-type", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let res = client()
        .post(server.url("/api/v1/scan-group"))
        .json(&json!({"groupId": 1, "scannedBy": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "the key guard is in front");

    // A group that does not exist; an empty group; a private group (its scan fails with the reason).
    let (status, res) = post(&server, &key, "/api/v1/scan-group", json!({"groupId": 1404, "scannedBy": "x"})).await;
    assert_error(status, &res, 404);
    let (status, res) = post(&server, &key, "/api/v1/scan-group", json!({"groupId": 1500, "scannedBy": "x"})).await;
    assert_error(status, &res, 422);
    let id = start_scan(&server, &key, 1403).await;
    let scan = wait_done(&server, &key, id, Duration::from_secs(30)).await;
    assert_eq!(scan["state"], "failed");
    assert!(scan["error"].as_str().unwrap().contains("private"), "{scan}");
    assert_eq!(scan["processed"], 0);

    for (path, want) in [
        ("/api/v1/scan-status/abc", 400),
        ("/api/v1/scan-status/-1", 400),
        ("/api/v1/scan-status/999999", 404),
        ("/api/v1/group-leaderboard/abc", 400),
        ("/api/v1/group-leaderboard/123456", 404),
        ("/api/v1/group-leaderboard/1403?page=0", 400),
        ("/api/v1/all-scans?limit=101", 400),
        ("/api/v1/all-group-leaderboards?page=x", 400),
        ("/api/v1/leaderboard?generation=ancient", 400),
        ("/api/v1/leaderboard?sort=random", 400),
        ("/api/v1/leaderboard?limit=0", 400),
        ("/api/v1/leaderboard?cursor=abc", 400),
        ("/api/v1/leaderboard?cursor=20.", 400),
        ("/api/v1/leaderboard?cursor=20.5&page=2", 400),
        ("/api/v1/leaderboard?cursor=20.999999", 400),
        ("/api/v1/search", 400),
        ("/api/v1/search?q=%20%20", 400),
        ("/api/v1/search?q=ab&type=badges", 400),
        ("/api/v1/search?q=ab&limit=1000", 400),
    ] {
        let (status, res) = get(&server, &key, path).await;
        assert_error(status, &res, want);
        assert_eq!(status, want, "{path}: {res}");
    }
    let long = "x".repeat(101);
    let (status, _) = get(&server, &key, &format!("/api/v1/search?q={long}")).await;
    assert_eq!(status, 400);
    // LIKE wildcards are text, not patterns.
    let (status, res) = get(&server, &key, "/api/v1/search?q=%25").await;
    assert_eq!(status, 200);
    assert_eq!(res["players"].as_array().unwrap().len(), 0, "{res}");

    for (body, want) in [(json!({"scanId": "x"}), 400), (json!({}), 400), (json!({"scanId": 424242}), 404)] {
        let (status, res) = post(&server, &key, "/api/v1/resume-scan", body).await;
        assert_error(status, &res, want);
    }
}

#[tokio::test]
async fn without_a_cookie_the_scan_says_so_once_and_classifies_by_join_date() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.member_count = 20);
    let setup = scan_site(&fake, &[("elc = []", "elc = [2124001, 2124002]")]);
    let server = setup.start();
    let key = public_key(&server).await;
    let id = start_scan(&server, &key, 7004).await;
    let scan = wait_done(&server, &key, id, Duration::from_secs(60)).await;
    assert_eq!(scan["state"], "completed", "{scan}");
    assert_eq!((scan["processed"].as_u64(), scan["failed"].as_u64()), (Some(20), Some(0)));
    let notice = scan["notice"].as_str().expect("a notice");
    assert!(notice.contains("cookie") && notice.contains("join date"), "{notice}");
    assert_eq!(notice.matches("cookie").count(), 1, "said once: {notice}");
    // Only the lookups already waiting for the first refusal were refused: none per member after
    // it, so the award-dates budget (8 a minute) no longer holds the scan back: the profiles' does.
    let asked = fake.calls("badges/v1/users/{id}/badges/awarded-dates");
    assert!((1..=8).contains(&asked), "{asked} award-date calls for 20 members");
    assert_eq!(scan["maxRatePerMinute"], 30.0, "{scan}");
    let (_, board) = get(&server, &key, "/api/v1/group-leaderboard/7004").await;
    assert!(
        board["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["elcCount"].is_null() && p["confidence"].as_u64() < Some(80)),
        "{board}"
    );
}

#[tokio::test]
async fn a_storm_of_429s_slows_the_scan_and_it_recovers_without_losing_members() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 20;
        m.member_page_size = Some(10);
        m.storm.remaining = 8;
        m.storm.endpoint = Some("users/v1/users/{id}".into());
        m.storm.retry_after = Some(1);
    });
    let setup = scan_site(&fake, &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    let started = Instant::now();
    let id = start_scan(&server, &key, 7005).await;
    let scan = wait_done(&server, &key, id, Duration::from_secs(60)).await;
    let took = started.elapsed();
    assert_eq!(scan["state"], "completed", "{scan}");
    assert_eq!((scan["processed"].as_u64(), scan["failed"].as_u64()), (Some(20), Some(0)), "{scan}");
    assert_eq!(fake.state.modes.lock().unwrap().storm.remaining, 0, "the storm was met");
    // Retry-After: 1 was honoured (the endpoint is held at least that long after a 429), and each
    // 429 cost one call more, not a burst of retries: 20 profiles plus the 8 refused calls.
    assert!(took >= Duration::from_secs(1), "Retry-After ignored: the scan took {took:?}");
    let calls = fake.calls("users/v1/users/{id}");
    assert!((20..=28).contains(&calls), "{calls} profile calls for 20 members and 8 refusals");
}

#[tokio::test]
async fn a_hang_or_a_malformed_page_fails_the_scan_with_the_reason_and_resume_finishes_it() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 20;
        m.member_page_size = Some(10);
    });
    let setup = scan_site(&fake, &[]);
    let server = setup.start();
    let key = public_key(&server).await;

    fake.set(|m| m.malformed = vec!["groups/v1/groups/{id}/users".into()]);
    let id = start_scan(&server, &key, 7006).await;
    let scan = wait_done(&server, &key, id, Duration::from_secs(60)).await;
    assert_eq!(scan["state"], "failed", "{scan}");
    assert!(scan["error"].as_str().unwrap().contains("Resume"), "{scan}");
    assert_eq!(scan["processed"], 0);

    fake.set(|m| {
        m.malformed.clear();
        m.hang = vec!["groups/v1/groups/{id}/users".into()];
    });
    let (status, res) = post(&server, &key, "/api/v1/resume-scan", json!({"scanId": id})).await;
    assert_eq!(status, 202, "{res}");
    let scan = wait_done(&server, &key, id, Duration::from_secs(60)).await;
    assert_eq!(scan["state"], "failed", "a hang times out: {scan}");
    assert!(scan["error"].as_str().unwrap().contains("did not answer"), "{scan}");

    fake.set(|m| m.hang.clear());
    let (status, _) = post(&server, &key, "/api/v1/resume-scan", json!({"scanId": id})).await;
    assert_eq!(status, 202);
    let scan = wait_done(&server, &key, id, Duration::from_secs(60)).await;
    assert_eq!(
        (scan["state"].as_str(), scan["processed"].as_u64(), scan["failed"].as_u64()),
        (Some("completed"), Some(20), Some(0))
    );
    let (status, res) = post(&server, &key, "/api/v1/resume-scan", json!({"scanId": id})).await;
    assert_error(status, &res, 409);
}

#[tokio::test]
async fn a_repeating_cursor_ends_the_scan_without_counting_anyone_twice() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 30;
        m.member_page_size = Some(10);
        m.repeat_cursor = true;
    });
    let setup = scan_site(&fake, &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    let id = start_scan(&server, &key, 7007).await;
    let scan = wait_done(&server, &key, id, Duration::from_secs(30)).await;
    assert_eq!(scan["state"], "completed", "{scan}");
    assert!(scan["notice"].as_str().unwrap().contains("cursor"), "{scan}");
    assert_eq!(scan["processed"], 20, "pages 1 and 2, the repeat of page 2 adds nobody: {scan}");
    let (_, board) = get(&server, &key, "/api/v1/group-leaderboard/7007").await;
    assert_eq!(board["total"], 20);
}

#[tokio::test]
async fn kill_9_mid_scan_resumes_on_start_redoing_at_most_one_page() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 60;
        m.member_page_size = Some(10);
    });
    let setup = scan_site(&fake, &[]);
    let mut server = setup.start();
    let key = public_key(&server).await;
    let id = start_scan(&server, &key, 7008).await;
    // 30 profiles a minute: the scan does 3 pages, then waits for the next minute's budget.
    let start = Instant::now();
    let before_kill = loop {
        let (_, s) = get(&server, &key, &format!("/api/v1/scan-status/{id}")).await;
        if s["scan"]["processed"].as_u64().unwrap() >= 20 {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "{s}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    server.kill9();
    // The kill must land mid-scan, or the resume below proves nothing: the last answer before it
    // showed the scan running with members still to do (the budget holds it at 30 a minute).
    assert_eq!(before_kill["scan"]["state"], "running", "{before_kill}");
    assert!(before_kill["scan"]["processed"].as_u64().unwrap() < 60, "{before_kill}");
    let pages_before = fake.calls("groups/v1/groups/{id}/users");
    assert!(pages_before < 6, "killed before the last page was fetched: {pages_before} pages");
    let server = setup.start();
    let scan = wait_done(&server, &key, id, Duration::from_secs(90)).await;
    assert_eq!(scan["state"], "completed", "{scan}");
    assert_eq!(
        (scan["processed"].as_u64(), scan["failed"].as_u64(), scan["total"].as_u64()),
        (Some(60), Some(0), Some(60))
    );
    assert!(scan["pagesRedone"].as_u64().unwrap() <= 1, "{scan}");
    let pages = fake.calls("groups/v1/groups/{id}/users");
    assert!(pages <= 6 + 1, "6 pages, at most one fetched twice: {pages} (before the kill {pages_before})");
    let (_, board) = get(&server, &key, "/api/v1/group-leaderboard/7008?limit=100").await;
    assert_eq!(board["total"], 60, "no member lost");
}

#[tokio::test]
async fn players_stored_under_era_names_are_rewritten_to_codes_at_start() {
    let fake = FakeRoblox::start();
    let setup = scan_site(&fake, &[]);
    let mut server = setup.start();
    let key = public_key(&server).await;
    server.kill9();
    // Rows as an earlier version stored them: the era's name, in its case or another, and a name
    // no era has any more (decided again from the join date).
    let db = rusqlite::Connection::open(setup.dir.path().join("data/fanhub.db")).unwrap();
    for (id, generation, created) in [
        (1, "OG", "2010-01-01T00:00:00Z"),
        (2, "Oldgen", "2015-01-01T00:00:00Z"),
        (3, "oldgen", "2016-01-01T00:00:00Z"),
        (4, "Ancient", "2011-06-01T00:00:00Z"),
        (5, "Newgen", "2024-01-01T00:00:00Z"),
    ] {
        db.execute(
            "INSERT INTO players (user_id, username, display_name, verified, banned, created, generation, classification,
                 is_newgen, is_veteran, elc_count, confidence, checked_at)
             VALUES (?1, 'Old' || ?1, 'Old', 0, 0, ?3, ?2, 'Veteran', 0, 1, NULL, 55, 1700000000000)",
            rusqlite::params![id, generation, created],
        )
        .unwrap();
    }
    drop(db);
    let server = setup.start();
    let board = |generation: &'static str| {
        let (server, key) = (&server, &key);
        async move {
            let (status, b) =
                get(server, key, &format!("/api/v1/leaderboard?generation={generation}&sort=oldest")).await;
            assert_eq!(status, 200, "{b}");
            let ids: Vec<u64> =
                b["players"].as_array().unwrap().iter().map(|p| p["userId"].as_u64().unwrap()).collect();
            assert!(b["players"].as_array().unwrap().iter().all(|p| p["generation"] == generation), "{b}");
            (b["total"].as_u64().unwrap(), ids, b)
        }
    };
    let (total, ids, vets) = board("VETERAN").await;
    assert_eq!((total, ids), (2, vec![1, 4]), "{vets}");
    assert!(vets["players"].as_array().unwrap().iter().all(|p| p["generationLabel"] == "OG"), "{vets}");
    let (total, ids, _) = board("OLDGEN").await;
    assert_eq!((total, ids), (2, vec![2, 3]));
    let (total, ids, _) = board("NEWGEN").await;
    assert_eq!((total, ids), (1, vec![5]));
    let (_, all) = get(&server, &key, "/api/v1/leaderboard").await;
    assert_eq!(all["total"], 5, "{all}");
}

#[tokio::test]
async fn admins_cancel_a_scan() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 80;
        m.member_page_size = Some(10);
    });
    let setup = scan_site(&fake, &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    let admin = crate::common::admin_key(&server);
    let id = start_scan(&server, &key, 7009).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let res = client()
        .post(server.url(&format!("/api/admin/scans/{id}/cancel")))
        .header("x-admin-key", &admin)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let scan = wait_done(&server, &key, id, Duration::from_secs(5)).await;
    assert_eq!(scan["state"], "cancelled");
    let res = client()
        .post(server.url(&format!("/api/admin/scans/{id}/cancel")))
        .header("x-admin-key", &admin)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 409);
    let res = client().post(server.url(&format!("/api/admin/scans/{id}/cancel"))).send().await.unwrap();
    assert_eq!(res.status(), 401);
    // A new scan of the group may start once it is cancelled.
    let (status, _) = post(&server, &key, "/api/v1/scan-group", json!({"groupId": 7009, "scannedBy": "x"})).await;
    assert_eq!(status, 202);
}

/// A key of its own (an anonymous owner's), besides the public one.
async fn another_key(server: &Server, name: &str) -> String {
    let res = client().post(server.url("/api/generate-key")).json(&json!({"name": name})).send().await.unwrap();
    assert_eq!(res.status(), 201);
    json(res).await["apiKey"]["key"].as_str().unwrap().to_string()
}

async fn admin_post(server: &Server, admin: &str, path: &str) -> (u16, Value) {
    let res = client().post(server.url(path)).header("x-admin-key", admin).send().await.unwrap();
    let status = res.status().as_u16();
    (status, json(res).await)
}

#[tokio::test]
async fn only_the_key_that_started_a_scan_or_an_admin_resumes_it_and_an_admins_cancel_holds() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 20;
        m.member_page_size = Some(10);
        m.malformed = vec!["groups/v1/groups/{id}/users".into()];
    });
    let setup = scan_site(&fake, &[]);
    let server = setup.start();
    let owner = public_key(&server).await;
    let other = another_key(&server, "someone else").await;
    let admin = crate::common::admin_key(&server);
    let id = start_scan(&server, &owner, 7020).await;
    let resume = || json!({"scanId": id});
    assert_eq!(wait_done(&server, &owner, id, Duration::from_secs(30)).await["state"], "failed");

    // Another key may not resume the owner's failed scan; the owner may.
    let (status, res) = post(&server, &other, "/api/v1/resume-scan", resume()).await;
    assert_error(status, &res, 403);
    assert!(res["error"].as_str().unwrap().contains("started this scan"), "{res}");
    let (status, res) = post(&server, &owner, "/api/v1/resume-scan", resume()).await;
    assert_eq!(status, 202, "{res}");
    assert_eq!(wait_done(&server, &owner, id, Duration::from_secs(30)).await["state"], "failed");

    // An admin's cancel: the owner may no longer resume, an admin may (its key beside the API key, or the admin route).
    let (status, _) = admin_post(&server, &admin, &format!("/api/admin/scans/{id}/cancel")).await;
    assert_eq!(status, 200);
    for key in [&owner, &other] {
        let (status, res) = post(&server, key, "/api/v1/resume-scan", resume()).await;
        assert_error(status, &res, 403);
    }
    let (_, res) = post(&server, &owner, "/api/v1/resume-scan", resume()).await;
    assert!(res["error"].as_str().unwrap().contains("An admin cancelled"), "{res}");
    let (_, scan) = get(&server, &owner, &format!("/api/v1/scan-status/{id}")).await;
    assert_eq!(scan["scan"]["state"], "cancelled", "the refused resumes changed nothing");

    let res = client()
        .post(server.url("/api/v1/resume-scan"))
        .header("x-api-key", &other)
        .header("x-admin-key", &admin)
        .json(&resume())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202, "an admin resumes with its key: {}", res.text().await.unwrap());
    assert_eq!(wait_done(&server, &owner, id, Duration::from_secs(30)).await["state"], "failed");
    let (status, _) = admin_post(&server, &admin, &format!("/api/admin/scans/{id}/cancel")).await;
    assert_eq!(status, 200);
    let res = client().post(server.url(&format!("/api/admin/scans/{id}/resume"))).send().await.unwrap();
    assert_eq!(res.status(), 401, "the admin route needs an admin");
    let (status, res) = admin_post(&server, &admin, &format!("/api/admin/scans/{id}/resume")).await;
    assert_eq!(status, 202, "{res}");
    assert_eq!(res["scan"]["id"], id);
    let (status, res) = admin_post(&server, &admin, "/api/admin/scans/999999/resume").await;
    assert_error(status, &res, 404);
}

#[tokio::test]
async fn the_scan_queue_is_capped_per_key_and_site_wide_with_a_429_naming_the_cap() {
    let fake = FakeRoblox::start();
    // Large groups at 30 profiles a minute: every scan stays live for the whole test.
    fake.set(|m| {
        m.member_count = 5_000;
        m.member_page_size = Some(10);
    });
    let setup = scan_site(
        &fake,
        &[("queued_per_key = 3", "queued_per_key = 2"), ("queued_site_wide = 20", "queued_site_wide = 3")],
    );
    let server = setup.start();
    let (a, b) = (public_key(&server).await, another_key(&server, "b").await);
    start_scan(&server, &a, 7101).await;
    let second = start_scan(&server, &a, 7102).await;
    let group_calls = fake.calls("groups/v1/groups/{id}");
    let res = client()
        .post(server.url("/api/v1/scan-group"))
        .header("x-api-key", &a)
        .json(&json!({"groupId": 7103, "scannedBy": "tests"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 429);
    assert!(res.headers().get("retry-after").is_some());
    let body = json(res).await;
    assert!(body["error"].as_str().unwrap().contains("limit per key"), "{body}");
    assert_eq!(fake.calls("groups/v1/groups/{id}"), group_calls, "a full queue does not ask Roblox");
    // A group that already has a live scan is answered with it, full queue or not.
    let (status, body) = post(&server, &a, "/api/v1/scan-group", json!({"groupId": 7102, "scannedBy": "x"})).await;
    assert_eq!((status, body["scanId"].as_i64()), (200, Some(second)), "{body}");

    start_scan(&server, &b, 7104).await;
    let (status, body) = post(&server, &b, "/api/v1/scan-group", json!({"groupId": 7105, "scannedBy": "x"})).await;
    assert_error(status, &body, 429);
    assert!(body["error"].as_str().unwrap().contains("site-wide limit"), "{body}");

    // A cancelled scan frees its place.
    let admin = crate::common::admin_key(&server);
    let (status, _) = admin_post(&server, &admin, &format!("/api/admin/scans/{second}/cancel")).await;
    assert_eq!(status, 200);
    start_scan(&server, &b, 7105).await;
}

#[tokio::test]
async fn abuse_reports_are_validated_limited_per_ip_kept_as_text_and_resolved_by_admins() {
    let fake = FakeRoblox::start();
    let setup = scan_site(&fake, &[]);
    let server = setup.start();
    let key = public_key(&server).await;
    let good = json!({"reporterUsername": "Alice_1", "targetUsername": "BadGuy", "reason": "scamming",
        "description": "<script>alert(1)</script>'; DROP TABLE abuse_reports; --", "priority": "high"});
    for (patch, field) in [
        (json!({"reporterUsername": "ab"}), "reporterUsername"),
        (json!({"reporterUsername": "a_b_c"}), "reporterUsername"),
        (json!({"targetUsername": "_abc"}), "targetUsername"),
        (json!({"targetUsername": "<b>x</b>"}), "targetUsername"),
        (json!({"targetUsername": "alice_1"}), "targetUsername"),
        (json!({"reason": "  "}), "reason"),
        (json!({"reason": "x".repeat(101)}), "reason"),
        (json!({"reason": "grief\u{0}ing"}), "reason"),
        (json!({"reason": null}), "reason"),
        (json!({"description": "short"}), "description"),
        (json!({"description": "x".repeat(1001)}), "description"),
        (json!({"priority": "critical"}), "priority"),
    ] {
        let mut body = good.clone();
        for (k, v) in patch.as_object().unwrap() {
            body[k] = v.clone();
        }
        let (status, res) = post(&server, &key, "/api/v1/report-abuse", body).await;
        assert_error(status, &res, 400);
        assert!(res["fields"][field].is_string(), "{patch} -> {res}");
    }
    let (status, res) = post(&server, &key, "/api/v1/report-abuse", good.clone()).await;
    assert_eq!(status, 201, "{res}");
    assert_eq!(res["report"]["description"], good["description"], "kept as text");
    assert_eq!(res["report"]["state"], "open");
    assert_eq!((&res["report"]["reason"], &res["report"]["category"]), (&json!("scamming"), &json!("scamming")));
    let first = res["report"]["id"].as_i64().unwrap();
    // The reason is free text; the category is derived from it (a listed category, else other).
    for (reason, category) in [(" griefing ", "other"), ("Exploiting", "exploiting")] {
        let mut body = good.clone();
        body["reason"] = json!(reason);
        let (status, res) = post(&server, &key, "/api/v1/report-abuse", body).await;
        assert_eq!(status, 201, "{res}");
        assert_eq!((&res["report"]["reason"], &res["report"]["category"]), (&json!(reason.trim()), &json!(category)));
    }
    for _ in 0..2 {
        let (status, _) = post(&server, &key, "/api/v1/report-abuse", good.clone()).await;
        assert_eq!(status, 201);
    }
    let res =
        client().post(server.url("/api/v1/report-abuse")).header("x-api-key", &key).json(&good).send().await.unwrap();
    assert_eq!(res.status(), 429, "5 an hour per IP");
    assert!(res.headers().contains_key("retry-after"));

    let admin = crate::common::admin_key(&server);
    let list = json(
        client()
            .get(server.url("/api/admin/abuse-reports?state=open"))
            .header("x-admin-key", &admin)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(list["total"], 5, "{list}");
    assert_eq!(list["open"], 5);
    assert_eq!(list["reports"][4]["description"], good["description"]);
    let res = client()
        .patch(server.url(&format!("/api/admin/abuse-reports/{first}")))
        .header("x-admin-key", &admin)
        .json(&json!({"state": "resolved", "note": "Banned in game"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let changed = json(res).await;
    assert_eq!(changed["report"]["state"], "resolved");
    assert!(changed["report"]["resolvedAt"].is_string());
    for (id, body, want) in [
        (first, json!({"state": "burned"}), 400),
        (first, json!({"state": "open", "note": "x".repeat(501)}), 400),
        (999_999, json!({"state": "open"}), 404),
    ] {
        let res = client()
            .patch(server.url(&format!("/api/admin/abuse-reports/{id}")))
            .header("x-admin-key", &admin)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), want);
    }
    let list =
        json(client().get(server.url("/api/admin/abuse-reports")).header("x-admin-key", &admin).send().await.unwrap())
            .await;
    assert_eq!((list["total"].as_u64(), list["open"].as_u64()), (Some(5), Some(4)));
    let res = client()
        .get(server.url("/api/admin/abuse-reports?state=weird"))
        .header("x-admin-key", &admin)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let res = client().get(server.url("/api/admin/abuse-reports")).send().await.unwrap();
    assert_eq!(res.status(), 401);
}

/// `[[scans.schedule]]` queues a group's scan again once its newest is old enough, and each
/// finished scheduled scan posts one message to `[scans] webhook`: the first says every member
/// is new, the next counts only those who joined since.
#[tokio::test]
async fn scheduled_scans_run_again_and_tell_the_sites_webhook_who_is_new() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 4;
        m.award_dates_need_cookie = false;
    });
    let discord = crate::common::fake_discord::FakeDiscord::start().await;
    let hook = "https://discord.com/api/webhooks/223456789012345678/aB3_dE-fGhIjKlMnOpQrStUvWxYz0123456789aBcDe";
    let schedule = format!(
        "queued_site_wide = 20\nwebhook = \"{hook}\"\n[[scans.schedule]]\ngroup_id = 4242\nevery_hours = 0.002\n"
    );
    let setup = SiteSetup::with_roblox(
        &fake.template(),
        1000,
        FAST.iter().chain(&[("queued_site_wide = 20\n", schedule.as_str())]),
        &[("FANHUB_DISCORD_API", discord.base.as_str())],
    );
    let server = setup.start();
    let messages = || -> Vec<String> {
        discord
            .webhooks()
            .into_iter()
            .filter(|(_, path, _)| path.contains("223456789012345678"))
            .map(|(_, _, body)| body["embeds"][0]["description"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let start = Instant::now();
    while messages().is_empty() {
        assert!(start.elapsed() < Duration::from_secs(30), "the first scheduled scan announced: {}", server.stderr());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let first = messages()[0].clone();
    assert!(first.starts_with("4 members checked. First scan of this group: "), "{first}");
    // Two members join; the next scheduled scan (7.2 s after the first) says so.
    fake.set(|m| m.member_count = 6);
    while messages().len() < 2 {
        assert!(start.elapsed() < Duration::from_secs(60), "the second scheduled scan announced");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let second = messages()[1].clone();
    assert!(second.starts_with("6 members checked. 2 new since the last scan: "), "{second}");
    // Each announced once.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let all = messages();
    assert_eq!(all.iter().filter(|m| m.contains("First scan")).count(), 1, "{all:?}");
}
