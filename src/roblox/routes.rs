//! The Roblox endpoints: the keyed newgen check, the bot API (analyze, quick check, test) and
//! the badge monitor. Answers use the field names the site's pages and bots read, plus a few extra fields.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::middleware::from_fn_with_state;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use serde::Serialize;
use utoipa::ToSchema;

use super::settings::GenerationCode;
use super::{Awards, Evidence, PlayerReport, Priority};
use crate::db::{Db, now_ms};
use crate::error::ApiError;
use crate::http::cached::Caching;
use crate::http::client_ip::ClientIp;
use crate::http::extract::Path;
use crate::keys::KeyRing;
use crate::keys::guard::{ApiCaller, require_api_key};

/// How stale the `apiKey.requests` figure may be (it is re-read from SQLite at most this often
/// per key, and counted up in memory in between).
const KEY_REQUESTS_REFRESH_MS: i64 = 2_000;

/// The bot API takes no key: a player already looked up is answered to anyone, but at most this
/// many lookups a minute that ask Roblox come from one address, so no caller spends the site's
/// Roblox budget alone.
pub const BOT_LOOKUPS_PER_MINUTE: u32 = 20;

pub fn bot_lookup_limit() -> crate::ratelimit::PerIp {
    crate::ratelimit::PerIp::per_minute(BOT_LOOKUPS_PER_MINUTE, "lookups of players not looked up recently")
}

/// Everyone shares the public key, so its lookups that ask Roblox are limited per address to
/// this fraction of the profile budget (the scarcest one a lookup spends): one caller can never
/// spend the budget of every visitor. Players looked up recently are answered to anyone.
const PUBLIC_KEY_SHARE_OF_PROFILE_BUDGET: u32 = 4;

pub fn public_key_lookup_limit(budgets: &std::collections::BTreeMap<String, u32>) -> crate::ratelimit::PerIp {
    let profile = super::budgets::USER;
    let budget = budgets.get(&profile.name()).copied().unwrap_or(profile.default_budget);
    let per_minute = (budget / PUBLIC_KEY_SHARE_OF_PROFILE_BUDGET).max(1);
    crate::ratelimit::PerIp::per_minute(per_minute, "lookups with the public key of players not looked up recently")
}

/// A bot API lookup: from the cache for anyone, else counted against the caller's address (a
/// name Roblox could not hold is refused first, uncounted).
async fn bot_lookup(state: &RobloxState, client: ClientIp, username: &str) -> Result<Arc<PlayerReport>, ApiError> {
    if let Some(report) = state.roblox.cached(username) {
        return Ok(report);
    }
    super::classify::check_username(username.trim()).map_err(super::RobloxError::BadUsername)?;
    state.roblox.bot_lookups.check(client.rate_key())?;
    Ok(state.roblox.lookup(username, Priority::Interactive).await?)
}

/// What the Roblox endpoints use: the lookups, and the keys and database of the keyed check.
#[derive(Clone)]
pub struct RobloxState {
    pub db: Db,
    pub roblox: super::Roblox,
    pub keys: Arc<KeyRing>,
}

