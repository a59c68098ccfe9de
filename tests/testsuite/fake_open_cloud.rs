//! The fake Roblox's Open Cloud endpoints (tests/common/fake_roblox.rs), talked to over HTTP
//! directly: what fanhub's Open Cloud client and the benchmarks rely on the fake to do.

use std::time::Duration;

use crate::common::client;
use crate::common::fake_roblox::{self, FAKE_OPEN_CLOUD_KEY, FakeRoblox};
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

struct Answer {
    status: u16,
    headers: HeaderMap,
    body: Value,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or_else(|| panic!("no Open Cloud error code: {}", self.body))
    }
}

/// GET `path` (from `/`) with `key` as `x-api-key`; a body that is not JSON comes back as a string.
async fn get_with(fake: &FakeRoblox, path: &str, key: Option<&str>) -> Answer {
    let mut req = client().get(format!("{}{path}", fake.open_cloud_api())).timeout(Duration::from_secs(2));
    if let Some(key) = key {
        req = req.header("x-api-key", key);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let text = res.text().await.unwrap();
    Answer { status, headers, body: serde_json::from_str(&text).unwrap_or(Value::String(text)) }
}

async fn cloud(fake: &FakeRoblox, path: &str) -> Answer {
    get_with(fake, path, Some(FAKE_OPEN_CLOUD_KEY)).await
}

/// User ids of `names`, through the legacy username lookup (which registers them with the fake).
async fn ids(fake: &FakeRoblox, names: &[&str]) -> Vec<u64> {
    let res = client()
        .post(format!("{}/users/v1/usernames/users", fake.base))
        .json(&json!({"usernames": names}))
        .send()
        .await
        .unwrap();
    let body: Value = res.json().await.unwrap();
    let data = body["data"].as_array().unwrap();
    assert_eq!(data.len(), names.len(), "{body}");
    data.iter().map(|u| u["id"].as_u64().unwrap()).collect()
}

fn badge_ids(answer: &Answer) -> Vec<u64> {
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.body["inventoryItems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["badgeDetails"]["badgeId"].as_str().expect("badgeId is a string").parse().unwrap())
        .collect()
}

fn next_token(answer: &Answer) -> String {
    answer.body["nextPageToken"].as_str().expect("nextPageToken is a string").to_string()
}

fn id_list(ids: impl IntoIterator<Item = u64>) -> String {
    ids.into_iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",")
}

#[tokio::test]
async fn the_key_is_checked_before_anything_else() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.down = true);
    for path in [
        "/cloud/v2/users/5",
        "/cloud/v2/users/5/inventory-items",
        "/cloud/v2/groups/7",
        "/cloud/v2/groups/7/memberships",
    ] {
        let missing = get_with(&fake, path, None).await;
        assert_eq!((missing.status, missing.code()), (401, "UNAUTHENTICATED"), "{path}");
        assert_eq!(missing.body["message"], "Invalid API Key");
        let wrong = get_with(&fake, path, Some("not-the-key")).await;
        assert_eq!((wrong.status, wrong.code()), (401, "UNAUTHENTICATED"), "{path}");
        let down = cloud(&fake, path).await;
        assert_eq!((down.status, down.code()), (503, "UNAVAILABLE"), "the right key gets past the check: {path}");
    }
    fake.set(|m| {
        m.down = false;
        m.open_cloud_key_forbidden = true;
    });
    let forbidden = cloud(&fake, "/cloud/v2/users/5").await;
    assert_eq!((forbidden.status, forbidden.code()), (403, "PERMISSION_DENIED"));
    assert_eq!(forbidden.body["message"], "This API key is not allowed from this IP address.");
    assert!(forbidden.header("x-ratelimit-limit").is_none(), "refused keys spend no budget");
    assert_eq!(get_with(&fake, "/cloud/v2/users/5", Some("not-the-key")).await.status, 401);

    assert_eq!(fake.calls(fake_roblox::CLOUD_USER), 5);
    assert_eq!(fake.key_calls(fake_roblox::CLOUD_USER), 4, "all but the call without a key");
    assert_eq!(fake.key_calls(fake_roblox::CLOUD_GROUP), 2);

    fake.set(|m| {
        m.open_cloud_key_forbidden = false;
        m.open_cloud_key = None;
    });
    assert_eq!(get_with(&fake, "/cloud/v2/users/5", Some("any-key")).await.status, 200, "null accepts any key");
    assert_eq!(get_with(&fake, "/cloud/v2/users/5", None).await.status, 401, "but one is needed");
    let calls: Value = client().get(format!("{}/_fake/calls", fake.base)).send().await.unwrap().json().await.unwrap();
    assert_eq!(calls["withKey"][fake_roblox::CLOUD_USER], 5, "{calls}");
}

