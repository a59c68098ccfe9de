//! What the panel shows of the logs: sign-in attempts, the server's recent records, and the
//! counts of errors and warnings.

use axum::Json as JsonOut;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::accounts::{self, store::LoginLog};
use crate::error::ApiError;
use crate::http::extract::Query;
use crate::http::paging::{first_page_only, id_cursor, keyset_limit};
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
    /// Attempts per page (the `limit` asked for).
    limit: i64,
    /// The attempts recorded (of the status asked for).
    total: i64,
    /// The `cursor` of the next (older) page; null on the last.
    next_cursor: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LoginLogQuery {
    /// Only the attempts of this outcome.
    #[param(value_type = Option<String>, pattern = "^(success|failure|second_factor_failure|suspended|rate_limited)$")]
    status: Option<String>,
    /// Attempts per page, 1-100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `nextCursor` of the page before, as it came.
    cursor: Option<String>,
    /// Only 1: later pages are reached by `cursor`.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1)]
    page: Option<String>,
}

/// Sign-in attempts, newest first, paged by key (`limit` 1-100, default 20; `cursor` the page
/// before's `nextCursor`), of one outcome when `status` is given.
#[utoipa::path(get, path = "/api/admin/login-logs", tag = "admin", operation_id = "listLoginLogs", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    params(LoginLogQuery),
    responses((status = 200, description = "One page", body = LoginLogPage), (status = 400, description = "Bad status, limit or cursor", body = crate::error::ErrorBody)))]
pub(crate) async fn login_logs(
    State(state): State<LogsState>,
    Query(q): Query<LoginLogQuery>,
) -> Result<JsonOut<LoginLogPage>, ApiError> {
    first_page_only(q.page.as_deref())?;
    let status = match q.status.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(s) if accounts::store::LOGIN_STATUSES.contains(&s) => Some(s.to_string()),
        Some(_) => {
            let all = accounts::store::LOGIN_STATUSES.join(", ");
            return Err(ApiError::field("status", &format!("status must be one of: {all}")));
        }
    };
    let limit = keyset_limit(q.limit.as_deref())?;
    let before = id_cursor(q.cursor.as_deref())?;
    let result = state
        .db
        .read(move |c| {
            let total = accounts::store::count_login_logs(c, status.as_deref())?;
            let (logs, next) = accounts::store::login_logs_page(c, status.as_deref(), before, limit)?;
            Ok(LoginLogPage { logs, limit: i64::from(limit), total, next_cursor: next.map(|id| id.to_string()) })
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
