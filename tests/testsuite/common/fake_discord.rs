//! A fake Discord REST API for tests, the e2e suite and the benchmarks (never the internet):
//! channel messages with `after=`/`limit=` paging (newest first) and rate-limit headers, invite
//! and guild counts, the interaction webhook (PATCH/DELETE `@original`, follow-ups) and command
//! registration. Modes make it misbehave: 429 with or without global scope, 401 for a bad token,
//! empty contents as without the message-content intent, or a hang.
//! Driven in-process (`FakeDiscord`) or over HTTP under `/_fake/` (the example binary).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post, put};
use serde::Deserialize;
use serde_json::{Value, json};

pub const TOKEN: &str = "fake-bot-token";
pub const FIRST_ID: u64 = 1_300_000_000_000_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Normal,
    /// The next calls get 429 for the bucket (`times` of them).
    RateLimited,
    /// The next calls get 429 with global scope.
    GlobalRateLimited,
    /// Contents come back empty (the message-content intent is off).
    NoIntent,
    /// Calls never answer.
    Hang,
}

#[derive(Default)]
pub struct Inner {
    pub channels: BTreeMap<u64, Vec<Value>>,
    pub next_id: u64,
    pub mode: Option<Mode>,
    /// How many more 429s to give in the rate-limited modes.
    pub throttle_left: u32,
    pub retry_after: f64,
    pub members: Option<i64>,
    /// Every call: (method, path with query, authorization, user agent).
    pub calls: Vec<(String, String, Option<String>, Option<String>)>,
    /// Bodies sent to the interaction webhook: (method, path, body).
    pub webhooks: Vec<(String, String, Value)>,
    /// Statuses the next webhook POSTs answer instead of 200, in order (429 comes with
    /// `retry_after`; the body is not kept as sent): a Discord that throttles, fails or forgot
    /// the webhook. `POST /_fake/webhook-answers {"statuses": [429, 500]}` over HTTP.
    pub webhook_answers: std::collections::VecDeque<u16>,
}

#[derive(Clone)]
pub struct FakeDiscord {
    pub base: String,
    pub inner: Arc<Mutex<Inner>>,
}

