//! Public figures (`GET /api/stats`) and server-side page-view counting.

pub mod store;
mod visits;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use rusqlite::Connection;
use serde::Serialize;

pub use visits::{Visits, month_key, today_key};

use crate::error::ApiError;
use crate::http::cached::Caching;
use crate::http::client_ip::ClientIp;
use std::sync::Arc;

use crate::commands::Catalog;
use crate::db::Db;
use crate::discord::Discord;
use crate::guides::Library;
use crate::http::cached::CachedJson;

#[derive(Debug, Clone, Serialize, PartialEq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicStats {
    pub users: i64,
    pub monthly_visitors: i64,
    pub page_views: i64,
    pub commands: usize,
    pub guides: usize,
    pub discord_members: Option<i64>,
    /// The fans' average command rating as a percentage (5 stars = 100), absent without ratings.
    pub user_satisfaction: Option<f64>,
    /// How many ratings `userSatisfaction` stands on.
    pub rating_count: i64,
    /// The audience an advertiser reaches: registered members.
    pub targeted_audience: i64,
    #[schema(format = DateTime)]
    pub started_at: String,
}

/// The public figures: page views counted in memory and written every few seconds, the
/// answer of `/api/stats` rebuilt then and served from memory.
#[derive(Clone)]
pub struct PublicFigures {
    pub db: Db,
    pub visits: Arc<Visits>,
    pub json: Arc<CachedJson>,
    pub commands: Arc<Catalog>,
    pub guides: Arc<Library>,
    pub discord: Arc<Discord>,
    pub started_at: jiff::Timestamp,
}

impl PublicFigures {
    pub fn query(&self, conn: &Connection) -> Result<PublicStats, ApiError> {
        let users = crate::accounts::store::count_users(conn)?;
        let monthly_visitors = store::monthly_visitors(conn, &month_key())?;
        let page_views = store::total_page_views(conn)?;
        let (rating_count, average) = crate::commands::store::rating_summary(conn)?;
        Ok(PublicStats {
            users,
            monthly_visitors,
            page_views,
            commands: self.commands.len(),
            guides: self.guides.len(),
            discord_members: self.discord.members(),
            user_satisfaction: average.map(|a| (a / 5.0 * 1000.0).round() / 10.0),
            rating_count,
            targeted_audience: users,
            started_at: crate::time::timestamp_text(self.started_at),
        })
    }

    /// Writes pending visits and rebuilds the served figures (every few seconds and on demand).
    /// A new month's salt is saved in the same transaction as the first visits hashed with it.
    pub async fn flush_and_refresh(&self) -> Result<(), ApiError> {
        let pending = self.visits.take_pending();
        let visited = !pending.views.is_empty();
        let figures = self.clone();
        let stats = self
            .db
            .write(move |tx| {
                figures.visits.rotate_salt(tx)?;
                store::persist_visits(tx, &pending)?;
                figures.query(tx)
            })
            .await?;
        if visited {
            self.visits.written();
        }
        self.json.set(&stats);
        Ok(())
    }
}

/// Asks the stats task to rebuild the public figures now (after accounts change).
pub type StatsRefresh = crate::jobs::Wake;

/// How often the page-view counts are written and the public figures rebuilt (and whenever
/// something that changes them wakes the task).
const REFRESH_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// How often the hashes of past months are looked for and deleted.
const PRUNE_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);
/// A month's hashes stay this long into the next month: its last visits are written within
/// [`REFRESH_EVERY`], and a visit counted after its month's hashes are gone would count again.
const MONTH_SETTLES: std::time::Duration = std::time::Duration::from_secs(3600);
/// Hashes deleted per write transaction (a few milliseconds of the writer each).
const PRUNE_BATCH: usize = 1000;

/// The stats' background work: the counts written, the figures rebuilt and the visitor salt
/// rotated every few seconds; the hashes of a month that is over deleted hourly.
pub fn background(background: &mut crate::jobs::Background, figures: PublicFigures, refresh: StatsRefresh) {
    let db = figures.db.clone();
    background.job("page-stats", |job| {
        crate::jobs::every(REFRESH_EVERY, Some(refresh), move || {
            let (figures, job) = (figures.clone(), job.clone());
            async move {
                match job.report(figures.flush_and_refresh().await) {
                    // A full disk is logged once, by the disk flag.
                    Err(e) if !e.is_out_of_space() => tracing::warn!("page view counts not written: {e}"),
                    _ => {}
                }
            }
        })
    });
    background.job("visitor-hashes", |job| {
        crate::jobs::every(PRUNE_EVERY, None, move || {
            let (db, job) = (db.clone(), job.clone());
            async move {
                let settled = (jiff::Timestamp::now() - MONTH_SETTLES).strftime("%Y-%m").to_string();
                let pruned = crate::jobs::in_batches(|| {
                    let month = settled.clone();
                    db.write(move |tx| store::prune_month_visitors(tx, &month, PRUNE_BATCH))
                })
                .await;
                match job.report(pruned) {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("deleted the {n} visitor hashes of past months"),
                    Err(e) if e.is_out_of_space() => {}
                    Err(e) => tracing::warn!("visitor hashes of past months not deleted: {e}"),
                }
            }
        })
    });
}

