//! Failed calls to other services show in the admin panel: Roblox on a closed port makes every
//! newgen check fail, and each failed call counts as a warning (Exceptions) and in the Roblox
//! line of System Health, while the log gets one line for the lot.

use crate::common::{Server, client, json};
use serde_json::Value;

async fn admin_get(s: &Server, key: &str, path: &str) -> Value {
    json(client().get(s.url(path)).header("x-admin-key", key).send().await.unwrap()).await
}

#[tokio::test]
async fn unreachable_roblox_counts_as_warnings_and_in_system_health() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let template = format!("http://127.0.0.1:{port}/{{service}}");
    let s = Server::with_env(&[("FANHUB_ROBLOX_API", template.as_str())]);
    let admin = crate::common::admin_key(&s);
    let site = json(client().get(s.url("/api/site")).send().await.unwrap()).await;
    let key = site["publicApiKey"].as_str().unwrap().to_string();
    let before = admin_get(&s, &admin, "/api/admin/exceptions").await["warnings"].as_u64().unwrap();

    for name in ["PlayerOne", "PlayerTwo", "PlayerThree"] {
        let res = client().get(s.url(&format!("/api/newgen-check/{name}"))).header("x-api-key", &key).send().await;
        let res = res.unwrap();
        assert_eq!(res.status().as_u16(), 502, "{name}");
        assert_eq!(json(res).await["error"], "Roblox lookup failed");
    }

    let ex = admin_get(&s, &admin, "/api/admin/exceptions").await;
    assert_eq!(ex["warnings"].as_u64().unwrap(), before + 3, "one warning per failed call: {ex}");
    let lines: Vec<&Value> = ex["recent"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["message"].as_str().unwrap().starts_with("roblox call failed"))
        .collect();
    assert_eq!(lines.len(), 1, "one log line for a run of failures: {ex}");
    assert_eq!(lines[0]["level"], "WARN");
    assert!(lines[0]["message"].as_str().unwrap().contains("could not be reached"), "{ex}");

    let health = admin_get(&s, &admin, "/api/admin/health").await;
    let line = health["checks"].as_array().unwrap().iter().find(|c| c["name"] == "Roblox API").unwrap().clone();
    assert_eq!(line["status"], "error", "{line}");
    let detail = line["detail"].as_str().unwrap();
    assert!(detail.contains("3 failed calls since start") && detail.contains("could not be reached"), "{line}");
    let llm = health["checks"].as_array().unwrap().iter().find(|c| c["name"] == "Language model").unwrap().clone();
    assert_eq!(llm["status"], "not_configured", "{llm}");
}

/// Roblox's answers are read with a 4 MiB cap: an answer over it (announced, or never ending)
/// fails the lookup with a 502 as soon as the cap is reached, not when the (long) timeout ends,
/// and the log says why.
#[tokio::test]
async fn an_answer_over_the_size_cap_fails_the_lookup_in_bounded_time() {
    use crate::common::{Oversized, start_oversized};
    for kind in [Oversized::Announced, Oversized::Endless] {
        let base = start_oversized(kind).await;
        let template = format!("{base}/{{service}}");
        let s = Server::with_env(&[("FANHUB_ROBLOX_API", template.as_str()), ("FANHUB_ROBLOX_TIMEOUT_MS", "60000")]);
        let admin = crate::common::admin_key(&s);
        let started = std::time::Instant::now();
        let res = client().get(s.url("/api/discord-bot/analyze/PlayerOne")).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 502, "{kind:?}");
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "{kind:?}: {:?}", started.elapsed());
        let ex = admin_get(&s, &admin, "/api/admin/exceptions").await;
        assert!(ex.to_string().contains("longer than 4 MiB"), "{kind:?}: {ex}");
    }
}
