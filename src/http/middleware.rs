//! Middleware run on every request: size limits on the request line and headers, the client
//! IP, a request id (in the log span, the `x-request-id` header and every 500 body), and the
//! security headers.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tracing::Instrument;

use crate::error::{ApiError, InternalErrorDetail};
use crate::http::client_ip;

pub const MAX_URI_BYTES: usize = 4096;
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The Content-Security-Policy of every answer; `script_sources` and `style_sources` are added to
/// `script-src 'self'` and `style-src 'self'` (the hashes of the loader and the stylesheet the
/// shells inline, see `shell::Shells`).
pub fn content_security_policy(script_sources: &str, style_sources: &str) -> HeaderValue {
    let policy = format!(
        "default-src 'self'; script-src 'self'{script_sources}; style-src 'self'{style_sources}; img-src 'self' data: https:; \
         font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; \
         frame-ancestors 'none'"
    );
    HeaderValue::from_str(&policy).expect("a valid Content-Security-Policy")
}

static X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Request ids: a random per-process prefix and a counter, cheap enough for every request.
pub struct RequestIds {
    prefix: u32,
    next: AtomicU64,
}

impl RequestIds {
    pub fn new() -> Self {
        Self { prefix: rand::random(), next: AtomicU64::new(1) }
    }
    pub fn next(&self) -> String {
        format!("{:08x}-{:x}", self.prefix, self.next.fetch_add(1, Ordering::Relaxed))
    }
}

impl Default for RequestIds {
    fn default() -> Self {
        Self::new()
    }
}

#[derive(Clone, Debug)]
pub struct RequestId(pub String);

/// What `request_context` needs, fixed at the start.
pub struct RequestContext {
    pub ids: RequestIds,
    /// Proxies whose X-Forwarded-For is believed.
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Requests at once per forwarded address, for requests through a trusted proxy: its
    /// connections carry many clients, so `connections::serve` cannot cap them by address.
    pub proxied_requests: std::sync::Arc<crate::http::connections::AddressSlots>,
    /// The site's base URL, if configured: under an https one, cookies get Secure.
    pub base_url: Option<String>,
    pub content_security_policy: HeaderValue,
}

pub async fn request_context(
    State(context): State<std::sync::Arc<RequestContext>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut req: Request,
    next: Next,
) -> Response {
    let id = context.ids.next();
    let mut https = false;
    let mut res = if let Some(refusal) = oversized(&req) {
        refusal.into_response()
    } else {
        let mut client = client_ip::resolve(peer, req.headers(), &context.trusted_proxies);
        // Also https: a request under the host of an https base URL (cookies get Secure and `__Host-`).
        client.https |= crate::http::origin::under_https_base_url(context.base_url.as_deref(), req.headers());
        // Over https only the `__Host-` cookies count; signing out still sees the bare ones, to end
        // the sessions they name (a planted one can only be signed out).
        let signs_out = matches!(req.uri().path(), "/api/auth/logout" | "/api/admin/logout");
        if client.https && !signs_out {
            crate::http::cookies::drop_bare_auth_cookies(req.headers_mut(), &crate::http::csrf::AUTH_COOKIES);
        }
        https = client.https;
        let through_proxy = context.trusted_proxies.iter().any(|net| net.contains(&client_ip::canonical(peer.ip())));
        let slot = through_proxy.then(|| context.proxied_requests.take(client.ip));
        req.extensions_mut().insert(client);
        req.extensions_mut().insert(RequestId(id.clone()));
        if let Some(None) = slot {
            let mut refusal = context.proxied_requests.refusal();
            // The proxy's connection carries others: it stays open.
            refusal.headers_mut().remove(header::CONNECTION);
            refusal
        } else {
            let span = tracing::debug_span!("request", id = %id, method = %req.method(), path = %req.uri().path());
            let res = next.run(req).instrument(span).await;
            drop(slot);
            res
        }
    };
    if res.status() == StatusCode::INTERNAL_SERVER_ERROR {
        let detail = res.extensions().get::<InternalErrorDetail>().map(|d| d.0.clone());
        tracing::error!(request_id = %id, "internal error: {}", detail.as_deref().unwrap_or("handler failed"));
        res = ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "Something went wrong on our side.")
            .with_message(format!("Request id {id}. The error has been logged."))
            .into_response();
    }
    let headers = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&id) {
        headers.insert(X_REQUEST_ID.clone(), v);
    }
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("strict-origin-when-cross-origin"));
    headers.insert(header::CONTENT_SECURITY_POLICY, context.content_security_policy.clone());
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    // Over https, browsers are told to use nothing else for a year. Not `includeSubDomains`: other
    // sites under the same domain may still need plain http, and that is the host's call.
    if https {
        headers.insert(header::STRICT_TRANSPORT_SECURITY, HeaderValue::from_static("max-age=31536000"));
    }
    // Only answers that chose a policy may be kept; everything else, errors included, is not.
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(crate::http::cached::NOT_STORED));
    }
    res
}

fn oversized(req: &Request) -> Option<ApiError> {
    let uri_len = req.uri().path_and_query().map(|p| p.as_str().len()).unwrap_or(0);
    if uri_len > MAX_URI_BYTES {
        return Some(ApiError::new(StatusCode::URI_TOO_LONG, "The address is too long."));
    }
    let header_bytes: usize = req.headers().iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum();
    if header_bytes > MAX_HEADER_BYTES {
        return Some(ApiError::new(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, "The request headers are too large."));
    }
    None
}
