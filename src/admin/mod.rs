//! The admin panel's API. Access (keys, sessions, the phrase and direct-key flows) is open to
//! anyone who can pass it; everything else sits behind `accounts::guard::require_admin`. The
//! admin routes of the features the panel manages (advertisements, scans, backups) are theirs.

pub mod access;
pub mod database;
pub mod health;
pub mod logs;
pub mod settings;
pub mod stats;
pub mod users;

use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::{delete, get, patch, post};

use crate::accounts::admin_keys::Challenges;
use crate::banner::ServedBanner;
use crate::commands::Catalog;
use crate::db::Db;
use crate::discord::Discord;
use crate::health::HealthCheck;
use crate::jobs::{Jobs, Wake};
use crate::llm::LlmClient;
use crate::logging::LogBuffer;
use crate::ratelimit::{AuthLimiter, LoginThrottle};
use crate::roblox::Roblox;
use crate::site::SiteSettings;
use crate::stats::PublicFigures;

/// What the admin panel reads and resets: it oversees the whole site, so it is handed the
/// services of the features it reports on.
#[derive(Clone)]
pub struct AdminState {
    pub db: Db,
    pub site: Arc<SiteSettings>,
    /// FANHUB_ADMIN_PHRASE, when the phrase flow is on.
    pub admin_phrase: Option<Arc<str>>,
    pub auth_limiter: Arc<AuthLimiter>,
    pub login_throttle: Arc<LoginThrottle>,
    pub challenges: Arc<Challenges>,
    pub logs: LogBuffer,
    pub jobs: Jobs,
    pub data_dir: Arc<Path>,
    pub started_at: jiff::Timestamp,
    pub commands: Arc<Catalog>,
    pub figures: PublicFigures,
    pub stats_refresh: Wake,
    pub banner: Arc<ServedBanner>,
    pub health: Arc<HealthCheck>,
    pub roblox: Roblox,
    pub discord: Arc<Discord>,
    pub llm: Option<LlmClient>,
}

pub fn router<S: Clone + Send + Sync + 'static>(state: AdminState) -> Router<S> {
    let protected = Router::new()
        .route("/api/admin/check-key", get(access::check_key))
        .route("/api/admin/keys", get(access::list_admin_keys))
        .route("/api/admin/keys/{id}", delete(access::revoke_admin_key))
        .route("/api/admin/stats", get(stats::stats))
        .route("/api/admin/database", get(database::database))
        .route("/api/admin/users", get(users::list))
        .route("/api/admin/users/{id}", patch(users::update).delete(users::remove))
        .route("/api/admin/users/{id}/suspend", patch(users::suspend))
        .route("/api/admin/login-logs", get(logs::login_logs))
        .route("/api/admin/app-logs", get(logs::app_logs))
        .route("/api/admin/exceptions", get(logs::exceptions))
        .route("/api/admin/health", get(health::health))
        .route("/api/admin/settings", get(settings::get_settings).put(settings::put_settings))
        .route("/api/admin/revert-banner", post(settings::revert_banner))
        .route("/api/admin/clear-cache", post(settings::clear_cache))
        .route_layer(from_fn_with_state(state.db.clone(), crate::accounts::guard::require_admin));
    Router::new()
        .route("/api/admin/verify-key", post(access::verify_key))
        .route("/api/admin/logout", post(access::logout))
        .route("/api/admin/generate-challenge", post(access::generate_challenge))
        .route("/api/admin/create-lifetime-key", post(access::create_lifetime_key))
        .route("/api/admin/generate-direct-key", post(access::generate_direct_key))
        .merge(protected)
        .with_state(state)
}