#[tokio::test]
async fn users_have_the_open_cloud_shape() {
    let fake = FakeRoblox::start();
    let [vet] = ids(&fake, &["VetAlice"]).await[..] else { unreachable!() };
    let user = cloud(&fake, &format!("/cloud/v2/users/{vet}")).await;
    assert_eq!(user.status, 200);
    assert_eq!(
        user.body,
        json!({"path": format!("users/{vet}"), "createTime": "2012-03-04T10:20:30.4567891Z", "id": vet.to_string(),
            "name": "VetAlice", "displayName": "VetAlice Display", "about": "Hi, I am VetAlice.", "locale": "en-us",
            "premium": false, "idVerified": false})
    );
    assert_eq!(user.header("x-ratelimit-limit"), Some("1000, 1000;w=60"));

    let bad = cloud(&fake, "/cloud/v2/users/abc").await;
    assert_eq!((bad.status, bad.code()), (400, "INVALID_ARGUMENT"));
    let unknown = cloud(&fake, "/cloud/v2/users/7404").await;
    assert_eq!((unknown.status, unknown.code()), (404, "NOT_FOUND"));
    assert!(unknown.header("x-ratelimit-remaining").is_some(), "errors carry the limit headers too");

    fake.set(|m| m.cloud_odd_dates = true);
    let odd = cloud(&fake, &format!("/cloud/v2/users/{vet}")).await;
    assert_eq!(odd.body["createTime"], "03/04/2012 10:20:30");
    fake.set(|m| m.cloud_no_create_time = true);
    let none = cloud(&fake, &format!("/cloud/v2/users/{vet}")).await;
    assert!(none.body.get("createTime").is_none(), "{}", none.body);
    assert_eq!(none.body["name"], "VetAlice");
}

