//! The bottom banner: an approved advertisement while one is active, else the default clan
//! banner in the colours an admin chose (or the site's defaults). Polled by every page.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use rusqlite::Connection;
use serde::Serialize;

use crate::db::{Db, settings};
use crate::error::ApiError;
use crate::http::cached::{CachedJson, Caching};
use crate::site::BannerColors;

pub const COLORS_KEY: &str = "banner_colors";

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Banner {
    pub is_active: bool,
    pub background_color: String,
    pub text_color: String,
    pub border_color: String,
    pub advertisement_id: Option<i64>,
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ActiveBanner {
    pub banner: Banner,
    /// The sponsored advertisement running now (the ads feature's `SponsoredAd`, named in the
    /// OpenAPI document by its assembly); null when the banner is the site's own.
    #[schema(value_type = Option<Object>)]
    pub advertisement: Option<serde_json::Value>,
}

/// The default banner's colours: the admin's choice, else the site file's.
pub fn default_colors(conn: &Connection, defaults: &BannerColors) -> Result<BannerColors, ApiError> {
    Ok(settings::get::<BannerColors>(conn, COLORS_KEY)?.unwrap_or_else(|| defaults.clone()))
}

/// What the banner shows of the sponsored advertisement running now.
pub struct Sponsor {
    pub colors: BannerColors,
    pub advertisement_id: i64,
    /// When it ends (ms since the epoch).
    pub expires_at_ms: i64,
    /// The advertisement's fields the bottom banner and the fullscreen ad show.
    pub advertisement: serde_json::Value,
}

/// Where the sponsor comes from (the ads feature's store): the one running at an instant (ms).
pub type SponsorSource = fn(&Connection, i64) -> Result<Option<Sponsor>, ApiError>;

/// The banner at this instant, and when it next changes by itself (a sponsored banner's expiry).
pub fn current(conn: &Connection, defaults: &BannerColors, sponsor: SponsorSource) -> Result<ActiveBanner, ApiError> {
    if let Some(running) = sponsor(conn, crate::db::now_ms())? {
        return Ok(ActiveBanner {
            banner: Banner {
                is_active: true,
                background_color: running.colors.background_color,
                text_color: running.colors.text_color,
                border_color: running.colors.border_color,
                advertisement_id: Some(running.advertisement_id),
                expires_at: Some(crate::db::rfc3339(running.expires_at_ms)),
            },
            advertisement: Some(running.advertisement),
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

/// The banner as served: its body in memory, rebuilt from the database after a change and at
/// a sponsored banner's expiry.
pub struct ServedBanner {
    db: Db,
    /// The site file's colours, used while an admin chose none.
    defaults: BannerColors,
    sponsor: SponsorSource,
    json: CachedJson,
    /// When the served banner changes by itself next (ms since the epoch; 0: never).
    expiry: AtomicI64,
    changed: tokio::sync::Notify,
}

impl ServedBanner {
    /// Serves `now` (read with [`current`]) until the first refresh.
    pub fn new(db: Db, defaults: BannerColors, sponsor: SponsorSource, now: &ActiveBanner) -> Self {
        Self {
            db,
            defaults,
            sponsor,
            json: CachedJson::new(now),
            expiry: Default::default(),
            changed: Default::default(),
        }
    }

    /// Recomputes the served banner (after a change, and periodically for expiry).
    pub async fn refresh(&self) -> Result<(), ApiError> {
        let (defaults, sponsor) = (self.defaults.clone(), self.sponsor);
        let active = self.db.read(move |conn| current(conn, &defaults, sponsor)).await?;
        let expiry = active
            .banner
            .expires_at
            .as_deref()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
            .map_or(0, |t| t.as_millisecond());
        self.json.set(&active);
        if self.expiry.swap(expiry, Ordering::SeqCst) != expiry {
            self.changed.notify_one();
        }
        Ok(())
    }
}

/// How often the served banner is read again from the database, whatever happened: a restored
/// backup, or a change this process was not told of, shows within this time.
const REREAD_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The banner's background work: the flip at a sponsor's expiry, and the periodic re-read.
pub fn background(background: &mut crate::jobs::Background, banner: Arc<ServedBanner>) {
    background.task("banner-expiry", expire_on_time(banner.clone()));
    background.task(
        "banner-reread",
        crate::jobs::every(REREAD_EVERY, None, move || {
            let banner = banner.clone();
            async move {
                if let Err(e) = banner.refresh().await {
                    tracing::warn!("banner not refreshed: {e}");
                }
            }
        }),
    );
}

/// Flips the served banner back to the default at the sponsored banner's expiry instant
/// (not at the next periodic refresh). One task per process.
pub async fn expire_on_time(banner: Arc<ServedBanner>) {
    loop {
        let expiry = banner.expiry.load(Ordering::SeqCst);
        if expiry == 0 {
            banner.changed.notified().await;
            continue;
        }
        let wait = std::time::Duration::from_millis((expiry - crate::db::now_ms()).max(0) as u64);
        tokio::select! {
            _ = tokio::time::sleep(wait) => {
                if let Err(e) = banner.refresh().await {
                    tracing::warn!("banner not refreshed at expiry: {e}");
                    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                }
            }
            _ = banner.changed.notified() => {}
        }
    }
}

pub fn router<S: Clone + Send + Sync + 'static>(banner: Arc<ServedBanner>) -> Router<S> {
    Router::new().route("/api/admin/active-banner", get(active_banner)).with_state(banner)
}

/// The banner every page shows (public read). Carries an ETag; `If-None-Match` gets 304.
#[utoipa::path(get, path = "/api/admin/active-banner", tag = "banner", operation_id = "getActiveBanner",
    responses((status = 200, description = "The banner to show", body = ActiveBanner), (status = 304, description = "Not modified")))]
pub(crate) async fn active_banner(State(banner): State<Arc<ServedBanner>>, headers: HeaderMap) -> Response {
    banner.json.respond(&headers, Caching::BANNER)
}