impl FakeDiscord {
    pub async fn start() -> Self {
        let inner = Arc::new(Mutex::new(Inner { next_id: FIRST_ID, retry_after: 0.2, ..Default::default() }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}/api/v10", listener.local_addr().unwrap());
        let app = router(inner.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { base, inner }
    }

    /// Posts a message by a person (`bot` false) or an announcement bot; returns its id.
    pub fn post(&self, channel: u64, author: &str, bot: bool, content: &str, embeds: Value) -> u64 {
        post_message(&mut self.inner.lock().unwrap(), channel, author, bot, content, embeds)
    }

    pub fn set_mode(&self, mode: Mode, times: u32) {
        let mut inner = self.inner.lock().unwrap();
        inner.mode = Some(mode);
        inner.throttle_left = times;
    }

    pub fn set_members(&self, members: Option<i64>) {
        self.inner.lock().unwrap().members = members;
    }

    pub fn calls(&self) -> Vec<(String, String, Option<String>, Option<String>)> {
        self.inner.lock().unwrap().calls.clone()
    }

    pub fn webhooks(&self) -> Vec<(String, String, Value)> {
        self.inner.lock().unwrap().webhooks.clone()
    }
}

pub fn post_message(inner: &mut Inner, channel: u64, author: &str, bot: bool, content: &str, embeds: Value) -> u64 {
    inner.next_id += 1 << 22;
    let id = inner.next_id;
    let message = json!({
        "id": id.to_string(), "channel_id": channel.to_string(), "type": 0,
        "author": {"id": "42", "username": author, "discriminator": "0", "global_name": null, "avatar": null, "bot": bot},
        "content": content, "timestamp": "2026-11-23T06:00:00.000000+00:00", "edited_timestamp": null,
        "embeds": embeds, "attachments": [],
    });
    inner.channels.entry(channel).or_default().push(message);
    id
}

pub fn router(inner: Arc<Mutex<Inner>>) -> Router {
    Router::new()
        .route("/api/v10/channels/{channel}/messages", get(messages))
        .route("/api/v10/invites/{code}", get(invite))
        .route("/api/v10/guilds/{guild}", get(guild))
        .route("/api/v10/webhooks/{app}/{token}/messages/@original", patch(webhook).delete(webhook))
        .route("/api/v10/webhooks/{app}/{token}", post(webhook))
        .route("/api/v10/applications/{app}/commands", put(commands))
        .route("/api/v10/applications/{app}/guilds/{guild}/commands", put(commands))
        .route("/_fake/post", post(control_post))
        .route("/_fake/mode", post(control_mode))
        .route("/_fake/members", post(control_members))
        .route("/_fake/webhooks", get(control_webhooks))
        .route("/_fake/webhook-answers", post(control_webhook_answers))
        .with_state(inner)
}

fn record(inner: &Arc<Mutex<Inner>>, method: &str, path: String, headers: &HeaderMap) {
    let header = |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).map(str::to_string);
    inner.lock().unwrap().calls.push((method.to_string(), path, header("authorization"), header("user-agent")));
}

/// The mode's answer, if it overrides the normal one.
async fn misbehave(inner: &Arc<Mutex<Inner>>, headers: &HeaderMap, needs_token: bool) -> Option<Response> {
    if needs_token && headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(&format!("Bot {TOKEN}")) {
        return Some(
            (StatusCode::UNAUTHORIZED, Json(json!({"message": "401: Unauthorized", "code": 0}))).into_response(),
        );
    }
    let (mode, retry_after) = {
        let mut i = inner.lock().unwrap();
        let mut mode = i.mode.unwrap_or(Mode::Normal);
        if matches!(mode, Mode::RateLimited | Mode::GlobalRateLimited) {
            if i.throttle_left == 0 {
                i.mode = Some(Mode::Normal);
                mode = Mode::Normal;
            } else {
                i.throttle_left -= 1;
            }
        }
        (mode, i.retry_after)
    };
    match mode {
        Mode::RateLimited => Some(
            (
                StatusCode::TOO_MANY_REQUESTS,
                [
                    ("retry-after", format!("{}", retry_after.ceil())),
                    ("x-ratelimit-scope", "user".into()),
                    ("x-ratelimit-bucket", "fakebucket".into()),
                    ("x-ratelimit-remaining", "0".into()),
                    ("x-ratelimit-reset-after", format!("{retry_after}")),
                ],
                Json(json!({"message": "You are being rate limited.", "retry_after": retry_after, "global": false})),
            )
                .into_response(),
        ),
        Mode::GlobalRateLimited => Some(
            (
                StatusCode::TOO_MANY_REQUESTS,
                [
                    ("retry-after", format!("{}", retry_after.ceil())),
                    ("x-ratelimit-scope", "global".into()),
                    ("x-ratelimit-global", "true".into()),
                ],
                Json(json!({"message": "You are being rate limited.", "retry_after": retry_after, "global": true})),
            )
                .into_response(),
        ),
        Mode::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            None
        }
        _ => None,
    }
}

#[derive(Deserialize)]
struct Paging {
    limit: Option<usize>,
    after: Option<u64>,
    before: Option<u64>,
}

async fn messages(
    State(inner): State<Arc<Mutex<Inner>>>,
    Path(channel): Path<u64>,
    Query(q): Query<Paging>,
    headers: HeaderMap,
) -> Response {
    let query = format!("?limit={:?}&after={:?}", q.limit, q.after);
    record(&inner, "GET", format!("/channels/{channel}/messages{query}"), &headers);
    if let Some(r) = misbehave(&inner, &headers, true).await {
        return r;
    }
    let limit = q.limit.unwrap_or(50);
    if !(1..=100).contains(&limit) || (q.after.is_some() && q.before.is_some()) {
        return (StatusCode::BAD_REQUEST, Json(json!({"message": "Invalid Form Body", "code": 50035}))).into_response();
    }
    let i = inner.lock().unwrap();
    let Some(all) = i.channels.get(&channel) else {
        return (StatusCode::NOT_FOUND, Json(json!({"message": "Unknown Channel", "code": 10003}))).into_response();
    };
    let id = |m: &Value| m["id"].as_str().unwrap().parse::<u64>().unwrap();
    let mut page: Vec<Value> = match q.after {
        Some(after) => all.iter().filter(|m| id(m) > after).take(limit).cloned().collect(),
        None => all.iter().rev().take(limit).rev().cloned().collect(),
    };
    page.reverse();
    if i.mode == Some(Mode::NoIntent) {
        for m in &mut page {
            if m["author"]["bot"] != json!(true) {
                m["content"] = json!("");
                m["embeds"] = json!([]);
                m["attachments"] = json!([]);
            }
        }
    }
    (
        [
            ("x-ratelimit-bucket", "fakebucket"),
            ("x-ratelimit-limit", "5"),
            ("x-ratelimit-remaining", "4"),
            ("x-ratelimit-reset-after", "1.0"),
        ],
        Json(Value::Array(page)),
    )
        .into_response()
}

