//! The admin panel's side of scans and abuse reports: the reports list and their states, and
//! cancelling a scan. Behind the admin guard (`router`).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::store::{self, AbuseReport};
use super::{ScanStatus, ScansState};
use crate::db::now_ms;
use crate::error::ApiError;
use crate::http::extract::{Json as JsonIn, Path, Query};

/// The admin routes of scans and abuse reports, behind the admin guard.
pub fn router<S: Clone + Send + Sync + 'static>(state: ScansState) -> axum::Router<S> {
    use axum::routing::{get, patch, post};
    axum::Router::new()
        .route("/api/admin/abuse-reports", get(list_reports))
        .route("/api/admin/abuse-reports/{id}", patch(update_report))
        .route("/api/admin/scans/{id}/cancel", post(cancel_scan))
        .route("/api/admin/scans/{id}/resume", post(resume_scan))
        .route_layer(axum::middleware::from_fn_with_state(
            state.admin_gate.clone(),
            crate::accounts::guard::require_admin,
        ))
        .with_state(Arc::new(state))
}

pub const REPORT_STATES: [&str; 4] = ["open", "reviewing", "resolved", "dismissed"];
const NOTE_MAX: usize = 500;

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReportFilter {
    /// open, reviewing, resolved or dismissed (any case); all when absent.
    #[param(value_type = Option<String>, pattern = r"^\s*([Oo][Pp][Ee][Nn]|[Rr][Ee][Vv][Ii][Ee][Ww][Ii][Nn][Gg]|[Rr][Ee][Ss][Oo][Ll][Vv][Ee][Dd]|[Dd][Ii][Ss][Mm][Ii][Ss][Ss][Ee][Dd])?\s*$")]
    state: Option<String>,
    /// Reports per page, 1-100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `nextCursor` of the page before, as it came.
    cursor: Option<String>,
    /// Only 1: later pages are reached by `cursor`.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1)]
    page: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct ReportList {
    success: bool,
    /// Reports of the state asked for (all when none).
    total: u64,
    /// Reports still open or under review.
    open: u64,
    limit: u32,
    reports: Vec<AbuseReport>,
    /// The `cursor` of the next (older) page; null on the last.
    next_cursor: Option<String>,
}

fn report_state(raw: &str) -> Result<String, ApiError> {
    let s = raw.trim().to_ascii_lowercase();
    if REPORT_STATES.contains(&s.as_str()) {
        Ok(s)
    } else {
        Err(ApiError::field("state", &format!("state must be one of: {}", REPORT_STATES.join(", "))))
    }
}

/// Abuse reports, newest first, paged by key (`limit` 1-100, default 20; `cursor` the page
/// before's `nextCursor`), of one state when `state` is given.
#[utoipa::path(get, path = "/api/admin/abuse-reports", tag = "admin", operation_id = "listAbuseReports", params(ReportFilter),
    security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, body = ReportList), (status = 400, description = "Bad state, limit or cursor"), (status = 401, description = "Not an admin")))]
pub(crate) async fn list_reports(
    State(state): State<Arc<ScansState>>,
    Query(q): Query<ReportFilter>,
) -> Result<Json<ReportList>, ApiError> {
    use crate::http::paging::{first_page_only, id_cursor, keyset_limit};
    first_page_only(q.page.as_deref())?;
    let filter = q.state.as_deref().filter(|s| !s.trim().is_empty()).map(report_state).transpose()?;
    let limit = keyset_limit(q.limit.as_deref())?;
    let before = id_cursor(q.cursor.as_deref())?;
    let (reports, total, open, next) = state
        .db
        .read(move |c| {
            let (reports, total, next) = store::reports(c, filter.as_deref(), before, limit)?;
            Ok((reports, total, store::open_reports(c)?, next))
        })
        .await?;
    Ok(Json(ReportList { success: true, total, open, limit, reports, next_cursor: next.map(|id| id.to_string()) }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportChange {
    /// open, reviewing, resolved or dismissed (any case).
    #[schema(
        pattern = r"^\s*([Oo][Pp][Ee][Nn]|[Rr][Ee][Vv][Ii][Ee][Ww][Ii][Nn][Gg]|[Rr][Ee][Ss][Oo][Ll][Vv][Ee][Dd]|[Dd][Ii][Ss][Mm][Ii][Ss][Ss][Ee][Dd])\s*$"
    )]
    state: String,
    /// What was done, up to 500 characters.
    #[schema(max_length = 500)]
    note: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct ReportChanged {
    success: bool,
    report: AbuseReport,
}

/// Moves a report to another state (resolving keeps when, and the note).
#[utoipa::path(patch, path = "/api/admin/abuse-reports/{id}", tag = "admin", operation_id = "updateAbuseReport", request_body = ReportChange,
    params(("id" = i64, Path)), security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, body = ReportChanged), (status = 400, description = "Bad state or note"), (status = 401, description = "Not an admin"),
        (status = 404, description = "No such report")))]