pub fn router<S: Clone + Send + Sync + 'static>(state: RobloxState) -> Router<S> {
    let keyed = Router::new()
        .route("/api/newgen-check/{username}", get(newgen_check))
        .route("/api/v1/badge-history", get(super::history::v1_all_history))
        .route("/api/v1/badge-history/{badgeId}", get(super::history::v1_badge_history))
        .route_layer(from_fn_with_state(state.keys.clone(), require_api_key));
    Router::new()
        .route("/api/discord-bot/analyze/{username}", get(analyze))
        .route("/api/discord-bot/check/{username}", get(quick_check))
        .route("/api/discord-bot/test", get(test))
        .route("/api/badge-monitor", get(badge_monitor))
        .route("/api/badge-monitor/history", get(super::history::all_history))
        .route("/api/badge-monitor/{badgeId}/history", get(super::history::badge_history))
        .merge(keyed)
        .with_state(Arc::new(state))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ElcBadge {
    pub name: String,
    pub badge_id: u64,
    pub description: String,
    /// RFC 3339.
    #[schema(format = DateTime)]
    pub awarded_date: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ElcBadges {
    /// ELC badges owned (0 when unavailable).
    pub count: usize,
    /// ELC badges the site knows.
    pub total: usize,
    pub badges: Vec<ElcBadge>,
    /// False when Roblox did not give the award dates; `unavailableReason` says why.
    pub available: bool,
    pub unavailable_reason: Option<String>,
    /// `needsCookie`, `cookieRejected`, `hidden`, `private` (the inventory is not visible to
    /// everyone), `nothingVisible` (Roblox listed no badge at all: private or none owned) or
    /// `temporary`.
    pub unavailable_code: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct KeyUsage {
    pub name: String,
    /// Calls made with this key so far.
    pub requests: i64,
}

/// The newgen check's answer.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct NewgenCheck {
    pub success: bool,
    pub username: String,
    pub display_name: String,
    pub user_id: u64,
    pub avatar_url: String,
    pub has_verified_badge: bool,
    /// The account's creation time, RFC 3339.
    #[schema(format = DateTime)]
    pub join_date: String,
    /// Days since the join date.
    pub account_age: i64,
    pub generation: GenerationCode,
    /// The era's name shown to people (site settings).
    pub generation_label: String,
    pub is_newgen: bool,
    pub is_veteran: bool,
    pub classification: String,
    /// Percent.
    pub confidence: u8,
    pub reason: String,
    pub evidence: Vec<Evidence>,
    pub is_banned: bool,
    pub elc_badges: ElcBadges,
    /// Where the join date and the award dates were read: Roblox Open Cloud with the site's key,
    /// the legacy hosts with the site's cookie, or anonymously.
    pub roblox_sources: super::Sources,
    /// When Roblox's data was read (RFC 3339); cached answers keep their time.
    #[schema(format = DateTime)]
    pub checked_at: String,
    /// The key of this call (always the last field: the rest of the answer is kept serialized
    /// per player, see [`newgen_check`]).
    pub api_key: KeyUsage,
}

fn elc_badges(report: &PlayerReport) -> ElcBadges {
    match &report.awards {
        Awards::Known(list) => ElcBadges {
            count: list.len(),
            total: report.elc_total,
            badges: list
                .iter()
                .map(|b| ElcBadge {
                    name: b.name.clone(),
                    badge_id: b.badge_id,
                    description: b.description.clone(),
                    awarded_date: b.awarded_date.clone(),
                })
                .collect(),
            available: true,
            unavailable_reason: None,
            unavailable_code: None,
        },
        Awards::Unavailable(why) => ElcBadges {
            count: 0,
            total: report.elc_total,
            badges: Vec::new(),
            available: false,
            unavailable_reason: Some(why.sentence()),
            unavailable_code: Some(why.code().to_string()),
        },
    }
}

/// How a lookup of one player can fail (the answers of every player lookup, in the API document),
/// each with the error body `{error, message}`.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
enum LookupFailures {
    #[response(status = 400, description = "Not a valid Roblox username")]
    BadUsername(crate::error::ErrorBody),
    #[response(status = 404, description = "No Roblox account has this username")]
    UnknownUser(crate::error::ErrorBody),
    #[response(status = 502, description = "Roblox is unreachable, failed or sent an unreadable answer")]
    Upstream(crate::error::ErrorBody),
    #[response(
        status = 503,
        description = "Roblox is rate-limiting lookups, or the site's Roblox budget is spent (Retry-After says when to try again)"
    )]
    Throttled(crate::error::ErrorBody),
    #[response(status = 504, description = "Roblox did not answer in time")]
    Timeout(crate::error::ErrorBody),
}

/// Counts for `apiKey.requests`: re-read from SQLite at most every 2 s per key, counted up in
/// memory in between. The re-read runs behind the answers: a call that finds its figure stale
/// starts it and answers with the figure counted up, so no caller waits for the usage to be
/// written, and a figure never goes down.
#[derive(Default)]
pub struct KeyRequests(Arc<Mutex<HashMap<i64, KeyCount>>>);

struct KeyCount {
    requests: i64,
    read_at: i64,
    rereading: bool,
}

impl KeyRequests {
    async fn count(&self, state: &RobloxState, key_id: i64) -> i64 {
        let now = now_ms();
        {
            let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(known) = map.get_mut(&key_id) {
                known.requests += 1;
                if now - known.read_at >= KEY_REQUESTS_REFRESH_MS && !known.rereading {
                    known.rereading = true;
                    let (counts, state) = (self.0.clone(), state.clone());
                    tokio::spawn(async move {
                        let read = Self::read(&state, key_id).await;
                        let mut map = counts.lock().unwrap_or_else(|p| p.into_inner());
                        if let Some(known) = map.get_mut(&key_id) {
                            known.requests = known.requests.max(read);
                            known.read_at = now_ms();
                            known.rereading = false;
                        }
                    });
                }
                return known.requests;
            }
        }
        let requests = Self::read(state, key_id).await.max(1);
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() > 10_000 {
            map.clear();
        }
        let known = map.entry(key_id).or_insert(KeyCount { requests, read_at: now, rereading: false });
        known.requests = known.requests.max(requests);
        known.requests
    }

