//! The documented developer API under `/api/v1` (and the site's keyed `/api/database`). Every
//! call but `health` needs an `X-API-Key`; `keys::guard` checks it, applies the key's rate limits,
//! counts the call and adds the `X-RateLimit-*` headers. The answers reuse the site's own types.

pub(crate) mod content;
pub(crate) mod site;

use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};

use crate::commands::Catalog;
use crate::db::Db;
use crate::discord::Discord;
use crate::guides::Library;
use crate::http::cached::CachedJson;
use crate::keys::KeyRing;
use crate::keys::guard::require_api_key;
use crate::scans::ScansState;
use crate::scans::routes as scans;

pub const BASE: &str = "/api/v1";

/// What the developer API uses beside the scans' state: the database, the command catalog and the
/// guides, the served health and public figures, the Discord updates and the keys of its guard.
#[derive(Clone)]
pub struct V1State {
    pub db: Db,
    pub commands: Arc<Catalog>,
    pub guides: Arc<Library>,
    pub stats_json: Arc<CachedJson>,
    pub health_json: Arc<CachedJson>,
    pub discord: Arc<Discord>,
    pub keys: Arc<KeyRing>,
    /// The analytics answers, kept until the visits are next written.
    pub analytics: Arc<crate::stats::AnalyticsAnswers>,
}

/// Each feature state is behind one `Arc`, so a request clones one pointer, not every service.
pub fn router<S: Clone + Send + Sync + 'static>(state: V1State, scans_state: ScansState) -> Router<S> {
    let state = Arc::new(state);
    let keyed_scans = Router::new()
        .route("/api/v1/scan-group", post(scans::scan_group))
        .route("/api/v1/scan-status/{id}", get(scans::scan_status))
        .route("/api/v1/resume-scan", post(scans::resume_scan))
        .route("/api/v1/group-leaderboard/{groupId}", get(scans::group_leaderboard))
        .route("/api/v1/all-scans", get(scans::all_scans))
        .route("/api/v1/all-group-leaderboards", get(scans::all_group_leaderboards))
        .route("/api/v1/leaderboard", get(scans::leaderboard))
        .route("/api/v1/search", get(scans::search))
        .route("/api/v1/report-abuse", post(scans::report_abuse))
        .with_state(Arc::new(scans_state));
    let keyed = Router::new()
        .route("/api/database", get(site::site_database))
        .route("/api/v1/database", get(site::database))
        .route("/api/v1/stats", get(site::stats))
        .route("/api/v1/analytics", get(site::analytics))
        .route("/api/v1/commands-stats", get(site::commands_stats))
        .route("/api/v1/events", get(site::events))
        .route("/api/v1/discord-updates", get(site::discord_updates))
        .route("/api/v1/commands", get(content::commands))
        .route("/api/v1/commands/popular", get(content::popular_commands))
        .route("/api/v1/commands/search", get(content::search_commands))
        .route("/api/v1/commands/category/{category}", get(content::commands_in_category))
        .route("/api/v1/guides", get(content::guides))
        .route("/api/v1/guides/search", get(content::search_guides))
        .route("/api/v1/guides/category/{category}", get(content::guides_in_category))
        .route("/api/v1/wiki", get(content::wiki))
        .with_state(state.clone())
        .merge(keyed_scans)
        .route_layer(from_fn_with_state(state.keys.clone(), require_api_key));
    Router::new().route("/api/v1/health", get(site::health)).with_state(state).merge(keyed)
}
