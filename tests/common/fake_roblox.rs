//! A fake Roblox for tests, end-to-end runs and benchmarks: the users, thumbnails, badges and
//! groups endpoints the site calls, path-style under one port (`/users/v1/...`, `/badges/v1/...`),
//! so fanhub points at it with `FANHUB_ROBLOX_API=http://127.0.0.1:PORT/{service}`.
//!
//! Players are made up from their names:
//! - `ghost*` / `unknown*`: no such user; `banned*`: `isBanned`; `hidden*`: award dates answer 500
//!   (a hidden inventory); `star*`: verified.
//! - Join year: `og*` 2009, `vet*` 2012, `mid*` 2019, `new*` 2025, others from a hash (2007-2025).
//! - ELC ownership: `og*` and `vet*` own every badge asked about (awarded 2013), `elc*` the first one.
//!   Award dates need a `.ROBLOSECURITY` cookie unless `awardDatesNeedCookie` is off; with
//!   `expectedCookie` set, any other cookie gets 401.
//! - Badge `N`: exists unless `N % 1000 == 404`; figures derive from the id and grow per call.
//! - Universe `U` has `badgesPerUniverse` badges; group `G` has `memberCount` members (cursor paging).
//!   Groups whose id ends in 404 do not exist, in 500 have no members, in 403 refuse their member
//!   list (private).
//!
//! Modes (`Modes`, switchable while running: in-process through `FakeRoblox::set`, over HTTP with
//! `POST /_fake/modes` and a partial JSON object): 429 storms with or without Retry-After, hangs,
//! malformed JSON, Pending thumbnails, per-endpoint limits it enforces (with x-ratelimit-*
//! headers), everything down (503). `GET /_fake/calls` returns the call counters per endpoint
//! (`POST /_fake/reset` zeroes them).
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub const USERNAMES: &str = "users/v1/usernames/users";
pub const USER: &str = "users/v1/users/{id}";
pub const HEADSHOTS: &str = "thumbnails/v1/users/avatar-headshot";
pub const BADGE_ICONS: &str = "thumbnails/v1/badges/icons";
pub const ASSET_THUMBNAILS: &str = "thumbnails/v1/assets";
pub const AWARDED_DATES: &str = "badges/v1/users/{id}/badges/awarded-dates";
pub const BADGE: &str = "badges/v1/badges/{id}";
pub const UNIVERSE_BADGES: &str = "badges/v1/universes/{id}/badges";
pub const GROUP: &str = "groups/v1/groups/{id}";
pub const GROUP_USERS: &str = "groups/v1/groups/{id}/users";

/// A burst of 429s.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Storm {
    /// How many 429s are left to send.
    pub remaining: u32,
    /// Only this endpoint (e.g. `users/v1/users/{id}`); all when None.
    pub endpoint: Option<String>,
    /// Sent as `Retry-After` (seconds) when set.
    pub retry_after: Option<u64>,
    /// Sent as `x-ratelimit-reset` (seconds) when set.
    pub reset: Option<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Modes {
    pub award_dates_need_cookie: bool,
    pub expected_cookie: Option<String>,
    pub storm: Storm,
    /// Endpoints (or `*`) that never answer.
    pub hang: Vec<String>,
    /// Endpoints (or `*`) that answer 200 with broken JSON.
    pub malformed: Vec<String>,
    /// The next N thumbnail answers say Pending.
    pub pending_thumbnails: u32,
    pub member_count: u64,
    pub badges_per_universe: u64,
    /// Calls allowed per 60 s per endpoint, enforced with 429 and x-ratelimit-* headers.
    pub limits: HashMap<String, u32>,
    /// Every endpoint answers 503.
    pub down: bool,
    /// Added to every answer.
    pub latency_ms: u64,
    /// Member pages hold at most this many members whatever `limit` asks (more pages in tests).
    pub member_page_size: Option<usize>,
    /// After the first member page, every page answers with the cursor it was asked with.
    pub repeat_cursor: bool,
}

impl Default for Modes {
    fn default() -> Self {
        Self {
            award_dates_need_cookie: true,
            expected_cookie: None,
            storm: Storm::default(),
            hang: Vec::new(),
            malformed: Vec::new(),
            pending_thumbnails: 0,
            member_count: 250,
            badges_per_universe: 150,
            limits: HashMap::new(),
            down: false,
            latency_ms: 0,
            member_page_size: None,
            repeat_cursor: false,
        }
    }
}

