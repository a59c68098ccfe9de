//! The default banner's colours, reverting to the default banner, and clearing the caches.

use axum::Json as JsonOut;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::banner::{self, COLORS_KEY};
use crate::db::settings;
use crate::error::ApiError;
use crate::http::extract::Json;
use crate::site::BannerColors;

/// What the settings tab changes: the banner's colours, and every cache "Clear cache" rebuilds.
#[derive(Clone)]
pub struct SettingsState {
    pub db: crate::db::Db,
    pub site: std::sync::Arc<crate::site::SiteSettings>,
    pub banner: std::sync::Arc<crate::banner::ServedBanner>,
    pub challenges: std::sync::Arc<crate::accounts::admin_keys::Challenges>,
    pub commands: std::sync::Arc<crate::commands::Catalog>,
    pub figures: crate::stats::PublicFigures,
    pub health: std::sync::Arc<crate::health::HealthCheck>,
    pub roblox: crate::roblox::Roblox,
}

#[derive(Serialize, Deserialize, ToSchema)]
pub struct BannerSettings {
    banner: BannerColors,
}

#[derive(Serialize, ToSchema)]
pub struct SettingsView {
    banner: BannerColors,
    defaults: BannerColors,
}

#[derive(Serialize, ToSchema)]
pub struct SavedBanner {
    success: bool,
    banner: BannerColors,
}

#[derive(Serialize, ToSchema)]
pub struct CacheCleared {
    success: bool,
    message: String,
}

/// The default banner's colours (the admin's choice) and the site file's defaults.
#[utoipa::path(get, path = "/api/admin/settings", tag = "admin", operation_id = "getBannerSettings", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "The chosen and the default colours", body = SettingsView)))]
pub(crate) async fn get_settings(State(state): State<SettingsState>) -> Result<JsonOut<SettingsView>, ApiError> {
    let defaults = state.site.default_banner.clone();
    let d = defaults.clone();
    let banner = state.db.read(move |c| banner::default_colors(c, &d)).await?;
    Ok(JsonOut(SettingsView { banner, defaults }))
}

/// Save the default banner's colours (#rrggbb each).
#[utoipa::path(put, path = "/api/admin/settings", tag = "admin", operation_id = "saveBannerSettings", security(("adminKey" = []), ("adminSession" = []), ("session" = [])), request_body = BannerSettings,
    responses((status = 200, description = "Saved", body = SavedBanner), (status = 400, description = "Not a colour")))]
pub(crate) async fn put_settings(
    State(state): State<SettingsState>,
    Json(body): Json<BannerSettings>,
) -> Result<JsonOut<SavedBanner>, ApiError> {
    body.banner.validate().map_err(|e| ApiError::bad_request("Colours must look like #7c3aed.").with_message(e))?;
    let colors = body.banner.clone();
    state
        .db
        .write(move |tx| {
            settings::set(tx, COLORS_KEY, &colors)?;
            banner_changed(tx, "custom", &colors)
        })
        .await?;
    state.banner.refresh().await?;
    tracing::info!("banner colours changed");
    Ok(JsonOut(SavedBanner { success: true, banner: body.banner }))
}

/// Back to the default clan banner in the site's default colours.
#[utoipa::path(post, path = "/api/admin/revert-banner", tag = "admin", operation_id = "revertBanner", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "Reverted", body = SavedBanner)))]
pub(crate) async fn revert_banner(State(state): State<SettingsState>) -> Result<JsonOut<SavedBanner>, ApiError> {
    let defaults = state.site.default_banner.clone();
    state
        .db
        .write(move |tx| {
            settings::delete(tx, COLORS_KEY)?;
            crate::ads::store::deactivate(tx)?;
            banner_changed(tx, "default", &defaults)
        })
        .await?;
    state.banner.refresh().await?;
    tracing::info!("banner reverted to the default clan banner");
    Ok(JsonOut(SavedBanner { success: true, banner: state.site.default_banner.clone() }))
}

fn banner_changed(tx: &rusqlite::Connection, kind: &str, colors: &crate::site::BannerColors) -> Result<(), ApiError> {
    let data = serde_json::json!({
        "banner": kind,
        "backgroundColor": colors.background_color,
        "textColor": colors.text_color,
        "borderColor": colors.border_color,
    });
    crate::events::record(tx, crate::events::BANNER_CHANGED, data)?;
    Ok(())
}

/// Empties the server's caches: rebuilds every in-memory body from the database and drops
/// expired sessions, challenges and idle rate-limit entries.
#[utoipa::path(post, path = "/api/admin/clear-cache", tag = "admin", operation_id = "clearCache", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "What was rebuilt and removed", body = CacheCleared)))]
pub(crate) async fn clear_cache(State(state): State<SettingsState>) -> Result<JsonOut<CacheCleared>, ApiError> {
    let expired = state.db.write(|tx| crate::accounts::admin_keys::store::prune_expired(tx)).await?;
    let challenges = state.challenges.prune();
    crate::ratelimit::forget_idle_everywhere();
    crate::commands::refresh_scores(&state.db, &state.commands).await?;
    state.figures.flush_and_refresh().await?;
    state.banner.refresh().await?;
    state.health.check().await;
    let roblox = state.roblox.clear_caches().await?;
    let message = format!(
        "Cached pages rebuilt from the database; {expired} expired sessions and {challenges} expired challenges removed; {roblox} cached Roblox answers dropped."
    );
    tracing::info!("{message}");
    Ok(JsonOut(CacheCleared { success: true, message }))
}
