//! The admin lists paged by key (users, sign-in attempts, abuse reports, advertisements): every
//! row once across pages while rows arrive, the filters, hostile parameters, and compression of
//! large answers for clients that ask.

use reqwest::StatusCode;
use serde_json::Value;

use crate::common::{Server, admin_key, client, json};

/// Adds accounts the way registration stores them (the password hash is never read here).
fn add_users(server: &Server, names: &[String], role: &str, active: bool) {
    let conn = rusqlite::Connection::open(server.data_dir.join("fanhub.db")).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    for name in names {
        conn.execute(
            "INSERT INTO users (username, password_hash, role, is_active, created_at) VALUES (?1, 'x', ?2, ?3, 1)",
            rusqlite::params![name, role, active],
        )
        .unwrap();
    }
}

async fn get(server: &Server, key: &str, path: &str) -> reqwest::Response {
    client().get(server.url(path)).header("x-admin-key", key).send().await.unwrap()
}

/// Every page of `path` (with its filters) from the first, `between` run after each.
async fn walk(server: &Server, key: &str, path: &str, items: &str, mut between: impl FnMut(usize)) -> Vec<Value> {
    let (mut all, mut cursor, mut pages) = (Vec::new(), None::<String>, 0);
    loop {
        let sep = if path.contains('?') { '&' } else { '?' };
        let url = match &cursor {
            Some(c) => format!("{path}{sep}cursor={c}"),
            None => path.to_string(),
        };
        let page = json(get(server, key, &url).await).await;
        all.extend(page[items].as_array().unwrap_or_else(|| panic!("{url}: {page}")).iter().cloned());
        between(pages);
        pages += 1;
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => {
                assert!(page["nextCursor"].is_null(), "{page}");
                return all;
            }
        }
    }
}