    /// The key's calls as stored, after writing the usage journal (this call included).
    async fn read(state: &RobloxState, key_id: i64) -> i64 {
        if let Err(e) = state.keys.flush_usage().await {
            tracing::warn!("API key usage not written before reading it: {e}");
        }
        state.db.read(move |c| crate::keys::store::requests_of(c, key_id)).await.unwrap_or(0)
    }
}

/// Is this player a newgen? Roblox's data for one username, classified by the site's rules.
#[utoipa::path(get, path = "/api/newgen-check/{username}", tag = "roblox", operation_id = "newgenCheck", security(("apiKey" = [])),
    params(("username" = String, Path, description = "A Roblox username: 3-20 letters, digits and at most one underscore (not first or last)", min_length = 3, max_length = 20, pattern = r"^[A-Za-z0-9]+(_[A-Za-z0-9]+)?$")),
    responses(
        (status = 200, description = "The player, classified", body = NewgenCheck),
        LookupFailures,
        (status = 429, description = "The key is over its rate limit (see the X-RateLimit-* headers), or, with the public key, more than a quarter of the site's Roblox profile budget a minute (6 with the default budget of 24) of players not looked up recently came from this address. Retry-After says when to try again; `message` says which limit; players looked up recently are still answered.")))]
pub(crate) async fn newgen_check(
    State(state): State<Arc<RobloxState>>,
    Extension(ApiCaller(key)): Extension<ApiCaller>,
    Extension(client): Extension<ClientIp>,
    Path(username): Path<String>,
) -> Result<Response, ApiError> {
    if key.is_public && !state.roblox.answered_without_asking(&username) {
        super::classify::check_username(username.trim()).map_err(super::RobloxError::BadUsername)?;
        state.roblox.public_key_lookups.check(client.rate_key())?;
    }
    let report = state.roblox.lookup(&username, Priority::Interactive).await?;
    let requests = state.roblox.key_requests.count(&state, key.id).await;
    // Everything but `apiKey` is the same for every caller until the account's age in days
    // changes, so a cached player's answer is serialized once and only the key's part is added.
    let head = report
        .rendered
        .get_or_render(report.account_age_days(), |account_age| newgen_answer_head(&report, account_age));
    let mut body = Vec::with_capacity(head.len() + key.name.len() + 48);
    body.extend_from_slice(&head);
    body.extend_from_slice(b",\"apiKey\":");
    serde_json::to_writer(&mut body, &KeyUsage { name: key.name.clone(), requests }).map_err(ApiError::internal)?;
    body.push(b'}');
    Ok(([(axum::http::header::CONTENT_TYPE, "application/json")], body).into_response())
}

/// The newgen check's JSON without its last field (`apiKey`) and the closing brace.
fn newgen_answer_head(report: &PlayerReport, account_age: i64) -> Bytes {
    let (p, v) = (&report.profile, &report.verdict);
    let answer = NewgenCheck {
        success: true,
        username: p.name.clone(),
        display_name: p.display_name.clone(),
        user_id: p.id,
        avatar_url: report.avatar_url.clone(),
        has_verified_badge: p.verified,
        join_date: p.created.clone(),
        account_age,
        generation: v.generation,
        generation_label: v.generation_label.clone(),
        is_newgen: v.is_newgen,
        is_veteran: v.is_veteran,
        classification: v.classification.clone(),
        confidence: v.confidence,
        reason: v.reason.clone(),
        evidence: v.evidence.clone(),
        is_banned: p.is_banned,
        elc_badges: elc_badges(report),
        roblox_sources: report.sources,
        checked_at: report.checked_at(),
        api_key: KeyUsage { name: String::new(), requests: 0 },
    };
    let mut json = serde_json::to_vec(&answer).expect("a newgen answer serializes");
    const TAIL: &[u8] = br#","apiKey":{"name":"","requests":0}}"#;
    assert!(json.ends_with(TAIL), "apiKey is the last field");
    json.truncate(json.len() - TAIL.len());
    Bytes::from(json)
}

