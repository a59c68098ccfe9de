//! `/api/v1` over the site itself: health, the database check, the public figures, analytics,
//! the community's ratings, the events feed and the Discord updates.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::V1State;
use crate::db::DatabaseHealth;
use crate::error::ApiError;
use crate::events::Event;
use crate::http::cached::Caching;
use crate::http::extract::Query;
use crate::http::paging::number_param;

/// Liveness and version (no key needed): the body of `/api/health`.
#[utoipa::path(get, path = "/api/v1/health", tag = "developer API", operation_id = "v1GetHealth",
    responses((status = 200, description = "Liveness and version", body = crate::health::Health), (status = 304, description = "Not modified")))]
pub(crate) async fn health(State(state): State<Arc<V1State>>, headers: HeaderMap) -> Response {
    state.health_json.respond(&headers, Caching::HEALTH)
}

#[derive(Serialize, ToSchema)]
pub struct DatabaseAnswer {
    success: bool,
    database: DatabaseHealth,
}

/// The database check: whether the database answers, its schema version, size and journal mode.
/// Row counts and the last backup are the admin's (`GET /api/admin/database`).
#[utoipa::path(get, path = "/api/v1/database", tag = "developer API", operation_id = "v1GetDatabaseStatus", security(("apiKey" = [])),
    responses((status = 200, body = DatabaseAnswer), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn database(State(state): State<Arc<V1State>>) -> Result<Json<DatabaseAnswer>, ApiError> {
    let database = state.db.read(crate::db::health).await?;
    Ok(Json(DatabaseAnswer { success: true, database }))
}

/// The database check of the site's API page (the same answer as `/api/v1/database`).
#[utoipa::path(get, path = "/api/database", tag = "developer API", operation_id = "getDatabaseStatus", security(("apiKey" = [])),
    responses((status = 200, body = DatabaseAnswer), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn site_database(state: State<Arc<V1State>>) -> Result<Json<DatabaseAnswer>, ApiError> {
    database(state).await
}

/// The public figures: the body of `/api/stats`.
#[utoipa::path(get, path = "/api/v1/stats", tag = "developer API", operation_id = "v1GetStats", security(("apiKey" = [])),
    responses((status = 200, description = "Public figures", body = crate::stats::PublicStats), (status = 304, description = "Not modified"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn stats(State(state): State<Arc<V1State>>, headers: HeaderMap) -> Response {
    state.stats_json.respond(&headers, Caching::PRIVATE)
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AnalyticsQuery {
    /// How many days, ending today (UTC): 1-90, default 30.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 90)]
    days: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct AnalyticsAnswer {
    success: bool,
    #[serde(flatten)]
    analytics: crate::stats::store::Analytics,
}

/// Page views and unique visitors per day and per route, as the server counts them (no cookies,
/// no stored IPs; written every few seconds). Made from the daily figures, once per write.
#[utoipa::path(get, path = "/api/v1/analytics", tag = "developer API", operation_id = "v1GetAnalytics", params(AnalyticsQuery), security(("apiKey" = [])),
    responses((status = 200, body = AnalyticsAnswer), (status = 400, description = "Bad days"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn analytics(
    State(state): State<Arc<V1State>>,
    Query(q): Query<AnalyticsQuery>,
) -> Result<Json<AnalyticsAnswer>, ApiError> {
    let days = number_param("days", q.days.as_deref(), 30, 1..=90)?;
    let today = jiff::Timestamp::now().to_zoned(jiff::tz::TimeZone::UTC).date();
    let analytics = state.analytics.get(days, today).await?;
    Ok(Json(AnalyticsAnswer { success: true, analytics }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommandSignals {
    id: u32,
    name: String,
    category: String,
    avg_rating: f64,
    rating_count: u32,
    favorite_count: u32,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignalTotals {
    ratings: u64,
    favorites: u64,
    /// Commands with at least one rating.
    rated_commands: usize,
}

#[derive(Serialize, ToSchema)]
pub struct CommandsStatsAnswer {
    success: bool,
    totals: SignalTotals,
    /// Every command, most favorited and rated first.
    commands: Vec<CommandSignals>,
}

/// Ratings and favorites per command, from the fans' accounts.
#[utoipa::path(get, path = "/api/v1/commands-stats", tag = "developer API", operation_id = "v1GetCommandsStats", security(("apiKey" = [])),
    responses((status = 200, body = CommandsStatsAnswer), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn commands_stats(State(state): State<Arc<V1State>>) -> Json<CommandsStatsAnswer> {
    let items = state.commands.items();
    let totals = SignalTotals {
        ratings: items.iter().map(|c| u64::from(c.rating_count)).sum(),
        favorites: items.iter().map(|c| u64::from(c.favorite_count)).sum(),
        rated_commands: items.iter().filter(|c| c.rating_count > 0).count(),
    };
    let mut commands: Vec<CommandSignals> = items
        .iter()
        .map(|c| CommandSignals {
            id: c.id,
            name: c.name.clone(),
            category: c.category.clone(),
            avg_rating: c.avg_rating,
            rating_count: c.rating_count,
            favorite_count: c.favorite_count,
        })
        .collect();
    commands.sort_by(|a, b| {
        (b.favorite_count + b.rating_count)
            .cmp(&(a.favorite_count + a.rating_count))
            .then(b.avg_rating.total_cmp(&a.avg_rating))
            .then_with(|| a.name.cmp(&b.name))
    });
    Json(CommandsStatsAnswer { success: true, totals, commands })
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Only events with a larger id (the `nextSince` of the previous answer); default 0.
    #[param(value_type = Option<i64>, minimum = 0)]
    since: Option<String>,
    /// At most this many, 1-100 (default 50).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// Only this type: member.joined, banner.changed or site.upgraded.
    #[param(value_type = Option<String>, pattern = r"^(member\.joined|banner\.changed|site\.upgraded)$")]
    #[serde(rename = "type")]
    kind: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventsAnswer {
    success: bool,
    /// Oldest first.
    events: Vec<Event>,
    /// Pass as `since` next time to get only what is new.
    next_since: i64,
}

/// The site's public happenings, for community bots to follow by polling with `since`:
/// `member.joined` {members}, `banner.changed` {banner, backgroundColor, textColor, borderColor},
/// `site.upgraded` {from, to}.
#[utoipa::path(get, path = "/api/v1/events", tag = "developer API", operation_id = "v1ListEvents", params(EventsQuery), security(("apiKey" = [])),
    responses((status = 200, body = EventsAnswer), (status = 400, description = "Bad since, limit or type"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn events(
    State(state): State<Arc<V1State>>,
    Query(q): Query<EventsQuery>,
) -> Result<Json<EventsAnswer>, ApiError> {
    let since = match q.since.as_deref().map(str::trim) {
        None => 0,
        Some(raw) => raw
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .ok_or_else(|| ApiError::field("since", "since must be a whole number, 0 or more"))?,
    };
    let limit = number_param("limit", q.limit.as_deref(), 50, 1..=100)?;
    // Exactly one of the types, as the document's pattern says: an empty or padded `type` is refused, not read as none.
    let kind = match q.kind.as_deref() {
        Some(t) => Some(
            crate::events::TYPES
                .iter()
                .find(|known| **known == t)
                .ok_or_else(|| {
                    ApiError::field("type", "type must be one of member.joined, banner.changed, site.upgraded")
                })?
                .to_string(),
        ),
        None => None,
    };
    let events = state.db.read(move |c| crate::events::store::list(c, since, limit, kind.as_deref())).await?;
    let next_since = events.last().map(|e| e.id).unwrap_or(since);
    Ok(Json(EventsAnswer { success: true, events, next_since }))
}

/// Summarised game updates and community highlights of every product (the same data as
/// `/api/discord/{product}-updates`); empty lists with `configured: false` until the host sets up Discord.
#[utoipa::path(get, path = "/api/v1/discord-updates", tag = "developer API", operation_id = "v1GetDiscordUpdates", security(("apiKey" = [])),
    responses((status = 200, body = crate::discord::AllUpdates), (status = 304, description = "Not modified"), (status = 401, description = "No or bad API key"), (status = 429, description = "Rate limit reached")))]
pub(crate) async fn discord_updates(State(state): State<Arc<V1State>>, headers: HeaderMap) -> Response {
    state.discord.all_json.respond(&headers, Caching::PRIVATE)
}