/// The analytics answers (`GET /api/v1/analytics`), each `days` made once per write of the
/// visits (every few seconds at most) and per day: however many keys ask, the tables are read
/// once per change.
pub struct AnalyticsAnswers {
    db: Db,
    visits: Arc<Visits>,
    kept: std::sync::Mutex<std::collections::HashMap<u32, KeptAnalytics>>,
}

struct KeptAnalytics {
    writes: u64,
    today: jiff::civil::Date,
    analytics: store::Analytics,
}

impl AnalyticsAnswers {
    pub fn new(db: Db, visits: Arc<Visits>) -> Self {
        Self { db, visits, kept: Default::default() }
    }

    /// The figures of the `days` days ending `today`, as of the last write of the visits.
    pub async fn get(&self, days: u32, today: jiff::civil::Date) -> Result<store::Analytics, ApiError> {
        // Read before the tables: a write during the read leaves the answer marked stale.
        let writes = self.visits.writes();
        {
            let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(k) = kept.get(&days).filter(|k| k.writes == writes && k.today == today) {
                return Ok(k.analytics.clone());
            }
        }
        let analytics = self.db.read(move |c| store::analytics(c, days, today)).await?;
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        // `days` is 1-90 (checked by the route), so this holds at most 90 answers.
        kept.insert(days, KeptAnalytics { writes, today, analytics: analytics.clone() });
        Ok(analytics)
    }
}

pub fn router<S: Clone + Send + Sync + 'static>(figures: PublicFigures) -> Router<S> {
    Router::new()
        .route("/api/stats", get(get_stats))
        .route("/api/pageview", post(record_pageview))
        .with_state(Arc::new(figures))
}

/// Public figures measured by the server. Carries an ETag; `If-None-Match` gets 304.
#[utoipa::path(get, path = "/api/stats", tag = "site", operation_id = "getStats",
    responses((status = 200, description = "Public figures", body = PublicStats), (status = 304, description = "Not modified")))]
pub(crate) async fn get_stats(State(figures): State<Arc<PublicFigures>>, headers: HeaderMap) -> Response {
    figures.json.respond(&headers, Caching::STATS)
}

#[derive(serde::Deserialize, utoipa::ToSchema)]
pub struct PageView {
    /// One of the app's routes.
    #[schema(schema_with = route_values)]
    path: String,
}

fn route_values() -> utoipa::openapi::Object {
    let paths: Vec<&str> = crate::http::spa::ROUTES.iter().map(|r| r.path).collect();
    crate::http::schema::string_enum(&paths)
}

/// The app reports client-side route changes here (the first load is counted with the shell).
/// The body is `{"path": "/route"}`; `navigator.sendBeacon` sends it as text/plain, so any
/// content type is read as JSON.
#[utoipa::path(post, path = "/api/pageview", tag = "site", operation_id = "recordPageView",
    request_body(content = PageView, content_type = "application/json", description = "Also accepted as text/plain (navigator.sendBeacon)"),
    responses((status = 204, description = "Counted"), (status = 400, description = "Not JSON, or not a page of this site"),
        (status = 429, description = "More than 60 page views a minute from this address: not counted (Retry-After says when)")))]
pub(crate) async fn record_pageview(
    State(figures): State<Arc<PublicFigures>>,
    client: Option<axum::Extension<ClientIp>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, ApiError> {
    let body = body.map_err(|e| ApiError::new(e.status(), "The request body is too large."))?;
    let view: PageView =
        serde_json::from_slice(&body).map_err(|_| ApiError::bad_request("Send {\"path\": \"/page\"}."))?;
    let Some(route) = crate::http::spa::known_route(&view.path) else {
        return Err(ApiError::bad_request("That is not a page of this site."));
    };
    if let Some(axum::Extension(client)) = client {
        figures.visits.record(route, client.ip, crate::http::user_agent(&headers))?;
    }
    Ok(StatusCode::NO_CONTENT)
}