fn names(items: &[Value]) -> Vec<String> {
    items.iter().map(|u| u["username"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn users_are_paged_by_key_with_search_and_filters_and_hostile_parameters_get_a_400() {
    let s = Server::start();
    let key = admin_key(&s);
    let members: Vec<String> = (0..45).map(|i| format!("member{i:02}")).collect();
    add_users(&s, &members, "user", true);
    add_users(&s, &["Starlight".into(), "star_fan".into(), "STARBOARD".into(), "rockstar".into()], "user", true);
    add_users(&s, &["mod_one".into(), "mod_two".into()], "moderator", false);
    add_users(&s, &["boss".into()], "admin", true);

    // Oldest first, each account once, with the ones that signed up between pages at the end.
    let mut late = 0;
    let seen = walk(&s, &key, "/api/admin/users?limit=20", "users", |page| {
        if page < 2 {
            add_users(&s, &[format!("late{page}")], "user", true);
            late += 1;
        }
    })
    .await;
    let ids: Vec<i64> = seen.iter().map(|u| u["id"].as_i64().unwrap()).collect();
    assert_eq!(ids.len(), 52 + late, "{:?}", names(&seen));
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "oldest first, none twice: {ids:?}");
    assert_eq!(names(&seen)[..45], members[..]);

    let first = json(get(&s, &key, "/api/admin/users").await).await;
    assert_eq!(first["users"].as_array().unwrap().len(), 20, "20 by default");
    assert_eq!(
        first["counts"],
        serde_json::json!({"total": 54, "active": 52, "admins": 1, "adminsWithSecondFactor": 0})
    );
    assert!(first["throttled"].is_array() && first["secondFactors"].is_array(), "{first}");
    assert_eq!(first["secondFactorRequired"], false);

    // The search: names that begin with it, any case, A to Z, paged by name.
    let found = walk(&s, &key, "/api/admin/users?q=STAR&limit=2", "users", |_| {}).await;
    assert_eq!(names(&found), ["star_fan", "STARBOARD", "Starlight"], "NOCASE order: _ before letters");
    let found = walk(&s, &key, "/api/admin/users?role=moderator&status=suspended&limit=1", "users", |_| {}).await;
    assert_eq!(names(&found), ["mod_one", "mod_two"]);
    let found = walk(&s, &key, "/api/admin/users?role=admin", "users", |_| {}).await;
    assert_eq!(names(&found), ["boss"]);
    let found = walk(&s, &key, "/api/admin/users?q=mod&status=active", "users", |_| {}).await;
    assert!(found.is_empty());

    let name_cursor = json(get(&s, &key, "/api/admin/users?q=star&limit=1").await).await["nextCursor"].clone();
    let name_cursor = name_cursor.as_str().unwrap().to_string();
    let long_q = "x".repeat(101);
    for (query, field) in [
        ("limit=-1", "limit"),
        ("limit=0", "limit"),
        ("limit=1e9", "limit"),
        ("limit=1000000000", "limit"),
        ("limit=abc", "limit"),
        ("cursor=abc", "cursor"),
        ("cursor=-5", "cursor"),
        ("cursor=n.%21%21%21", "cursor"),
        (&format!("cursor={name_cursor}"), "cursor"),
        ("q=star&cursor=20", "cursor"),
        (&format!("q={long_q}"), "q"),
        ("role=god", "role"),
        ("status=maybe", "status"),
    ] {
        let res = get(&s, &key, &format!("/api/admin/users?{query}")).await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{query}");
        let body = json(res).await;
        assert!(body["fields"][field].is_string(), "{query}: {body}");
    }
}

#[tokio::test]
async fn sign_ins_reports_and_advertisements_are_paged_by_key_and_refuse_bad_cursors() {
    let s = Server::start();
    let key = admin_key(&s);
    let conn = rusqlite::Connection::open(s.data_dir.join("fanhub.db")).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    // Recent attempts: the sweep of attempts older than 180 days may run at any moment.
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    for i in 0..25 {
        let status = if i % 5 == 0 { "success" } else { "failure" };
        conn.execute(
            "INSERT INTO login_logs (username, ip_address, user_agent, status, created_at) VALUES (?1, '192.0.2.0', 'ua', ?2, ?3)",
            rusqlite::params![format!("who{i:02}"), status, now_ms - 25_000 + i * 1_000],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO abuse_reports (reporter_username, target_username, reason, description, priority, state, created_at)
             VALUES ('a', ?1, 'scamming', 'd', 'low', ?2, 1)",
            rusqlite::params![format!("t{i:02}"), if i < 5 { "resolved" } else { "open" }],
        )
        .unwrap();
    }

    let logs = walk(&s, &key, "/api/admin/login-logs?limit=10", "logs", |_| {}).await;
    let ids: Vec<i64> = logs.iter().map(|l| l["id"].as_i64().unwrap()).collect();
    assert!(ids.len() >= 25 && ids.windows(2).all(|w| w[0] > w[1]), "newest first, none twice: {ids:?}");
    let successes = walk(&s, &key, "/api/admin/login-logs?status=success&limit=2", "logs", |_| {}).await;
    assert_eq!(names(&successes), ["who20", "who15", "who10", "who05", "who00"]);
    let page = json(get(&s, &key, "/api/admin/login-logs?status=success&limit=2").await).await;
    assert_eq!((page["total"].as_i64(), page["limit"].as_i64()), (Some(5), Some(2)), "{page}");

    let reports = walk(&s, &key, "/api/admin/abuse-reports?limit=7", "reports", |_| {}).await;
    assert_eq!(reports.len(), 25);
    let resolved = walk(&s, &key, "/api/admin/abuse-reports?state=Resolved&limit=2", "reports", |_| {}).await;
    let targets: Vec<&str> = resolved.iter().map(|r| r["targetUsername"].as_str().unwrap()).collect();
    assert_eq!(targets, ["t04", "t03", "t02", "t01", "t00"]);
    let page = json(get(&s, &key, "/api/admin/abuse-reports?limit=3").await).await;
    assert_eq!(
        (page["total"].as_u64(), page["open"].as_u64(), page["success"].as_bool()),
        (Some(25), Some(20), Some(true))
    );

    let ads = json(get(&s, &key, "/api/admin/advertisements?limit=5").await).await;
    assert!(ads["applications"].as_array().unwrap().is_empty() && ads["nextCursor"].is_null(), "{ads}");

    for path in ["/api/admin/login-logs", "/api/admin/abuse-reports", "/api/admin/advertisements"] {
        for (query, field) in
            [("limit=-1", "limit"), ("limit=1e9", "limit"), ("cursor=x1", "cursor"), ("cursor=0", "cursor")]
        {
            let res = get(&s, &key, &format!("{path}?{query}")).await;
            assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{path}?{query}");
            assert!(json(res).await["fields"][field].is_string(), "{path}?{query}");
        }
    }
    for path in ["/api/admin/login-logs?page=2", "/api/admin/abuse-reports?page=3", "/api/admin/login-logs?status=nope"]
    {
        assert_eq!(get(&s, &key, path).await.status(), StatusCode::BAD_REQUEST, "{path}");
    }
    assert_eq!(
        get(&s, &key, "/api/admin/login-logs?page=1").await.status(),
        StatusCode::OK,
        "page 1 is the first page"
    );
}

#[tokio::test]
async fn large_answers_are_compressed_for_clients_that_ask_and_small_polled_ones_are_not() {
    let s = Server::start();
    let key = admin_key(&s);
    add_users(&s, &(0..40).map(|i| format!("reader{i:02}")).collect::<Vec<_>>(), "user", true);

    let plain = get(&s, &key, "/api/admin/users?limit=100").await;
    assert!(plain.headers().get("content-encoding").is_none(), "nothing asked, nothing compressed");
    let plain = plain.bytes().await.unwrap();
    assert!(plain.len() > 4_000, "{} bytes", plain.len());

    let res = client()
        .get(s.url("/api/admin/users?limit=100"))
        .header("x-admin-key", &key)
        .header("accept-encoding", "br")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-encoding"], "br");
    let packed = res.bytes().await.unwrap();
    let mut unpacked = Vec::new();
    std::io::Read::read_to_end(&mut brotli::Decompressor::new(&packed[..], 4096), &mut unpacked).unwrap();
    let (a, b): (Value, Value) = (serde_json::from_slice(&unpacked).unwrap(), serde_json::from_slice(&plain).unwrap());
    assert_eq!(a["users"], b["users"], "the same answer");
    assert!(packed.len() * 4 < plain.len(), "{} bytes compressed to {}", plain.len(), packed.len());

    let res = client()
        .get(s.url("/api/admin/users?limit=100"))
        .header("x-admin-key", &key)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["content-encoding"], "gzip");

    // Small answers, and the ones polled every few seconds, go as they are.
    for path in ["/api/admin/users?limit=1", "/api/health", "/api/stats", "/api/admin/active-banner"] {
        let res = client()
            .get(s.url(path))
            .header("x-admin-key", &key)
            .header("accept-encoding", "gzip, br")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert!(res.headers().get("content-encoding").is_none(), "{path} is small or polled");
    }
}

/// The figures of the Users tab on 50,000 accounts (`cargo nextest run --cargo-profile ci --test
/// testsuite --run-ignored only fifty_thousand`): the first page's time and size, plain and
/// compressed, a search, a page deep in the list, and what the unpaged answer of before was (its
/// size exactly, from every page joined; its time as the same query and serialization in-process).
#[tokio::test]
#[ignore = "a measurement: prints figures, takes about 20 s"]
async fn fifty_thousand_accounts_first_page_figures() {
    use std::time::{Duration, Instant};
    let s = Server::start();
    let key = admin_key(&s);
    {
        let mut conn = rusqlite::Connection::open(s.data_dir.join("fanhub.db")).unwrap();
        conn.busy_timeout(Duration::from_secs(5)).unwrap();
        let tx = conn.transaction().unwrap();
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO users (username, password_hash, email, role, is_active, created_at, last_login)
                     VALUES (?1, '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNoaGFzaGhhc2g', ?2, ?3, ?4, ?5, ?6)",
                )
                .unwrap();
            for i in 0..50_000_i64 {
                let name = format!("{}{}_{i}", ["Star", "Block", "Admin", "Voter", "Fan"][(i % 5) as usize], i % 997);
                let role = if i % 10_000 == 0 {
                    "admin"
                } else if i % 500 == 0 {
                    "moderator"
                } else {
                    "user"
                };
                let email = (i % 3 == 0).then(|| format!("{name}@example.com"));
                let at = 1_700_000_000_000 + i * 600_000;
                insert
                    .execute(rusqlite::params![name, email, role, i % 50 != 0, at, (i % 2 == 0).then_some(at + 1)])
                    .unwrap();
            }
        }
        tx.commit().unwrap();
    }
    let c = client();
    let time = |path: &'static str, encoding: Option<&'static str>| {
        let (c, key, url) = (c.clone(), key.clone(), s.url(path));
        async move {
            let mut times = Vec::new();
            let mut size = 0;
            for _ in 0..31 {
                let mut req = c.get(&url).header("x-admin-key", &key);
                if let Some(e) = encoding {
                    req = req.header("accept-encoding", e);
                }
                let start = Instant::now();
                let res = req.send().await.unwrap();
                assert_eq!(res.status(), StatusCode::OK, "{url}");
                size = res.bytes().await.unwrap().len();
                times.push(start.elapsed());
            }
            times.sort();
            (times[times.len() / 2], size)
        }
    };
    let mut last = json(get(&s, &key, "/api/admin/users?limit=100").await).await;
    let mut all_users: Vec<Value> = last["users"].as_array().unwrap().clone();
    while let Some(next) = last["nextCursor"].as_str().map(str::to_string) {
        last = json(get(&s, &key, &format!("/api/admin/users?limit=100&cursor={next}")).await).await;
        all_users.extend(last["users"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(all_users.len(), 50_000);
    let before_body = serde_json::to_vec(&serde_json::json!({
        "users": all_users, "throttled": [], "secondFactors": [], "secondFactorRequired": false
    }))
    .unwrap();
    // Before: every account, read and serialized as the unpaged handler did.
    let conn = rusqlite::Connection::open(s.data_dir.join("fanhub.db")).unwrap();
    let mut before_times = Vec::new();
    for _ in 0..11 {
        let start = Instant::now();
        let mut stmt = conn
            .prepare(
                "SELECT id, username, email, roblox_id, role, is_active, created_at, last_login FROM users ORDER BY id",
            )
            .unwrap();
        let rows: Vec<Value> = stmt
            .query_map([], |r| {
                Ok(serde_json::json!({"id": r.get::<_, i64>(0)?, "username": r.get::<_, String>(1)?,
                    "email": r.get::<_, Option<String>>(2)?, "robloxId": r.get::<_, Option<String>>(3)?,
                    "role": r.get::<_, String>(4)?, "isActive": r.get::<_, bool>(5)?,
                    "createdAt": r.get::<_, i64>(6)?, "lastLogin": r.get::<_, Option<i64>>(7)?}))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let body = serde_json::to_vec(&serde_json::json!({"users": rows})).unwrap();
        assert!(body.len() > 1_000_000);
        before_times.push(start.elapsed());
    }
    before_times.sort();
    let (first, first_size) = time("/api/admin/users", None).await;
    let (_, first_br) = time("/api/admin/users", Some("br")).await;
    let (full, full_size) = time("/api/admin/users?limit=100", None).await;
    let (_, full_gzip) = time("/api/admin/users?limit=100", Some("gzip")).await;
    let (search, search_size) = time("/api/admin/users?q=star1", None).await;
    let (filtered, _) = time("/api/admin/users?role=user&status=suspended", None).await;
    let deep_path: &'static str = Box::leak(format!("/api/admin/users?cursor={}", 49_990).into_boxed_str());
    let (deep, _) = time(deep_path, None).await;
    println!(
        "50,000 accounts (medians of 31 requests, loopback):\n\
         before (unpaged, every account): {} bytes; query + serialization in-process {:?}\n\
         first page (20): {first:?}, {first_size} bytes ({first_br} with br)\n\
         page of 100: {full:?}, {full_size} bytes ({full_gzip} with gzip)\n\
         search q=star1: {search:?}, {search_size} bytes; role=user&status=suspended: {filtered:?}; page at id 49,990: {deep:?}",
        before_body.len(),
        before_times[before_times.len() / 2],
    );
    assert!(first < Duration::from_millis(50), "the first page answers in {first:?}");
}