#[derive(Default)]
pub struct FakeState {
    pub modes: Mutex<Modes>,
    calls: Mutex<HashMap<String, u64>>,
    cookies_seen: Mutex<HashMap<String, u64>>,
    windows: Mutex<HashMap<String, (Instant, u32)>>,
    names: Mutex<HashMap<u64, String>>,
    started: Mutex<Option<Instant>>,
}

type Shared = Arc<FakeState>;

pub struct FakeRoblox {
    /// `http://127.0.0.1:PORT`
    pub base: String,
    pub state: Shared,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeRoblox {
    /// Starts on a free port in a thread of its own (works from sync and async tests alike).
    pub fn start() -> Self {
        Self::start_with(0, Modes::default())
    }

    pub fn start_with(port: u16, modes: Modes) -> Self {
        let state: Shared = Arc::new(FakeState::default());
        *state.modes.lock().unwrap() = modes;
        *state.started.lock().unwrap() = Some(Instant::now());
        let listener = std::net::TcpListener::bind(("127.0.0.1", port)).expect("bind the fake Roblox");
        listener.set_nonblocking(true).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let app = router(state.clone());
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = rx.await;
                    })
                    .await
                    .unwrap();
            });
            rt.shutdown_timeout(Duration::from_millis(100));
        });
        Self { base, state, shutdown: Some(tx), thread: Some(thread) }
    }

    /// The `FANHUB_ROBLOX_API` value pointing at this fake.
    pub fn template(&self) -> String {
        format!("{}/{{service}}", self.base)
    }

    pub fn set(&self, f: impl FnOnce(&mut Modes)) {
        f(&mut self.state.modes.lock().unwrap());
    }

    /// Calls received by `endpoint` (e.g. [`USER`]), 429s and failures included.
    pub fn calls(&self, endpoint: &str) -> u64 {
        self.state.calls.lock().unwrap().get(endpoint).copied().unwrap_or(0)
    }

    pub fn total_calls(&self) -> u64 {
        self.state.calls.lock().unwrap().values().sum()
    }

    /// Calls to `endpoint` that carried a `.ROBLOSECURITY` cookie.
    pub fn cookie_calls(&self, endpoint: &str) -> u64 {
        self.state.cookies_seen.lock().unwrap().get(endpoint).copied().unwrap_or(0)
    }

    pub fn reset_calls(&self) {
        self.state.calls.lock().unwrap().clear();
        self.state.cookies_seen.lock().unwrap().clear();
    }
}

impl Drop for FakeRoblox {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        // Hung handlers would hold the graceful shutdown; don't wait for the thread.
        drop(self.thread.take());
    }
}

pub fn router(state: Shared) -> Router {
    Router::new()
        .route("/users/v1/usernames/users", post(usernames))
        .route("/users/v1/users/{id}", get(user))
        .route("/thumbnails/v1/users/avatar-headshot", get(headshots))
        .route("/thumbnails/v1/badges/icons", get(badge_icons))
        .route("/thumbnails/v1/assets", get(asset_thumbnails))
        .route("/badges/v1/badges/{id}", get(badge))
        .route("/badges/v1/universes/{id}/badges", get(universe_badges))
        .route("/badges/v1/users/{id}/badges/awarded-dates", get(awarded_dates))
        .route("/groups/v1/groups/{id}", get(group))
        .route("/groups/v1/groups/{id}/users", get(group_users))
        .route("/_fake/calls", get(calls))
        .route("/_fake/modes", post(set_modes).get(get_modes))
        .route("/_fake/reset", post(reset))
        .with_state(state)
}

fn errors(status: StatusCode, code: i64, message: &str) -> Response {
    (status, Json(json!({"errors": [{"code": code, "message": message}]}))).into_response()
}

fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

fn matches(list: &[String], endpoint: &str) -> bool {
    list.iter().any(|e| e == "*" || e == endpoint)
}

