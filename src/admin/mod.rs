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

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::{delete, get, patch, post};

use crate::db::Db;

/// The panel's areas, each handed only what it uses (made from the app's state in `state.rs`).
#[derive(Clone)]
pub struct AdminAreas {
    pub access: access::AccessState,
    pub stats: stats::AdminStatsState,
    pub db: Db,
    /// The admin check (with the host's second-factor policy).
    pub admin_gate: crate::accounts::guard::AdminGate,
    pub users: users::UsersState,
    pub logs: logs::LogsState,
    pub health: health::SystemHealthState,
    pub settings: settings::SettingsState,
}

pub fn router<S: Clone + Send + Sync + 'static>(areas: AdminAreas) -> Router<S> {
    let keys = Router::new()
        .route("/api/admin/check-key", get(access::check_key))
        .route("/api/admin/keys", get(access::list_admin_keys))
        .route("/api/admin/keys/{id}", delete(access::revoke_admin_key))
        .with_state(areas.access.clone());
    let protected = Router::new()
        .merge(keys)
        .merge(Router::new().route("/api/admin/stats", get(stats::stats)).with_state(areas.stats))
        .merge(Router::new().route("/api/admin/database", get(database::database)).with_state(areas.db.clone()))
        .merge(
            Router::new()
                .route("/api/admin/users", get(users::list))
                .route("/api/admin/users/{id}", patch(users::update).delete(users::remove))
                .route("/api/admin/users/{id}/suspend", patch(users::suspend))
                .route("/api/admin/users/{id}/second-factors", delete(users::reset_second_factors))
                .with_state(areas.users),
        )
        .merge(
            Router::new()
                .route("/api/admin/login-logs", get(logs::login_logs))
                .route("/api/admin/app-logs", get(logs::app_logs))
                .route("/api/admin/exceptions", get(logs::exceptions))
                .with_state(areas.logs),
        )
        .merge(Router::new().route("/api/admin/health", get(health::health)).with_state(areas.health))
        .merge(
            Router::new()
                .route("/api/admin/settings", get(settings::get_settings).put(settings::put_settings))
                .route("/api/admin/revert-banner", post(settings::revert_banner))
                .route("/api/admin/clear-cache", post(settings::clear_cache))
                .with_state(areas.settings),
        )
        .route_layer(from_fn_with_state(areas.admin_gate, crate::accounts::guard::require_admin));
    Router::new()
        .route("/api/admin/verify-key", post(access::verify_key))
        .route("/api/admin/logout", post(access::logout))
        .route("/api/admin/generate-challenge", post(access::generate_challenge))
        .route("/api/admin/create-lifetime-key", post(access::create_lifetime_key))
        .route("/api/admin/generate-direct-key", post(access::generate_direct_key))
        .with_state(areas.access)
        .merge(protected)
}
