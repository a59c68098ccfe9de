//! The bottom banner: an approved advertisement while one is active, else the default clan
//! banner in the colours an admin chose (or the site's defaults). Polled by every page.

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use rusqlite::Connection;
use serde::Serialize;

use crate::db::settings;
use crate::error::ApiError;
use crate::http::cached::Caching;
use crate::site::BannerColors;
use crate::state::AppState;

pub const COLORS_KEY: &str = "banner_colors";

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Banner {
    pub is_active: bool,
    pub background_color: String,
    pub text_color: String,
    pub border_color: String,
    pub advertisement_id: Option<i64>,
    pub expires_at: Option<String>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ActiveBanner {
    pub banner: Banner,
    /// The active advertisement (always null until the ads feature exists).
    #[schema(value_type = Option<Object>)]
    pub advertisement: Option<serde_json::Value>,
}

/// The default banner's colours: the admin's choice, else the site file's.
pub fn default_colors(conn: &Connection, defaults: &BannerColors) -> Result<BannerColors, ApiError> {
    Ok(settings::get::<BannerColors>(conn, COLORS_KEY)?.unwrap_or_else(|| defaults.clone()))
}

/// The advertisement fields the bottom banner and the fullscreen ad show.
fn advertisement_json(ad: &crate::ads::store::Application) -> serde_json::Value {
    serde_json::json!({
        "id": ad.id,
        "websiteUrl": ad.website_url,
        "imagePath": ad.image_path,
        "adDescription": ad.ad_description,
        "premiumFullscreen": ad.premium_fullscreen,
        "duration": ad.duration,
        "fullscreenMessageType": ad.fullscreen_message_type,
        "fullscreenCustomMessage": ad.fullscreen_custom_message,
        "aiAnalysis": ad.ai_analysis,
        "links": ad.links,
    })
}

/// The banner at this instant, and when it next changes by itself (a sponsored banner's expiry).
pub fn current(conn: &Connection, defaults: &BannerColors) -> Result<ActiveBanner, ApiError> {
    if let Some(running) = crate::ads::store::running(conn, crate::db::now_ms())? {
        return Ok(ActiveBanner {
            banner: Banner {
                is_active: true,
                background_color: running.design.background_color,
                text_color: running.design.text_color,
                border_color: running.design.border_color,
                advertisement_id: Some(running.ad.id),
                expires_at: Some(crate::db::rfc3339(running.expires_at)),
            },
            advertisement: Some(advertisement_json(&running.ad)),
        });
    }
    let colors = default_colors(conn, defaults)?;
    Ok(ActiveBanner {
        banner: Banner {
            is_active: false,
            background_color: colors.background_color,
            text_color: colors.text_color,
            border_color: colors.border_color,
            advertisement_id: None,
            expires_at: None,
        },
        advertisement: None,
    })
}

/// Recomputes the served banner (after a change, and periodically for expiry).
pub async fn refresh(state: &AppState) -> Result<(), ApiError> {
    let defaults = state.site.default_banner.clone();
    let active = state.db.read(move |conn| current(conn, &defaults)).await?;
    let expiry = active
        .banner
        .expires_at
        .as_deref()
        .and_then(|t| t.parse::<jiff::Timestamp>().ok())
        .map_or(0, |t| t.as_millisecond());
    state.banner_json.set(&active);
    if state.banner_expiry.swap(expiry, std::sync::atomic::Ordering::SeqCst) != expiry {
        state.banner_changed.notify_one();
    }
    Ok(())
}

/// Flips the served banner back to the default at the sponsored banner's expiry instant
/// (not at the next periodic refresh). One task per process.
pub async fn expire_on_time(state: AppState) {
    loop {
        let expiry = state.banner_expiry.load(std::sync::atomic::Ordering::SeqCst);
        if expiry == 0 {
            state.banner_changed.notified().await;
            continue;
        }
        let wait = std::time::Duration::from_millis((expiry - crate::db::now_ms()).max(0) as u64);
        tokio::select! {
            _ = tokio::time::sleep(wait) => {
                if let Err(e) = refresh(&state).await {
                    tracing::warn!("banner not refreshed at expiry: {e}");
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                }
            }
            _ = state.banner_changed.notified() => {}
        }
    }
}

pub fn router() -> Router<AppState> {
    Router::new().route("/api/admin/active-banner", get(active_banner))
}

/// The banner every page shows (public read). Carries an ETag; `If-None-Match` gets 304.
#[utoipa::path(get, path = "/api/admin/active-banner", tag = "banner", operation_id = "getActiveBanner",
    responses((status = 200, description = "The banner to show", body = ActiveBanner), (status = 304, description = "Not modified")))]
pub(crate) async fn active_banner(State(state): State<AppState>, headers: HeaderMap) -> Response {
    state.banner_json.respond(&headers, Caching::BANNER)
}
