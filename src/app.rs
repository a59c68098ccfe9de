//! Assembles the router: every feature's routes, the shared middleware and the fallbacks.

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;

use crate::error::ApiError;
use crate::http::{csrf, middleware, spa};
use crate::state::AppState;
use crate::{accounts, admin, banner, commands, guides, health, openapi, site, stats};

pub const JSON_BODY_LIMIT: usize = 64 * 1024;

pub fn router(state: AppState) -> Router {
    // Large, rarely fetched lists are compressed per response; polled bodies are tiny.
    let content = Router::new()
        .merge(site::router())
        .merge(commands::router())
        .merge(guides::router())
        .merge(openapi::router())
        .layer(CompressionLayer::new());
    let polled = Router::new().merge(health::router()).merge(stats::router()).merge(banner::router());
    let people = Router::new().merge(accounts::router()).merge(admin::router(state.clone()));
    Router::new()
        .merge(content)
        .merge(polled)
        .merge(people)
        .fallback(fallback)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(JSON_BODY_LIMIT))
        .layer(from_fn(csrf::same_origin_writes))
        .layer(CatchPanicLayer::custom(|_| ApiError::internal("handler panicked").into_response()))
        .layer(from_fn_with_state(state.clone(), middleware::request_context))
        .with_state(state)
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
    let status = if spa::is_known_route(path) { StatusCode::OK } else { StatusCode::NOT_FOUND };
    if status == StatusCode::OK
        && req.method() == Method::GET
        && let Some(client) = req.extensions().get::<crate::http::client_ip::ClientIp>()
    {
        let ua = req.headers().get(axum::http::header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("");
        state.visits.record(client.ip, ua);
    }
    state.bundle.shell_response(status, req.headers())
}
