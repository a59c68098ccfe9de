//! A fake Roblox for tests, end-to-end runs and benchmarks: the users, thumbnails, badges and
//! groups endpoints the site calls, path-style under one port (`/users/v1/...`, `/badges/v1/...`),
//! so fanhub points at it with `FANHUB_ROBLOX_API=http://127.0.0.1:PORT/{service}`. The same port
//! serves Open Cloud (`/cloud/v2/users/{id}`, `.../users/{id}/inventory-items`,
//! `/cloud/v2/groups/{id}`, `.../groups/{id}/memberships`): `FANHUB_ROBLOX_OPEN_CLOUD_API` is
//! `http://127.0.0.1:PORT` and the key, sent as `x-api-key`, is [`FAKE_OPEN_CLOUD_KEY`]. Open Cloud
//! errors have Open Cloud's shape (`{"code":"NOT_FOUND","message":...}`), the others the legacy
//! `errors` list.
//!
//! Players are made up from their names:
//! - `ghost*` / `unknown*`: no such user; `banned*`: `isBanned`; `hidden*`: award dates answer 500
//!   (a hidden inventory); `star*`: verified.
//! - Open Cloud: user ids that no name lookup handed out and that end in 404 do not exist.
//! - Join year: `og*` 2009, `vet*` 2012, `mid*` 2019, `new*` 2025, others from a hash (2007-2025).
//! - ELC ownership: `og*` and `vet*` own every badge asked about (awarded 2013), `elc*` the first one.
//!   Award dates need a `.ROBLOSECURITY` cookie unless `awardDatesNeedCookie` is off; with
//!   `expectedCookie` set, any other cookie gets 401.
//! - Open Cloud inventories: every player but `nobadge*` also owns the ordinary badges 900001 and
//!   900002; `filter=badges=true` lists those plus the ELC badges among the ids last asked about with
//!   `badgeIds` for that player. `private*`: 403 PERMISSION_DENIED; `closed*`: an empty list whatever
//!   the filter.
//! - Badge `N`: exists unless `N % 1000 == 404`; figures derive from the id and grow per call.
//! - Universe `U` has `badgesPerUniverse` badges; group `G` has `memberCount` members (cursor paging;
//!   Open Cloud lists the same members in the same order). Groups whose id ends in 404 do not exist,
//!   in 500 have no members, in 403 refuse their member list (private).
//!
//! Modes (`Modes`, switchable while running: in-process through `FakeRoblox::set`, over HTTP with
//! `POST /_fake/modes` and a partial JSON object): 429 storms with or without Retry-After, hangs,
//! malformed JSON, Pending thumbnails, per-endpoint limits it enforces (with x-ratelimit-*
//! headers), everything down (503). Open Cloud: the key it accepts (`openCloudKey`, null: any key)
//! or a refused key (`openCloudKeyForbidden`), its published per-minute limits enforced by default
//! (users 1000, inventory 100, memberships 300, group 150, times `openCloudLimitScale`, unless
//! `limits` names the endpoint), `cloudRetryAfter` on its limit 429s, and hostile answers
//! (`cloudNoCreateTime`, `cloudOddDates`, `maxFilterIds`, `cloudRepeatPageToken`, `cloudHugePage`,
//! `cloudBadMemberUser`). `GET /_fake/calls` returns the call counters per endpoint, and those that
//! carried a cookie or an API key (`POST /_fake/reset` zeroes them).
#![allow(dead_code)]
// why: the handlers return axum's `Response` as the error of their early returns (`?` on a
// ready-made 4xx answer), the axum idiom; boxing it would only add noise to a test fake.
#![allow(clippy::result_large_err)]

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
pub const GROUP_ROLES: &str = "groups/v1/groups/{id}/roles";
pub const CLOUD_USER: &str = "cloud/v2/users/{id}";
pub const CLOUD_INVENTORY: &str = "cloud/v2/users/{id}/inventory-items";
pub const CLOUD_MEMBERSHIPS: &str = "cloud/v2/groups/{id}/memberships";
pub const CLOUD_GROUP: &str = "cloud/v2/groups/{id}";

