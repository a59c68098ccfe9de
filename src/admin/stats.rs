//! The dashboard's figures.

use axum::Json as JsonOut;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::accounts;
use crate::db::{now_ms, rfc3339};
use crate::error::ApiError;
use crate::stats::today_key;

/// What the dashboard reads: the database, the public figures (written first) and when the server started.
#[derive(Clone)]
pub struct AdminStatsState {
    pub db: crate::db::Db,
    pub figures: crate::stats::PublicFigures,
    pub started_at: jiff::Timestamp,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScanSummary {
    running: i64,
    total: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    processed: i64,
    total: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminStats {
    total_users: i64,
    new_users_today: i64,
    page_views: i64,
    page_views_today: i64,
    admin_sessions: i64,
    #[schema(format = DateTime)]
    last_admin_access: Option<String>,
    #[schema(format = DateTime)]
    started_at: String,
    uptime_seconds: i64,
    ads: crate::ads::store::Summary,
    scans: ScanSummary,
    elc_badges_found: i64,
    scan_progress: Progress,
}

fn start_of_today_ms() -> i64 {
    let today = jiff::Timestamp::now().to_zoned(jiff::tz::TimeZone::UTC).date();
    today.to_zoned(jiff::tz::TimeZone::UTC).map(|z| z.timestamp().as_millisecond()).unwrap_or(0)
}

/// Every dashboard figure, measured. Scan figures sum the live scans.
#[utoipa::path(get, path = "/api/admin/stats", tag = "admin", operation_id = "getAdminStats", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "The dashboard figures", body = AdminStats)))]
pub(crate) async fn stats(State(state): State<AdminStatsState>) -> Result<JsonOut<AdminStats>, ApiError> {
    // Pending page views are written first so the figures include them; on a full disk the
    // figures are read without them (a read keeps answering).
    match state.figures.flush_and_refresh().await {
        Err(e) if !e.is_out_of_space() => return Err(e),
        _ => {}
    }
    let started = state.started_at;
    let stats = state
        .db
        .read(move |c| {
            let now = now_ms();
            let last_access = crate::accounts::admin_keys::store::last_access(c)?;
            // The same rows scan-status reads: processed/total summed over live scans.
            let scans = crate::scans::store::dashboard(c)?;
            Ok(AdminStats {
                total_users: accounts::store::count_users(c)?,
                new_users_today: accounts::store::count_users_since(c, start_of_today_ms())?,
                page_views: crate::stats::store::total_page_views(c)?,
                page_views_today: crate::stats::store::page_views_on(c, &today_key())?,
                admin_sessions: crate::accounts::admin_keys::store::live_sessions(c, now)?,
                last_admin_access: last_access.map(rfc3339),
                started_at: crate::time::timestamp_text(started),
                uptime_seconds: (now - started.as_millisecond()) / 1000,
                ads: crate::ads::store::summary(c)?,
                scans: ScanSummary { running: scans.0 as i64, total: scans.1 as i64 },
                elc_badges_found: crate::roblox::store::elc_badges_found(c)?,
                scan_progress: Progress { processed: scans.2 as i64, total: scans.3 as i64 },
            })
        })
        .await?;
    Ok(JsonOut(stats))
}
