//! The keyed `/api/v1` calls of group scans, leaderboards, search and abuse reports. The key
//! guard (`keys::guard`) runs in front of every one of them (see `v1::router`).

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::store::{self, AbuseReport, GroupSummary, PlayerEntry, Sort};
use super::{ScanStatus, ScansState};
use crate::db::now_ms;
use crate::error::ApiError;
use crate::http::cached::{self, Caching, respond_json};
use crate::http::client_ip::ClientIp;
use crate::http::extract::{Json as JsonBody, Path, Query};
use crate::http::paging::{DEFAULT_LIMIT, MAX_LIMIT, PageQuery, number_param, paging, search_query};
use crate::keys::guard::ApiCaller;
use crate::ratelimit::PerIp;
use crate::roblox::Priority;
use crate::roblox::settings::GenerationCode;

pub const REPORTS_PER_HOUR: u32 = 5;
/// The reason of an abuse report is free text of at most this many characters.
pub const REASON_MAX: usize = 100;
pub const PRIORITIES: [&str; 4] = ["low", "medium", "high", "urgent"];
pub const DESCRIPTION_MIN: usize = 10;
pub const DESCRIPTION_MAX: usize = 1000;
const SCANNED_BY_MAX: usize = 64;
/// Roblox group ids are positive and below 2^53 (JSON numbers stay exact).
const MAX_GROUP_ID: u64 = (1 << 53) - 1;

/// 5 abuse reports an hour per client IP.
/// The limit on abuse reports from one address.
pub fn report_limit() -> PerIp {
    PerIp::per_hour(REPORTS_PER_HOUR, "abuse reports")
}

/// A positive id (a JSON number, or a string of digits).
fn parse_group_id(field: &str, value: &serde_json::Value) -> Result<u64, ApiError> {
    let id = match value {
        // JSON has one number type: 42.0 is the whole number 42 (as JSON Schema's `integer` says).
        serde_json::Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64().filter(|f| f.fract() == 0.0 && (1.0..=MAX_GROUP_ID as f64).contains(f)).map(|f| f as u64)
        }),
        serde_json::Value::String(s) => {
            s.trim().parse::<u64>().ok().filter(|_| s.trim().chars().all(|c| c.is_ascii_digit()))
        }
        _ => None,
    };
    id.filter(|id| (1..=MAX_GROUP_ID).contains(id))
        .ok_or_else(|| ApiError::field(field, &format!("{field} must be a whole number from 1 to {MAX_GROUP_ID}")))
}

fn path_id(field: &str, raw: &str) -> Result<u64, ApiError> {
    parse_group_id(field, &serde_json::Value::String(raw.to_string()))
}

/// Printable text of 1-`max` characters after trimming.
fn plain_text(field: &str, raw: Option<&str>, min: usize, max: usize) -> Result<String, ApiError> {
    let text = raw.map(str::trim).unwrap_or("");
    let n = text.chars().count();
    if n < min || n > max {
        return Err(ApiError::field(field, &format!("{field} must be {min} to {max} characters long")));
    }
    if text.chars().any(|c| c.is_control() && c != '\n' && c != '\r' && c != '\t') {
        return Err(ApiError::field(field, &format!("{field} may not contain control characters")));
    }
    Ok(text.to_string())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ScanRequest {
    /// The Roblox group id (a positive whole number; a string of digits is accepted too).
    #[schema(value_type = u64, required = true, minimum = 1, maximum = 9007199254740991.0)]
    group_id: Option<serde_json::Value>,
    /// Who asked, shown with the scan: 1-64 characters after trimming, no control characters.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 64, pattern = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$")]
    scanned_by: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ScanAnswer {
    success: bool,
    scan_id: i64,
    /// True when the group already had a live scan and this is it.
    existing: bool,
    message: String,
    scan: ScanStatus,
}

fn status_of(state: &ScansState, row: store::ScanRow) -> ScanStatus {
    ScanStatus::of(row, &state.scans, &state.roblox)
}

/// Starts a background scan of a Roblox group (202), or returns the group's running scan (200).
#[utoipa::path(post, path = "/api/v1/scan-group", tag = "developer API", operation_id = "v1ScanGroup", request_body = ScanRequest,
    security(("apiKey" = [])),
    responses((status = 202, description = "Scan queued", body = ScanAnswer), (status = 200, description = "The group's running scan", body = ScanAnswer),
        (status = 400, description = "Bad group id or scannedBy"), (status = 401, description = "No or bad API key"),
        (status = 404, description = "No such group"), (status = 413, description = "Body too large"), (status = 415, description = "Not JSON"),
        (status = 422, description = "The group has no members"),
        (status = 429, description = "Rate limit reached, or the scan queue is full: this key's scans queued or running (`[scans] queued_per_key`) or the site's (`queued_site_wide`); the error says which"),
        (status = 502, description = "Roblox is unreachable or failed", body = crate::error::ErrorBody),
        (status = 503, description = "Roblox is rate-limiting", body = crate::error::ErrorBody),
        (status = 504, description = "Roblox did not answer in time", body = crate::error::ErrorBody)))]
