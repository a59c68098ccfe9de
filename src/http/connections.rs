//! Accepting and serving connections (HTTP/1.1): at most `max_connections` open at once (more
//! wait in the listen backlog until one closes) and at most `per_address` of them from one
//! address (more are answered 429 and closed, so one address cannot take every socket while the
//! others still get in); a request's headers must arrive within the read timeout (so must the next
//! request on an idle keep-alive connection), and a request body must keep its pace
//! (`body_rate`), else 408. Slow or idle clients therefore cannot hold every socket.
//!
//! A trusted proxy's connections carry many clients, so they are not capped by the proxy's
//! address here: its requests are counted by the address it forwards (`AddressSlots` in the
//! request middleware).

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use ipnet::IpNet;
use tokio::sync::Semaphore;
use tower::ServiceExt;

use crate::error::ApiError;
use crate::http::body_rate::{BodyPace, PacedBody};
use crate::http::listener::CountingListener;
use crate::ratelimit::RateKey;

/// While the cap holds, the line saying so is logged at most this often.
const CAP_LOG_EVERY: Duration = Duration::from_secs(60);

#[derive(Debug, Clone)]
pub struct Limits {
    pub max_connections: usize,
    /// Connections (or, through a trusted proxy, requests) at once from one address.
    pub per_address: usize,
    pub read_timeout: Duration,
    pub body_pace: BodyPace,
    /// Peers whose connections carry other clients (`--trusted-proxy`).
    pub trusted_proxies: Arc<[IpNet]>,
}

impl Limits {
    pub fn of(options: &crate::config::Options) -> Self {
        let max_connections = options.max_connections as usize;
        let read_timeout = Duration::from_secs(options.read_timeout_secs);
        Self {
            max_connections,
            per_address: match options.max_connections_per_address {
                0 => (max_connections / 4).max(1),
                n => n as usize,
            },
            read_timeout,
            body_pace: BodyPace { min_rate: options.min_body_rate, grace: read_timeout, max_silence: read_timeout },
            trusted_proxies: options.trusted_proxies.clone().into(),
        }
    }

    fn is_trusted_proxy(&self, ip: IpAddr) -> bool {
        self.trusted_proxies.iter().any(|net| net.contains(&ip))
    }
}

/// How many connections (or requests) each address holds now, up to a cap. An IPv6 client is
/// one /64, as for every other per-address limit: a host given a /64 cannot take a slot per address.
pub struct AddressSlots {
    cap: usize,
    held: Mutex<HashMap<RateKey, usize>>,
}

/// One connection or request of an address; gives its slot back when dropped.
pub struct AddressSlot {
    slots: Arc<AddressSlots>,
    key: RateKey,
}

impl AddressSlots {
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self { cap: cap.max(1), held: Mutex::default() })
    }

    /// A slot for `ip`, or None while it holds the cap.
    pub fn take(self: &Arc<Self>, ip: IpAddr) -> Option<AddressSlot> {
        let key = RateKey::from(ip);
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let count = held.entry(key).or_default();
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(AddressSlot { slots: self.clone(), key })
    }

    /// The refusal of an address at its cap: 429, and the connection closed.
    pub fn refusal(&self) -> Response {
        let mut res = ApiError::too_many_requests(1)
            .with_message(format!("At most {} connections at once from one address.", self.cap))
            .into_response();
        res.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        res
    }

    #[cfg(test)]
    fn addresses(&self) -> usize {
        self.held.lock().unwrap().len()
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut held = self.slots.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = held.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

/// The answer to a request whose body fell behind its pace; the connection is closed after it.
fn too_slow(pace: &BodyPace, served: Response) -> Response {
    let mut res = ApiError::new(StatusCode::REQUEST_TIMEOUT, "The request body arrived too slowly.")
        .with_message(format!(
            "A body must keep arriving: at least {} bytes a second after the first {} s, never silent for {} s.",
            pace.min_rate,
            pace.grace.as_secs(),
            pace.max_silence.as_secs()
        ))
        .into_response();
    // The request's own headers (its id, the security headers) stay.
    for (name, value) in served.headers() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            res.headers_mut().insert(name.clone(), value.clone());
        }
    }
    res.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    res
}

/// Refused connections answered at once; past them, a refused connection is closed unanswered.
const REFUSALS_AT_ONCE: usize = 64;
/// How long a refused connection has to send its request's head before it is closed.
const REFUSAL_WAIT: Duration = Duration::from_secs(2);

/// Answers the request on a connection that is not served with the address's refusal, then closes
/// it. The request's head is read first, so a client sees an answer to what it sent.
async fn refuse(io: crate::http::listener::CountedStream, slots: Arc<AddressSlots>) {
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(REFUSAL_WAIT).keep_alive(false);
    let service = hyper::service::service_fn(move |_req: Request<Incoming>| {
        let refusal = slots.refusal();
        async move { Ok::<_, Infallible>(refusal) }
    });
    let _ = tokio::time::timeout(REFUSAL_WAIT * 2, http.serve_connection(TokioIo::new(io), service)).await;
}

