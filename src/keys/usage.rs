//! Usage counting with group commit: each accepted keyed call waits until its count is committed
//! (so a kill -9 after its answer loses nothing), but calls arriving together share one
//! transaction, so a busy API does not write SQLite once per call.

use std::collections::HashSet;
use std::net::IpAddr;

use tokio::sync::{mpsc, oneshot};

use super::store::{self, Hit};
use crate::db::Db;
use crate::error::ApiError;

const MAX_BATCH: usize = 4096;
const MAX_KNOWN_IPS: usize = 100_000;

type Pending = (Hit, oneshot::Sender<bool>);

#[derive(Clone)]
pub struct UsageLog {
    queue: mpsc::UnboundedSender<Pending>,
}

impl UsageLog {
    /// Starts the writer: a thread of its own, so a batch costs no hop through the async
    /// runtime's blocking pool. It ends when every `UsageLog` handle is dropped.
    pub fn start(db: Db, ip_secret: [u8; 32]) -> Self {
        let (queue, mut incoming) = mpsc::unbounded_channel::<Pending>();
        let writer = move || {
            // The (key, IP) pairs already in api_key_ips, so a returning caller costs no statement.
            let mut known_ips: HashSet<(i64, IpAddr)> = HashSet::new();
            while let Some(first) = incoming.blocking_recv() {
                let mut batch = vec![first];
                while batch.len() < MAX_BATCH {
                    match incoming.try_recv() {
                        Ok(next) => batch.push(next),
                        Err(_) => break,
                    }
                }
                let hits: Vec<Hit> = batch.iter().map(|(hit, _)| *hit).collect();
                if known_ips.len() > MAX_KNOWN_IPS {
                    known_ips.clear();
                }
                let new_ips: Vec<(i64, IpAddr)> = hits
                    .iter()
                    .map(|h| (h.key_id, h.ip))
                    .filter(|pair| !known_ips.contains(pair))
                    .collect::<HashSet<_>>()
                    .into_iter()
                    .collect();
                let written = db.write_blocking(|tx| store::record_usage(tx, &hits, &new_ips, &ip_secret));
                match &written {
                    Ok(()) => known_ips.extend(new_ips),
                    Err(e) => tracing::error!("API key usage not written: {e}"),
                }
                for (_, done) in batch {
                    let _ = done.send(written.is_ok());
                }
            }
        };
        std::thread::Builder::new().name("api-key-usage".into()).spawn(writer).expect("a thread for usage counting");
        Self { queue }
    }

    /// Counts one call; returns once it is committed.
    pub async fn record(&self, hit: Hit) -> Result<(), ApiError> {
        let (done, committed) = oneshot::channel();
        self.queue.send((hit, done)).map_err(|_| ApiError::unavailable("The server is shutting down."))?;
        match committed.await {
            Ok(true) => Ok(()),
            _ => Err(ApiError::unavailable("Your API usage could not be recorded. Please try again.")),
        }
    }
}
