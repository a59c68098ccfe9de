//! HTTP: routes, the shell, bundled assets, caching, headers, errors, limits.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::{Server, client, json};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY};

#[tokio::test]
async fn known_routes_get_the_shell_and_unknown_paths_get_it_with_404() {
    let server = Server::start();
    let c = client();
    for path in [
        "/",
        "/commands",
        "/guides",
        "/community",
        "/login",
        "/admin",
        "/admin-access",
        "/generate-key",
        "/api-docs",
        "/advertise",
        "/admin?key=abc",
    ] {
        let res = c.get(server.url(path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(res.headers()[CACHE_CONTROL], "no-cache");
        assert!(res.headers().contains_key(ETAG));
        assert!(res.headers()[CONTENT_TYPE].to_str().unwrap().starts_with("text/html"));
        let body = res.text().await.unwrap();
        assert!(body.contains("<div id=\"app\">"), "{path}: {body}");
    }
    for path in ["/nope", "/commands/extra", "/admin-panel", "/%2e%2e/etc/passwd"] {
        let res = c.get(server.url(path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(res.text().await.unwrap().contains("<div id=\"app\">"));
    }
}

#[tokio::test]
async fn shell_answers_304_to_its_etag() {
    let server = Server::start();
    let c = client();
    let first = c.get(server.url("/guides")).send().await.unwrap();
    let etag = first.headers()[ETAG].clone();
    let again = c.get(server.url("/guides")).header(IF_NONE_MATCH, etag).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.bytes().await.unwrap().is_empty());
}

async fn first_script_path(server: &Server) -> String {
    let html = client().get(server.url("/")).send().await.unwrap().text().await.unwrap();
    let start = html.find("/assets/").expect("the shell links a hashed asset");
    let end = start + html[start..].find('"').unwrap();
    html[start..end].to_string()
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_precompressed() {
    let server = Server::start();
    let c = client();
    let asset = first_script_path(&server).await;
    let plain = c.get(server.url(&asset)).send().await.unwrap();
    assert_eq!(plain.status(), StatusCode::OK);
    assert_eq!(plain.headers()[CACHE_CONTROL], "public, max-age=31536000, immutable");
    assert!(plain.headers().get(CONTENT_ENCODING).is_none());
    let plain_len = plain.bytes().await.unwrap().len();

    for (accept, expect) in [("br", "br"), ("gzip, deflate, br", "br"), ("gzip", "gzip"), ("br;q=0, gzip", "gzip")] {
        let res = c.get(server.url(&asset)).header(ACCEPT_ENCODING, accept).send().await.unwrap();
        assert_eq!(res.headers()[CONTENT_ENCODING], expect, "Accept-Encoding: {accept}");
        assert_eq!(res.headers()[VARY], "accept-encoding");
        let len = res.bytes().await.unwrap().len();
        assert!(len < plain_len, "{expect} body ({len}) not smaller than plain ({plain_len})");
    }
    let missing = c.get(server.url("/assets/does-not-exist.js")).send().await.unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert!(json(missing).await["error"].is_string());
}

#[tokio::test]
async fn traversal_and_encoded_slashes_never_leave_the_bundle() {
    let server = Server::start();
    let c = client();
    for path in [
        "/assets/../../Cargo.toml",
        "/assets/..%2f..%2fCargo.toml",
        "/assets/%2e%2e/%2e%2e/etc/passwd",
        "/..%2f..%2fetc%2fpasswd",
        "/api/..%2f..%2fetc/passwd",
        "/%2fetc%2fpasswd",
    ] {
        let res = c.get(server.url(path)).send().await.unwrap();
        assert!(res.status().is_client_error(), "{path}: {}", res.status());
        let body = res.text().await.unwrap();
        assert!(!body.contains("root:") && !body.contains("[package]"), "{path} leaked a file");
    }
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let server = Server::start();
    let c = client();
    for path in ["/", "/api/health", "/api/nope", "/nope"] {
        let res = c.get(server.url(path)).send().await.unwrap();
        let h = res.headers();
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["referrer-policy"], "strict-origin-when-cross-origin");
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'"));
        assert!(!csp.contains("unsafe-inline"));
        assert!(h.contains_key("x-request-id"));
    }
}

#[tokio::test]
async fn polled_endpoints_carry_etags_and_answer_304() {
    let server = Server::start();
    let c = client();
    for path in ["/api/health", "/api/stats", "/api/admin/active-banner"] {
        let res = c.get(server.url(path)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let etag = res.headers()[ETAG].clone();
        let again = c.get(server.url(path)).header(IF_NONE_MATCH, etag.clone()).send().await.unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        let stale = c.get(server.url(path)).header(IF_NONE_MATCH, "\"stale\"").send().await.unwrap();
        assert_eq!(stale.status(), StatusCode::OK, "{path}");
    }
}

#[tokio::test]
async fn unknown_api_paths_and_methods_get_json_errors() {
    let server = Server::start();
    let c = client();
    let res = c.get(server.url("/api/does-not-exist")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert!(json(res).await["error"].as_str().unwrap().len() > 3);
    let res = c.delete(server.url("/api/commands")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert!(json(res).await["error"].is_string());
    let res = c.post(server.url("/commands")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn oversized_urls_headers_and_bodies_are_refused_with_json() {
    let server = Server::start();
    let c = client();
    let long = format!("/api/commands?q={}", "a".repeat(9000));
    let res = c.get(server.url(&long)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::URI_TOO_LONG);
    assert!(json(res).await["error"].is_string());

    let res = c.get(server.url("/api/health")).header("x-filler", "b".repeat(20_000)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    assert!(json(res).await["error"].is_string());

    let body = format!("{{\"path\":\"{}\"}}", "c".repeat(70 * 1024));
    let res =
        c.post(server.url("/api/pageview")).header(CONTENT_TYPE, "application/json").body(body).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(json(res).await["error"].is_string());
}

#[tokio::test]
async fn malformed_query_strings_are_harmless() {
    let server = Server::start();
    let c = client();
    for q in ["?%ZZ", "?a=%", "?&&&=", "?x[]=1&x[]=2"] {
        let res = c.get(server.url(&format!("/api/commands{q}"))).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{q}");
    }
}

/// `(METHOD, path)` of every `.route(...)` call in src/ (test modules excluded), path parameters
/// written `{}`: the router's own list, read from the code that builds it.
fn routes_in_source() -> BTreeSet<(String, String)> {
    fn visit(dir: &Path, out: &mut BTreeSet<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                visit(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap();
                for call in code.split(".route(").skip(1) {
                    // The call's own text: up to the parenthesis that closes `.route(`.
                    let mut depth = 1;
                    let end = call
                        .char_indices()
                        .find(|&(_, c)| {
                            depth += match c {
                                '(' => 1,
                                ')' => -1,
                                _ => 0,
                            };
                            depth == 0
                        })
                        .map(|(i, _)| i)
                        .unwrap_or_else(|| panic!("unclosed .route( in {}", path.display()));
                    let call = &call[..end];
                    let route = call.split('"').nth(1).unwrap_or_else(|| panic!("{}: {call}", path.display()));
                    let methods: Vec<&str> = ["get", "post", "put", "patch", "delete"]
                        .into_iter()
                        .filter(|m| {
                            call.match_indices(&format!("{m}("))
                                .any(|(i, _)| !call[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
                        })
                        .collect();
                    assert!(!methods.is_empty(), "{}: no method in .route({call})", path.display());
                    for m in methods {
                        out.insert((m.to_uppercase(), unnamed_params(route)));
                    }
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    visit(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut out);
    out
}

fn unnamed_params(path: &str) -> String {
    path.split('/').map(|seg| if seg.starts_with('{') { "{}" } else { seg }).collect::<Vec<_>>().join("/")
}

/// The document describes exactly the router's routes, each operation with its own operationId,
/// and every documented operation reaches a handler (neither 405 nor the unknown-endpoint 404).
#[tokio::test]
async fn openapi_document_covers_every_route_once() {
    let server = Server::start();
    let c = client();
    let doc = json(c.get(server.url("/api/openapi.json")).send().await.unwrap()).await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    let mut documented = BTreeSet::new();
    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Some(id) = op.get("operationId").and_then(|v| v.as_str()) else { continue };
            assert!(ids.insert(id.to_string()), "operationId {id} repeats ({method} {path})");
            documented.insert((method.to_uppercase(), unnamed_params(path)));
            let concrete =
                path.split('/').map(|s| if s.starts_with('{') { "1" } else { s }).collect::<Vec<_>>().join("/");
            let res = c
                .request(method.to_uppercase().parse().unwrap(), server.url(&concrete))
                .header("content-type", "application/json")
                .body("{}")
                .send()
                .await
                .unwrap();
            let status = res.status();
            let body = res.text().await.unwrap();
            assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path} is documented but not routed");
            assert!(!body.contains("No such API endpoint"), "{method} {path} is documented but not routed");
        }
    }
    let routed = routes_in_source();
    assert!(routed.len() > 30, "only {} routes found in src/", routed.len());
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    assert!(undocumented.is_empty(), "routes missing from the OpenAPI document: {undocumented:?}");
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(unrouted.is_empty(), "documented operations no .route() in src/ serves: {unrouted:?}");
}

#[tokio::test]
async fn json_lists_are_compressed_when_asked() {
    let server = Server::start();
    let res = client().get(server.url("/api/commands")).header(ACCEPT_ENCODING, "gzip").send().await.unwrap();
    assert_eq!(res.headers()[CONTENT_ENCODING], "gzip");
}