/// Serves `app` until `shutdown` resolves, then lets open requests finish.
pub async fn serve(mut listener: CountingListener, app: Router, limits: Limits, shutdown: impl Future<Output = ()>) {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let per_address = AddressSlots::new(limits.per_address);
    let refusing = Arc::new(Semaphore::new(REFUSALS_AT_ONCE));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.read_timeout);
    let pace = limits.body_pace;
    let mut shutdown = pin!(shutdown);
    let mut cap_logged: Option<Instant> = None;
    loop {
        let permit = match open.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                if cap_logged.is_none_or(|at| at.elapsed() >= CAP_LOG_EVERY) {
                    tracing::warn!(
                        "{} connections open, the cap (--max-connections): new connections wait until one closes",
                        limits.max_connections
                    );
                    cap_logged = Some(Instant::now());
                }
                tokio::select! {
                    permit = open.clone().acquire_owned() => permit.expect("the semaphore is never closed"),
                    _ = &mut shutdown => break,
                }
            }
        };
        let (io, peer) = tokio::select! {
            accepted = axum::serve::Listener::accept(&mut listener) => accepted,
            _ = &mut shutdown => break,
        };
        let peer_ip = crate::http::client_ip::canonical(peer.ip());
        let slot = match limits.is_trusted_proxy(peer_ip) {
            true => None,
            false => match per_address.take(peer_ip) {
                Some(slot) => Some(slot),
                None => {
                    // A refused connection does not hold one of the --max-connections.
                    drop(permit);
                    if let Ok(refusing) = refusing.clone().try_acquire_owned() {
                        let slots = per_address.clone();
                        tokio::spawn(async move {
                            refuse(io, slots).await;
                            drop(refusing);
                        });
                    }
                    continue;
                }
            },
        };
        let app = app.clone();
        let service = tower::service_fn(move |req: Request<Incoming>| {
            let app = app.clone();
            async move {
                let fell_behind = Arc::new(AtomicBool::new(false));
                // A request without a body (most of them: every GET) has nothing to pace.
                let mut req = match hyper::body::Body::is_end_stream(req.body()) {
                    true => req.map(Body::new),
                    false => req.map(|body| Body::new(PacedBody::new(body, pace, fell_behind.clone()))),
                };
                req.extensions_mut().insert(ConnectInfo(peer));
                let res = app.oneshot(req).await.unwrap_or_else(|never: Infallible| match never {});
                Ok::<_, Infallible>(if fell_behind.load(Ordering::Relaxed) { too_slow(&pace, res) } else { res })
            }
        });
        // An answer the client stops taking is held to the same pace as a request body.
        let io = crate::http::write_rate::PacedWrites::new(io, pace);
        let connection = graceful.watch(http.serve_connection(TokioIo::new(io), TowerToHyperService::new(service)));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("connection from {peer} ended: {e}");
            }
            drop((slot, permit));
        });
    }
    graceful.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_come_from_the_options() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits::of(&crate::config::Options::for_data_dir(dir.path()));
        assert_eq!((limits.max_connections, limits.read_timeout), (512, Duration::from_secs(10)));
        assert_eq!(limits.per_address, 128, "a quarter of the connections by default");
        assert_eq!((limits.body_pace.min_rate, limits.body_pace.grace), (500, Duration::from_secs(10)));
    }

    #[test]
    fn an_address_holds_at_most_its_cap_and_gets_slots_back() {
        let slots = AddressSlots::new(2);
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "192.0.2.2".parse().unwrap());
        let first = slots.take(a).expect("one");
        let _second = slots.take(a).expect("two");
        assert!(slots.take(a).is_none(), "a third is refused");
        assert!(slots.take(b).is_some(), "another address is not held");
        drop(first);
        assert!(slots.take(a).is_some(), "a closed connection gives its slot back");
        drop(slots.take(b));
        assert_eq!(slots.addresses(), 1, "an address with nothing open is forgotten");
    }

    #[test]
    fn the_addresses_of_one_ipv6_64_share_its_slots() {
        let slots = AddressSlots::new(2);
        let ip = |s: &str| -> IpAddr { s.parse().unwrap() };
        let _one = slots.take(ip("2001:db8:7:7::1")).expect("one");
        let _two = slots.take(ip("2001:db8:7:7:ffff::2")).expect("two");
        assert!(slots.take(ip("2001:db8:7:7::3")).is_none(), "a third address of the same /64 is refused");
        assert!(slots.take(ip("2001:db8:7:8::1")).is_some(), "the next /64 is another client");
    }
}