pub(crate) async fn scan_group(
    State(state): State<Arc<ScansState>>,
    Extension(caller): Extension<ApiCaller>,
    JsonBody(body): JsonBody<ScanRequest>,
) -> Result<Response, ApiError> {
    let group_id = parse_group_id("groupId", body.group_id.as_ref().unwrap_or(&serde_json::Value::Null))?;
    let scanned_by = plain_text("scannedBy", body.scanned_by.as_deref(), 1, SCANNED_BY_MAX)?;
    if let Some(live) = state.db.read(move |c| store::live_scan_of_group(c, group_id)).await? {
        return Ok(scan_answer(&state, live, false, StatusCode::OK));
    }
    // A full queue is refused before Roblox is asked about the group (and again when queueing).
    let key_id = Some(caller.0.id);
    let s = state.clone();
    state.db.read(move |c| s.settings.room_for_one_more(c, key_id)).await?;
    let group = state.roblox.group_info(group_id, Priority::Interactive).await?;
    if group.member_count == 0 {
        return Err(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "This group has no members to scan.")
            .with_message(format!("Roblox lists no members for group {group_id}.")));
    }
    let s = state.clone();
    let (row, new) = state
        .db
        .write(move |tx| {
            if let Some(live) = store::live_scan_of_group(tx, group_id)? {
                return Ok((live, false));
            }
            s.settings.room_for_one_more(tx, key_id)?;
            store::queue_scan(tx, group_id, &group.name, group.member_count, &scanned_by, key_id, now_ms())
        })
        .await?;
    if new {
        state.scans.wake.notify_one();
    }
    Ok(scan_answer(&state, row, new, if new { StatusCode::ACCEPTED } else { StatusCode::OK }))
}