#[tokio::test]
async fn inventories_answer_owned_badges_by_filter() {
    let fake = FakeRoblox::start();
    let [vet, elc, plain, nobadge, private, closed] =
        ids(&fake, &["VetAlice", "ElcBob", "PlainCarl", "NobadgeDan", "PrivateEve", "ClosedFay"]).await[..]
    else {
        unreachable!()
    };
    let inventory = |id: u64, query: &str| format!("/cloud/v2/users/{id}/inventory-items?{query}");

    let all = cloud(&fake, &inventory(vet, "filter=badgeIds=11,12,13&maxPageSize=100")).await;
    assert_eq!(badge_ids(&all), [11, 12, 13]);
    assert_eq!(next_token(&all), "");
    let first = &all.body["inventoryItems"][0];
    assert!(first["path"].as_str().unwrap().starts_with(&format!("users/{vet}/inventory-items/")), "{first}");
    assert_eq!(first["addTime"], "2013-01-10T08:30:30.604Z");
    assert_eq!(all.body["inventoryItems"][1]["addTime"], "2013-02-11T08:30:30.604Z");
    let encoded = cloud(&fake, &inventory(vet, "filter=badgeIds%3D11%2C12%2C13")).await;
    assert_eq!(badge_ids(&encoded), [11, 12, 13], "an encoded filter means the same");

    assert_eq!(badge_ids(&cloud(&fake, &inventory(elc, "filter=badgeIds=5,6")).await), [5]);
    assert_eq!(badge_ids(&cloud(&fake, &inventory(plain, "filter=badgeIds=5,900001")).await), [900001]);
    assert_eq!(badge_ids(&cloud(&fake, &inventory(nobadge, "filter=badgeIds=5,900001")).await), Vec::<u64>::new());

    assert_eq!(
        badge_ids(&cloud(&fake, &inventory(elc, "filter=badges=true")).await),
        [5, 900001, 900002],
        "the ELC badge among the ids last asked about, and the ordinary ones"
    );
    assert_eq!(badge_ids(&cloud(&fake, &inventory(plain, "filter=badges%3Dtrue")).await), [900001, 900002]);
    assert_eq!(badge_ids(&cloud(&fake, &inventory(nobadge, "filter=badges=true")).await), Vec::<u64>::new());

    let refused = cloud(&fake, &inventory(private, "filter=badgeIds=5")).await;
    assert_eq!((refused.status, refused.code()), (403, "PERMISSION_DENIED"));
    assert_eq!(refused.body["message"], "The user's inventory is not visible to the caller.");
    for query in ["filter=badgeIds=900001", "filter=badges=true"] {
        let empty = cloud(&fake, &inventory(closed, query)).await;
        assert_eq!(badge_ids(&empty), Vec::<u64>::new(), "{query}");
    }
    let unknown = cloud(&fake, &inventory(9404, "filter=badgeIds=5")).await;
    assert_eq!((unknown.status, unknown.code()), (404, "NOT_FOUND"));

    let too_many = cloud(&fake, &inventory(vet, &format!("filter=badgeIds={}", id_list(1..=101)))).await;
    assert_eq!((too_many.status, too_many.code()), (400, "INVALID_ARGUMENT"));
    assert_eq!(
        badge_ids(&cloud(&fake, &inventory(vet, &format!("filter=badgeIds={}", id_list(1..=100)))).await).len(),
        25
    );
    fake.set(|m| m.max_filter_ids = 3);
    assert_eq!(cloud(&fake, &inventory(vet, "filter=badgeIds=1,2,3,4")).await.status, 400);
    assert_eq!(cloud(&fake, &inventory(vet, "filter=badgeIds=1,2,3")).await.status, 200);
    for bad in ["filter=badgeIds=1,x", "filter=badgeIds=", "filter=assetIds=1", "filter=badges=false"] {
        let answer = cloud(&fake, &inventory(vet, bad)).await;
        assert_eq!((answer.status, answer.code()), (400, "INVALID_ARGUMENT"), "{bad}");
    }
}

#[tokio::test]
async fn inventories_page_with_tokens_of_their_own_query() {
    let fake = FakeRoblox::start();
    let [vet, other] = ids(&fake, &["VetAlice", "OgBob"]).await[..] else { unreachable!() };
    let filter = format!("filter=badgeIds={}", id_list(1..=60));
    let mut seen = Vec::new();
    let mut token = String::new();
    let mut pages = 0;
    loop {
        let page =
            cloud(&fake, &format!("/cloud/v2/users/{vet}/inventory-items?{filter}&maxPageSize=25&pageToken={token}"))
                .await;
        seen.extend(badge_ids(&page));
        pages += 1;
        token = next_token(&page);
        if token.is_empty() {
            break;
        }
        assert!(pages < 10, "the pages end");
    }
    assert_eq!(pages, 3);
    assert_eq!(seen, (1..=60).collect::<Vec<_>>());

    let first = cloud(&fake, &format!("/cloud/v2/users/{vet}/inventory-items?{filter}&maxPageSize=25")).await;
    let token = next_token(&first);
    for (query, why) in [
        (format!("/cloud/v2/users/{vet}/inventory-items?filter=badgeIds=1,2&pageToken={token}"), "another filter"),
        (format!("/cloud/v2/users/{other}/inventory-items?{filter}&pageToken={token}"), "another user"),
        (format!("/cloud/v2/users/{vet}/inventory-items?{filter}&pageToken=garbage"), "garbage"),
    ] {
        let answer = cloud(&fake, &query).await;
        assert_eq!((answer.status, answer.code()), (400, "INVALID_ARGUMENT"), "{why}");
    }
    let default = cloud(&fake, &format!("/cloud/v2/users/{vet}/inventory-items?{filter}")).await;
    assert_eq!(badge_ids(&default).len(), 25, "25 without maxPageSize");
    let capped = cloud(&fake, &format!("/cloud/v2/users/{vet}/inventory-items?{filter}&maxPageSize=500")).await;
    assert_eq!(badge_ids(&capped).len(), 60, "above 100 means 100");
    for size in ["0", "-3", "abc"] {
        let answer = cloud(&fake, &format!("/cloud/v2/users/{vet}/inventory-items?{filter}&maxPageSize={size}")).await;
        assert_eq!((answer.status, answer.code()), (400, "INVALID_ARGUMENT"), "maxPageSize={size}");
    }
}

