//! The admin panel's API. Access (keys, sessions, the phrase and direct-key flows) is open to
//! anyone who can pass it; everything else sits behind `crate::accounts::guard::require_admin`.

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

use crate::state::AppState;

pub fn router(state: AppState) -> Router<AppState> {
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
        .route("/api/admin/deactivate-banner", post(crate::ads::review::deactivate))
        .route("/api/admin/activate-banner", post(crate::ads::review::activate))
        .route("/api/admin/advertisements", get(crate::ads::review::list))
        .route("/api/admin/advertisements/{id}", patch(crate::ads::review::set_status))
        .route("/api/admin/clear-cache", post(settings::clear_cache))
        .route("/api/admin/abuse-reports", get(crate::scans::admin::list_reports))
        .route("/api/admin/abuse-reports/{id}", patch(crate::scans::admin::update_report))
        .route("/api/admin/scans/{id}/cancel", post(crate::scans::admin::cancel_scan))
        .route("/api/admin/scans/{id}/resume", post(crate::scans::admin::resume_scan))
        .route_layer(from_fn_with_state(state.db.clone(), crate::accounts::guard::require_admin));
    Router::new()
        .route("/api/admin/verify-key", post(access::verify_key))
        .route("/api/admin/logout", post(access::logout))
        .route("/api/admin/generate-challenge", post(access::generate_challenge))
        .route("/api/admin/create-lifetime-key", post(access::create_lifetime_key))
        .route("/api/admin/generate-direct-key", post(access::generate_direct_key))
        .merge(protected)
}
