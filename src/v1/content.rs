//! `/api/v1` over the command database and the guides: lists with paging and filters, categories,
//! ranked search, and the wiki search over both.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::V1State;
use crate::commands::{CommandItem, PERMISSIONS};
use crate::error::ApiError;
use crate::guides::Guide;
use crate::http::extract::{Path, Query};
use crate::http::paging::{PageQuery, number_param, page_of, paging, search_query};

#[derive(Serialize, ToSchema)]
pub struct CommandPage {
    success: bool,
    /// Matching commands in all pages.
    total: usize,
    page: u32,
    limit: u32,
    commands: Vec<CommandItem>,
}

#[derive(Serialize, ToSchema)]
pub struct CommandList {
    success: bool,
    commands: Vec<CommandItem>,
}

#[derive(Serialize, ToSchema)]
pub struct GuidePage {
    success: bool,
    total: usize,
    page: u32,
    limit: u32,
    guides: Vec<Guide>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CommandsQuery {
    /// Page number, 1 or more (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100000)]
    page: Option<String>,
    /// Items per page, 1-100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// A category of the command database (case-insensitive).
    category: Option<String>,
    /// OA, OR, UP or NE.
    #[param(value_type = Option<String>, pattern = r"^\s*([Oo][AaRr]|[Uu][Pp]|[Nn][Ee])?\s*$")]
    permission: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// The words to look for, 1-100 characters; every word must match.
    #[param(value_type = String, min_length = 1, max_length = 100, pattern = r"\S")]
    q: Option<String>,
    /// Page number, 1 or more (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100000)]
    page: Option<String>,
    /// Items per page, 1-100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
}

fn command_page(matching: Vec<CommandItem>, page: u32, limit: u32) -> Json<CommandPage> {
    Json(CommandPage { success: true, total: matching.len(), page, limit, commands: page_of(&matching, page, limit) })
}

fn guide_page(matching: Vec<Guide>, page: u32, limit: u32) -> Json<GuidePage> {
    Json(GuidePage { success: true, total: matching.len(), page, limit, guides: page_of(&matching, page, limit) })
}

fn unknown_category(state: &V1State) -> ApiError {
    ApiError::not_found("No such command category.")
        .with_message(format!("Categories: {}.", state.commands.categories().join(", ")))
}

/// Commands, paged, optionally of one category and one permission level.
#[utoipa::path(get, path = "/api/v1/commands", tag = "developer API", operation_id = "v1ListCommands", params(CommandsQuery),
    security(("apiKey" = [])),
    responses((status = 200, body = CommandPage), (status = 400, description = "Bad paging or filter"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn commands(
    State(state): State<Arc<V1State>>,
    Query(q): Query<CommandsQuery>,
) -> Result<Json<CommandPage>, ApiError> {
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    let category = match q.category.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) => Some(state.commands.category(c).map(str::to_string).ok_or_else(|| {
            ApiError::field("category", "No such command category")
                .with_message(format!("Categories: {}.", state.commands.categories().join(", ")))
        })?),
        None => None,
    };
    let permission = match q.permission.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
        Some(p) => Some(
            PERMISSIONS
                .iter()
                .find(|known| known.eq_ignore_ascii_case(p))
                .ok_or_else(|| ApiError::field("permission", "permission must be one of OA, OR, UP, NE"))?,
        ),
        None => None,
    };
    let matching = state
        .commands
        .items()
        .iter()
        .filter(|c| category.as_deref().is_none_or(|cat| c.category == cat))
        .filter(|c| permission.is_none_or(|p| c.permission == *p))
        .cloned()
        .collect();
    Ok(command_page(matching, page, limit))
}

