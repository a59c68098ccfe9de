//! The leaderboards (all players, one group), the lists of scans and groups, and search.

use super::*;

/// Pages from this many players on are sliced from the whole ranking kept in memory (one index
const DEEP_PAGE_OFFSET: u64 = 1_000;

/// The part of a ranking of `len` that a page at `offset` of `limit` shows (empty past its end).
pub(super) fn slice_bounds(len: usize, offset: u64, limit: u32) -> (usize, usize) {
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
pub async fn group_leaderboard(
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
                let group = store::group_summary_of(c, group_id)?.ok_or_else(|| {
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
pub async fn all_scans(
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
pub async fn all_group_leaderboards(
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
    /// The `nextCursor` of the page before: the page after it, read by key (as cheap deep in the
    /// ranking as at its top). Instead of `page`, with the same generation and sort.
    #[param(value_type = Option<String>, pattern = r"^[0-9]{1,12}\.[0-9]{1,16}$")]
    cursor: Option<String>,
}

/// A leaderboard cursor: the rank and user id of a page's last player, as `nextCursor` writes it.
fn parse_cursor(raw: &str) -> Result<(u64, i64), ApiError> {
    let bad = || ApiError::field("cursor", "cursor must be the nextCursor of a page (rank.userId)");
    let (rank, user_id) = raw.trim().split_once('.').ok_or_else(bad)?;
    let digits = |t: &str, max: usize| !t.is_empty() && t.len() <= max && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(rank, 12) || !digits(user_id, 16) {
        return Err(bad());
    }
    Ok((rank.parse().map_err(|_| bad())?, user_id.parse().map_err(|_| bad())?))
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
    /// The page these players are on (with a cursor: the page the first of them falls on).
    page: u32,
    limit: u32,
    players: Vec<PlayerEntry>,
    /// Pass as `cursor` for the next page; null on the last page.
    next_cursor: Option<String>,
}

/// Every player the site has seen (scans and newgen checks), ranked.
#[utoipa::path(get, path = "/api/v1/leaderboard", tag = "developer API", operation_id = "v1Leaderboard", params(LeaderboardQuery),
    security(("apiKey" = [])),
    responses((status = 200, body = Leaderboard), (status = 304, description = "Not modified (If-None-Match)"), (status = 400, description = "Bad generation, sort, paging or cursor (or a cursor at a player no longer stored)"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub async fn leaderboard(
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
    let cursor = match q.cursor.as_deref().filter(|c| !c.trim().is_empty()) {
        Some(_) if q.page.is_some() => {
            return Err(ApiError::field("cursor", "Give page or cursor, not both"));
        }
        Some(raw) => Some(parse_cursor(raw)?),
        None => None,
    };
    let query = format!("players {generation:?} {sort_name} {page} {limit} {cursor:?}");
    let s = state.clone();
    let body = state
        .db
        .read(move |c| {
            kept_or_made(&s, c, query, |c, version| {
                let skip = offset(page, limit);
                let (players, total, page) = if let Some(after) = cursor {
                    let (players, total) =
                        store::leaderboard_after(c, generation, sort, after, limit)?.ok_or_else(|| {
                            ApiError::field(
                                "cursor",
                                "The player this cursor follows is no longer stored: start again from page 1",
                            )
                        })?;
                    let page = u32::try_from(after.0 / limit as u64 + 1).unwrap_or(u32::MAX);
                    (players, total, page)
                } else if skip < DEEP_PAGE_OFFSET {
                    let (players, total) = store::leaderboard(c, generation, sort, skip, limit)?;
                    (players, total, page)
                } else {
                    let name = format!("{generation:?} {sort_name}");
                    let ids = s
                        .scans
                        .rankings
                        .get_or_make(&name, version, || store::ranking_ids(c, generation, sort).map(Arc::new))?;
                    let (start, end) = slice_bounds(ids.len(), skip, limit);
                    (store::players_in_order(c, &ids[start..end], skip + 1)?, ids.len() as u64, page)
                };
                let mut players = players;
                store::label_generations(&mut players, &s.roblox.config.classification);
                let next_cursor = players
                    .last()
                    .filter(|last| players.len() == limit as usize && last.rank < total)
                    .map(|last| format!("{}.{}", last.rank, last.user_id));
                Ok(Leaderboard {
                    success: true,
                    generation: code,
                    generation_label,
                    sort: sort_name,
                    total,
                    page,
                    limit,
                    players,
                    next_cursor,
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
pub async fn search(
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
