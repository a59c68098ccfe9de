//! Assembles the router: every feature's routes, the shared middleware and the fallbacks.

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{And, NotForContentType, Predicate, SizeAbove};

use crate::error::ApiError;
use crate::http::{csrf, middleware, spa};
use crate::jobs::Background;
use crate::state::{AppState, part};
use crate::{
    accounts, admin, ads, backup, banner, commands, discord, follows, guides, health, keys, metrics, openapi, roblox,
    scans, shell, site, stats, v1,
};

pub const JSON_BODY_LIMIT: usize = 64 * 1024;

pub fn router(state: AppState) -> Router {
    // Large, rarely fetched lists are compressed per response; polled bodies are tiny.
    let content = Router::new()
        .merge(site::router(state.site_json.clone()))
        .merge(commands::router(part(&state)))
        .merge(guides::router(state.guides.clone()))
        .merge(openapi::router())
        .merge(shell::router(state.site.clone()))
        .layer(CompressionLayer::new());
    let polled = Router::new()
        .merge(health::router(state.health_json.clone()))
        .merge(stats::router(part(&state)))
        .merge(banner::router(state.banner.clone()))
        .merge(discord::router(state.discord.clone()))
        .merge(discord::interactions::router(state.discord.clone()));
    let roblox = roblox::routes::router(part(&state)).layer(large_answers());
    let people = Router::new()
        .merge(accounts::router(part(&state)))
        .merge(admin::router(part(&state)))
        .merge(ads::router(part(&state)))
        .merge(ads::review::router(part(&state)))
        .merge(scans::admin::router(part(&state)))
        .merge(follows::routes::router(part(&state)))
        .layer(large_answers());
    let developers = Router::new()
        .merge(keys::router(part(&state)))
        .merge(v1::router(part(&state), part(&state)))
        .layer(large_answers());
    let hosting = Router::new().merge(backup::routes::router(part(&state))).merge(metrics::router(part(&state)));
    let card_pictures = shell::pictures::router(part(&state));
    let router = Router::new()
        .merge(content)
        .merge(polled)
        .merge(people)
        .merge(developers)
        .merge(hosting)
        .merge(roblox)
        .merge(card_pictures)
        .fallback(fallback);
    // Installed only when metrics are on, so they cost nothing otherwise.
    let router = if state.metrics.enabled { router.layer(metrics::TrackLayer(state.metrics.clone())) } else { router };
    router
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(JSON_BODY_LIMIT))
        .layer(from_fn(csrf::same_origin_writes))
        .layer(CatchPanicLayer::custom(|_| ApiError::internal("handler panicked").into_response()))
        .layer(from_fn_with_state(state.request_context.clone(), middleware::request_context))
        .with_state(state)
}

/// Only answers over [`COMPRESS_ABOVE`] bytes (pictures and streams never).
type LargeAnswers = And<And<And<SizeAbove, NotForContentType>, NotForContentType>, NotForContentType>;

/// Smaller answers fit one packet either way: compressing them costs CPU and saves no round trip.
pub const COMPRESS_ABOVE: u64 = 1400;

/// Compression of the lists and histories (admin lists, leaderboards, badge history JSON and CSV,
/// v1 lists) for clients that send `Accept-Encoding`; the small answers polled every few seconds
/// are left as they are.
fn large_answers() -> CompressionLayer<LargeAnswers> {
    CompressionLayer::new().compress_when(
        SizeAbove::new(COMPRESS_ABOVE)
            .and(NotForContentType::GRPC)
            .and(NotForContentType::IMAGES)
            .and(NotForContentType::SSE),
    )
}

/// The process's background work, each piece declared by the feature that owns it (its jobs, its
/// sweeps, its polls); `server::serve` starts it without knowing what it does.
pub fn background(state: &AppState) -> Background {
    let mut background = Background::new(state.jobs.clone());
    stats::background(&mut background, part(state), state.stats_refresh.clone());
    banner::background(&mut background, state.banner.clone());
    health::background(&mut background, state.health.clone());
    crate::ratelimit::background(&mut background);
    accounts::background(&mut background, state.db.clone());
    ads::background(&mut background, part(state));
    roblox::background(&mut background, state.roblox.clone(), state.site.retention.clone());
    scans::background(&mut background, part(state), state.site.retention.clone());
    follows::background(&mut background, part(state));
    keys::background(&mut background, state.db.clone(), state.site.analytics.clone());
    discord::poller::background(&mut background, part(state), state.stats_refresh.clone());
    backup::background(&mut background, part(state));
    crate::events::background(&mut background, state.db.clone(), state.site.retention.clone());
    crate::db::retention::background(&mut background, state.db.clone());
    background
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "This method is not allowed here.")
}

