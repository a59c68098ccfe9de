//! Who may keep each answer. Walks every operation of the OpenAPI document against the real
//! binary, anonymously and with every credential at once (a user's cookie, an API key, an admin
//! key), and checks each answer's caching headers: a shared cache may keep only answers that are
//! the same for every caller, and everything else is private or never stored. A new route is
//! covered by being in the document.

use std::collections::BTreeMap;

use crate::common::{Server, browser, client, json};
use reqwest::StatusCode;
use reqwest::header::{CACHE_CONTROL, CONTENT_ENCODING, ETAG, IF_NONE_MATCH, SET_COOKIE, VARY};
use serde_json::{Value, json};

struct Answer {
    status: StatusCode,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

async fn send(request: reqwest::RequestBuilder) -> Answer {
    let res = request.header("accept-encoding", "br, gzip").send().await.unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.bytes().await.unwrap().to_vec();
    Answer { status, headers, body }
}

fn cache_control(a: &Answer) -> String {
    a.headers.get(CACHE_CONTROL).map(|v| v.to_str().unwrap().to_string()).unwrap_or_default()
}

/// A shared cache may keep it: neither `private` nor `no-store` (`no-cache` alone still lets a
/// shared cache keep and revalidate it).
fn shareable(cache_control: &str) -> bool {
    !cache_control.contains("private") && !cache_control.contains("no-store")
}

/// A value for a path or query parameter from its schema.
fn sample(param: &Value, products: &[String]) -> String {
    let name = param["name"].as_str().unwrap();
    let schema = &param["schema"];
    if name == "productUpdates" {
        return format!("{}-updates", products.first().map(String::as_str).unwrap_or("game"));
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.as_str().map(str::to_string).unwrap_or_else(|| first.to_string());
    }
    match schema["type"].as_str() {
        Some("integer") | Some("number") => {
            schema["minimum"].as_f64().map(|m| (m.max(1.0) as u64).to_string()).unwrap_or("1".into())
        }
        _ => "Builderman".into(),
    }
}

fn url_of(server: &Server, path: &str, op: &Value, products: &[String]) -> String {
    let mut url = path.to_string();
    let mut query = vec![];
    for param in op["parameters"].as_array().into_iter().flatten() {
        let name = param["name"].as_str().unwrap();
        match param["in"].as_str() {
            Some("path") => url = url.replace(&format!("{{{name}}}"), &sample(param, products)),
            Some("query") if param["required"] == json!(true) => {
                query.push(format!("{name}={}", sample(param, products)))
            }
            _ => {}
        }
    }
    if !query.is_empty() {
        url = format!("{url}?{}", query.join("&"));
    }
    server.url(&url)
}

/// The `Cache-Control` the document promises for this operation and status, if any.
fn documented(op: &Value, status: StatusCode) -> Option<String> {
    op["responses"][status.as_str()]["headers"]["Cache-Control"]["schema"]["const"].as_str().map(str::to_string)
}

#[tokio::test]
async fn every_answer_says_who_may_keep_it_and_nothing_personal_is_shared() {
    let server = Server::start();
    let anonymous = client();
    let doc = json(anonymous.get(server.url("/api/openapi.json")).send().await.unwrap()).await;
    let site = json(anonymous.get(server.url("/api/site")).send().await.unwrap()).await;
    let products: Vec<String> = site["updates"].as_object().map(|u| u.keys().cloned().collect()).unwrap_or_default();

    // One caller holding every credential: a user's session cookie, an API key and an admin key.
    let user = browser(&server);
    let res = user
        .post(server.url("/api/auth/register"))
        .json(&json!({"username": "cache_walker", "password": "a long enough password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let res = user
        .post(server.url("/api/auth/login"))
        .json(&json!({"username": "cache_walker", "password": "a long enough password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let res = user.post(server.url("/api/generate-key")).json(&json!({"name": "walker"})).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let api_key = json(res).await["apiKey"]["key"].as_str().unwrap().to_string();
    let admin_key = crate::common::admin_key(&server);

    let mut shared = BTreeMap::new();
    let mut with_credentials = BTreeMap::new();
    let mut walked = 0;
    let mut signed_in_reads = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(op) = item.get("get") else { continue };
        let op_id = op["operationId"].as_str().unwrap_or(path).to_string();
        let url = url_of(&server, path, op, &products);
        let signed_in = || user.get(&url).header("x-api-key", &api_key).header("x-admin-key", &admin_key);
        let anon = send(anonymous.get(&url)).await;
        let creds = send(signed_in()).await;
        walked += 1;
        // Every credential must really be accepted: on a refused one, the "not shareable" checks
        // below would pass on 401s and prove nothing.
        if op.get("security").is_some() {
            assert!(
                creds.status != StatusCode::UNAUTHORIZED && creds.status != StatusCode::FORBIDDEN,
                "{op_id}: the credentials were refused ({})",
                creds.status
            );
        }
        with_credentials.insert(op_id.clone(), creds.status);
        if op_id == "getCurrentUser" && creds.status == StatusCode::OK {
            signed_in_reads += 1;
        }
        for (who, answer) in [("anonymous", &anon), ("with every credential", &creds)] {
            let cc = cache_control(answer);
            assert!(!cc.is_empty(), "{op_id} ({who}, {}): no Cache-Control", answer.status);
            if let Some(promised) = documented(op, answer.status) {
                assert_eq!(cc, promised, "{op_id} ({who}): the answer's Cache-Control differs from the document's");
            }
            if !shareable(&cc) {
                continue;
            }
            // What a shared cache may keep depends on nobody.
            assert!(op.get("security").is_none(), "{op_id} ({who}) needs a credential yet is shareable: {cc}");
            assert!(!answer.headers.contains_key(SET_COOKIE), "{op_id} ({who}) sets a cookie yet is shareable: {cc}");
            assert!(
                !answer.headers.keys().any(|k| k.as_str().starts_with("x-ratelimit")),
                "{op_id} ({who}) carries a caller's rate limit yet is shareable: {cc}"
            );
            if answer.headers.contains_key(CONTENT_ENCODING) {
                let vary =
                    answer.headers.get_all(VARY).iter().map(|v| v.to_str().unwrap().to_lowercase()).collect::<Vec<_>>();
                assert!(
                    vary.iter().any(|v| v.contains("accept-encoding")),
                    "{op_id}: compressed but no Vary: Accept-Encoding"
                );
            }
        }
        let (a, c) = (cache_control(&anon), cache_control(&creds));
        if shareable(&a) || shareable(&c) {
            assert_eq!(a, c, "{op_id}: Cache-Control differs by caller");
            assert_eq!(anon.status, creds.status, "{op_id}: the status differs by caller");
            assert!(anon.body == creds.body, "{op_id}: a shareable answer differs by caller");
            shared.insert(op_id.clone(), a.clone());
            // Browsers keep revalidating: a matching ETag gets 304 with the same policy.
            if let Some(etag) = anon.headers.get(ETAG) {
                let again = send(anonymous.get(&url).header(IF_NONE_MATCH, etag)).await;
                assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{op_id}");
                assert_eq!(cache_control(&again), a, "{op_id}: the 304's Cache-Control");
            }
            if anon.headers.contains_key(ETAG) {
                assert!(a.contains("max-age=0") && a.contains("s-maxage="), "{op_id}: browsers must revalidate: {a}");
            }
        }
    }
    assert!(walked > 40, "only {walked} GET operations in the document");
    assert!(signed_in_reads > 0, "the credentials were not accepted anywhere");
    // One read of each credential's kind answered 200: the session, the API key, the admin key.
    for op_id in ["getCurrentUser", "v1GetStats", "listUsers"] {
        assert_eq!(with_credentials.get(op_id), Some(&StatusCode::OK), "{op_id} with every credential");
    }
    // The polled and shared public reads are kept by shared caches; the keyed twins of the same
    // bodies are not.
    for op_id in [
        "getActiveBanner",
        "getStats",
        "getHealth",
        "getBadgeMonitor",
        "getDiscordUpdates",
        "getSite",
        "listCommands",
        "listGuides",
    ] {
        assert!(shared.contains_key(op_id), "{op_id} is not shareable: {shared:?}");
    }
    for op_id in ["v1GetStats", "v1GetDiscordUpdates", "getCurrentUser", "listApiKeys", "listUsers"] {
        assert!(!shared.contains_key(op_id), "{op_id} must not be shareable");
    }

    // Writes are never kept, whoever sends them: anonymously, and with every credential (the
    // writes that end the session or the keys go last, so the others are sent signed in).
    let mut writes = vec![];
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in ["post", "put", "patch", "delete"] {
            if let Some(op) = item.get(method) {
                writes.push((path.clone(), method, op.clone()));
            }
        }
    }
    let ends_credentials =
        |path: &str| ["logout", "/api/auth/me", "keys", "admin-key", "sessions"].iter().any(|w| path.contains(w));
    writes.sort_by_key(|(path, _, _)| ends_credentials(path));
    let mut accepted_writes = 0;
    for (path, method, op) in &writes {
        let url = url_of(&server, path, op, &products);
        let method: reqwest::Method = method.to_uppercase().parse().unwrap();
        let answer = send(anonymous.request(method.clone(), &url).json(&json!({}))).await;
        let cc = cache_control(&answer);
        assert!(!shareable(&cc), "{method} {path} anonymous ({}) is shareable: {cc:?}", answer.status);
        let answer = send(
            user.request(method.clone(), &url)
                .header("x-api-key", &api_key)
                .header("x-admin-key", &admin_key)
                .json(&json!({})),
        )
        .await;
        let cc = cache_control(&answer);
        assert!(!shareable(&cc), "{method} {path} with every credential ({}) is shareable: {cc:?}", answer.status);
        if op.get("security").is_some() && ![StatusCode::UNAUTHORIZED, StatusCode::FORBIDDEN].contains(&answer.status) {
            accepted_writes += 1;
        }
    }
    assert!(accepted_writes > 10, "only {accepted_writes} guarded writes got past their guard with every credential");
}
