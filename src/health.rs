//! `GET /api/health`: polled by every open page, so it answers from memory; a background task
//! re-checks the database every few seconds and the body changes only when the status does.

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use serde::Serialize;

use crate::db::Db;
use crate::http::cached::{CachedJson, Caching};

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    #[schema(schema_with = status_values)]
    pub status: &'static str,
    pub version: &'static str,
    pub build: String,
    #[schema(format = DateTime)]
    pub started_at: String,
    #[schema(schema_with = database_values)]
    pub database: &'static str,
    /// `full` while writes fail for want of disk space (they answer 507; reads go on).
    #[schema(schema_with = disk_values)]
    pub disk: &'static str,
}

fn status_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["ok", "degraded"])
}

fn database_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["ok", "error"])
}

fn disk_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["ok", "full"])
}

/// What the health answer is built from: the database it checks, the data dir whose disk it
/// probes, the build it names, and the served body (`health_json`, shared with `/v1`).
pub struct HealthCheck {
    pub db: Db,
    pub data_dir: PathBuf,
    pub build_id: String,
    pub started_at: jiff::Timestamp,
    pub health_json: Arc<CachedJson>,
}

impl HealthCheck {
    pub fn snapshot(&self, database_ok: bool) -> Health {
        let disk_full = crate::disk::DATA_DISK.is_full();
        Health {
            status: if database_ok && !disk_full { "ok" } else { "degraded" },
            version: env!("CARGO_PKG_VERSION"),
            build: self.build_id.clone(),
            started_at: crate::time::timestamp_text(self.started_at),
            database: if database_ok { "ok" } else { "error" },
            disk: if disk_full { "full" } else { "ok" },
        }
    }

    /// Re-checks the database (and, while the disk is marked full, whether space came back).
    pub async fn check(&self) -> bool {
        let dir = self.data_dir.clone();
        let _ = tokio::task::spawn_blocking(move || crate::disk::DATA_DISK.probe(&dir)).await;
        let ok = self.db.read(|c| Ok(crate::db::answers(c)?)).await.is_ok();
        let was_ok = serde_json::from_slice::<serde_json::Value>(&self.health_json.get().bytes)
            .map(|h| h["database"] != "error")
            .unwrap_or(true);
        // The body also changes with the disk, which logs its own lines.
        if self.health_json.set(&self.snapshot(ok)) && ok != was_ok {
            if ok {
                tracing::info!("database check passed again");
            } else {
                tracing::error!("database check failed");
            }
        }
        ok
    }
}

/// How often the database and the disk are checked again for `/api/health`.
const CHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// How long after start a database that never recorded an integrity check gets its first one:
/// not at once, so an upgraded year-old database does not read its whole file while starting.
const FIRST_INTEGRITY_CHECK_AFTER: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// When recording a check failed, how long until the next try.
const INTEGRITY_RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// The daily integrity check (`crate::db::integrity`): due a day after the last recorded one
/// (`first_after` from now when none is), run on a reader so writes go on meanwhile, and
/// recorded for System Health and `fanhub doctor`.
pub async fn integrity_checks(db: Db, job: crate::jobs::JobHandle, first_after: std::time::Duration) {
    use crate::db::integrity;
    loop {
        let wait = match db.read(integrity::last).await {
            Ok(Some(last)) => std::time::Duration::from_millis(last.due_in_ms(crate::db::now_ms()) as u64),
            Ok(None) => first_after,
            Err(_) => INTEGRITY_RETRY_AFTER,
        };
        tokio::time::sleep(wait).await;
        job.started();
        let recorded = match db.read(|c| Ok(integrity::run(c))).await {
            Ok(check) => {
                if !check.passed() {
                    tracing::error!("database integrity check: {}", check.describe());
                }
                db.write(move |tx| integrity::record(tx, &check)).await
            }
            Err(e) => Err(e),
        };
        if job.report(recorded).is_err() {
            tokio::time::sleep(INTEGRITY_RETRY_AFTER).await;
        }
    }
}

/// The health check's background work: `/api/health` rebuilt every 10 s, and at once when the
/// data disk fills up or gets room back; and the daily integrity check.
pub fn background(background: &mut crate::jobs::Background, health: Arc<HealthCheck>) {
    let db = health.db.clone();
    background.job("integrity-check", move |job| integrity_checks(db, job, FIRST_INTEGRITY_CHECK_AFTER));
    background.task("health-check", async move {
        let mut tick = tokio::time::interval(CHECK_EVERY);
        loop {
            tokio::select! {
                _ = tick.tick() => {},
                _ = crate::disk::DATA_DISK.changed.notified() => {},
            }
            health.check().await;
        }
    });
}

pub fn router<S: Clone + Send + Sync + 'static>(health_json: Arc<CachedJson>) -> Router<S> {
    Router::new().route("/api/health", get(get_health)).with_state(health_json)
}

/// Liveness and version. Carries an ETag; `If-None-Match` gets 304.
#[utoipa::path(get, path = "/api/health", tag = "site", operation_id = "getHealth",
    responses((status = 200, description = "Liveness and version", body = Health), (status = 304, description = "Not modified")))]
pub(crate) async fn get_health(State(health_json): State<Arc<CachedJson>>, headers: HeaderMap) -> Response {
    health_json.respond(&headers, Caching::HEALTH)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn the_integrity_job_records_its_check_and_waits_a_day_for_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("h.db")).unwrap();
        let jobs = crate::jobs::Jobs::default();
        let task = tokio::spawn(integrity_checks(db.clone(), jobs.register("integrity-check"), Duration::ZERO));
        let mut recorded = None;
        for _ in 0..100 {
            recorded = db.read(crate::db::integrity::last).await.unwrap();
            if recorded.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let check = recorded.expect("the job recorded a check");
        assert!(check.passed(), "{check:?}");
        assert!(check.due_in_ms(crate::db::now_ms()) > crate::db::integrity::CHECK_EVERY_MS - 60_000);
        tokio::time::sleep(Duration::from_millis(100)).await;
        let status = jobs.snapshot().into_iter().find(|j| j.name == "integrity-check").unwrap();
        assert_eq!((status.runs, status.failures, status.running), (1, 0, false), "one run, then a day's wait");
        task.abort();
    }
}
