//! The check in front of every keyed call: the `X-API-Key` header, the key's rate limits, usage
//! counting (journaled before the answer; committed to SQLite within a second), and the `X-RateLimit-*` headers on every answer.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use std::sync::Arc;

use super::KeyRing;
use super::limits::{Subject, Verdict};
use super::store::Hit;
use crate::error::ApiError;
use crate::http::client_ip::ClientIp;

pub const API_KEY_HEADER: &str = "x-api-key";
const MAX_KEY_LEN: usize = 128;

static LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
static REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
static RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");

/// The key behind a keyed call, for handlers that show it (e.g. the newgen check's `apiKey`).
#[derive(Debug, Clone)]
pub struct ApiCaller(pub Arc<super::LiveKey>);

/// The key guard, over the key ring: `from_fn_with_state(keys, require_api_key)`.
pub async fn require_api_key(State(keys): State<Arc<KeyRing>>, mut req: Request, next: Next) -> Response {
    let Some(client) = req.extensions().get::<ClientIp>().copied() else {
        return ApiError::internal("client IP missing").into_response();
    };
    // A missing header is a mistake, not a guess: it is answered (401) without counting.
    let presented = match presented_key(req.headers()) {
        Ok(key) => key,
        Err(e) => return e.into_response(),
    };
    // Past the address's wrong keys of a minute, every key from it is refused (429) until the
    // minute is over: keys cannot be guessed, however long they are.
    let attempt = match keys.wrong_keys.begin(client.rate_key()) {
        Ok(attempt) => attempt,
        Err(e) => return e.into_response(),
    };
    let Some(key) = keys.find(&presented) else {
        attempt.failed();
        return ApiError::unauthorized("Invalid API key")
            .with_message("The key is unknown or was revoked. Generate one at /api-docs.")
            .into_response();
    };
    drop(attempt); // a right key gives its place back at once
    // Everyone shares the public default key, so its limits apply per caller.
    let subject = Subject { key_id: key.id, ip: key.is_public.then_some(client.rate_key()) };
    let now = jiff::Timestamp::now();
    let verdict = keys.limits.check(subject, now.as_second());
    if !verdict.allowed {
        let mut res = ApiError::too_many_requests(verdict.retry_after)
            .with_message("This API key is over its rate limit. See the X-RateLimit-* headers.")
            .into_response();
        add_headers(res.headers_mut(), &verdict);
        return res;
    }
    req.extensions_mut().insert(ApiCaller(key.clone()));
    let hit = Hit { key_id: key.id, at_ms: now.as_millisecond(), ip: client.ip };
    if let Err(e) = keys.record(hit) {
        return e.into_response();
    }
    let mut res = next.run(req).await;
    add_headers(res.headers_mut(), &verdict);
    res
}

fn presented_key(headers: &HeaderMap) -> Result<String, ApiError> {
    let value = headers.get(API_KEY_HEADER).map(|v| v.to_str().map(str::trim).unwrap_or(""));
    let Some(key) = value.filter(|k| !k.is_empty()) else {
        return Err(ApiError::unauthorized("An API key is required. Send it in the X-API-Key header.")
            .with_message("Generate a key at /api-docs."));
    };
    // An overlong value is a wrong key like any other: the caller counts it.
    Ok(key.chars().take(MAX_KEY_LEN + 1).collect())
}

fn add_headers(headers: &mut HeaderMap, v: &Verdict) {
    headers.insert(LIMIT.clone(), HeaderValue::from(v.limit));
    headers.insert(REMAINING.clone(), HeaderValue::from(v.remaining));
    headers.insert(RESET.clone(), HeaderValue::from(v.reset));
}