async fn invite(State(inner): State<Arc<Mutex<Inner>>>, Path(code): Path<String>, headers: HeaderMap) -> Response {
    record(&inner, "GET", format!("/invites/{code}"), &headers);
    if let Some(r) = misbehave(&inner, &headers, false).await {
        return r;
    }
    match inner.lock().unwrap().members {
        Some(n) => Json(json!({"code": code, "approximate_member_count": n, "approximate_presence_count": n / 4}))
            .into_response(),
        None => (StatusCode::NOT_FOUND, Json(json!({"message": "Unknown Invite", "code": 10006}))).into_response(),
    }
}

async fn guild(State(inner): State<Arc<Mutex<Inner>>>, Path(g): Path<String>, headers: HeaderMap) -> Response {
    record(&inner, "GET", format!("/guilds/{g}"), &headers);
    if let Some(r) = misbehave(&inner, &headers, true).await {
        return r;
    }
    let members = inner.lock().unwrap().members;
    Json(json!({"id": g, "name": "Fake server", "approximate_member_count": members})).into_response()
}

async fn webhook(
    State(inner): State<Arc<Mutex<Inner>>>,
    method: axum::http::Method,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    record(&inner, method.as_str(), uri.path().to_string(), &headers);
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let scripted =
        if method == axum::http::Method::POST { inner.lock().unwrap().webhook_answers.pop_front() } else { None };
    match scripted {
        Some(429) => {
            let wait = inner.lock().unwrap().retry_after;
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [("retry-after", format!("{}", wait.ceil()))],
                Json(json!({"message": "You are being rate limited.", "retry_after": wait, "global": false})),
            )
                .into_response();
        }
        Some(code) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            return (status, Json(json!({"message": "scripted", "code": 0}))).into_response();
        }
        None => {}
    }
    inner.lock().unwrap().webhooks.push((method.to_string(), uri.path().to_string(), body.clone()));
    if method == axum::http::Method::DELETE {
        return StatusCode::NO_CONTENT.into_response();
    }
    Json(json!({"id": "1", "content": body["content"], "embeds": body["embeds"]})).into_response()
}

async fn commands(State(inner): State<Arc<Mutex<Inner>>>, headers: HeaderMap, Json(body): Json<Value>) -> Response {
    record(&inner, "PUT", "/applications/commands".into(), &headers);
    if let Some(r) = misbehave(&inner, &headers, true).await {
        return r;
    }
    let registered: Vec<Value> = body
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| {
            let mut c = c.clone();
            c["id"] = json!(i.to_string());
            c
        })
        .collect();
    Json(Value::Array(registered)).into_response()
}

#[derive(Deserialize)]
struct PostBody {
    channel: u64,
    author: String,
    #[serde(default)]
    bot: bool,
    content: String,
    #[serde(default)]
    embeds: Option<Value>,
}

async fn control_post(State(inner): State<Arc<Mutex<Inner>>>, Json(b): Json<PostBody>) -> Json<Value> {
    let id = post_message(
        &mut inner.lock().unwrap(),
        b.channel,
        &b.author,
        b.bot,
        &b.content,
        b.embeds.unwrap_or(json!([])),
    );
    Json(json!({"id": id.to_string()}))
}

#[derive(Deserialize)]
struct ModeBody {
    mode: Mode,
    #[serde(default)]
    times: u32,
}

async fn control_mode(State(inner): State<Arc<Mutex<Inner>>>, Json(b): Json<ModeBody>) -> StatusCode {
    let mut i = inner.lock().unwrap();
    i.mode = Some(b.mode);
    i.throttle_left = b.times;
    StatusCode::NO_CONTENT
}

#[derive(Deserialize)]
struct MembersBody {
    members: Option<i64>,
}

async fn control_members(State(inner): State<Arc<Mutex<Inner>>>, Json(b): Json<MembersBody>) -> StatusCode {
    inner.lock().unwrap().members = b.members;
    StatusCode::NO_CONTENT
}

#[derive(Deserialize)]
struct WebhookAnswers {
    statuses: Vec<u16>,
}

async fn control_webhook_answers(State(inner): State<Arc<Mutex<Inner>>>, Json(b): Json<WebhookAnswers>) -> StatusCode {
    inner.lock().unwrap().webhook_answers.extend(b.statuses);
    StatusCode::NO_CONTENT
}

async fn control_webhooks(State(inner): State<Arc<Mutex<Inner>>>) -> Json<Value> {
    let hooks = inner.lock().unwrap().webhooks.clone();
    Json(Value::Array(hooks.into_iter().map(|(m, p, b)| json!({"method": m, "path": p, "body": b})).collect()))
}
