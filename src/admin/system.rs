//! The panel's figures and system tools: dashboard stats, login logs, app logs, exceptions,
//! health checks, banner colours, cache clearing and database backups.

use axum::Json as JsonOut;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::accounts::{self, store::LoginLog};
use crate::banner::{self, COLORS_KEY};
use crate::db::{now_ms, rfc3339, settings};
use crate::error::ApiError;
use crate::http::extract::{Json, Query};
use crate::logging::LogRecord;
use crate::site::BannerColors;
use crate::state::AppState;
use crate::stats::today_key;

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
    last_admin_access: Option<String>,
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
pub(crate) async fn stats(State(state): State<AppState>) -> Result<JsonOut<AdminStats>, ApiError> {
    // Pending page views are written first so the figures include them; on a full disk the
    // figures are read without them (a read keeps answering).
    match crate::stats::flush_and_refresh(&state).await {
        Err(e) if !e.is_out_of_space() => return Err(e),
        _ => {}
    }
    let started = state.started_at;
    let stats = state
        .db
        .read(move |c| {
            let now = now_ms();
            let last_access = super::keys::last_access(c)?;
            // The same rows scan-status reads: processed/total summed over live scans.
            let scans = crate::scans::store::dashboard(c)?;
            Ok(AdminStats {
                total_users: accounts::store::count_users(c)?,
                new_users_today: accounts::store::count_users_since(c, start_of_today_ms())?,
                page_views: crate::stats::store::total_page_views(c)?,
                page_views_today: crate::stats::store::page_views_on(c, &today_key())?,
                admin_sessions: super::keys::live_sessions(c, now)?,
                last_admin_access: last_access.map(rfc3339),
                started_at: started.to_string(),
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

#[derive(Serialize, ToSchema)]
#[schema(as = AdminDatabaseAnswer)]
pub struct DatabaseAnswer {
    success: bool,
    database: crate::db::DatabaseStatus,
}

/// The database in detail: schema, size, journal mode, rows per table and the last backup.
#[utoipa::path(get, path = "/api/admin/database", tag = "admin", operation_id = "getAdminDatabaseStatus", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, body = DatabaseAnswer), (status = 401, description = "Not an admin")))]
pub(crate) async fn database(State(state): State<AppState>) -> Result<JsonOut<DatabaseAnswer>, ApiError> {
    let database = state.db.read(crate::db::status).await?;
    Ok(JsonOut(DatabaseAnswer { success: true, database }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageQuery {
    page: Option<i64>,
    page_size: Option<i64>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginLogPage {
    logs: Vec<LoginLog>,
    page: i64,
    page_size: i64,
    total: i64,
}

/// Sign-in attempts, newest first, paged (pageSize 1-100, default 25).
#[utoipa::path(get, path = "/api/admin/login-logs", tag = "admin", operation_id = "listLoginLogs", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    params(("page" = Option<i64>, Query, minimum = 1, description = "Default 1"), ("pageSize" = Option<i64>, Query, minimum = 1, maximum = 100, description = "Default 25")),
    responses((status = 200, description = "One page", body = LoginLogPage), (status = 400, description = "Bad paging")))]
pub(crate) async fn login_logs(
    State(state): State<AppState>,
    Query(q): Query<PageQuery>,
) -> Result<JsonOut<LoginLogPage>, ApiError> {
    let page = q.page.unwrap_or(1);
    let page_size = q.page_size.unwrap_or(25);
    if page < 1 || !(1..=100).contains(&page_size) {
        return Err(ApiError::bad_request("page must be 1 or more and pageSize between 1 and 100."));
    }
    let result = state
        .db
        .read(move |c| {
            let total = accounts::store::count_login_logs(c)?;
            let logs = accounts::store::login_logs_page(c, page, page_size)?;
            Ok(LoginLogPage { logs, page, page_size, total })
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
pub(crate) async fn app_logs(State(state): State<AppState>) -> JsonOut<AppLogs> {
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
pub(crate) async fn exceptions(State(state): State<AppState>) -> JsonOut<Exceptions> {
    let counts = state.logs.counts();
    let warnings = counts.warnings + state.jobs.upstream_warnings_held_back();
    let recent = state.logs.recent(500).into_iter().filter(|r| r.level != "INFO").take(50).collect();
    JsonOut(Exceptions { errors: counts.errors, warnings, info: counts.info, recent })
}

/// An outside service's line, with its failed calls since start.
fn upstream_check(
    state: &AppState,
    name: &'static str,
    service: &str,
    status: &'static str,
    detail: String,
) -> HealthCheck {
    match state.jobs.upstream_trouble(service) {
        Some(t) => {
            let last = t.last_error.unwrap_or_default();
            let at = t.last_error_at.unwrap_or_default();
            HealthCheck {
                name,
                status: if t.failing { "error" } else { status },
                detail: format!("{detail}; {} failed calls since start, the last at {at}: {last}", t.failed_calls),
            }
        }
        None => HealthCheck { name, status, detail },
    }
}

#[derive(Serialize, ToSchema)]
pub struct HealthCheck {
    name: &'static str,
    #[schema(schema_with = check_values)]
    status: &'static str,
    detail: String,
}

fn check_values() -> utoipa::openapi::Object {
    crate::openapi::string_enum(&["ok", "error", "not_configured"])
}

#[derive(Serialize, ToSchema)]
pub struct HealthChecks {
    checks: Vec<HealthCheck>,
}

/// Real checks: the database answers and passes a quick check, the data dir is writable and has
/// disk space, and which outside services are configured.
#[utoipa::path(get, path = "/api/admin/health", tag = "admin", operation_id = "getSystemHealth", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "The checks", body = HealthChecks)))]
pub(crate) async fn health(State(state): State<AppState>) -> Result<JsonOut<HealthChecks>, ApiError> {
    let db = state.db.read(|c| Ok(c.query_row("PRAGMA quick_check", [], |r| r.get::<_, String>(0))?)).await;
    let database = match db {
        Ok(s) if s == "ok" => {
            HealthCheck { name: "Database", status: "ok", detail: "SQLite answers; quick check passed".into() }
        }
        Ok(s) => HealthCheck { name: "Database", status: "error", detail: format!("quick check: {s}") },
        Err(e) => HealthCheck { name: "Database", status: "error", detail: e.body.error },
    };
    let probe = state.data_dir.join(".health-probe");
    let written = tokio::fs::write(&probe, b"ok").await;
    let _ = tokio::fs::remove_file(&probe).await;
    let free = crate::disk::free_bytes(&state.data_dir).map(|b| format!("; {} MiB free", b / (1024 * 1024)));
    let free = free.unwrap_or_default();
    let data_dir = match (crate::disk::DATA_DISK.full_since(), written) {
        (Some(since), _) => HealthCheck {
            name: "Data directory",
            status: "error",
            detail: format!(
                "out of disk space since {since}: writes answer 507 and save nothing until space is freed{free}"
            ),
        },
        (None, Err(e)) if crate::disk::io_out_of_space(&e) => HealthCheck {
            name: "Data directory",
            status: "error",
            detail: format!("out of disk space: {} cannot take a new file{free}", state.data_dir.display()),
        },
        (None, Err(e)) => HealthCheck {
            name: "Data directory",
            status: "error",
            detail: format!("{} is not writable: {e}", state.data_dir.display()),
        },
        (None, Ok(())) => HealthCheck { name: "Data directory", status: "ok", detail: format!("writable{free}") },
    };
    let configured = |name: &'static str, var: &str, what: &str| {
        if std::env::var(var).is_ok_and(|v| !v.is_empty()) {
            HealthCheck { name, status: "ok", detail: format!("{what} configured ({var})") }
        } else {
            HealthCheck { name, status: "not_configured", detail: format!("set {var} to enable {what}") }
        }
    };
    Ok(JsonOut(HealthChecks {
        checks: vec![
            database,
            data_dir,
            {
                let (status, detail) = state.discord.health();
                upstream_check(&state, "Discord Bot", "discord", status, detail)
            },
            {
                let (ok, detail) = state.roblox.health();
                upstream_check(&state, "Roblox API", "roblox", if ok { "ok" } else { "error" }, detail)
            },
            {
                let (ok, detail) = state.roblox.open_cloud_health();
                let status = match ok {
                    None => "not_configured",
                    Some(true) => "ok",
                    Some(false) => "error",
                };
                HealthCheck { name: "Roblox Open Cloud key", status, detail }
            },
            HealthCheck { name: "Roblox paths", status: "ok", detail: state.roblox.paths() },
            {
                // A spent budget is the site working at Roblox's pace, not a fault.
                HealthCheck { name: "Roblox budgets", status: "ok", detail: state.roblox.budget_use() }
            },
            match &state.llm {
                Some(llm) => upstream_check(
                    &state,
                    "Language model",
                    "llm",
                    "ok",
                    format!("{} configured (FANHUB_LLM_URL)", llm.model()),
                ),
                None => configured("Language model", "FANHUB_LLM_URL", "the language model's ad and news readings"),
            },
            if state.discord.interactions.enabled() {
                HealthCheck {
                    name: "Webhooks",
                    status: "ok",
                    detail: "the Discord interactions endpoint /api/discord/interactions checks signatures with FANHUB_DISCORD_PUBLIC_KEY".into(),
                }
            } else {
                configured("Webhooks", "FANHUB_DISCORD_PUBLIC_KEY", "the Discord interactions endpoint")
            },
        ],
    }))
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
pub(crate) async fn get_settings(State(state): State<AppState>) -> Result<JsonOut<SettingsView>, ApiError> {
    let defaults = state.site.default_banner.clone();
    let d = defaults.clone();
    let banner = state.db.read(move |c| banner::default_colors(c, &d)).await?;
    Ok(JsonOut(SettingsView { banner, defaults }))
}

/// Save the default banner's colours (#rrggbb each).
#[utoipa::path(put, path = "/api/admin/settings", tag = "admin", operation_id = "saveBannerSettings", security(("adminKey" = []), ("adminSession" = []), ("session" = [])), request_body = BannerSettings,
    responses((status = 200, description = "Saved", body = SavedBanner), (status = 400, description = "Not a colour")))]
pub(crate) async fn put_settings(
    State(state): State<AppState>,
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
    banner::refresh(&state).await?;
    tracing::info!("banner colours changed");
    Ok(JsonOut(SavedBanner { success: true, banner: body.banner }))
}

/// Back to the default clan banner in the site's default colours.
#[utoipa::path(post, path = "/api/admin/revert-banner", tag = "admin", operation_id = "revertBanner", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "Reverted", body = SavedBanner)))]
pub(crate) async fn revert_banner(State(state): State<AppState>) -> Result<JsonOut<SavedBanner>, ApiError> {
    let defaults = state.site.default_banner.clone();
    state
        .db
        .write(move |tx| {
            settings::delete(tx, COLORS_KEY)?;
            crate::ads::store::deactivate(tx)?;
            banner_changed(tx, "default", &defaults)
        })
        .await?;
    banner::refresh(&state).await?;
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
pub(crate) async fn clear_cache(State(state): State<AppState>) -> Result<JsonOut<CacheCleared>, ApiError> {
    let expired = state.db.write(|tx| super::keys::prune_expired(tx)).await?;
    let challenges = state.challenges.prune();
    state.auth_limiter.forget_idle();
    state.login_throttle.forget_idle();
    crate::commands::refresh_scores(&state).await?;
    crate::stats::flush_and_refresh(&state).await?;
    banner::refresh(&state).await?;
    crate::health::check(&state).await;
    let roblox = state.roblox.clear_caches().await?;
    let message = format!(
        "Cached pages rebuilt from the database; {expired} expired sessions and {challenges} expired challenges removed; {roblox} cached Roblox answers dropped."
    );
    tracing::info!("{message}");
    Ok(JsonOut(CacheCleared { success: true, message }))
}

/// Downloads a consistent copy of the live database.
#[utoipa::path(get, path = "/api/admin/backup", tag = "admin", operation_id = "downloadBackup", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "A consistent copy of the SQLite database", content_type = "application/vnd.sqlite3", body = String,
        headers(("Content-Disposition" = String, description = "attachment; filename=\"fanhub-YYYYmmdd-HHMMSS.db\"")))))]
pub(crate) async fn backup(State(state): State<AppState>) -> Result<Response, ApiError> {
    let tmp = state.data_dir.join(format!(".backup-{}.db", crate::tokens::random_hex(8)));
    let db = state.db.clone();
    let path = tmp.clone();
    tokio::task::spawn_blocking(move || db.backup_to(&path)).await.map_err(ApiError::internal)??;
    let bytes = tokio::fs::read(&tmp).await.map_err(ApiError::internal);
    let _ = tokio::fs::remove_file(&tmp).await;
    let bytes = bytes?;
    let name = format!("fanhub-{}.db", jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S"));
    tracing::info!("database backup downloaded ({} bytes)", bytes.len());
    let mut res = Response::new(Body::from(bytes));
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/vnd.sqlite3"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")).map_err(ApiError::internal)?,
    );
    Ok(res.into_response())
}
