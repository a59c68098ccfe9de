//! Usage counting, written behind: a keyed call only queues its count, and a thread of its own
//! writes what has queued once a second (one statement per key and hour, nothing for a key and IP
//! already seen), so the hot path never waits for SQLite. A clean stop and every reader of the
//! counts (`flush`) write the queue first, so nothing is lost on a clean stop and a key's owner
//! always sees every call it answered; a kill -9 can lose at most the last second of counts.

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::store::{self, Hit};
use crate::db::Db;
use crate::error::ApiError;

/// How long a count may wait in memory before it is written.
pub const FLUSH_INTERVAL: Duration = Duration::from_secs(1);
const MAX_BATCH: usize = 65_536;
const MAX_KNOWN_IPS: usize = 100_000;

enum Message {
    Hit(Hit),
    /// Write everything queued so far, then answer whether it was written.
    Flush(oneshot::Sender<bool>),
}

#[derive(Clone)]
pub struct UsageLog {
    queue: mpsc::Sender<Message>,
}

impl UsageLog {
    /// Starts the writer thread. It writes what is left and ends when every handle is dropped.
    pub fn start(db: Db, ip_secret: [u8; 32]) -> Self {
        let (queue, incoming) = mpsc::channel::<Message>();
        let writer = move || {
            let mut writer = Writer { db, ip_secret, known_ips: HashSet::new(), hits: Vec::new() };
            let mut deadline = Instant::now();
            loop {
                let message = if writer.hits.is_empty() {
                    match incoming.recv() {
                        Ok(m) => m,
                        Err(_) => break,
                    }
                } else {
                    match incoming.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                        Ok(m) => m,
                        Err(RecvTimeoutError::Timeout) => {
                            writer.write();
                            continue;
                        }
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                };
                match message {
                    Message::Hit(hit) => {
                        if writer.hits.is_empty() {
                            deadline = Instant::now() + FLUSH_INTERVAL;
                        }
                        writer.hits.push(hit);
                        if writer.hits.len() >= MAX_BATCH {
                            writer.write();
                        }
                    }
                    Message::Flush(done) => {
                        let _ = done.send(writer.write());
                    }
                }
            }
            writer.write();
        };
        std::thread::Builder::new().name("api-key-usage".into()).spawn(writer).expect("a thread for usage counting");
        Self { queue }
    }

    /// Counts one call (queued; written within `FLUSH_INTERVAL`).
    pub fn record(&self, hit: Hit) -> Result<(), ApiError> {
        self.queue.send(Message::Hit(hit)).map_err(|_| ApiError::unavailable("The server is shutting down."))
    }

    /// Writes every count queued so far; returns once they are committed.
    pub async fn flush(&self) -> Result<(), ApiError> {
        let (done, written) = oneshot::channel();
        self.queue.send(Message::Flush(done)).map_err(|_| ApiError::unavailable("The server is shutting down."))?;
        match written.await {
            Ok(true) => Ok(()),
            _ => Err(ApiError::unavailable("API usage could not be written. Please try again.")),
        }
    }
}

struct Writer {
    db: Db,
    ip_secret: [u8; 32],
    /// The (key, IP) pairs already in api_key_ips, so a returning caller costs no statement.
    known_ips: HashSet<(i64, IpAddr)>,
    hits: Vec<Hit>,
}

impl Writer {
    /// Writes the queued hits; true when there was nothing to write or it was written. Hits that
    /// could not be written are kept for the next try.
    fn write(&mut self) -> bool {
        if self.hits.is_empty() {
            return true;
        }
        if self.known_ips.len() > MAX_KNOWN_IPS {
            self.known_ips.clear();
        }
        let new_ips: Vec<(i64, IpAddr)> = self
            .hits
            .iter()
            .map(|h| (h.key_id, h.ip))
            .filter(|pair| !self.known_ips.contains(pair))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let hits = &self.hits;
        let secret = &self.ip_secret;
        match self.db.write_blocking(|tx| store::record_usage(tx, hits, &new_ips, secret)) {
            Ok(()) => {
                self.known_ips.extend(new_ips);
                self.hits.clear();
                true
            }
            Err(e) => {
                tracing::error!("API key usage not written (kept for the next try): {e}");
                if self.hits.len() > 4 * MAX_BATCH {
                    self.hits.drain(..self.hits.len() / 2);
                }
                false
            }
        }
    }
}