/// The Open Cloud API key the fake accepts by default (`Modes::open_cloud_key`).
pub const FAKE_OPEN_CLOUD_KEY: &str = "fake-open-cloud-key";

/// Badges every player but `nobadge*` owns, besides the ELC ones.
pub const ORDINARY_BADGES: [u64; 2] = [900001, 900002];

/// Open Cloud's published calls per 60 s for each endpoint, enforced unless `limits` names it.
const OPEN_CLOUD_LIMITS: [(&str, u32); 4] =
    [(CLOUD_USER, 1000), (CLOUD_INVENTORY, 100), (CLOUD_MEMBERSHIPS, 300), (CLOUD_GROUP, 150)];

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
    /// The `x-api-key` Open Cloud endpoints accept; None: any non-empty key. A missing or other
    /// key gets 401 UNAUTHENTICATED.
    pub open_cloud_key: Option<String>,
    /// The right key gets 403 PERMISSION_DENIED (an expired key, or a call from outside its IP
    /// allow list).
    pub open_cloud_key_forbidden: bool,
    /// Multiplies Open Cloud's published limits (benchmarks scale them up).
    pub open_cloud_limit_scale: f64,
    /// Sent as `retry-after` (seconds) on Open Cloud limit 429s; None: omitted, as Roblox often does.
    pub cloud_retry_after: Option<u64>,
    /// Open Cloud users come without `createTime`.
    pub cloud_no_create_time: bool,
    /// Open Cloud `createTime` and `addTime` as `03/04/2012 10:20:30` instead of RFC 3339.
    pub cloud_odd_dates: bool,
    /// More ids than this in an inventory `badgeIds` filter get 400 INVALID_ARGUMENT.
    pub max_filter_ids: usize,
    /// Inventory answers always carry the same non-empty `nextPageToken`; membership pages after
    /// the first answer with the token they were asked with.
    pub cloud_repeat_page_token: bool,
    /// Inventory and membership answers hold everything from the asked offset in one page plus N
    /// extra items first (badges 800000 and up, members `Huge{gid}x{i}`), whatever `maxPageSize`.
    pub cloud_huge_page: Option<usize>,
    /// Every 7th member's `user` is `users/abc` and every 11th `groups/5`.
    pub cloud_bad_member_user: bool,
    /// Lower-case usernames that own every ELC badge asked about from now on (a player earning
    /// badges between two checks), whatever their prefix.
    pub elc_owners: Vec<String>,
    /// Display names by lower-case username (a display-name change).
    pub display_names: HashMap<String, String>,
    /// New usernames by lower-case old username (a rename: the profile by id answers the new name).
    pub renamed: HashMap<String, String>,
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
            open_cloud_key: Some(FAKE_OPEN_CLOUD_KEY.to_string()),
            open_cloud_key_forbidden: false,
            open_cloud_limit_scale: 1.0,
            cloud_retry_after: None,
            cloud_no_create_time: false,
            cloud_odd_dates: false,
            max_filter_ids: 100,
            cloud_repeat_page_token: false,
            cloud_huge_page: None,
            cloud_bad_member_user: false,
            elc_owners: Vec::new(),
            display_names: HashMap::new(),
            renamed: HashMap::new(),
        }
    }
}

#[derive(Default)]
pub struct FakeState {
    pub modes: Mutex<Modes>,
    calls: Mutex<HashMap<String, u64>>,
    /// When each call arrived (ms since the Unix epoch), per endpoint: benchmarks count the calls
    /// of each 60 s window.
    times: Mutex<HashMap<String, Vec<u64>>>,
    cookies_seen: Mutex<HashMap<String, u64>>,
    keys_seen: Mutex<HashMap<String, u64>>,
    /// Per user id, the badge ids last asked about with `badgeIds` (what `badges=true` lists as ELC).
    asked_badges: Mutex<HashMap<u64, Vec<u64>>>,
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

