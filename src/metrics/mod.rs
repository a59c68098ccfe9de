//! `GET /metrics` in the Prometheus text format: requests by route template (API routes by their
//! template, app pages by their route) and status, latency
//! histograms, open connections, the database pool, background jobs, upstream calls and the
//! process's memory. Off unless `--metrics`; then answered only to an admin key or to an
//! address in `--metrics-allow`.
//!
//! The hot path: every route template of the OpenAPI document gets its counters when the
//! server starts, so recording a request is a map lookup and a few relaxed atomic adds — no
//! lock and no allocation. With metrics off the layer is not installed at all.

mod render;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::response::{IntoResponse, Response};
use ipnet::IpNet;

pub use crate::config::MetricsOptions;
use crate::error::ApiError;
use crate::http::client_ip::ClientIp;

/// What `/metrics` reads: the counters, and the database pool, the jobs, the Roblox budgets and
/// the start time it reports.
#[derive(Clone)]
pub struct MetricsState {
    /// The admin check (with the host's second-factor policy).
    pub admin_gate: crate::accounts::guard::AdminGate,
    pub metrics: Arc<Metrics>,
    pub db: crate::db::Db,
    pub jobs: crate::jobs::Jobs,
    pub roblox: crate::roblox::Roblox,
    /// The follows' re-checks.
    pub watch: Arc<crate::follows::rechecks::Watch>,
    pub started_at: jiff::Timestamp,
}

/// Status codes counted on their own; the rest are counted as "other".
const STATUSES: [u16; 24] = [
    200, 201, 204, 206, 301, 302, 304, 307, 308, 400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 429, 500, 502, 503,
    504,
];
const OTHER_STATUS: usize = STATUSES.len();
const METHODS: [Method; 6] = [Method::GET, Method::POST, Method::PUT, Method::PATCH, Method::DELETE, Method::HEAD];
const OTHER_METHOD: usize = METHODS.len();
/// Histogram bucket bounds in microseconds (rendered in seconds).
const BUCKETS_US: [u64; 14] =
    [250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000];
/// The label of requests no route template or app page matched (assets, unknown paths).
pub const UNMATCHED: &str = "(unmatched)";

/// A route's counters. Its request count is the sum of `requests` (read at render), so a request
/// costs three relaxed adds.
struct RouteCounters {
    requests: [[AtomicU64; STATUSES.len() + 1]; METHODS.len() + 1],
    buckets: [AtomicU64; BUCKETS_US.len()],
    sum_us: AtomicU64,
}

impl RouteCounters {
    /// Requests answered, over every method and status.
    fn count(&self) -> u64 {
        self.requests.iter().flatten().map(|n| n.load(Ordering::Relaxed)).sum()
    }

    fn new() -> Self {
        Self {
            requests: std::array::from_fn(|_| std::array::from_fn(|_| AtomicU64::new(0))),
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            sum_us: AtomicU64::new(0),
        }
    }
}

pub struct Metrics {
    pub enabled: bool,
    allow: Vec<IpNet>,
    index: HashMap<Box<str>, usize>,
    /// Route template per slot; the last slot is [`UNMATCHED`].
    names: Vec<Box<str>>,
    routes: Box<[RouteCounters]>,
    pub connections: std::sync::Arc<crate::http::listener::ConnectionCounts>,
}

impl Metrics {
    /// Counters for every path `api_paths` gives (the OpenAPI document's: every routed API path
    /// is in it; a test holds the document to that) and every page of the app. With metrics off
    /// nothing is counted and `api_paths` is not called: building the document leaves about
    /// 3.5 MB of freed heap that an idle server keeps resident.
    pub fn new(options: &MetricsOptions, api_paths: impl FnOnce() -> Vec<String>) -> Self {
        let mut names: Vec<Box<str>> = if options.metrics {
            let mut names: Vec<Box<str>> = api_paths().into_iter().map(Into::into).collect();
            names.extend(crate::http::spa::ROUTES.iter().map(|r| r.path.into()));
            names
        } else {
            Vec::new()
        };
        names.push(UNMATCHED.into());
        let index = names.iter().enumerate().map(|(i, n)| (n.clone(), i)).collect();
        let routes = names.iter().map(|_| RouteCounters::new()).collect();
        Self {
            enabled: options.metrics,
            allow: options.metrics_allow.clone(),
            index,
            names,
            routes,
            connections: Default::default(),
        }
    }

    /// The API route template that matched, else the app page the path is, else unmatched.
    fn slot(&self, req: &Request) -> usize {
        let name = match req.extensions().get::<MatchedPath>() {
            Some(p) => Some(p.as_str()),
            None => crate::http::spa::known_route(req.uri().path()),
        };
        name.and_then(|n| self.index.get(n).copied()).unwrap_or(self.names.len() - 1)
    }

    fn record(&self, slot: usize, method: usize, status: u16, elapsed_us: u64) {
        let route = &self.routes[slot];
        let status = STATUSES.iter().position(|s| *s == status).unwrap_or(OTHER_STATUS);
        // Before the bucket: render reads the buckets first, so its count is never below them.
        route.requests[method][status].fetch_add(1, Ordering::Relaxed);
        if let Some(b) = BUCKETS_US.iter().position(|bound| elapsed_us <= *bound) {
            route.buckets[b].fetch_add(1, Ordering::Relaxed);
        }
        route.sum_us.fetch_add(elapsed_us, Ordering::Relaxed);
    }
}

