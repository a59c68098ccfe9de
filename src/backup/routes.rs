//! The admin panel's backups: list, Backup Now, download an archive, download a copy of the live
//! database. Admin only (the guard), and the
//! shared same-origin rule for cookie-authenticated writes applies to Backup Now.

use axum::Json as JsonOut;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::from_fn_with_state;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use utoipa::ToSchema;

use super::BackupState;
use super::archive::{self, BackupInfo};
use crate::error::ApiError;
use crate::http::extract::Path;

pub fn router<S: Clone + Send + Sync + 'static>(state: BackupState) -> Router<S> {
    Router::new()
        .route("/api/admin/backups", get(list).post(create))
        .route("/api/admin/backups/{name}", get(download))
        .route("/api/admin/backup", get(download_database))
        .route_layer(from_fn_with_state(state.admin_gate.clone(), crate::accounts::guard::require_admin))
        .with_state(state)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupList {
    /// Newest first.
    backups: Vec<BackupInfo>,
    /// The schedule (`--backup-every`), e.g. "1d"; null when scheduled backups are off.
    every: Option<String>,
    /// How many archives are kept (`--backup-keep`).
    keep: u32,
    /// Where they are written on the server.
    directory: String,
    /// The backup job's last run, as reported to the jobs registry.
    #[schema(format = DateTime)]
    last_success: Option<String>,
    last_error: Option<String>,
}

/// The backup archives in DATA_DIR/backups/ (database and uploads), newest first, with the schedule.
#[utoipa::path(get, path = "/api/admin/backups", tag = "admin", operation_id = "listBackups", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "The archives and the schedule", body = BackupList)))]
pub(crate) async fn list(State(state): State<BackupState>) -> Result<JsonOut<BackupList>, ApiError> {
    let dir = state.backups.dir.clone();
    let backups = tokio::task::spawn_blocking(move || archive::list(&dir))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)?;
    let job = state.jobs.snapshot().into_iter().find(|j| j.name == super::JOB);
    Ok(JsonOut(BackupList {
        backups,
        every: state.backups.options.backup_every.map(super::format_every),
        keep: state.backups.options.backup_keep,
        directory: state.backups.dir.display().to_string(),
        last_success: job.as_ref().and_then(|j| j.last_success.clone()),
        last_error: job.and_then(|j| j.last_error),
    }))
}

/// Backup Now: writes an archive at once (and prunes beyond the kept number).
///
/// Refused with 507, before anything is written, when the disk lacks room for the database's copy
/// and the archive beside it with 64 MiB to spare.
#[utoipa::path(post, path = "/api/admin/backups", tag = "admin", operation_id = "createBackup", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 201, description = "Written", body = BackupInfo), (status = 409, description = "A backup is being written already", body = crate::error::ErrorBody),
        (status = 507, description = "Not enough free disk space for the backup (the sentence says how much it needs and how much is free); nothing was written", body = crate::error::ErrorBody)))]
pub(crate) async fn create(State(state): State<BackupState>) -> Result<Response, ApiError> {
    let job = state.jobs.register(super::JOB);
    job.started();
    match state.backups.run_now(&state.db, &state.data_dir).await {
        None => {
            job.succeeded();
            Err(ApiError::conflict("A backup is being written already. Try again when it is done."))
        }
        Some(Ok(info)) => {
            job.succeeded();
            Ok((StatusCode::CREATED, JsonOut(info)).into_response())
        }
        Some(Err(e)) => {
            job.failed(&e);
            Err(e.into())
        }
    }
}

/// Downloads one archive (a tar holding fanhub.db and uploads/; `fanhub restore FILE` takes it).
#[utoipa::path(get, path = "/api/admin/backups/{name}", tag = "admin", operation_id = "downloadBackupArchive", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    params(("name" = String, Path, description = "An archive's name from the list, e.g. fanhub-20261123-020000.tar")),
    responses((status = 200, description = "The archive", content_type = "application/x-tar", body = String,
            headers(("Content-Disposition" = String, description = "attachment; filename=\"NAME\""))),
        (status = 404, description = "No archive by that name", body = crate::error::ErrorBody)))]
pub(crate) async fn download(State(state): State<BackupState>, Path(name): Path<String>) -> Result<Response, ApiError> {
    // Only names the list can show: no path, no other file of the data dir.
    if !archive::is_backup_name(&name) {
        return Err(ApiError::not_found("No backup by that name."));
    }
    let file = match tokio::fs::File::open(state.backups.dir.join(&name)).await {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ApiError::not_found("No backup by that name."));
        }
        Err(e) => return Err(ApiError::internal(format!("opening backup {name}: {e}"))),
    };
    let len = file.metadata().await.map_err(ApiError::internal)?.len();
    tracing::info!("backup {name} downloaded ({len} bytes)");
    let body = Body::from_stream(tokio_util::io::ReaderStream::with_capacity(file, 256 * 1024));
    attachment(body, "application/x-tar", Some(len), &name)
}

/// Downloads a consistent copy of the live database.
///
/// The copy is written to the server's disk and streamed from there, so a large database costs no
/// memory. Refused with 507, before anything is written, when the data dir's disk lacks room for
/// the copy with 64 MiB to spare.
#[utoipa::path(get, path = "/api/admin/backup", tag = "admin", operation_id = "downloadBackup", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "A consistent copy of the SQLite database", content_type = "application/vnd.sqlite3", body = String,
        headers(("Content-Disposition" = String, description = "attachment; filename=\"fanhub-YYYYmmdd-HHMMSS.db\""),
            ("Content-Length" = u64, description = "The copy's size in bytes"))),
        (status = 507, description = "Not enough free disk space for the copy (the sentence says how much it needs and how much is free); nothing was written", body = crate::error::ErrorBody)))]
pub(crate) async fn download_database(State(state): State<BackupState>) -> Result<Response, ApiError> {
    let copy = {
        let _copying = state.backups.copying.lock().await;
        let (db, dir) = (state.db.clone(), state.backups.dir.clone());
        super::on_backup_thread(move || super::download::write_copy(&db, &dir)).await.and_then(|copy| copy)?
    };
    let name = format!("fanhub-{}.db", jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S"));
    tracing::info!("database backup download started ({} bytes)", copy.len);
    let len = copy.len;
    attachment(super::download::body(copy, state.download_idle), "application/vnd.sqlite3", Some(len), &name)
}

/// A download answer: `body` as an attachment named `name`, never stored by caches.
fn attachment(body: Body, content_type: &'static str, len: Option<u64>, name: &str) -> Result<Response, ApiError> {
    let mut res = Response::new(body);
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Some(len) = len {
        h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")).map_err(ApiError::internal)?,
    );
    Ok(res)
}
