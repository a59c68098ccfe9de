//! Request plumbing shared by every feature: bundled UI, cached JSON, client IP, request ids,
//! security headers, CSRF, JSON extraction.

pub mod assets;
pub mod body_rate;
pub mod cached;
pub mod client_ip;
pub mod connections;
pub mod cookies;
pub mod csrf;
pub mod extract;
pub mod listener;
pub mod middleware;
pub mod origin;
pub mod paging;
pub mod schema;
pub mod spa;
pub mod write_rate;

/// The request's `User-Agent`, or "" when absent or not text.
pub fn user_agent(headers: &axum::http::HeaderMap) -> &str {
    headers.get(axum::http::header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("")
}

/// The answer of a write that has nothing more to say: `{"success": true}`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct Success {
    pub success: bool,
}

impl Success {
    pub const YES: Success = Success { success: true };
}