fn method_index(method: &Method) -> usize {
    METHODS.iter().position(|m| m == method).unwrap_or(OTHER_METHOD)
}

/// The tower layer that counts every routed request (installed only when metrics are on).
#[derive(Clone)]
pub struct TrackLayer(pub Arc<Metrics>);

impl<S> tower::Layer<S> for TrackLayer {
    type Service = Track<S>;
    fn layer(&self, inner: S) -> Track<S> {
        Track { inner, metrics: self.0.clone() }
    }
}

#[derive(Clone)]
pub struct Track<S> {
    inner: S,
    metrics: Arc<Metrics>,
}

impl<S> tower::Service<Request> for Track<S>
where
    S: tower::Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = TrackFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let slot = self.metrics.slot(&req);
        let method = method_index(req.method());
        TrackFuture { inner: self.inner.call(req), metrics: self.metrics.clone(), slot, method, start: Instant::now() }
    }
}

pin_project_lite::pin_project! {
    pub struct TrackFuture<F> {
        #[pin]
        inner: F,
        metrics: Arc<Metrics>,
        slot: usize,
        method: usize,
        start: Instant,
    }
}

impl<F, E> Future for TrackFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let out = std::task::ready!(this.inner.poll(cx));
        if let Ok(res) = &out {
            let us = this.start.elapsed().as_micros().min(u64::MAX as u128) as u64;
            this.metrics.record(*this.slot, *this.method, res.status().as_u16(), us);
        }
        Poll::Ready(out)
    }
}

/// Prometheus metrics (text format 0.0.4). Off unless the server runs with `--metrics`; then
/// answered to an `X-Admin-Key` or to an address in `--metrics-allow`.
#[utoipa::path(get, path = "/metrics", tag = "site", operation_id = "getMetrics", security((), ("adminKey" = [])),
    responses(
        (status = 200, description = "The metrics", content_type = "text/plain; version=0.0.4; charset=utf-8", body = String),
        (status = 401, description = "No admin key, and the address is not in --metrics-allow (or the key is invalid)", body = crate::error::ErrorBody),
        (status = 403, description = "The admin key is bound to another IP address", body = crate::error::ErrorBody),
        (status = 404, description = "Metrics are off (start with --metrics)", body = crate::error::ErrorBody)))]
pub(crate) async fn get_metrics(
    State(state): State<MetricsState>,
    headers: HeaderMap,
    req: Request,
) -> Result<Response, ApiError> {
    if !state.metrics.enabled {
        return Err(
            ApiError::not_found("Metrics are off.").with_message("Start fanhub with --metrics (FANHUB_METRICS=true).")
        );
    }
    let client = req.extensions().get::<ClientIp>().copied().ok_or_else(|| ApiError::internal("client ip missing"))?;
    let allowed = state.metrics.allow.iter().any(|net| net.contains(&client.ip));
    if !allowed {
        if !headers.contains_key("x-admin-key") {
            return Err(ApiError::unauthorized("Metrics need an admin key.")
                .with_message("Send X-Admin-Key, or add this address to --metrics-allow."));
        }
        match crate::accounts::guard::resolve(&state.admin_gate, &headers, &client).await? {
            Some(_) => {}
            None => return Err(ApiError::unauthorized("Invalid admin key")),
        }
    }
    let body = render::render(&state);
    let mut res = body.into_response();
    res.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
    res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(res)
}

pub fn router<S: Clone + Send + Sync + 'static>(state: MetricsState) -> axum::Router<S> {
    axum::Router::new().route("/metrics", axum::routing::get(get_metrics)).with_state(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_route_is_registered_and_the_rest_are_unmatched() {
        let m = Metrics::new(&MetricsOptions { metrics: true, metrics_allow: vec![] }, crate::openapi::paths);
        assert!(m.index.contains_key("/api/stats"));
        assert!(m.index.contains_key("/api/admin/users/{id}"));
        assert!(m.index.contains_key("/commands") && m.index.contains_key("/"), "app pages have their own label");
        assert_eq!(m.index.len(), m.names.len(), "no label twice");
        assert_eq!(&*m.names[m.names.len() - 1], UNMATCHED);
        let slot = m.index["/api/stats"];
        m.record(slot, 0, 200, 300);
        m.record(slot, 0, 304, 20_000_000);
        m.record(slot, OTHER_METHOD, 599, 1);
        let r = &m.routes[slot];
        assert_eq!(r.requests[0][0].load(Ordering::Relaxed), 1);
        assert_eq!(r.requests[0][STATUSES.iter().position(|s| *s == 304).unwrap()].load(Ordering::Relaxed), 1);
        assert_eq!(r.requests[OTHER_METHOD][OTHER_STATUS].load(Ordering::Relaxed), 1);
        assert_eq!(r.buckets[0].load(Ordering::Relaxed), 1, "1 µs lands in the first bucket");
        assert_eq!(r.buckets[1].load(Ordering::Relaxed), 1, "300 µs lands in the 500 µs bucket");
        assert_eq!(r.count(), 3, "20 s counts only in +Inf");
        assert_eq!(r.sum_us.load(Ordering::Relaxed), 20_000_301);
    }
}