/// Counting, latency, down/hang/storm/limit modes: Some(answer) when a mode answers instead.
async fn gate(state: &Shared, endpoint: &str, headers: &HeaderMap) -> Result<HeaderMap, Response> {
    *state.calls.lock().unwrap().entry(endpoint.to_string()).or_default() += 1;
    if headers.get("cookie").and_then(|c| c.to_str().ok()).is_some_and(|c| c.contains(".ROBLOSECURITY=")) {
        *state.cookies_seen.lock().unwrap().entry(endpoint.to_string()).or_default() += 1;
    }
    let modes = state.modes.lock().unwrap().clone();
    if modes.latency_ms > 0 {
        tokio::time::sleep(Duration::from_millis(modes.latency_ms)).await;
    }
    if matches(&modes.hang, endpoint) {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    if modes.down {
        return Err(errors(StatusCode::SERVICE_UNAVAILABLE, 0, "Service unavailable"));
    }
    let storm_hit = {
        let mut m = state.modes.lock().unwrap();
        let s = &mut m.storm;
        if s.remaining > 0 && s.endpoint.as_deref().is_none_or(|e| e == endpoint) {
            s.remaining -= 1;
            Some(s.clone())
        } else {
            None
        }
    };
    if let Some(storm) = storm_hit {
        let mut res = errors(StatusCode::TOO_MANY_REQUESTS, 0, "Too many requests");
        if let Some(s) = storm.retry_after {
            res.headers_mut().insert("retry-after", HeaderValue::from(s));
        }
        if let Some(s) = storm.reset {
            res.headers_mut().insert("x-ratelimit-reset", HeaderValue::from(s));
            res.headers_mut().insert("x-ratelimit-remaining", HeaderValue::from(0));
        }
        return Err(res);
    }
    let mut out = HeaderMap::new();
    if let Some(limit) = modes.limits.get(endpoint).copied() {
        let mut windows = state.windows.lock().unwrap();
        let now = Instant::now();
        let w = windows.entry(endpoint.to_string()).or_insert((now, 0));
        if now.duration_since(w.0) >= Duration::from_secs(60) {
            *w = (now, 0);
        }
        let reset = 60u64.saturating_sub(now.duration_since(w.0).as_secs()).max(1);
        out.insert("x-ratelimit-limit", HeaderValue::from(limit));
        out.insert("x-ratelimit-reset", HeaderValue::from(reset));
        if w.1 >= limit {
            *state.calls.lock().unwrap().entry(format!("429 {endpoint}")).or_default() += 1;
            let mut res = errors(StatusCode::TOO_MANY_REQUESTS, 0, "Too many requests");
            res.headers_mut().extend(out);
            res.headers_mut().insert("x-ratelimit-remaining", HeaderValue::from(0));
            return Err(res);
        }
        w.1 += 1;
        out.insert("x-ratelimit-remaining", HeaderValue::from(limit - w.1));
    }
    if matches(&modes.malformed, endpoint) {
        return Err((StatusCode::OK, [("content-type", "application/json")], "{\"data\": [{\"id\": ").into_response());
    }
    Ok(out)
}

fn answer(headers: HeaderMap, body: Value) -> Response {
    let mut res = Json(body).into_response();
    res.headers_mut().extend(headers);
    res
}

/// A made-up player, from the name.
struct Player {
    name: String,
    created: String,
    banned: bool,
    hidden: bool,
    verified: bool,
    owns_all_elc: bool,
    owns_first_elc: bool,
}

fn player(name: &str) -> Option<Player> {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("ghost") || lower.starts_with("unknown") {
        return None;
    }
    let h = hash(&lower);
    let created = if lower.starts_with("og") {
        "2009-06-15T17:04:05.123Z".to_string()
    } else if lower.starts_with("vet") {
        "2012-03-04T10:20:30.4567891Z".to_string()
    } else if lower.starts_with("mid") {
        "2019-07-08T09:10:11Z".to_string()
    } else if lower.starts_with("new") {
        "2025-02-03T04:05:06.7Z".to_string()
    } else {
        format!("{}-{:02}-{:02}T12:00:00.25Z", 2007 + h % 19, 1 + h % 12, 1 + h % 28)
    };
    Some(Player {
        name: name.to_string(),
        created,
        banned: lower.starts_with("banned"),
        hidden: lower.starts_with("hidden"),
        verified: lower.starts_with("star"),
        owns_all_elc: lower.starts_with("og") || lower.starts_with("vet"),
        owns_first_elc: lower.starts_with("elc"),
    })
}

fn id_of(name: &str) -> u64 {
    1_000 + hash(&name.to_ascii_lowercase()) % 8_000_000_000
}

fn name_of(state: &Shared, id: u64) -> String {
    state.names.lock().unwrap().get(&id).cloned().unwrap_or_else(|| format!("Player{id}"))
}

#[derive(Deserialize)]
struct UsernamesBody {
    usernames: Vec<String>,
}

async fn usernames(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let out = match gate(&s, USERNAMES, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let Ok(body) = serde_json::from_slice::<UsernamesBody>(&body) else {
        return errors(StatusCode::BAD_REQUEST, 0, "Invalid request");
    };
    let data: Vec<Value> = body
        .usernames
        .iter()
        .filter_map(|n| player(n).map(|p| (n, p)))
        .map(|(n, p)| {
            let id = id_of(n);
            s.names.lock().unwrap().insert(id, p.name.clone());
            json!({"requestedUsername": n, "hasVerifiedBadge": p.verified, "id": id, "name": p.name, "displayName": format!("{} Display", p.name)})
        })
        .collect();
    answer(out, json!({"data": data}))
}

async fn user(State(s): State<Shared>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let out = match gate(&s, USER, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let Ok(id) = id.parse::<u64>() else { return errors(StatusCode::BAD_REQUEST, 6, "The user id is invalid.") };
    let name = name_of(&s, id);
    let Some(p) = player(&name) else { return errors(StatusCode::NOT_FOUND, 3, "The user id is invalid.") };
    answer(
        out,
        json!({"description": format!("Hi, I am {name}."), "created": p.created, "isBanned": p.banned,
            "externalAppDisplayName": null, "hasVerifiedBadge": p.verified, "id": id, "name": name,
            "displayName": format!("{name} Display")}),
    )
}

fn thumbs(s: &Shared, ids: &str, kind: &str) -> Value {
    thumbs_sized(s, ids, kind, "150x150")
}

fn thumbs_sized(s: &Shared, ids: &str, kind: &str, size: &str) -> Value {
    let (w, h) = size.split_once('x').unwrap_or(("150", "150"));
    let pending = {
        let mut m = s.modes.lock().unwrap();
        if m.pending_thumbnails > 0 {
            m.pending_thumbnails -= 1;
            true
        } else {
            false
        }
    };
    let data: Vec<Value> = ids
        .split(',')
        .filter_map(|i| i.trim().parse::<u64>().ok())
        .map(|id| {
            if pending {
                json!({"targetId": id, "state": "Pending", "imageUrl": null, "version": ""})
            } else {
                json!({"targetId": id, "state": "Completed", "imageUrl": format!("https://tr.rbxcdn.com/fake-{kind}-{id}/{w}/{h}/Image/Png"), "version": "1"})
            }
        })
        .collect();
    json!({"data": data})
}

async fn headshots(State(s): State<Shared>, headers: HeaderMap, Query(q): Query<HashMap<String, String>>) -> Response {
    let out = match gate(&s, HEADSHOTS, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let Some(ids) = q.get("userIds") else { return errors(StatusCode::BAD_REQUEST, 4, "The requested Ids are invalid") };
    answer(out, thumbs(&s, ids, "avatar"))
}

async fn badge_icons(State(s): State<Shared>, headers: HeaderMap, Query(q): Query<HashMap<String, String>>) -> Response {
    let out = match gate(&s, BADGE_ICONS, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let Some(ids) = q.get("badgeIds") else { return errors(StatusCode::BAD_REQUEST, 4, "The requested Ids are invalid") };
    answer(out, thumbs(&s, ids, "badge"))
}

async fn asset_thumbnails(State(s): State<Shared>, headers: HeaderMap, Query(q): Query<HashMap<String, String>>) -> Response {
    let out = match gate(&s, ASSET_THUMBNAILS, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let Some(ids) = q.get("assetIds") else { return errors(StatusCode::BAD_REQUEST, 4, "The requested Ids are invalid") };
    let size = q.get("size").map(String::as_str).unwrap_or("30x30");
    if !["30x30", "42x42", "50x50", "60x62", "75x75", "110x110", "140x140", "150x150", "160x100", "160x600", "250x250", "256x144", "300x250", "304x166", "384x216", "396x216", "420x420", "480x270", "512x512", "576x324", "700x700", "728x90", "768x432"].contains(&size) {
        return errors(StatusCode::BAD_REQUEST, 3, "The requested size is invalid. Please see documentation for valid thumbnail size parameter name and format.");
    }
    answer(out, thumbs_sized(&s, ids, "asset", size))
}

fn badge_json(s: &Shared, id: u64) -> Value {
    let n = s.calls.lock().unwrap().get(BADGE).copied().unwrap_or(0) as i64;
    let base = (id % 997) as i64 * 1_000 + 10;
    json!({
        "id": id, "name": format!("Badge {id}"), "description": format!("Awarded for challenge {id}."),
        "displayName": format!("Badge {id}"), "displayDescription": null, "enabled": true,
        "iconImageId": id + 1, "displayIconImageId": id + 1,
        "created": "2014-05-06T07:08:09.1Z", "updated": "2020-01-01T00:00:00Z",
        "statistics": {"pastDayAwardedCount": (id % 500) as i64, "awardedCount": base + n, "winRatePercentage": (id % 1000) as f64 / 1000.0},
        "awardingUniverse": {"id": 4242, "name": "Fake Game", "rootPlaceId": 4243}
    })
}

async fn badge(State(s): State<Shared>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let out = match gate(&s, BADGE, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    match id.parse::<u64>() {
        Ok(id) if id % 1000 != 404 => answer(out, badge_json(&s, id)),
        _ => errors(StatusCode::NOT_FOUND, 1, "Badge is invalid or does not exist."),
    }
}

fn page_params(q: &HashMap<String, String>, prefix: char) -> Result<(usize, usize), Response> {
    let limit = q.get("limit").map(String::as_str).unwrap_or("10");
    let limit = match limit {
        "10" | "25" | "50" | "100" => limit.parse::<usize>().unwrap(),
        _ => return Err(errors(StatusCode::BAD_REQUEST, 0, "Invalid limit")),
    };
    let offset = match q.get("cursor").filter(|c| !c.is_empty()) {
        None => 0,
        Some(c) => match c.strip_prefix(prefix).and_then(|n| n.parse().ok()) {
            Some(n) => n,
            None => return Err(errors(StatusCode::BAD_REQUEST, 0, "The cursor is invalid.")),
        },
    };
    Ok((limit, offset))
}

async fn universe_badges(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<u64>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let out = match gate(&s, UNIVERSE_BADGES, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let (limit, offset) = match page_params(&q, 'b') {
        Ok(p) => p,
        Err(r) => return r,
    };
    let total = s.modes.lock().unwrap().badges_per_universe as usize;
    let end = (offset + limit).min(total);
    let data: Vec<Value> = (offset..end).map(|i| badge_json(&s, id * 1000 + i as u64 + 1)).collect();
    let next = (end < total).then(|| format!("b{end}"));
    let prev = (offset > 0).then(|| format!("b{}", offset.saturating_sub(limit)));
    answer(out, json!({"previousPageCursor": prev, "nextPageCursor": next, "data": data}))
}

async fn awarded_dates(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<u64>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let out = match gate(&s, AWARDED_DATES, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let modes = s.modes.lock().unwrap().clone();
    let cookie = headers
        .get("cookie")
        .and_then(|c| c.to_str().ok())
        .and_then(|c| c.split(';').find_map(|p| p.trim().strip_prefix(".ROBLOSECURITY=")).map(str::to_string));
    match (&cookie, &modes.expected_cookie) {
        (None, _) if modes.award_dates_need_cookie => return errors(StatusCode::FORBIDDEN, 0, "Request Context Failure"),
        (Some(c), Some(expected)) if c != expected => return errors(StatusCode::UNAUTHORIZED, 0, "Authorization has been denied for this request."),
        _ => {}
    }
    let name = name_of(&s, id);
    let Some(p) = player(&name) else { return errors(StatusCode::NOT_FOUND, 1, "The user is invalid.") };
    if p.hidden {
        return errors(StatusCode::INTERNAL_SERVER_ERROR, 0, "InternalServerError");
    }
    let ids: Vec<u64> =
        q.get("badgeIds").map(|v| v.split(',').filter_map(|i| i.trim().parse().ok()).collect()).unwrap_or_default();
    if ids.is_empty() || ids.len() > 100 {
        return errors(StatusCode::BAD_REQUEST, 0, "Invalid badge ids");
    }
    let owned: Vec<u64> = if p.owns_all_elc {
        ids.clone()
    } else if p.owns_first_elc {
        ids[..1].to_vec()
    } else {
        Vec::new()
    };
    let data: Vec<Value> = owned
        .iter()
        .enumerate()
        .map(|(i, b)| json!({"badgeId": b, "awardedDate": format!("2013-0{}-1{}T08:30:30.604064Z", 1 + i % 9, i % 10)}))
        .collect();
    answer(out, json!({"data": data}))
}

async fn group(State(s): State<Shared>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let out = match gate(&s, GROUP, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let Some(id) = id.parse::<u64>().ok().filter(|id| id % 1000 != 404) else {
        return errors(StatusCode::BAD_REQUEST, 1, "Group is invalid or does not exist.");
    };
    let count = if id % 1000 == 500 { 0 } else { s.modes.lock().unwrap().member_count };
    answer(
        out,
        json!({"id": id, "name": format!("Fake Group {id}"), "description": "A group of the fake Roblox.",
            "owner": {"hasVerifiedBadge": false, "userId": 77, "username": "OgOwner", "displayName": "Owner"},
            "shout": null, "memberCount": count, "isBuildersClubOnly": false, "publicEntryAllowed": true, "hasVerifiedBadge": false}),
    )
}

async fn group_users(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let out = match gate(&s, GROUP_USERS, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let Some(id) = id.parse::<u64>().ok().filter(|id| id % 1000 != 404) else {
        return errors(StatusCode::BAD_REQUEST, 1, "The group is invalid or does not exist.");
    };
    if id % 1000 == 403 {
        return errors(StatusCode::FORBIDDEN, 0, "You do not have permission to view this group's members.");
    }
    let (limit, offset) = match page_params(&q, 'm') {
        Ok(p) => p,
        Err(r) => return r,
    };
    let modes = s.modes.lock().unwrap().clone();
    let limit = modes.member_page_size.map_or(limit, |n| n.clamp(1, limit));
    let total = if id % 1000 == 500 { 0 } else { modes.member_count as usize };
    let end = (offset + limit).min(total);
    let prefixes = ["Vet", "New", "Mid", "Og", "Player"];
    let data: Vec<Value> = (offset..end)
        .map(|i| {
            let name = format!("{}{}x{}", prefixes[i % prefixes.len()], id, i);
            let uid = id_of(&name);
            s.names.lock().unwrap().insert(uid, name.clone());
            json!({"user": {"hasVerifiedBadge": false, "userId": uid, "username": name, "displayName": name},
                "role": {"id": 1, "name": if i == 0 { "Owner" } else { "Member" }, "rank": if i == 0 { 255 } else { 1 }}})
        })
        .collect();
    let next = match q.get("cursor").filter(|c| !c.is_empty()) {
        Some(asked) if modes.repeat_cursor => Some(asked.clone()),
        _ => (end < total).then(|| format!("m{end}")),
    };
    let prev = (offset > 0).then(|| format!("m{}", offset.saturating_sub(limit)));
    answer(out, json!({"previousPageCursor": prev, "nextPageCursor": next, "data": data}))
}

async fn calls(State(s): State<Shared>) -> Json<Value> {
    let calls = s.calls.lock().unwrap().clone();
    let cookies = s.cookies_seen.lock().unwrap().clone();
    Json(json!({"calls": calls, "withCookie": cookies}))
}

async fn get_modes(State(s): State<Shared>) -> Json<Modes> {
    Json(s.modes.lock().unwrap().clone())
}

/// Merges a partial `Modes` object into the current modes.
async fn set_modes(State(s): State<Shared>, Json(patch): Json<Value>) -> Response {
    let mut modes = s.modes.lock().unwrap();
    let mut current = serde_json::to_value(&*modes).unwrap();
    if let (Some(cur), Some(p)) = (current.as_object_mut(), patch.as_object()) {
        for (k, v) in p {
            cur.insert(k.clone(), v.clone());
        }
    }
    match serde_json::from_value::<Modes>(current) {
        Ok(m) => {
            *modes = m;
            Json(modes.clone()).into_response()
        }
        Err(e) => (StatusCode::BAD_REQUEST, e.to_string()).into_response(),
    }
}

async fn reset(State(s): State<Shared>) -> StatusCode {
    s.calls.lock().unwrap().clear();
    s.cookies_seen.lock().unwrap().clear();
    s.windows.lock().unwrap().clear();
    StatusCode::NO_CONTENT
}