/// Commands of one category (case-insensitive), paged.
#[utoipa::path(get, path = "/api/v1/commands/category/{category}", tag = "developer API", operation_id = "v1ListCommandsInCategory",
    params(("category" = String, Path, description = "A category of the command database"), PageQuery),
    security(("apiKey" = [])),
    responses((status = 200, body = CommandPage), (status = 400, description = "Bad paging"), (status = 401, description = "No or bad API key"), (status = 404, description = "No such category"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn commands_in_category(
    State(state): State<Arc<V1State>>,
    Path(category): Path<String>,
    Query(q): Query<PageQuery>,
) -> Result<Json<CommandPage>, ApiError> {
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    let category = state.commands.category(&category).ok_or_else(|| unknown_category(&state))?.to_string();
    let matching = state.commands.items().iter().filter(|c| c.category == category).cloned().collect();
    Ok(command_page(matching, page, limit))
}

/// Commands whose name, usage, category or description hold every word of `q`, best first.
#[utoipa::path(get, path = "/api/v1/commands/search", tag = "developer API", operation_id = "v1SearchCommands", params(SearchQuery),
    security(("apiKey" = [])),
    responses((status = 200, body = CommandPage), (status = 400, description = "Missing or too long q, bad paging"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn search_commands(
    State(state): State<Arc<V1State>>,
    Query(q): Query<SearchQuery>,
) -> Result<Json<CommandPage>, ApiError> {
    let query = search_query(q.q.as_deref())?;
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    let matching = state.commands.search(&query).into_iter().map(|(_, c)| c).collect();
    Ok(command_page(matching, page, limit))
}

/// Up to 6 commands ranked by the community's favorites and ratings.
#[utoipa::path(get, path = "/api/v1/commands/popular", tag = "developer API", operation_id = "v1ListPopularCommands", security(("apiKey" = [])),
    responses((status = 200, body = CommandList), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn popular_commands(State(state): State<Arc<V1State>>) -> Json<CommandList> {
    Json(CommandList { success: true, commands: state.commands.popular_items().to_vec() })
}

/// Guides, paged.
#[utoipa::path(get, path = "/api/v1/guides", tag = "developer API", operation_id = "v1ListGuides", params(PageQuery), security(("apiKey" = [])),
    responses((status = 200, body = GuidePage), (status = 400, description = "Bad paging"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn guides(
    State(state): State<Arc<V1State>>,
    Query(q): Query<PageQuery>,
) -> Result<Json<GuidePage>, ApiError> {
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    Ok(guide_page(state.guides.guides.clone(), page, limit))
}

/// Guides of one category (Beginner, Building, Administration, Community; case-insensitive), paged.
#[utoipa::path(get, path = "/api/v1/guides/category/{category}", tag = "developer API", operation_id = "v1ListGuidesInCategory",
    params(("category" = String, Path, description = "Beginner, Building, Administration or Community"), PageQuery),
    security(("apiKey" = [])),
    responses((status = 200, body = GuidePage), (status = 400, description = "Bad paging"), (status = 401, description = "No or bad API key"), (status = 404, description = "No such category"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn guides_in_category(
    State(state): State<Arc<V1State>>,
    Path(category): Path<String>,
    Query(q): Query<PageQuery>,
) -> Result<Json<GuidePage>, ApiError> {
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    let category = state.guides.category(&category).ok_or_else(|| {
        ApiError::not_found("No such guide category.")
            .with_message(format!("Categories: {}.", crate::guides::CATEGORIES.join(", ")))
    })?;
    let matching = state.guides.guides.iter().filter(|g| g.category == category).cloned().collect();
    Ok(guide_page(matching, page, limit))
}

/// Guides whose title, tags, category or text hold every word of `q`, best first.
#[utoipa::path(get, path = "/api/v1/guides/search", tag = "developer API", operation_id = "v1SearchGuides", params(SearchQuery), security(("apiKey" = [])),
    responses((status = 200, body = GuidePage), (status = 400, description = "Missing or too long q, bad paging"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn search_guides(
    State(state): State<Arc<V1State>>,
    Query(q): Query<SearchQuery>,
) -> Result<Json<GuidePage>, ApiError> {
    let query = search_query(q.q.as_deref())?;
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    let matching = state.guides.search(&query).into_iter().map(|(_, g)| g.clone()).collect();
    Ok(guide_page(matching, page, limit))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WikiQuery {
    /// The words to look for, 1-100 characters; every word must match.
    #[param(value_type = String, min_length = 1, max_length = 100, pattern = r"\S")]
    q: Option<String>,
    /// Only results of this command or guide category (case-insensitive).
    category: Option<String>,
    /// How many results, 1-50 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 50)]
    limit: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct WikiResult {
    /// `command` or `guide`.
    #[serde(rename = "type")]
    kind: &'static str,
    id: u32,
    /// The command's name or the guide's title.
    title: String,
    category: String,
    /// A short piece of the text around the match.
    snippet: String,
    /// Higher is a better match (name and title matches weigh most).
    score: u32,
}

#[derive(Serialize, ToSchema)]
pub struct WikiAnswer {
    success: bool,
    query: String,
    results: Vec<WikiResult>,
}

/// One ranked search over the commands and the guides.
#[utoipa::path(get, path = "/api/v1/wiki", tag = "developer API", operation_id = "v1SearchWiki", params(WikiQuery), security(("apiKey" = [])),
    responses((status = 200, body = WikiAnswer), (status = 400, description = "Missing or too long q, unknown category, bad limit"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn wiki(
    State(state): State<Arc<V1State>>,
    Query(q): Query<WikiQuery>,
) -> Result<Json<WikiAnswer>, ApiError> {
    let query = search_query(q.q.as_deref())?;
    let limit = number_param("limit", q.limit.as_deref(), 20, 1..=50)?;
    let category = match q.category.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) => {
            let known =
                state.commands.category(c).map(str::to_string).or_else(|| state.guides.category(c).map(str::to_string));
            Some(known.ok_or_else(|| ApiError::field("category", "No command or guide category has that name"))?)
        }
        None => None,
    };
    let terms = crate::search::terms(&query);
    let commands = state.commands.search(&query).into_iter().map(|(score, c)| WikiResult {
        kind: "command",
        id: c.id,
        snippet: crate::search::snippet(&c.description, &terms, 160),
        title: c.name,
        category: c.category,
        score,
    });
    let guides = state.guides.search(&query).into_iter().map(|(score, g)| WikiResult {
        kind: "guide",
        id: g.id,
        title: g.title.clone(),
        category: g.category.clone(),
        snippet: crate::search::snippet(&g.content, &terms, 160),
        score,
    });
    let mut results: Vec<WikiResult> =
        commands.chain(guides).filter(|r| category.as_deref().is_none_or(|c| r.category == c)).collect();
    results.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.title.cmp(&b.title)));
    results.truncate(limit as usize);
    Ok(Json(WikiAnswer { success: true, query, results }))
}