/// Everything no route matched: unknown API paths, bundled files, and app pages.
async fn fallback(State(state): State<AppState>, req: Request) -> Response {
    let path = req.uri().path();
    if path == "/api" || path.starts_with("/api/") {
        return ApiError::not_found("No such API endpoint.").into_response();
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return method_not_allowed().await.into_response();
    }
    let file_path = path.trim_start_matches('/');
    if !file_path.is_empty() && file_path != "index.html" {
        if let Some(asset) = state.bundle.file(file_path) {
            return asset.respond(req.headers());
        }
        if file_path.starts_with("assets/") {
            return ApiError::not_found("No such file.").into_response();
        }
    }
    let route = spa::find(path);
    let client = req.extensions().get::<crate::http::client_ip::ClientIp>();
    if let Some(route) = route
        && req.method() == Method::GET
        && let Some(client) = client
    {
        // Over its views a minute, an address's shell is still served, just not counted.
        let _ = state.visits.record(route.path, client.ip, crate::http::user_agent(req.headers()));
    }
    let origin = crate::http::origin::of_request(state.site.base_url.as_deref(), req.headers(), client);
    // A command, guide or player named in the query gets a card of its own (from what the
    // server holds; never a Roblox call).
    let subject = match route {
        Some(route) => state.link_cards.subject(&state.site, route.path, req.uri()).await,
        None => None,
    };
    state.shells.respond(&state.site, &state.site_json, route, subject.as_ref(), origin, req.headers())
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use axum::body::Body;
    use axum::extract::connect_info::MockConnectInfo;
    use axum::http::Request;
    use axum::routing::get;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    use super::*;
    use crate::config::{Options, Secrets};
    use crate::logging::{self, LogBuffer};

    #[tokio::test]
    async fn each_feature_declares_its_background_work_and_its_jobs_are_registered() {
        let dir = tempfile::tempdir().unwrap();
        let mut options = Options::for_data_dir(dir.path());
        options.backups.backup_every = Some(std::time::Duration::from_secs(3600));
        let state =
            crate::server::build_state(options, Secrets::default(), dir.path().to_path_buf(), LogBuffer::default())
                .unwrap();
        let declared = background(&state);
        assert_eq!(
            declared.names(),
            [
                "page-stats",
                "visitor-hashes",
                "banner-expiry",
                "banner-reread",
                "integrity-check",
                "health-check",
                "rate-limit-sweep",
                "expired-sessions",
                "rejected-ad-images",
                "badge-monitor",
                "roblox-sweep",
                "group-scans",
                "scan-sweep",
                "follow-rechecks",
                "discord-alerts",
                "api-key-usage",
                crate::backup::JOB,
                "wal-checkpoint",
                "event-sweep",
                "free-pages",
            ],
            "no Discord source in the default site file: no Discord polls"
        );
        let jobs: Vec<String> = state.jobs.snapshot().into_iter().map(|j| j.name).collect();
        for job in [
            "page-stats",
            "integrity-check",
            "visitor-hashes",
            "api-key-usage",
            "expired-sessions",
            "rejected-ad-images",
            "badge-monitor",
            "group-scans",
            "follow-rechecks",
            "discord-alerts",
            "wal-checkpoint",
            "roblox-sweep",
            "scan-sweep",
            "event-sweep",
            "free-pages",
        ] {
            assert!(jobs.iter().any(|j| j == job), "{job} is reported in System Health: {jobs:?}");
        }
        let tasks = declared.start();
        assert_eq!(tasks.len(), 20);
        for task in tasks {
            task.abort();
        }
    }

    #[tokio::test]
    async fn internal_errors_carry_the_request_id_and_are_logged_without_the_cause() {
        let dir = tempfile::tempdir().unwrap();
        let logs = LogBuffer::default();
        logging::init(logs.clone());
        let options = Options::for_data_dir(dir.path());
        let state =
            crate::server::build_state(options, Secrets::default(), dir.path().to_path_buf(), logs.clone()).unwrap();
        let app = Router::new()
            .route("/boom", get(|| async { ApiError::internal("disk on fire at /secret/path") }))
            .layer(from_fn_with_state(state.request_context.clone(), middleware::request_context))
            .with_state(state)
            .layer(MockConnectInfo(SocketAddr::from(([127, 0, 0, 1], 4000))));
        let res = app.oneshot(Request::get("/boom").body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let id = res.headers()["x-request-id"].to_str().unwrap().to_string();
        let body = String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(json["error"].is_string());
        assert!(json["message"].as_str().unwrap().contains(&id), "{body}");
        assert!(!body.contains("disk on fire") && !body.contains("/secret/path"), "the cause must not leak: {body}");
        let logged = logs.recent(50);
        assert!(
            logged.iter().any(|r| r.level == "ERROR" && r.message.contains(&id) && r.message.contains("disk on fire"))
        );
        assert!(logs.counts().errors >= 1);
    }
}