fn scan_answer(state: &ScansState, row: store::ScanRow, new: bool, status: StatusCode) -> Response {
    let message = if new {
        format!("Scan {} of group {} queued.", row.id, row.group_id)
    } else {
        format!("Group {} is already being scanned (scan {}).", row.group_id, row.id)
    };
    let answer = ScanAnswer { success: true, scan_id: row.id, existing: !new, message, scan: status_of(state, row) };
    (status, Json(answer)).into_response()
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusAnswer {
    success: bool,
    scan: ScanStatus,
}

/// A scan's progress: processed/total, veterans and newgens found, the measured rate and time
/// left. Poll it with `If-None-Match` (304 while nothing changed).
#[utoipa::path(get, path = "/api/v1/scan-status/{id}", tag = "developer API", operation_id = "v1ScanStatus",
    params(("id" = u64, Path, description = "The scan id", minimum = 1, maximum = 9007199254740991.0)), security(("apiKey" = [])),
    responses((status = 200, body = StatusAnswer), (status = 304, description = "Not modified"), (status = 400, description = "Bad id"),
        (status = 401, description = "No or bad API key"), (status = 404, description = "No such scan"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn scan_status(
    State(state): State<Arc<ScansState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let id = path_id("id", &id)? as i64;
    if let Some(body) = state.scans.fresh_status(id) {
        return Ok(crate::http::cached::respond_json(&body, &headers, Caching::PRIVATE));
    }
    let row =
        state.db.read(move |c| store::scan(c, id)).await?.ok_or_else(|| ApiError::not_found("No scan has this id."))?;
    let answer = StatusAnswer { success: true, scan: status_of(&state, row) };
    let body =
        Arc::new(crate::http::cached::JsonBody::from_bytes(serde_json::to_vec(&answer).map_err(ApiError::internal)?));
    state.scans.keep_status(id, body.clone());
    Ok(crate::http::cached::respond_json(&body, &headers, Caching::PRIVATE))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ResumeRequest {
    #[schema(value_type = u64, required = true, minimum = 1, maximum = 9007199254740991.0)]
    scan_id: Option<serde_json::Value>,
}

/// Puts a failed or cancelled scan back in the queue where it stopped (202). A scan still
/// running is returned as it is (200); a completed one is a 409. Only the API key that started
/// the scan, or an admin (`X-Admin-Key` or an admin session beside the API key), may resume it;
/// a scan an admin cancelled only an admin. A resume by the key counts against the queue caps.
#[utoipa::path(post, path = "/api/v1/resume-scan", tag = "developer API", operation_id = "v1ResumeScan", request_body = ResumeRequest,
    security(("apiKey" = [])),
    responses((status = 202, description = "Queued again", body = ScanAnswer), (status = 200, description = "Already running", body = ScanAnswer),
        (status = 400, description = "Bad scanId"), (status = 401, description = "No or bad API key"),
        (status = 403, description = "Another key started this scan, or an admin cancelled it (only an admin may resume it then)"),
        (status = 404, description = "No such scan"),
        (status = 409, description = "Completed, or another scan of the group runs"), (status = 413, description = "Body too large"),
        (status = 415, description = "Not JSON"),
        (status = 429, description = "Rate limit reached, or the scan queue is full (per key or site-wide; the error says which)")))]
pub(crate) async fn resume_scan(
    State(state): State<Arc<ScansState>>,
    Extension(caller): Extension<ApiCaller>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ResumeRequest>,
) -> Result<Response, ApiError> {
    let id = parse_group_id("scanId", body.scan_id.as_ref().unwrap_or(&serde_json::Value::Null))? as i64;
    let admin = crate::accounts::guard::resolve(&state.db, &headers, &client).await?.is_some();
    resume(&state, id, if admin { Resumer::Admin } else { Resumer::Key(caller.0.id) }).await
}

/// Who asks to resume a scan.
#[derive(Clone, Copy)]
pub(crate) enum Resumer {
    Admin,
    /// The API key of the call.
    Key(i64),
}

/// Resumes scan `id` for `by`: the rules of `resume_scan`, checked in the transaction that
/// requeues, so a cancel that lands meanwhile is not undone.
pub(crate) async fn resume(state: &ScansState, id: i64, by: Resumer) -> Result<Response, ApiError> {
    let before =
        state.db.read(move |c| store::scan(c, id)).await?.ok_or_else(|| ApiError::not_found("No scan has this id."))?;
    match before.state.as_str() {
        "completed" => return Err(ApiError::conflict("This scan is complete; start a new one with scan-group.")),
        "queued" | "running" => return Ok(scan_answer(state, before, false, StatusCode::OK)),
        _ => {}
    }
    let s = state.clone();
    let after = state
        .db
        .write(move |tx| {
            let Some(row) = store::scan(tx, id)? else { return Ok(None) };
            if let Resumer::Key(key_id) = by {
                if row.key_id != Some(key_id) {
                    return Err(ApiError::forbidden(
                        "Only the API key that started this scan, or an admin, can resume it.",
                    ));
                }
                if row.state == "cancelled" {
                    return Err(ApiError::forbidden("An admin cancelled this scan; only an admin can resume it."));
                }
                if row.state == "failed" && store::live_scan_of_group(tx, row.group_id)?.is_none() {
                    s.settings.room_for_one_more(tx, Some(key_id))?;
                }
            }
            store::requeue(tx, id, now_ms())
        })
        .await?
        .ok_or_else(|| ApiError::not_found("No scan has this id."))?;
    state.scans.forget_status(id);
    if after.id != id {
        return Err(ApiError::conflict(format!("Group {} is being scanned by scan {}.", after.group_id, after.id)));
    }
    state.scans.wake.notify_one();
    Ok(scan_answer(state, after, true, StatusCode::ACCEPTED))
}

/// Pages from this many players on are sliced from the whole ranking kept in memory (one index
/// walk per ranking version) instead of walking the index past `offset` entries each time.
const DEEP_PAGE_OFFSET: u64 = 1_000;

/// The part of a ranking of `len` that a page at `offset` of `limit` shows (empty past its end).
fn slice_bounds(len: usize, offset: u64, limit: u32) -> (usize, usize) {
    let start = usize::try_from(offset).unwrap_or(usize::MAX).min(len);
    (start, start.saturating_add(limit as usize).min(len))
}

fn offset(page: u32, limit: u32) -> u64 {
    (page as u64 - 1) * limit as u64
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct GroupLeaderboard {
    success: bool,
    group: GroupSummary,
    total: u64,
    page: u32,
    limit: u32,
    players: Vec<PlayerEntry>,
}

/// A scanned group's members ranked: veterans first, then by ELC badges owned, then the oldest account.
#[utoipa::path(get, path = "/api/v1/group-leaderboard/{groupId}", tag = "developer API", operation_id = "v1GroupLeaderboard",
    params(("groupId" = u64, Path, description = "The Roblox group id", minimum = 1, maximum = 9007199254740991.0), PageQuery), security(("apiKey" = [])),
    responses((status = 200, body = GroupLeaderboard), (status = 304, description = "Not modified (If-None-Match)"), (status = 400, description = "Bad group id or paging"),
        (status = 401, description = "No or bad API key"), (status = 404, description = "Group never scanned"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn group_leaderboard(
    State(state): State<Arc<ScansState>>,
    Path(group_id): Path<String>,
    Query(q): Query<PageQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let group_id = path_id("groupId", &group_id)?;
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    let query = format!("group {group_id} {page} {limit}");
    let s = state.clone();
    let body = state
        .db
        .read(move |c| {
            kept_or_made(&s, c, query, |c, version| {
                let group =
                    store::search_groups(c, &group_id.to_string(), 100)?.into_iter().find(|g| g.group_id == group_id);
                let group = group.ok_or_else(|| {
                    ApiError::not_found("This group has not been scanned yet. Start a scan with scan-group.")
                })?;
                let ids = s.scans.rankings.get_or_make(&format!("group {group_id}"), version, || {
                    store::group_ranking_ids(c, group_id).map(Arc::new)
                })?;
                let (start, end) = slice_bounds(ids.len(), offset(page, limit), limit);
                let mut players = store::group_members_in_order(c, group_id, &ids[start..end], start as u64 + 1)?;
                store::label_generations(&mut players, &s.roblox.config.classification);
                Ok(GroupLeaderboard { success: true, group, total: ids.len() as u64, page, limit, players })
            })
        })
        .await?;
    Ok(respond_json(&body, &headers, Caching::PRIVATE))
}

/// A leaderboard answer kept from an earlier request while nothing it shows has changed, else
/// made by `make` at the current ranking version and kept. The version is read first: what
/// `make` reads after it may be newer than the version says, never older.
fn kept_or_made<T: Serialize>(
    state: &ScansState,
    conn: &rusqlite::Connection,
    query: String,
    make: impl FnOnce(&rusqlite::Connection, i64) -> Result<T, ApiError>,
) -> Result<Arc<cached::JsonBody>, ApiError> {
    let version = store::ranking_version(conn)?;
    state.scans.pages.get_or_make(&query, version, || {
        let mut json = Vec::with_capacity(32 * 1024);
        serde_json::to_writer(&mut json, &make(conn, version)?).map_err(ApiError::internal)?;
        // A page is what its query shows at a version, so that pair (with this process's salt,
        // as a restore starts a new process) names it: no hash over the body.
        let etag = state.scans.page_etag(&query, version);
        Ok(Arc::new(cached::JsonBody { bytes: json.into(), etag }))
    })
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScanList {
    success: bool,
    total: u64,
    page: u32,
    limit: u32,
    scans: Vec<ScanStatus>,
}

/// Every scan, newest first.
#[utoipa::path(get, path = "/api/v1/all-scans", tag = "developer API", operation_id = "v1AllScans", params(PageQuery),
    security(("apiKey" = [])),
    responses((status = 200, body = ScanList), (status = 400, description = "Bad paging"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn all_scans(
    State(state): State<Arc<ScansState>>,
    Query(q): Query<PageQuery>,
) -> Result<Json<ScanList>, ApiError> {
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    let (rows, total) = state.db.read(move |c| store::scans_page(c, offset(page, limit), limit)).await?;
    let scans = rows.into_iter().map(|r| status_of(&state, r)).collect();
    Ok(Json(ScanList { success: true, total, page, limit, scans }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupList {
    success: bool,
    total: u64,
    page: u32,
    limit: u32,
    groups: Vec<GroupSummary>,
}

/// Every scanned group with its members, veterans and newgens, the most members first.
#[utoipa::path(get, path = "/api/v1/all-group-leaderboards", tag = "developer API", operation_id = "v1AllGroupLeaderboards", params(PageQuery),
    security(("apiKey" = [])),
    responses((status = 200, body = GroupList), (status = 400, description = "Bad paging"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn all_group_leaderboards(
    State(state): State<Arc<ScansState>>,
    Query(q): Query<PageQuery>,
) -> Result<Json<GroupList>, ApiError> {
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    let (groups, total) = state.db.read(move |c| store::group_summaries(c, offset(page, limit), limit)).await?;
    Ok(Json(GroupList { success: true, total, page, limit, groups }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LeaderboardQuery {
    /// VETERAN, OLDGEN, MIDGEN or NEWGEN; as a convenience also, in any case, a code or the name of
    /// one of the site's eras (`generationLabel`). All players when absent.
    generation: Option<String>,
    /// elc (default: most ELC badges first), oldest, newest or recent (last checked); any case.
    #[param(value_type = Option<String>, pattern = r"^\s*([Ee][Ll][Cc]|[Oo][Ll][Dd][Ee][Ss][Tt]|[Nn][Ee][Ww][Ee][Ss][Tt]|[Rr][Ee][Cc][Ee][Nn][Tt])?\s*$")]
    sort: Option<String>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100000)]
    page: Option<String>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Leaderboard {
    success: bool,
    /// The generation filtered by; null for all.
    generation: Option<GenerationCode>,
    /// Its era's name shown to people; null for all.
    generation_label: Option<String>,
    sort: String,
    total: u64,
    page: u32,
    limit: u32,
    players: Vec<PlayerEntry>,
}

/// Every player the site has seen (scans and newgen checks), ranked.
#[utoipa::path(get, path = "/api/v1/leaderboard", tag = "developer API", operation_id = "v1Leaderboard", params(LeaderboardQuery),
    security(("apiKey" = [])),
    responses((status = 200, body = Leaderboard), (status = 304, description = "Not modified (If-None-Match)"), (status = 400, description = "Bad generation, sort or paging"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn leaderboard(
    State(state): State<Arc<ScansState>>,
    Query(q): Query<LeaderboardQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    let rules = &state.roblox.config.classification;
    let code = match q.generation.as_deref().map(str::trim).filter(|g| !g.is_empty()) {
        None => None,
        Some(g) => Some(rules.parse_filter(g).ok_or_else(|| {
            let codes = GenerationCode::ALL.map(GenerationCode::as_str).join(", ");
            let names = rules.generations.iter().map(|g| g.name.as_str()).collect::<Vec<_>>().join(", ");
            ApiError::field("generation", &format!("generation must be one of: {codes} (or an era's name: {names})"))
        })?),
    };
    let generation_label = code.map(|c| rules.label(c.as_str()));
    let generation = code.map(GenerationCode::as_str);
    let sort_name = q.sort.as_deref().map(str::trim).filter(|s| !s.is_empty()).unwrap_or("elc").to_ascii_lowercase();
    let sort = Sort::parse(&sort_name)
        .ok_or_else(|| ApiError::field("sort", &format!("sort must be one of: {}", Sort::NAMES.join(", "))))?;
    let query = format!("players {generation:?} {sort_name} {page} {limit}");
    let s = state.clone();
    let body = state
        .db
        .read(move |c| {
            kept_or_made(&s, c, query, |c, version| {
                let skip = offset(page, limit);
                let (players, total) = if skip < DEEP_PAGE_OFFSET {
                    store::leaderboard(c, generation, sort, skip, limit)?
                } else {
                    let name = format!("{generation:?} {sort_name}");
                    let ids = s
                        .scans
                        .rankings
                        .get_or_make(&name, version, || store::ranking_ids(c, generation, sort).map(Arc::new))?;
                    let (start, end) = slice_bounds(ids.len(), skip, limit);
                    (store::players_in_order(c, &ids[start..end], skip + 1)?, ids.len() as u64)
                };
                let mut players = players;
                store::label_generations(&mut players, &s.roblox.config.classification);
                Ok(Leaderboard {
                    success: true,
                    generation: code,
                    generation_label,
                    sort: sort_name,
                    total,
                    page,
                    limit,
                    players,
                })
            })
        })
        .await?;
    Ok(respond_json(&body, &headers, Caching::PRIVATE))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// 1-100 characters: the start of a username or display name, or part of a group's name or its id.
    #[param(value_type = String, min_length = 1, max_length = 100, pattern = r"\S")]
    q: Option<String>,
    /// players, groups or all (default); any case.
    #[serde(rename = "type")]
    #[param(value_type = Option<String>, pattern = r"^\s*([Pp][Ll][Aa][Yy][Ee][Rr][Ss]|[Gg][Rr][Oo][Uu][Pp][Ss]|[Aa][Ll][Ll])?\s*$")]
    kind: Option<String>,
    /// At most this many of each kind, 1-100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchAnswer {
    success: bool,
    query: String,
    #[serde(rename = "type")]
    kind: String,
    players: Vec<PlayerEntry>,
    groups: Vec<GroupSummary>,
}

/// Stored players (by the start of the username or display name) and scanned groups.
#[utoipa::path(get, path = "/api/v1/search", tag = "developer API", operation_id = "v1Search", params(SearchQuery),
    security(("apiKey" = [])),
    responses((status = 200, body = SearchAnswer), (status = 400, description = "Bad q, type or limit"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn search(
    State(state): State<Arc<ScansState>>,
    Query(q): Query<SearchQuery>,
) -> Result<Json<SearchAnswer>, ApiError> {
    let query = search_query(q.q.as_deref())?;
    let kind = q.kind.as_deref().map(str::trim).filter(|k| !k.is_empty()).unwrap_or("all").to_ascii_lowercase();
    if !["players", "groups", "all"].contains(&kind.as_str()) {
        return Err(ApiError::field("type", "type must be one of: players, groups, all"));
    }
    let limit = number_param("limit", q.limit.as_deref(), DEFAULT_LIMIT, 1..=MAX_LIMIT)?;
    let (k, text, s) = (kind.clone(), query.clone(), state.clone());
    let (players, groups) = state
        .db
        .read(move |c| {
            let mut players = if k != "groups" { store::search_players(c, &text, limit)? } else { Vec::new() };
            store::label_generations(&mut players, &s.roblox.config.classification);
            let groups = if k != "players" { store::search_groups(c, &text, limit)? } else { Vec::new() };
            Ok((players, groups))
        })
        .await?;
    Ok(Json(SearchAnswer { success: true, query, kind, players, groups }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ReportRequest {
    /// A Roblox username (3-20 letters, digits, at most one underscore not at either end).
    #[schema(value_type = String, required = true, min_length = 3, max_length = 20, pattern = r"^[A-Za-z0-9]+(_[A-Za-z0-9]+)?$")]
    reporter_username: Option<String>,
    /// A Roblox username, not the reporter's.
    #[schema(value_type = String, required = true, min_length = 3, max_length = 20, pattern = r"^[A-Za-z0-9]+(_[A-Za-z0-9]+)?$")]
    target_username: Option<String>,
    /// Why, in the reporter's words: 1-100 characters after trimming, no control characters (for
    /// example griefing). The report's `category` is derived from it: exploiting, scamming,
    /// harassment, impersonation, inappropriate-content or botting when it names one (any case),
    /// else other.
    #[schema(value_type = String, required = true, min_length = 1, max_length = 100, pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$")]
    reason: Option<String>,
    /// 10-1000 characters after trimming, no control characters but tabs and line breaks; stored
    /// and shown as plain text.
    #[schema(value_type = String, required = true, min_length = 10, max_length = 1000, pattern = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$")]
    description: Option<String>,
    /// low, medium (default), high or urgent; any case.
    #[schema(value_type = Option<String>, pattern = r"^\s*([Ll][Oo][Ww]|[Mm][Ee][Dd][Ii][Uu][Mm]|[Hh][Ii][Gg][Hh]|[Uu][Rr][Gg][Ee][Nn][Tt])?\s*$")]
    priority: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportAnswer {
    success: bool,
    message: String,
    report: AbuseReport,
}

/// Files an abuse report for the admins (5 an hour per IP).
#[utoipa::path(post, path = "/api/v1/report-abuse", tag = "developer API", operation_id = "v1ReportAbuse", request_body = ReportRequest,
    security(("apiKey" = [])),
    responses((status = 201, body = ReportAnswer), (status = 400, description = "A field is invalid (fields names each)"),
        (status = 401, description = "No or bad API key"), (status = 413, description = "Body too large"), (status = 415, description = "Not JSON"),
        (status = 429, description = "Rate limit reached (the key's, or 5 reports an hour per IP)")))]
pub(crate) async fn report_abuse(
    State(state): State<Arc<ScansState>>,
    Extension(client): Extension<ClientIp>,
    Extension(caller): Extension<ApiCaller>,
    JsonBody(body): JsonBody<ReportRequest>,
) -> Result<(StatusCode, Json<ReportAnswer>), ApiError> {
    let report = validate_report(&body)?;
    state.scans.reports.check(client.rate_key())?;
    let key_id = Some(caller.0.id);
    let (id, saved) = state
        .db
        .write(move |tx| {
            let new = store::NewReport {
                reporter_username: &report.0,
                target_username: &report.1,
                reason: &report.2,
                description: &report.3,
                priority: &report.4,
                key_id,
            };
            let id = store::add_report(tx, &new, now_ms())?;
            Ok((id, store::report(tx, id)?))
        })
        .await?;
    let report = saved.ok_or_else(|| ApiError::internal(format!("report {id} vanished")))?;
    Ok((
        StatusCode::CREATED,
        Json(ReportAnswer { success: true, message: "Report received; an admin will review it.".into(), report }),
    ))
}

/// (reporter, target, reason, description, priority), every problem named by its field.
fn validate_report(body: &ReportRequest) -> Result<(String, String, String, String, String), ApiError> {
    let mut fields = std::collections::BTreeMap::new();
    let mut username = |field: &str, raw: Option<&str>| {
        let name = raw.map(str::trim).unwrap_or("");
        match crate::roblox::classify::check_username(name) {
            Ok(()) => name.to_string(),
            Err(why) => {
                fields.insert(field.to_string(), format!("{field}: {why}"));
                String::new()
            }
        }
    };
    let reporter = username("reporterUsername", body.reporter_username.as_deref());
    let target = username("targetUsername", body.target_username.as_deref());
    if !reporter.is_empty() && reporter.eq_ignore_ascii_case(&target) {
        fields.insert("targetUsername".into(), "targetUsername must not be the reporter".into());
    }
    let reason = match plain_text("reason", body.reason.as_deref(), 1, REASON_MAX) {
        Ok(r) if !r.contains(['\n', '\r', '\t']) => r,
        Ok(_) => {
            fields.insert("reason".into(), "reason must be one line".into());
            String::new()
        }
        Err(e) => {
            fields.extend(e.body.fields.clone().unwrap_or_default());
            String::new()
        }
    };
    let description = match plain_text("description", body.description.as_deref(), DESCRIPTION_MIN, DESCRIPTION_MAX) {
        Ok(d) => d,
        Err(e) => {
            fields.extend(e.body.fields.clone().unwrap_or_default());
            String::new()
        }
    };
    let priority =
        body.priority.as_deref().map(str::trim).filter(|p| !p.is_empty()).unwrap_or("medium").to_ascii_lowercase();
    if !PRIORITIES.contains(&priority.as_str()) {
        fields.insert("priority".into(), format!("priority must be one of: {}", PRIORITIES.join(", ")));
    }
    if !fields.is_empty() {
        return Err(ApiError::validation(fields));
    }
    Ok((reporter, target, reason, description, priority))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_is_the_part_of_the_ranking_it_shows() {
        assert_eq!(slice_bounds(250, 0, 100), (0, 100));
        assert_eq!(slice_bounds(250, 200, 100), (200, 250), "the last page is partial");
        assert_eq!(slice_bounds(250, 300, 100), (250, 250), "past the end: empty");
        assert_eq!(slice_bounds(0, 0, 20), (0, 0));
        assert_eq!(slice_bounds(10, u64::MAX, 100), (10, 10));
    }

    #[test]
    fn group_ids_are_whole_numbers_in_range_written_as_json_numbers_or_digits() {
        for ok in [json!(7), json!(7.0), json!("7"), json!(" 42 "), json!(9007199254740991u64)] {
            assert!(parse_group_id("groupId", &ok).is_ok(), "{ok}");
        }
        for bad in [
            json!(0),
            json!(-3),
            json!(7.5),
            json!(1e300),
            json!("7.0"),
            json!("+7"),
            json!(null),
            json!(9007199254740992u64),
        ] {
            assert!(parse_group_id("groupId", &bad).is_err(), "{bad}");
        }
    }
}
