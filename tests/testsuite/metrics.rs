//! `/metrics` against the real binary: off by default, guarded when on, and counting what it says.

use crate::common::{Launch, Server, admin_key, client};
use reqwest::StatusCode;

fn launch(args: &[&str]) -> Server {
    Server::launch(Launch { args: args.iter().map(|s| s.to_string()).collect(), ..Default::default() })
}

/// The value of the sample line that starts with `prefix` (name and labels).
fn sample(text: &str, prefix: &str) -> Option<f64> {
    text.lines().find(|l| l.starts_with(prefix)).and_then(|l| l.rsplit(' ').next()).and_then(|v| v.parse().ok())
}

#[tokio::test]
async fn metrics_are_off_by_default() {
    let s = Server::start();
    let key = admin_key(&s);
    let res = client().get(s.url("/metrics")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert!(res.text().await.unwrap().contains("Metrics are off"));
}

#[tokio::test]
async fn metrics_need_an_admin_key_or_an_allowed_address() {
    let s = launch(&["--metrics"]);
    let c = client();
    assert_eq!(c.get(s.url("/metrics")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let bad = c.get(s.url("/metrics")).header("x-admin-key", "fha_nonsense").send().await.unwrap();
    assert_eq!(bad.status(), StatusCode::UNAUTHORIZED);
    let key = admin_key(&s);
    let ok = c.get(s.url("/metrics")).header("x-admin-key", &key).send().await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    assert!(ok.headers()["content-type"].to_str().unwrap().starts_with("text/plain; version=0.0.4"));

    // A range that does not hold the caller changes nothing; one that does opens it without a key.
    let elsewhere = launch(&["--metrics", "--metrics-allow", "10.0.0.0/8"]);
    assert_eq!(c.get(elsewhere.url("/metrics")).send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    let local = launch(&["--metrics", "--metrics-allow", "10.0.0.0/8,127.0.0.1/32"]);
    assert_eq!(c.get(local.url("/metrics")).send().await.unwrap().status(), StatusCode::OK);
    // A bad range is a start error naming the flag's value.
    let (code, _, err) = crate::common::run(&["serve", "--metrics", "--metrics-allow", "nonsense", "--temp"], None);
    assert_eq!(code, 2);
    assert!(err.contains("nonsense"), "{err}");
}

#[tokio::test]
async fn requests_are_counted_by_route_template_method_and_status() {
    let s = launch(&["--metrics", "--metrics-allow", "127.0.0.1/32"]);
    let c = client();
    let first = c.get(s.url("/api/stats")).send().await.unwrap();
    let etag = first.headers()["etag"].to_str().unwrap().to_string();
    for _ in 0..4 {
        assert_eq!(c.get(s.url("/api/stats")).send().await.unwrap().status(), StatusCode::OK);
    }
    for _ in 0..3 {
        let res = c.get(s.url("/api/stats")).header("if-none-match", &etag).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    }
    for id in [7, 8] {
        let res = c.delete(s.url(&format!("/api/admin/users/{id}"))).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    }
    for _ in 0..2 {
        assert_eq!(c.get(s.url("/commands")).send().await.unwrap().status(), StatusCode::OK);
    }
    assert_eq!(c.get(s.url("/no-such-page")).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    let text = c.get(s.url("/metrics")).send().await.unwrap().text().await.unwrap();
    let count = |labels: &str| sample(&text, &format!("fanhub_http_requests_total{{{labels}}} "));
    assert_eq!(count(r#"route="/api/stats",method="GET",status="200""#), Some(5.0), "{text}");
    assert_eq!(count(r#"route="/api/stats",method="GET",status="304""#), Some(3.0));
    assert_eq!(
        count(r#"route="/api/admin/users/{id}",method="DELETE",status="401""#),
        Some(2.0),
        "ids never become labels"
    );
    assert_eq!(count(r#"route="/commands",method="GET",status="200""#), Some(2.0), "app pages by their route");
    assert_eq!(count(r#"route="(unmatched)",method="GET",status="200""#), None, "{text}");
    assert_eq!(count(r#"route="(unmatched)",method="GET",status="404""#), Some(1.0), "unknown paths stay unmatched");
    assert_eq!(sample(&text, r#"fanhub_http_request_duration_seconds_count{route="/api/stats"} "#), Some(8.0));
    assert_eq!(
        sample(&text, r#"fanhub_http_request_duration_seconds_bucket{route="/api/stats",le="+Inf"} "#),
        Some(8.0)
    );
    assert!(sample(&text, "fanhub_http_open_connections ").unwrap() >= 1.0);
    assert!(sample(&text, "fanhub_http_connections_total ").unwrap() >= 1.0);
    assert!(sample(&text, "fanhub_db_readers_idle ").is_some());
    assert!(sample(&text, "fanhub_db_writer_busy ").is_some());
    assert!(text.contains(r#"fanhub_job_runs_total{job="page-stats"}"#), "{text}");
    assert!(text.contains(r#"fanhub_job_last_success_timestamp_seconds{job="wal-checkpoint"}"#), "{text}");
    assert!(text.contains("# TYPE fanhub_upstream_calls_total counter"));
    assert!(sample(&text, "process_resident_memory_bytes ").unwrap() > 1e6);
    // Every sample line parses as `name{labels} number`.
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let value = line.rsplit(' ').next().unwrap();
        assert!(value.parse::<f64>().is_ok() || value == "+Inf", "bad sample line {line:?}");
    }
}