pub(crate) async fn update_report(
    State(state): State<Arc<ScansState>>,
    Path(id): Path<i64>,
    JsonIn(body): JsonIn<ReportChange>,
) -> Result<Json<ReportChanged>, ApiError> {
    let new_state = report_state(&body.state)?;
    let note = body.note.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
    if note.as_ref().is_some_and(|n| n.chars().count() > NOTE_MAX) {
        return Err(ApiError::field("note", "note may be at most 500 characters"));
    }
    let report = state
        .db
        .write(move |tx| {
            if !store::set_report_state(tx, id, &new_state, note.as_deref(), now_ms())? {
                return Err(ApiError::not_found("No abuse report has this id."));
            }
            store::report(tx, id)?.ok_or_else(|| ApiError::internal("report vanished"))
        })
        .await?;
    Ok(Json(ReportChanged { success: true, report }))
}

#[derive(Serialize, ToSchema)]
pub struct Cancelled {
    success: bool,
    scan: ScanStatus,
}

/// Cancels a queued, running or failed scan; the members it counted stay. Only an admin can
/// resume it afterwards (`/api/admin/scans/{id}/resume`).
#[utoipa::path(post, path = "/api/admin/scans/{id}/cancel", tag = "admin", operation_id = "cancelScan",
    params(("id" = i64, Path)), security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, body = Cancelled), (status = 401, description = "Not an admin"), (status = 404, description = "No such scan"),
        (status = 409, description = "Already completed or cancelled")))]
pub(crate) async fn cancel_scan(
    State(state): State<Arc<ScansState>>,
    Path(id): Path<i64>,
) -> Result<Json<Cancelled>, ApiError> {
    let row = state
        .db
        .write(move |tx| {
            let Some(before) = store::scan(tx, id)? else { return Err(ApiError::not_found("No scan has this id.")) };
            if !store::finish(tx, id, "cancelled", None, now_ms())? {
                return Err(ApiError::conflict(format!("This scan is already {}.", before.state)));
            }
            store::scan(tx, id)?.ok_or_else(|| ApiError::internal("scan vanished"))
        })
        .await?;
    state.scans.cancel(id);
    Ok(Json(Cancelled { success: true, scan: ScanStatus::of(row, &state.scans, &state.roblox) }))
}

/// Puts a failed or cancelled scan back in the queue where it stopped (202; 200 if it is queued
/// or running). The admin's way to undo a cancel; outside the per-key and site-wide queue caps.
#[utoipa::path(post, path = "/api/admin/scans/{id}/resume", tag = "admin", operation_id = "resumeScanAsAdmin",
    params(("id" = i64, Path)), security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 202, description = "Queued again", body = super::routes::ScanAnswer), (status = 200, description = "Already queued or running", body = super::routes::ScanAnswer),
        (status = 401, description = "Not an admin"), (status = 404, description = "No such scan"),
        (status = 409, description = "Completed, or another scan of the group runs")))]
pub(crate) async fn resume_scan(
    State(state): State<Arc<ScansState>>,
    Path(id): Path<i64>,
) -> Result<axum::response::Response, ApiError> {
    super::routes::resume(&state, id, super::routes::Resumer::Admin).await
}