/// A report's serialized answer, kept with the report while one `version` of it holds.
#[derive(Default)]
pub struct Rendered(Mutex<Option<(i64, Bytes)>>);

impl Rendered {
    pub fn get_or_render(&self, version: i64, render: impl FnOnce(i64) -> Bytes) -> Bytes {
        if let Some((v, bytes)) = &*self.0.lock().unwrap_or_else(|p| p.into_inner())
            && *v == version
        {
            return bytes.clone();
        }
        let bytes = render(version);
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some((version, bytes.clone()));
        bytes
    }
}

/// A copy of a report starts without its rendering.
impl Clone for Rendered {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for Rendered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Rendered")
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct BotStatus {
    pub classification: String,
    pub generation: GenerationCode,
    /// The era's name shown to people (site settings).
    pub generation_label: String,
    /// Percent.
    pub confidence: u8,
    pub reason: String,
    pub is_newgen: bool,
    pub is_veteran: bool,
    pub evidence: Vec<Evidence>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct BotBadges {
    pub elc_count: usize,
    pub total: usize,
    pub elc_badges: Vec<ElcBadge>,
    pub available: bool,
    pub unavailable_reason: Option<String>,
}

/// The bot's full analysis.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct BotAnalysis {
    pub success: bool,
    pub username: String,
    pub display_name: String,
    pub user_id: u64,
    pub avatar_url: String,
    pub has_verified_badge: bool,
    /// Days since the join date.
    pub account_age: i64,
    #[schema(format = DateTime)]
    pub join_date: String,
    pub description: String,
    pub is_banned: bool,
    pub status: BotStatus,
    pub badges: BotBadges,
    /// Where the join date and the award dates were read.
    pub roblox_sources: super::Sources,
    #[schema(format = DateTime)]
    pub checked_at: String,
}

/// Full analysis of a player for bots: profile, classification with its reason and evidence, ELC badges.
#[utoipa::path(get, path = "/api/discord-bot/analyze/{username}", tag = "roblox", operation_id = "botAnalyze",
    params(("username" = String, Path, description = "A Roblox username: 3-20 letters, digits and at most one underscore (not first or last)", min_length = 3, max_length = 20, pattern = r"^[A-Za-z0-9]+(_[A-Za-z0-9]+)?$")),
    responses(
        (status = 200, description = "The analysis", body = BotAnalysis),
        LookupFailures,
        (status = 429, description = "More than 20 lookups a minute of players not looked up recently from this address (Retry-After says when)")))]
pub(crate) async fn analyze(
    State(state): State<Arc<RobloxState>>,
    Extension(client): Extension<ClientIp>,
    Path(username): Path<String>,
) -> Result<Json<BotAnalysis>, ApiError> {
    let report = bot_lookup(&state, client, &username).await?;
    let (p, v) = (&report.profile, &report.verdict);
    let elc = elc_badges(&report);
    Ok(Json(BotAnalysis {
        success: true,
        username: p.name.clone(),
        display_name: p.display_name.clone(),
        user_id: p.id,
        avatar_url: report.avatar_url.clone(),
        has_verified_badge: p.verified,
        account_age: report.account_age_days(),
        join_date: p.created.clone(),
        description: p.description.clone(),
        is_banned: p.is_banned,
        status: BotStatus {
            classification: v.classification.clone(),
            generation: v.generation,
            generation_label: v.generation_label.clone(),
            confidence: v.confidence,
            reason: v.reason.clone(),
            is_newgen: v.is_newgen,
            is_veteran: v.is_veteran,
            evidence: v.evidence.clone(),
        },
        badges: BotBadges {
            elc_count: elc.count,
            total: elc.total,
            elc_badges: elc.badges,
            available: elc.available,
            unavailable_reason: elc.unavailable_reason,
        },
        roblox_sources: report.sources,
        checked_at: report.checked_at(),
    }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct EarliestBadge {
    pub name: String,
    #[schema(format = DateTime)]
    pub awarded_date: String,
}

/// The bot's quick check.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct QuickCheck {
    pub success: bool,
    pub username: String,
    pub display_name: String,
    pub user_id: u64,
    pub avatar_url: String,
    /// The classification.
    pub status: String,
    pub generation: GenerationCode,
    /// The era's name shown to people (site settings).
    pub generation_label: String,
    pub confidence: u8,
    pub elc_badge_count: usize,
    /// ELC badges the site knows.
    pub total_badge_count: usize,
    /// False when Roblox did not give the award dates (the counts are then 0 of total).
    pub elc_available: bool,
    pub account_age: i64,
    /// The earliest ELC badge owned; null when none (or unavailable).
    pub earliest_badge: Option<EarliestBadge>,
    /// Where the join date and the award dates were read.
    pub roblox_sources: super::Sources,
    #[schema(format = DateTime)]
    pub checked_at: String,
}

/// A player's classification in one line, for bots.
#[utoipa::path(get, path = "/api/discord-bot/check/{username}", tag = "roblox", operation_id = "botQuickCheck",
    params(("username" = String, Path, description = "A Roblox username: 3-20 letters, digits and at most one underscore (not first or last)", min_length = 3, max_length = 20, pattern = r"^[A-Za-z0-9]+(_[A-Za-z0-9]+)?$")),
    responses(
        (status = 200, description = "The quick check", body = QuickCheck),
        LookupFailures,
        (status = 429, description = "More than 20 lookups a minute of players not looked up recently from this address (Retry-After says when)")))]
