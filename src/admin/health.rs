//! System Health: the database, the data dir and the outside services, checked.

use axum::Json as JsonOut;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;

/// What System Health checks: the database, the data dir and the outside services.
#[derive(Clone)]
pub struct SystemHealthState {
    pub db: crate::db::Db,
    pub data_dir: std::sync::Arc<std::path::Path>,
    pub jobs: crate::jobs::Jobs,
    pub roblox: crate::roblox::Roblox,
    pub discord: std::sync::Arc<crate::discord::Discord>,
    pub llm: Option<crate::llm::LlmClient>,
    pub follows: crate::follows::FollowsState,
}

/// An outside service's line, with its failed calls since start.
fn upstream_check(
    state: &SystemHealthState,
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
    crate::http::schema::string_enum(&["ok", "error", "not_configured"])
}

#[derive(Serialize, ToSchema)]
pub struct HealthChecks {
    checks: Vec<HealthCheck>,
}

/// Real checks: the database answers and its last integrity check passed (the daily background
/// check's recorded result, never a check per request), the data dir is writable and has disk
/// space, and which outside services are configured.
#[utoipa::path(get, path = "/api/admin/health", tag = "admin", operation_id = "getSystemHealth", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "The checks", body = HealthChecks)))]
pub(crate) async fn health(State(state): State<SystemHealthState>) -> Result<JsonOut<HealthChecks>, ApiError> {
    let db = state.db.read(crate::db::integrity::last).await;
    let database = match db {
        Ok(Some(check)) if check.passed() => {
            HealthCheck { name: "Database", status: "ok", detail: format!("SQLite answers; {}", check.describe()) }
        }
        Ok(Some(check)) => HealthCheck {
            name: "Database",
            status: "error",
            detail: format!("{}; restore the last backup (README: Backups and upgrades)", check.describe()),
        },
        Ok(None) => HealthCheck {
            name: "Database",
            status: "ok",
            detail: "SQLite answers; no integrity check recorded yet (the server runs one 10 minutes after it starts, then daily)".into(),
        },
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
            HealthCheck {
                name: "Followed players",
                status: "ok",
                detail: state.follows.watch.health_line(state.follows.settings.recheck_hours),
            },
            upstream_check(
                &state,
                "Discord alerts",
                "discord-webhooks",
                "ok",
                "fans' webhooks: sent from an outbox, retried with backoff".into(),
            ),
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