    /// Calls to `endpoint` that carried an `x-api-key` header, right or wrong.
    pub fn key_calls(&self, endpoint: &str) -> u64 {
        self.state.keys_seen.lock().unwrap().get(endpoint).copied().unwrap_or(0)
    }

    /// The `FANHUB_ROBLOX_OPEN_CLOUD_API` value pointing at this fake (fanhub appends `/cloud/v2/...`).
    pub fn open_cloud_api(&self) -> String {
        self.base.clone()
    }

    pub fn reset_calls(&self) {
        self.state.calls.lock().unwrap().clear();
        self.state.cookies_seen.lock().unwrap().clear();
        self.state.keys_seen.lock().unwrap().clear();
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
        .route("/groups/v1/groups/{id}/roles", get(group_roles))
        .route("/cloud/v2/users/{id}", get(cloud_user))
        .route("/cloud/v2/users/{id}/inventory-items", get(cloud_inventory))
        .route("/cloud/v2/groups/{id}", get(cloud_group))
        .route("/cloud/v2/groups/{id}/memberships", get(cloud_memberships))
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

fn is_cloud(endpoint: &str) -> bool {
    endpoint.starts_with("cloud/")
}

/// An Open Cloud error: `{"code": "NOT_FOUND", "message": ...}`, the code named after the status.
fn cloud_error(status: StatusCode, message: &str) -> Response {
    let code = match status.as_u16() {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        503 => "UNAVAILABLE",
        _ => "INTERNAL",
    };
    (status, Json(json!({"code": code, "message": message}))).into_response()
}

/// An error in the shape of the endpoint's family (Open Cloud or the legacy `errors` list).
fn refuse(endpoint: &str, status: StatusCode, message: &str) -> Response {
    if is_cloud(endpoint) { cloud_error(status, message) } else { errors(status, 0, message) }
}

/// The per-60-s limit the fake enforces on `endpoint`: `limits`, else Open Cloud's published one.
fn limit_of(modes: &Modes, endpoint: &str) -> Option<u32> {
    modes.limits.get(endpoint).copied().or_else(|| {
        let (_, published) = OPEN_CLOUD_LIMITS.iter().find(|(e, _)| *e == endpoint)?;
        Some(((*published as f64 * modes.open_cloud_limit_scale).round() as u32).max(1))
    })
}

/// Counting, key check, latency, down/hang/storm/limit modes: Err(answer) when one of them answers
/// instead of the endpoint; Ok(the x-ratelimit-* headers the answer carries).
async fn gate(state: &Shared, endpoint: &str, headers: &HeaderMap) -> Result<HeaderMap, Response> {
    *state.calls.lock().unwrap().entry(endpoint.to_string()).or_default() += 1;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    state.times.lock().unwrap().entry(endpoint.to_string()).or_default().push(now);
    if headers.get("cookie").and_then(|c| c.to_str().ok()).is_some_and(|c| c.contains(".ROBLOSECURITY=")) {
        *state.cookies_seen.lock().unwrap().entry(endpoint.to_string()).or_default() += 1;
    }
    let modes = state.modes.lock().unwrap().clone();
    if is_cloud(endpoint) {
        let key = headers.get("x-api-key").map(|k| k.to_str().unwrap_or(""));
        if key.is_some() {
            *state.keys_seen.lock().unwrap().entry(endpoint.to_string()).or_default() += 1;
        }
        let accepted = key.is_some_and(|k| !k.is_empty() && modes.open_cloud_key.as_deref().is_none_or(|e| e == k));
        if !accepted {
            return Err(cloud_error(StatusCode::UNAUTHORIZED, "Invalid API Key"));
        }
        if modes.open_cloud_key_forbidden {
            return Err(cloud_error(StatusCode::FORBIDDEN, "This API key is not allowed from this IP address."));
        }
    }
    if modes.latency_ms > 0 {
        tokio::time::sleep(Duration::from_millis(modes.latency_ms)).await;
    }
    if matches(&modes.hang, endpoint) {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    if modes.down {
        return Err(refuse(endpoint, StatusCode::SERVICE_UNAVAILABLE, "Service unavailable"));
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
        let mut res = refuse(endpoint, StatusCode::TOO_MANY_REQUESTS, "Too many requests");
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
    if let Some(limit) = limit_of(&modes, endpoint) {
        let mut windows = state.windows.lock().unwrap();
        let now = Instant::now();
        let w = windows.entry(endpoint.to_string()).or_insert((now, 0));
        if now.duration_since(w.0) >= Duration::from_secs(60) {
            *w = (now, 0);
        }
        let reset = 60u64.saturating_sub(now.duration_since(w.0).as_secs()).max(1);
        let limit_header = if is_cloud(endpoint) {
            HeaderValue::from_str(&format!("{limit}, {limit};w=60")).unwrap()
        } else {
            limit.into()
        };
        out.insert("x-ratelimit-limit", limit_header);
        out.insert("x-ratelimit-reset", HeaderValue::from(reset));
        if w.1 >= limit {
            *state.calls.lock().unwrap().entry(format!("429 {endpoint}")).or_default() += 1;
            let mut res = if is_cloud(endpoint) {
                cloud_error(StatusCode::TOO_MANY_REQUESTS, "Resource has been exhausted (e.g. check quota).")
            } else {
                errors(StatusCode::TOO_MANY_REQUESTS, 0, "Too many requests")
            };
            res.headers_mut().extend(out);
            res.headers_mut().insert("x-ratelimit-remaining", HeaderValue::from(0));
            if let Some(s) = modes.cloud_retry_after.filter(|_| is_cloud(endpoint)) {
                res.headers_mut().insert("retry-after", HeaderValue::from(s));
            }
            return Err(res);
        }
        w.1 += 1;
        out.insert("x-ratelimit-remaining", HeaderValue::from(limit - w.1));
    }
    if matches(&modes.malformed, endpoint) {
        let mut res = (StatusCode::OK, [("content-type", "application/json")], "{\"data\": [{\"id\": ").into_response();
        if is_cloud(endpoint) {
            res.headers_mut().extend(out);
        }
        return Err(res);
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
    /// Open Cloud: the inventory is refused (403).
    private: bool,
    /// Open Cloud: the inventory answers an empty list.
    closed: bool,
    /// Open Cloud: owns neither of the [`ORDINARY_BADGES`].
    no_badges: bool,
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
        private: lower.starts_with("private"),
        closed: lower.starts_with("closed"),
        no_badges: lower.starts_with("nobadge"),
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
    let (shown, display) = {
        let modes = s.modes.lock().unwrap();
        let lower = name.to_ascii_lowercase();
        let shown = modes.renamed.get(&lower).cloned().unwrap_or_else(|| name.clone());
        let display = modes.display_names.get(&lower).cloned().unwrap_or_else(|| format!("{name} Display"));
        (shown, display)
    };
    answer(
        out,
        json!({"description": format!("Hi, I am {name}."), "created": p.created, "isBanned": p.banned,
            "externalAppDisplayName": null, "hasVerifiedBadge": p.verified, "id": id, "name": shown,
            "displayName": display}),
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
    let Some(ids) = q.get("userIds") else {
        return errors(StatusCode::BAD_REQUEST, 4, "The requested Ids are invalid");
    };
    answer(out, thumbs(&s, ids, "avatar"))
}

async fn badge_icons(
    State(s): State<Shared>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let out = match gate(&s, BADGE_ICONS, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let Some(ids) = q.get("badgeIds") else {
        return errors(StatusCode::BAD_REQUEST, 4, "The requested Ids are invalid");
    };
    answer(out, thumbs(&s, ids, "badge"))
}

async fn asset_thumbnails(
    State(s): State<Shared>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let out = match gate(&s, ASSET_THUMBNAILS, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let Some(ids) = q.get("assetIds") else {
        return errors(StatusCode::BAD_REQUEST, 4, "The requested Ids are invalid");
    };
    let size = q.get("size").map(String::as_str).unwrap_or("30x30");
    if ![
        "30x30", "42x42", "50x50", "60x62", "75x75", "110x110", "140x140", "150x150", "160x100", "160x600", "250x250",
        "256x144", "300x250", "304x166", "384x216", "396x216", "420x420", "480x270", "512x512", "576x324", "700x700",
        "728x90", "768x432",
    ]
    .contains(&size)
    {
        return errors(
            StatusCode::BAD_REQUEST,
            3,
            "The requested size is invalid. Please see documentation for valid thumbnail size parameter name and format.",
        );
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
        (None, _) if modes.award_dates_need_cookie => {
            return errors(StatusCode::FORBIDDEN, 0, "Request Context Failure");
        }
        (Some(c), Some(expected)) if c != expected => {
            return errors(StatusCode::UNAUTHORIZED, 0, "Authorization has been denied for this request.");
        }
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
    s.asked_badges.lock().unwrap().insert(id, ids.clone());
    let owned: Vec<u64> = if p.owns_all_elc || modes.elc_owners.contains(&name.to_ascii_lowercase()) {
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

/// The roles every fake group has: "Member" (id 1, rank 1) and "Owner" (id 255, rank 255).
async fn group_roles(State(s): State<Shared>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let out = match gate(&s, GROUP_ROLES, &headers).await {
        Ok(h) => h,
        Err(r) => return r,
    };
    let Some(id) = id.parse::<u64>().ok().filter(|id| id % 1000 != 404) else {
        return errors(StatusCode::BAD_REQUEST, 1, "Group is invalid or does not exist.");
    };
    answer(
        out,
        json!({"groupId": id, "roles": [
            {"id": 1, "name": "Member", "rank": 1, "memberCount": 0},
            {"id": 255, "name": "Owner", "rank": 255, "memberCount": 1}]}),
    )
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

/// The name of group `gid`'s member number `i` (legacy and Open Cloud list the same members).
fn member_name(gid: u64, i: usize) -> String {
    const PREFIXES: [&str; 5] = ["Vet", "New", "Mid", "Og", "Player"];
    format!("{}{}x{}", PREFIXES[i % PREFIXES.len()], gid, i)
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
    let data: Vec<Value> = (offset..end)
        .map(|i| {
            let name = member_name(id, i);
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

/// An Open Cloud answer: the body or the handler's error, with the gate's x-ratelimit-* headers.
fn cloud_answer(headers: HeaderMap, result: Result<Value, Response>) -> Response {
    let mut res = match result {
        Ok(body) => Json(body).into_response(),
        Err(res) => res,
    };
    res.headers_mut().extend(headers);
    res
}

fn invalid(message: &str) -> Response {
    cloud_error(StatusCode::BAD_REQUEST, message)
}

/// `2012-03-04T10:20:30.45Z` as `03/04/2012 10:20:30` (the `cloudOddDates` mode).
fn odd_date(rfc3339: &str) -> String {
    let part = |a: usize, b: usize| rfc3339.get(a..b).unwrap_or("00");
    format!("{}/{}/{} {}", part(5, 7), part(8, 10), part(0, 4), part(11, 19))
}

fn cloud_date(modes: &Modes, rfc3339: String) -> String {
    if modes.cloud_odd_dates { odd_date(&rfc3339) } else { rfc3339 }
}

/// `maxPageSize`: absent 25, above 100 treated as 100, below 1 or not a number refused.
fn cloud_page_size(q: &HashMap<String, String>) -> Result<usize, Response> {
    let Some(asked) = q.get("maxPageSize") else { return Ok(25) };
    let digits = !asked.is_empty() && asked.bytes().all(|b| b.is_ascii_digit());
    match asked.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n.min(100) as usize),
        Err(_) if digits => Ok(100),
        _ => Err(invalid("maxPageSize must be a number from 1 to 100.")),
    }
}

/// An opaque page token: the offset and a tag of the query it belongs to (`scope`).
fn cloud_token(prefix: char, offset: usize, scope: &str) -> String {
    format!("{prefix}{offset}x{:06x}", hash(scope) & 0xff_ffff)
}

/// The offset a `pageToken` stands for; a token of another query or garbage is refused.
fn cloud_offset(q: &HashMap<String, String>, prefix: char, scope: &str) -> Result<usize, Response> {
    let Some(token) = q.get("pageToken").filter(|t| !t.is_empty()) else { return Ok(0) };
    token
        .strip_prefix(prefix)
        .and_then(|rest| rest.split_once('x'))
        .and_then(|(n, _)| n.parse::<usize>().ok())
        .filter(|n| cloud_token(prefix, *n, scope) == *token)
        .ok_or_else(|| invalid("The page token is invalid."))
}

async fn cloud_user(State(s): State<Shared>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    match gate(&s, CLOUD_USER, &headers).await {
        Ok(out) => cloud_answer(out, cloud_user_body(&s, &id)),
        Err(res) => res,
    }
}

/// The player with user id `id` for Open Cloud: as for the legacy endpoints, except that ids no
/// name lookup handed out and ending in 404 do not exist (so unknown ids can be asked about).
fn cloud_player(s: &Shared, id: u64) -> Result<Player, Response> {
    let registered = s.names.lock().unwrap().contains_key(&id);
    let p = if registered || id % 1000 != 404 { player(&name_of(s, id)) } else { None };
    p.ok_or_else(|| cloud_error(StatusCode::NOT_FOUND, "User not found."))
}

fn cloud_user_body(s: &Shared, id: &str) -> Result<Value, Response> {
    let id: u64 = id.parse().map_err(|_| invalid("The user id is invalid."))?;
    let p = cloud_player(s, id)?;
    let name = p.name.clone();
    let modes = s.modes.lock().unwrap().clone();
    let mut body = json!({"path": format!("users/{id}"), "id": id.to_string(), "name": name,
        "displayName": format!("{name} Display"), "about": format!("Hi, I am {name}."), "locale": "en-us",
        "premium": false, "idVerified": false});
    if !modes.cloud_no_create_time {
        body["createTime"] = cloud_date(&modes, p.created).into();
    }
    Ok(body)
}

/// What an inventory `filter` asks for.
enum BadgeFilter {
    /// `badgeIds=1,2,3`: the player's badges among these.
    Ids(Vec<u64>),
    /// `badges=true`, or no filter: every badge the player owns.
    All,
}

/// Parses `badgeIds=1,2,3` and `badges=true` (parts separated by `;`); anything else is refused.
fn badge_filter(filter: &str, max_ids: usize) -> Result<BadgeFilter, Response> {
    let mut found = None;
    for part in filter.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let asked = match part.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
            Some(("badgeIds", ids)) => {
                let ids = ids
                    .split(',')
                    .map(|i| i.trim().parse::<u64>())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| invalid("badgeIds must be a comma-separated list of ids."))?;
                if ids.len() > max_ids {
                    return Err(invalid(&format!("badgeIds takes at most {max_ids} ids.")));
                }
                BadgeFilter::Ids(ids)
            }
            Some(("badges", "true")) => BadgeFilter::All,
            _ => return Err(invalid(&format!("Unsupported filter: {part}"))),
        };
        if found.replace(asked).is_some() {
            return Err(invalid("Ask either badgeIds or badges, once."));
        }
    }
    Ok(found.unwrap_or(BadgeFilter::All))
}

/// The player's badges among `ids`, in that order.
fn owned_among(p: &Player, ids: &[u64]) -> Vec<u64> {
    ids.iter()
        .enumerate()
        .filter(|(i, b)| {
            p.owns_all_elc || (p.owns_first_elc && *i == 0) || (!p.no_badges && ORDINARY_BADGES.contains(b))
        })
        .map(|(_, b)| *b)
        .collect()
}

async fn cloud_inventory(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    match gate(&s, CLOUD_INVENTORY, &headers).await {
        Ok(out) => cloud_answer(out, cloud_inventory_body(&s, &id, &q)),
        Err(res) => res,
    }
}

fn cloud_inventory_body(s: &Shared, id: &str, q: &HashMap<String, String>) -> Result<Value, Response> {
    let modes = s.modes.lock().unwrap().clone();
    let uid: u64 = id.parse().map_err(|_| invalid("The user id is invalid."))?;
    let page_size = cloud_page_size(q)?;
    let filter_text = q.get("filter").map(|f| f.trim()).unwrap_or("");
    let filter = badge_filter(filter_text, modes.max_filter_ids)?;
    let p = cloud_player(s, uid)?;
    if p.private {
        return Err(cloud_error(StatusCode::FORBIDDEN, "The user's inventory is not visible to the caller."));
    }
    let scope = format!("users/{uid}|{filter_text}");
    let offset = cloud_offset(q, 'i', &scope)?;
    let owned = match filter {
        BadgeFilter::Ids(ids) => {
            s.asked_badges.lock().unwrap().insert(uid, ids.clone());
            owned_among(&p, &ids)
        }
        BadgeFilter::All => {
            let asked = s.asked_badges.lock().unwrap().get(&uid).cloned().unwrap_or_default();
            let mut owned = owned_among(&p, &asked);
            owned.extend(owned_among(&p, &ORDINARY_BADGES).into_iter().filter(|b| !asked.contains(b)));
            owned
        }
    };
    let owned = if p.closed { Vec::new() } else { owned };
    let item = |i: usize, badge: u64| {
        json!({"path": format!("users/{uid}/inventory-items/{:012x}", hash(&format!("{uid}/{badge}")) & 0xffff_ffff_ffff),
            "badgeDetails": {"badgeId": badge.to_string()},
            "addTime": cloud_date(&modes, format!("2013-0{}-1{}T08:30:30.604Z", 1 + i % 9, i % 10))})
    };
    let total = owned.len();
    let (end, mut items) = match modes.cloud_huge_page.filter(|_| !p.closed) {
        Some(extra) => (total, (0..extra).map(|i| item(i, 800_000 + i as u64)).collect::<Vec<_>>()),
        None => ((offset + page_size).min(total), Vec::new()),
    };
    let start = offset.min(end);
    items.extend(owned[start..end].iter().enumerate().map(|(i, b)| item(start + i, *b)));
    let next = if modes.cloud_repeat_page_token {
        cloud_token('i', 0, &scope)
    } else if end < total {
        cloud_token('i', end, &scope)
    } else {
        String::new()
    };
    Ok(json!({"inventoryItems": items, "nextPageToken": next}))
}

/// Group `gid` as Open Cloud knows it: refused when it does not exist.
fn cloud_group_id(id: &str) -> Result<u64, Response> {
    let gid: u64 = id.parse().map_err(|_| invalid("The group id is invalid."))?;
    if gid % 1000 == 404 {
        return Err(cloud_error(StatusCode::NOT_FOUND, "Group not found."));
    }
    Ok(gid)
}

fn member_total(modes: &Modes, gid: u64) -> u64 {
    if gid % 1000 == 500 { 0 } else { modes.member_count }
}

async fn cloud_group(State(s): State<Shared>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    match gate(&s, CLOUD_GROUP, &headers).await {
        Ok(out) => cloud_answer(out, cloud_group_body(&s, &id)),
        Err(res) => res,
    }
}

fn cloud_group_body(s: &Shared, id: &str) -> Result<Value, Response> {
    let gid = cloud_group_id(id)?;
    let count = member_total(&s.modes.lock().unwrap(), gid);
    Ok(
        json!({"path": format!("groups/{gid}"), "createTime": "2015-01-01T00:00:00Z", "updateTime": "2020-01-01T00:00:00Z",
        "id": gid.to_string(), "displayName": format!("Fake Group {gid}"), "description": "A group of the fake Roblox.",
        "owner": "users/77", "memberCount": count, "publicEntryAllowed": true, "locked": false, "verified": false}),
    )
}

async fn cloud_memberships(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    match gate(&s, CLOUD_MEMBERSHIPS, &headers).await {
        Ok(out) => cloud_answer(out, cloud_memberships_body(&s, &id, &q)),
        Err(res) => res,
    }
}

fn cloud_memberships_body(s: &Shared, id: &str, q: &HashMap<String, String>) -> Result<Value, Response> {
    let gid = cloud_group_id(id)?;
    if gid % 1000 == 403 {
        return Err(cloud_error(
            StatusCode::FORBIDDEN,
            "The caller does not have permission to list this group's members.",
        ));
    }
    if q.contains_key("filter") {
        return Err(invalid("The fake Roblox does not filter memberships."));
    }
    let modes = s.modes.lock().unwrap().clone();
    let asked_size = cloud_page_size(q)?;
    let page_size = modes.member_page_size.map_or(asked_size, |n| n.clamp(1, asked_size));
    let scope = format!("groups/{gid}");
    let offset = cloud_offset(q, 'm', &scope)?;
    // Which page was asked for: a scan resumed by its page token never asks for page 0 again.
    *s.calls.lock().unwrap().entry(format!("{CLOUD_MEMBERSHIPS} from {offset}")).or_default() += 1;
    let total = member_total(&modes, gid) as usize;
    let member = |name: String, role: u64, position: Option<usize>| {
        let uid = id_of(&name);
        s.names.lock().unwrap().insert(uid, name);
        let user = match position {
            Some(i) if modes.cloud_bad_member_user && (i + 1) % 7 == 0 => "users/abc".to_string(),
            Some(i) if modes.cloud_bad_member_user && (i + 1) % 11 == 0 => "groups/5".to_string(),
            _ => format!("users/{uid}"),
        };
        json!({"path": format!("groups/{gid}/memberships/{:012x}", hash(&format!("{gid}/{uid}")) & 0xffff_ffff_ffff),
            "createTime": "2020-01-01T00:00:00Z", "updateTime": "2020-01-01T00:00:00Z",
            "user": user, "role": format!("groups/{gid}/roles/{role}")})
    };
    let (end, mut items) = match modes.cloud_huge_page {
        Some(extra) => (total, (0..extra).map(|i| member(format!("Huge{gid}x{i}"), 1, None)).collect::<Vec<_>>()),
        None => ((offset + page_size).min(total), Vec::new()),
    };
    let start = offset.min(end);
    items.extend((start..end).map(|i| member(member_name(gid, i), if i == 0 { 255 } else { 1 }, Some(i))));
    let next = match q.get("pageToken").filter(|t| !t.is_empty()) {
        Some(asked) if modes.cloud_repeat_page_token => asked.clone(),
        _ if end < total => cloud_token('m', end, &scope),
        _ => String::new(),
    };
    Ok(json!({"groupMemberships": items, "nextPageToken": next}))
}

async fn calls(State(s): State<Shared>) -> Json<Value> {
    let calls = s.calls.lock().unwrap().clone();
    let cookies = s.cookies_seen.lock().unwrap().clone();
    let keys = s.keys_seen.lock().unwrap().clone();
    let times = s.times.lock().unwrap().clone();
    Json(json!({"calls": calls, "withCookie": cookies, "withKey": keys, "times": times}))
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
    s.keys_seen.lock().unwrap().clear();
    s.times.lock().unwrap().clear();
    s.windows.lock().unwrap().clear();
    StatusCode::NO_CONTENT
}
