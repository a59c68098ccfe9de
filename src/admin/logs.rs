//! What the panel shows of the logs: sign-in attempts, the server's recent records, and the
//! counts of errors and warnings.

use axum::Json as JsonOut;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::accounts::{self, store::LoginLog};
use crate::error::ApiError;
use crate::http::extract::Query;
use crate::http::paging::{PageQuery, paging};
use crate::logging::LogRecord;

/// What the logs tab reads: sign-in attempts (database), the log buffer, upstream warnings held back.
#[derive(Clone)]
pub struct LogsState {
    pub db: crate::db::Db,
    pub logs: crate::logging::LogBuffer,
    pub jobs: crate::jobs::Jobs,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginLogPage {
    logs: Vec<LoginLog>,
    page: i64,
    /// Attempts per page (the `limit` asked for).
    limit: i64,
    total: i64,
}

/// Sign-in attempts, newest first, paged like every list of the API (`page`, `limit` 1-100, default 20).
#[utoipa::path(get, path = "/api/admin/login-logs", tag = "admin", operation_id = "listLoginLogs", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    params(PageQuery),
    responses((status = 200, description = "One page", body = LoginLogPage), (status = 400, description = "Bad paging", body = crate::error::ErrorBody)))]
pub(crate) async fn login_logs(
    State(state): State<LogsState>,
    Query(q): Query<PageQuery>,
) -> Result<JsonOut<LoginLogPage>, ApiError> {
    let (page, limit) = paging(q.page.as_deref(), q.limit.as_deref())?;
    let (page, limit) = (i64::from(page), i64::from(limit));
    let result = state
        .db
        .read(move |c| {
            let total = accounts::store::count_login_logs(c)?;
            let logs = accounts::store::login_logs_page(c, page, limit)?;
            Ok(LoginLogPage { logs, page, limit, total })
        })
        .await?;
    Ok(JsonOut(result))
}

#[derive(Serialize, ToSchema)]
pub struct AppLogs {
    logs: Vec<LogRecord>,
}

/// The server's recent log records (INFO and above), newest first.
#[utoipa::path(get, path = "/api/admin/app-logs", tag = "admin", operation_id = "listAppLogs", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "Up to 200 records", body = AppLogs)))]
pub(crate) async fn app_logs(State(state): State<LogsState>) -> JsonOut<AppLogs> {
    JsonOut(AppLogs { logs: state.logs.recent(200) })
}

#[derive(Serialize, ToSchema)]
pub struct Exceptions {
    errors: u64,
    warnings: u64,
    info: u64,
    recent: Vec<LogRecord>,
}

/// Counts of errors, warnings and info records since start, with the recent problems. Every
/// failed call to Roblox, Discord or the language model counts as a warning, also those held
/// back from the log while the same service keeps failing (one line a minute sums them up).
#[utoipa::path(get, path = "/api/admin/exceptions", tag = "admin", operation_id = "getExceptions", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "Counts and up to 50 recent warnings and errors", body = Exceptions)))]
pub(crate) async fn exceptions(State(state): State<LogsState>) -> JsonOut<Exceptions> {
    let counts = state.logs.counts();
    let warnings = counts.warnings + state.jobs.upstream_warnings_held_back();
    let recent = state.logs.recent(500).into_iter().filter(|r| r.level != "INFO").take(50).collect();
    JsonOut(Exceptions { errors: counts.errors, warnings, info: counts.info, recent })
}