#[tokio::test]
async fn hostile_inventory_pages() {
    let fake = FakeRoblox::start();
    let [vet] = ids(&fake, &["VetAlice"]).await[..] else { unreachable!() };
    fake.set(|m| m.cloud_repeat_page_token = true);
    let path = format!("/cloud/v2/users/{vet}/inventory-items?filter=badgeIds=1");
    let first = cloud(&fake, &path).await;
    assert_eq!(badge_ids(&first), [1]);
    let token = next_token(&first);
    assert!(!token.is_empty(), "a token even for one item");
    let again = cloud(&fake, &format!("{path}&pageToken={token}")).await;
    assert_eq!(next_token(&again), token, "the same token for ever");

    fake.set(|m| {
        m.cloud_repeat_page_token = false;
        m.cloud_huge_page = Some(500);
    });
    let huge = cloud(&fake, &format!("/cloud/v2/users/{vet}/inventory-items?filter=badgeIds=1,2&maxPageSize=10")).await;
    let got = badge_ids(&huge);
    assert_eq!(got.len(), 502);
    assert_eq!(got[..2], [800000, 800001]);
    assert_eq!(got[500..], [1, 2], "the real badges are in the page too");
    assert_eq!(next_token(&huge), "");
}

#[tokio::test]
async fn groups_and_memberships_match_the_legacy_group() {
    let fake = FakeRoblox::start();
    fake.set(|m| m.member_count = 60);
    let group = cloud(&fake, "/cloud/v2/groups/7").await;
    assert_eq!(
        group.body,
        json!({"path": "groups/7", "createTime": "2015-01-01T00:00:00Z", "updateTime": "2020-01-01T00:00:00Z",
            "id": "7", "displayName": "Fake Group 7", "description": "A group of the fake Roblox.", "owner": "users/77",
            "memberCount": 60, "publicEntryAllowed": true, "locked": false, "verified": false})
    );
    assert_eq!(group.header("x-ratelimit-limit"), Some("150, 150;w=60"));
    assert_eq!(cloud(&fake, "/cloud/v2/groups/1500").await.body["memberCount"], 0);
    let missing = cloud(&fake, "/cloud/v2/groups/2404").await;
    assert_eq!((missing.status, missing.code()), (404, "NOT_FOUND"));
    assert_eq!(cloud(&fake, "/cloud/v2/groups/x").await.status, 400);

    let legacy: Value = client()
        .get(format!("{}/groups/v1/groups/7/users?limit=100", fake.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let legacy_users: Vec<String> =
        legacy["data"].as_array().unwrap().iter().map(|m| format!("users/{}", m["user"]["userId"])).collect();
    assert_eq!(legacy_users.len(), 60);

    let mut users = Vec::new();
    let mut token = String::new();
    let mut pages = 0;
    loop {
        let page = cloud(&fake, &format!("/cloud/v2/groups/7/memberships?maxPageSize=25&pageToken={token}")).await;
        assert_eq!(page.status, 200, "{}", page.body);
        assert_eq!(page.header("x-ratelimit-limit"), Some("300, 300;w=60"));
        let items = page.body["groupMemberships"].as_array().unwrap();
        if pages == 0 {
            assert_eq!(items[0]["role"], "groups/7/roles/255");
            assert_eq!(items[1]["role"], "groups/7/roles/1");
            assert!(items[0]["path"].as_str().unwrap().starts_with("groups/7/memberships/"));
            assert_eq!(items[0]["createTime"], "2020-01-01T00:00:00Z");
        }
        users.extend(items.iter().map(|m| m["user"].as_str().unwrap().to_string()));
        pages += 1;
        token = next_token(&page);
        if token.is_empty() {
            break;
        }
        assert!(pages < 10, "the pages end");
    }
    assert_eq!(pages, 3);
    assert_eq!(users, legacy_users, "the same members in the same order");
    let first_member = cloud(&fake, &format!("/cloud/v2/{}", users[0])).await;
    assert_eq!(first_member.body["name"], "Vet7x0", "members can be looked up by id");

    fake.set(|m| m.member_page_size = Some(7));
    let capped = cloud(&fake, "/cloud/v2/groups/7/memberships?maxPageSize=25").await;
    assert_eq!(capped.body["groupMemberships"].as_array().unwrap().len(), 7);
    let other_group_token = next_token(&cloud(&fake, "/cloud/v2/groups/8/memberships").await);
    let bad = cloud(&fake, &format!("/cloud/v2/groups/7/memberships?pageToken={other_group_token}")).await;
    assert_eq!((bad.status, bad.code()), (400, "INVALID_ARGUMENT"));

    let private = cloud(&fake, "/cloud/v2/groups/3403/memberships").await;
    assert_eq!((private.status, private.code()), (403, "PERMISSION_DENIED"));
    let missing = cloud(&fake, "/cloud/v2/groups/3404/memberships").await;
    assert_eq!((missing.status, missing.code()), (404, "NOT_FOUND"));
    let empty = cloud(&fake, "/cloud/v2/groups/3500/memberships").await;
    assert_eq!(empty.body, json!({"groupMemberships": [], "nextPageToken": ""}));
}

#[tokio::test]
async fn hostile_membership_pages() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.member_count = 60;
        m.cloud_repeat_page_token = true;
        m.cloud_bad_member_user = true;
    });
    let first = cloud(&fake, "/cloud/v2/groups/7/memberships?maxPageSize=25").await;
    let users: Vec<&str> =
        first.body["groupMemberships"].as_array().unwrap().iter().map(|m| m["user"].as_str().unwrap()).collect();
    assert_eq!((users[6], users[13], users[10], users[21]), ("users/abc", "users/abc", "groups/5", "groups/5"));
    assert!(users[0].starts_with("users/") && users[0][6..].parse::<u64>().is_ok());
    let token = next_token(&first);
    let second = cloud(&fake, &format!("/cloud/v2/groups/7/memberships?maxPageSize=25&pageToken={token}")).await;
    assert_eq!(next_token(&second), token, "after the first page, the token asked with");

    fake.set(|m| {
        m.cloud_repeat_page_token = false;
        m.cloud_bad_member_user = false;
        m.cloud_huge_page = Some(300);
    });
    let huge = cloud(&fake, "/cloud/v2/groups/7/memberships?maxPageSize=10").await;
    let items = huge.body["groupMemberships"].as_array().unwrap();
    assert_eq!(items.len(), 360);
    assert_eq!(next_token(&huge), "");
    let extra = cloud(&fake, &format!("/cloud/v2/{}", items[0]["user"].as_str().unwrap())).await;
    assert_eq!(extra.body["name"], "Huge7x0");
}

