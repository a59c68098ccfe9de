//! The language-model client against a fake OpenAI-compatible server started by the test: good
//! JSON, broken JSON, a cut-off answer, an error status, a hang; and the ad analysis it feeds.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use fanhub::llm::{LlmClient, LlmConfig, LlmError};
use serde_json::{Value, json};

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Good,
    BrokenJson,
    Cut,
    BadRequest,
    Hang,
}

/// Each request the fake model received: its Authorization header and its JSON body.
type SeenRequests = Arc<Mutex<Vec<(Option<String>, Value)>>>;

#[derive(Clone)]
struct Fake {
    mode: Arc<Mutex<Mode>>,
    seen: SeenRequests,
}

fn completion(content: &str, finish: &str) -> Value {
    json!({"id": "x", "object": "chat.completion", "created": 0, "model": "fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}]})
}

async fn chat(State(fake): State<Fake>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string);
    fake.seen.lock().unwrap().push((auth, body));
    let mode = *fake.mode.lock().unwrap();
    match mode {
        Mode::Good => Json(completion(
            r#"{"summary":"A survival server with weekly contests.","mainProduct":"Blockcraft SMP","category":"Game server",
               "priceRange":"Free","keyFeatures":["Weekly build contests","Free ranks","Friendly staff","x","y","z"],
               "callToAction":"Join the server"}"#,
            "stop",
        ))
        .into_response(),
        Mode::BrokenJson => Json(completion(r#"{"summary": "half"#, "stop")).into_response(),
        Mode::Cut => Json(completion(r#"{"summary": "a long answer that"#, "length")).into_response(),
        Mode::BadRequest => (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": {"message": "messages must mention json", "type": "invalid_request_error"}})),
        )
            .into_response(),
        Mode::Hang => {
            tokio::time::sleep(Duration::from_secs(30)).await;
            StatusCode::OK.into_response()
        }
    }
}

async fn start_fake() -> (String, Fake) {
    let fake = Fake { mode: Arc::new(Mutex::new(Mode::Good)), seen: Arc::default() };
    let app = axum::Router::new().route("/v1/chat/completions", post(chat)).with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, fake)
}

fn client(base: &str, timeout: Duration) -> LlmClient {
    fanhub::llm::install_crypto();
    LlmClient::new(
        LlmConfig { base_url: base.into(), model: "fake-model".into(), key: Some("sk-test".into()) },
        timeout,
    )
}

#[tokio::test]
async fn the_client_asks_in_json_mode_and_refuses_every_bad_answer() {
    let (base, fake) = start_fake().await;
    let llm = client(&base, Duration::from_millis(800));
    let links = vec!["https://discord.example/x".to_string()];
    let analysis =
        fanhub::ads::analysis::with_llm(&llm, "https://blockcraft.example", "Survival!", &links).await.unwrap();
    assert_eq!(analysis.source, "llm");
    assert_eq!(analysis.category, "Game server");
    assert_eq!(analysis.key_features.len(), 5, "capped");
    let (auth, body) = fake.seen.lock().unwrap()[0].clone();
    assert_eq!(auth.as_deref(), Some("Bearer sk-test"));
    assert_eq!(body["model"], "fake-model");
    assert_eq!(body["response_format"]["type"], "json_object");
    assert!(body["messages"][0]["content"].as_str().unwrap().contains("JSON"), "JSON mode needs the word");

    for (mode, check) in [
        (Mode::BrokenJson, (|e: &LlmError| matches!(e, LlmError::BadAnswer(_))) as fn(&LlmError) -> bool),
        (Mode::Cut, |e| *e == LlmError::Truncated),
        (Mode::BadRequest, |e| matches!(e, LlmError::Status { status: 400, message } if message.contains("json"))),
        (Mode::Hang, |e| matches!(e, LlmError::Timeout(_))),
    ] {
        *fake.mode.lock().unwrap() = mode;
        let started = std::time::Instant::now();
        let err = fanhub::ads::analysis::with_llm(&llm, "https://a.example", "An ad.", &[]).await.unwrap_err();
        assert!(check(&err), "{err:?}");
        assert!(started.elapsed() < Duration::from_secs(3), "never waits past the timeout");
    }
    let down = client("http://127.0.0.1:9/v1", Duration::from_secs(2));
    let err = down.json::<Value>("Answer in JSON.", "{}", 10).await.unwrap_err();
    assert!(matches!(err, LlmError::Unreachable(_)), "{err:?}");
}

#[tokio::test]
async fn a_submitted_ad_gets_the_models_reading_and_keeps_the_heuristic_one_when_it_fails() {
    let (base, fake) = start_fake().await;
    let server = crate::common::Server::with_env(&[("FANHUB_LLM_URL", &base), ("FANHUB_LLM_KEY", "sk-test")]);
    let key = crate::common::admin_key(&server);
    let submit = || async {
        let png = {
            let img = image::RgbImage::from_pixel(16, 16, image::Rgb([10, 120, 60]));
            let mut out = std::io::Cursor::new(Vec::new());
            image::DynamicImage::ImageRgb8(img).write_to(&mut out, image::ImageFormat::Png).unwrap();
            out.into_inner()
        };
        let form = reqwest::multipart::Form::new()
            .text("websiteUrl", "https://blockcraft.example")
            .text("adDescription", "The friendliest survival server! Weekly build contests.")
            .text("duration", "1-day")
            .part("image", reqwest::multipart::Part::bytes(png).file_name("a.png").mime_str("image/png").unwrap());
        let res = crate::common::client().post(server.url("/api/advertise")).multipart(form).send().await.unwrap();
        assert_eq!(res.status(), 201);
        crate::common::json(res).await["id"].as_i64().unwrap()
    };
    let analysis_of = |id: i64| {
        let (url, key) = (server.url("/api/admin/advertisements"), key.clone());
        async move {
            let res = crate::common::client().get(url).header("x-admin-key", key).send().await.unwrap();
            let apps = crate::common::json(res).await["applications"].clone();
            apps.as_array().unwrap().iter().find(|a| a["id"] == id).unwrap()["aiAnalysis"].clone()
        }
    };
    let id = submit().await;
    let mut reading = Value::Null;
    for _ in 0..50 {
        reading = analysis_of(id).await;
        if reading["source"] == "llm" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(reading["source"], "llm", "{reading}");
    assert_eq!(reading["mainProduct"], "Blockcraft SMP");

    *fake.mode.lock().unwrap() = Mode::BrokenJson;
    let id = submit().await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let kept = analysis_of(id).await;
    assert_eq!(kept["source"], "heuristic", "{kept}");
    assert_eq!(kept["category"], "Game server");
    assert!(server.stderr().contains("kept the heuristic analysis"));
    assert!(!server.stderr().contains("sk-test"), "the key is never logged");
}

/// An answer over the 4 MiB cap, announced by its length or never ending, is refused as soon as
/// the cap is reached: well within the timeout, which is set long so that the cap is what stops it.
#[tokio::test]
async fn an_answer_over_the_size_cap_is_refused_in_bounded_time() {
    use crate::common::{Oversized, start_oversized};
    for kind in [Oversized::Announced, Oversized::Endless] {
        let base = start_oversized(kind).await;
        let llm = client(&format!("{base}/v1"), Duration::from_secs(60));
        let started = std::time::Instant::now();
        let err = llm.json::<Value>("Answer in JSON.", "{}", 10).await.unwrap_err();
        assert!(matches!(&err, LlmError::BadAnswer(m) if m.contains("longer than 4 MiB")), "{kind:?}: {err:?}");
        assert!(started.elapsed() < Duration::from_secs(15), "{kind:?}: {:?}", started.elapsed());
    }
}
