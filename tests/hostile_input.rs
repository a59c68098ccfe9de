//! No client input may produce a 500: every endpoint of the OpenAPI document, with every
//! method, odd path parameters and hostile bodies, with and without admin access.

mod common;

use common::{Server, admin_key, client, json};

const BODIES: &[&str] = &[
    "",
    "{",
    "null",
    "[]",
    "\"just a string\"",
    "{\"key\": null, \"username\": 5, \"password\": {}, \"role\": [\"admin\"], \"isActive\": \"yes\"}",
    "{\"userId\": 99999999999999999999999, \"rating\": 1e400, \"itemId\": -1, \"itemType\": \"command\"}",
    "{\"banner\": {\"backgroundColor\": \"#zzzzzz\"}}",
    "{\"username\": \"\\u0000\\u202e\", \"password\": \"\\ud800\"}",
];

const PARAMS: &[&str] = &["1", "0", "-1", "99999999999999999999", "abc", "%00", "%2e%2e", "1.5", "%F0%9F%92%A9"];

#[tokio::test]
async fn no_hostile_request_gets_a_500() {
    // With a phrase set, the phrase endpoints do their real work instead of answering 503.
    // Roblox lookups go to the fake: a well-formed name is then found or not (2xx/404), never
    // a 502 for an internet this test does not have.
    let roblox = common::fake_roblox::FakeRoblox::start();
    let template = roblox.template();
    let server =
        Server::with_env(&[("FANHUB_ADMIN_PHRASE", "a phrase nobody guesses"), ("FANHUB_ROBLOX_API", template.as_str())]);
    let key = admin_key(&server);
    let c = client();
    let doc = json(c.get(server.url("/api/openapi.json")).send().await.unwrap()).await;
    let paths: Vec<String> = doc["paths"].as_object().unwrap().keys().cloned().collect();
    assert!(paths.len() > 30, "{} paths", paths.len());
    let mut deep = String::new();
    for _ in 0..2000 {
        deep.push('[');
    }
    let mut checked = 0;
    for template in &paths {
        let params: &[&str] = if template.contains('{') { PARAMS } else { &[""] };
        for param in params {
            // Revoking key 1 would revoke the key this sweep uses; every other id is fair game.
            if template == "/api/admin/keys/{id}" && *param == "1" {
                continue;
            }
            let path = template
                .split('/')
                .map(|seg| if seg.starts_with('{') { *param } else { seg })
                .collect::<Vec<_>>()
                .join("/");
            for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
                for body in BODIES.iter().copied().chain([deep.as_str()]) {
                    for admin in [false, true] {
                        let mut req = c
                            .request(method.parse().unwrap(), server.url(&path))
                            .header("content-type", "application/json")
                            .body(body.to_string());
                        if admin {
                            req = req.header("x-admin-key", &key);
                        }
                        let status = req.send().await.unwrap().status();
                        assert!(status.as_u16() < 500, "{method} {path} body {body:.40} admin={admin}: {status}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "{checked} requests");
    let health = json(c.get(server.url("/api/health")).send().await.unwrap()).await;
    assert_eq!(health["status"], "ok", "still healthy after the barrage");
}