#[tokio::test]
async fn limits_are_enforced_with_headers() {
    let fake = FakeRoblox::start();
    let inventory = cloud(&fake, "/cloud/v2/users/5/inventory-items?filter=badges=true").await;
    assert_eq!(inventory.header("x-ratelimit-limit"), Some("100, 100;w=60"), "the published limit by default");
    assert_eq!(inventory.header("x-ratelimit-remaining"), Some("99"));
    let reset: u64 = inventory.header("x-ratelimit-reset").unwrap().parse().unwrap();
    assert!((1..=60).contains(&reset), "{reset}");

    fake.set(|m| m.open_cloud_limit_scale = 2.5);
    let scaled = cloud(&fake, "/cloud/v2/groups/7").await;
    assert_eq!(scaled.header("x-ratelimit-limit"), Some("375, 375;w=60"));
    assert_eq!(scaled.header("x-ratelimit-remaining"), Some("374"));

    fake.set(|m| {
        m.limits.insert(fake_roblox::CLOUD_USER.into(), 3);
    });
    for left in ["2", "1", "0"] {
        let ok = cloud(&fake, "/cloud/v2/users/5").await;
        assert_eq!(ok.status, 200);
        assert_eq!(
            (ok.header("x-ratelimit-limit"), ok.header("x-ratelimit-remaining")),
            (Some("3, 3;w=60"), Some(left))
        );
    }
    let over = cloud(&fake, "/cloud/v2/users/5").await;
    assert_eq!((over.status, over.code()), (429, "RESOURCE_EXHAUSTED"));
    assert_eq!(
        (over.header("x-ratelimit-limit"), over.header("x-ratelimit-remaining")),
        (Some("3, 3;w=60"), Some("0"))
    );
    assert!(over.header("x-ratelimit-reset").is_some());
    assert!(over.header("retry-after").is_none(), "no retry-after unless asked");
    fake.set(|m| m.cloud_retry_after = Some(7));
    let over = cloud(&fake, "/cloud/v2/users/5").await;
    assert_eq!((over.status, over.header("retry-after")), (429, Some("7")));
    assert_eq!(fake.calls(&format!("429 {}", fake_roblox::CLOUD_USER)), 2);
    assert_eq!(fake.calls(fake_roblox::CLOUD_USER), 5);
}