pub(crate) async fn quick_check(
    State(state): State<Arc<RobloxState>>,
    Extension(client): Extension<ClientIp>,
    Path(username): Path<String>,
) -> Result<Json<QuickCheck>, ApiError> {
    let report = bot_lookup(&state, client, &username).await?;
    let (p, v) = (&report.profile, &report.verdict);
    let owned = report.awards.owned();
    Ok(Json(QuickCheck {
        success: true,
        username: p.name.clone(),
        display_name: p.display_name.clone(),
        user_id: p.id,
        avatar_url: report.avatar_url.clone(),
        status: v.classification.clone(),
        generation: v.generation,
        generation_label: v.generation_label.clone(),
        confidence: v.confidence,
        elc_badge_count: owned.map_or(0, <[_]>::len),
        total_badge_count: report.elc_total,
        elc_available: owned.is_some(),
        account_age: report.account_age_days(),
        earliest_badge: owned
            .and_then(|b| b.first())
            .map(|b| EarliestBadge { name: b.name.clone(), awarded_date: b.awarded_date.clone() }),
        roblox_sources: report.sources,
        checked_at: report.checked_at(),
    }))
}

#[derive(Serialize, ToSchema)]
pub struct BotEndpoint {
    pub method: &'static str,
    pub path: &'static str,
    pub description: &'static str,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct BotTest {
    pub success: bool,
    pub message: String,
    pub endpoints: Vec<BotEndpoint>,
    /// The Roblox connection as last seen: reachable, rate-limited, cookie.
    pub roblox: String,
    #[schema(format = DateTime)]
    pub timestamp: String,
}

/// The bot API is up: its endpoints and the state of the Roblox connection (makes no Roblox call).
#[utoipa::path(get, path = "/api/discord-bot/test", tag = "roblox", operation_id = "botTest",
    responses((status = 200, description = "The bot API answers", body = BotTest)))]
pub(crate) async fn test(State(state): State<Arc<RobloxState>>) -> Json<BotTest> {
    Json(BotTest {
        success: true,
        message: "The bot API is working.".into(),
        endpoints: vec![
            BotEndpoint {
                method: "GET",
                path: "/api/discord-bot/analyze/{username}",
                description: "Full analysis: profile, classification, ELC badges",
            },
            BotEndpoint {
                method: "GET",
                path: "/api/discord-bot/check/{username}",
                description: "Quick check: classification and ELC badge count",
            },
            BotEndpoint { method: "GET", path: "/api/discord-bot/test", description: "This test" },
        ],
        roblox: state.roblox.health().1,
        timestamp: crate::time::now_text(),
    })
}

/// The tracked badges' figures, from memory (polled from Roblox in the background; `stale`
/// with the last figures while Roblox fails).
#[utoipa::path(get, path = "/api/badge-monitor", tag = "roblox", operation_id = "getBadgeMonitor",
    responses((status = 200, description = "The tracked badges", body = super::monitor::BadgeMonitorAnswer), (status = 304, description = "Not modified")))]
pub(crate) async fn badge_monitor(State(state): State<Arc<RobloxState>>, headers: HeaderMap) -> Response {
    state.roblox.monitor.json.respond(&headers, Caching::BADGE_MONITOR)
}
