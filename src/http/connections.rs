//! Accepting and serving connections (HTTP/1.1): at most `max_connections` open at once (more
//! wait in the listen backlog until one closes), a request's headers must arrive within the read
//! timeout (so must the next request on an idle keep-alive connection), and a request body may
//! not stay silent for longer. Slow or idle clients therefore cannot hold every socket.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::sync::Semaphore;
use tower::ServiceExt;
use tower_http::timeout::RequestBodyTimeoutLayer;

use crate::http::listener::CountingListener;

/// While the cap holds, the line saying so is logged at most this often.
const CAP_LOG_EVERY: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_connections: usize,
    pub read_timeout: Duration,
}

impl Limits {
    pub fn of(options: &crate::config::Options) -> Self {
        Self {
            max_connections: options.max_connections as usize,
            read_timeout: Duration::from_secs(options.read_timeout_secs),
        }
    }
}

/// Serves `app` until `shutdown` resolves, then lets open requests finish.
pub async fn serve(mut listener: CountingListener, app: Router, limits: Limits, shutdown: impl Future<Output = ()>) {
    let open = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.read_timeout);
    let body_timeout = RequestBodyTimeoutLayer::new(limits.read_timeout);
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
        let service = tower::ServiceBuilder::new().layer(body_timeout.clone()).service(app.clone()).map_request(
            move |req: Request<Incoming>| {
                let mut req = req.map(Body::new);
                req.extensions_mut().insert(ConnectInfo(peer));
                req
            },
        );
        let connection = graceful.watch(http.serve_connection(TokioIo::new(io), TowerToHyperService::new(service)));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("connection from {peer} ended: {e}");
            }
            drop(permit);
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
    }
}