#[tokio::test]
async fn gate_modes_answer_in_the_open_cloud_shape() {
    let fake = FakeRoblox::start();
    fake.set(|m| {
        m.storm = fake_roblox::Storm {
            remaining: 1,
            endpoint: Some(fake_roblox::CLOUD_GROUP.into()),
            retry_after: Some(3),
            reset: None,
        }
    });
    let storm = cloud(&fake, "/cloud/v2/groups/7").await;
    assert_eq!((storm.status, storm.code(), storm.header("retry-after")), (429, "RESOURCE_EXHAUSTED", Some("3")));
    assert_eq!(cloud(&fake, "/cloud/v2/groups/7").await.status, 200, "the storm is over");

    fake.set(|m| m.malformed = vec![fake_roblox::CLOUD_MEMBERSHIPS.into()]);
    let broken = cloud(&fake, "/cloud/v2/groups/7/memberships").await;
    assert_eq!(broken.status, 200);
    assert!(broken.body.is_string(), "not JSON: {}", broken.body);

    fake.set(|m| m.hang = vec![fake_roblox::CLOUD_USER.into()]);
    let hung = client()
        .get(format!("{}/cloud/v2/users/5", fake.open_cloud_api()))
        .header("x-api-key", FAKE_OPEN_CLOUD_KEY)
        .timeout(Duration::from_millis(300))
        .send()
        .await;
    assert!(hung.is_err_and(|e| e.is_timeout()));

    // The legacy endpoints keep their own error shape, and award dates their cookie.
    fake.set(|m| m.hang.clear());
    let dates =
        client().get(format!("{}/badges/v1/users/5/badges/awarded-dates?badgeIds=1", fake.base)).send().await.unwrap();
    assert_eq!(dates.status(), 403);
    assert!(dates.json::<Value>().await.unwrap()["errors"].is_array());
    fake.set(|m| m.down = true);
    let down = client().get(format!("{}/users/v1/users/5", fake.base)).send().await.unwrap();
    assert_eq!(down.status(), 503);
    assert!(down.json::<Value>().await.unwrap()["errors"].is_array());
}
