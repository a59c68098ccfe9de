//! Usage counting with group commit: each accepted keyed call waits until its count is committed
//! (so a kill -9 after its answer loses nothing), but calls arriving together share one
//! transaction, so a busy API does not write SQLite once per call.

use tokio::sync::{mpsc, oneshot};

use super::store::{self, Hit};
use crate::db::Db;
use crate::error::ApiError;

const MAX_BATCH: usize = 4096;

type Pending = (Hit, oneshot::Sender<bool>);

#[derive(Clone)]
pub struct UsageLog {
    queue: mpsc::UnboundedSender<Pending>,
}

impl UsageLog {
    /// Starts the writer task; it ends when every `UsageLog` handle is dropped.
    pub fn start(db: Db, ip_secret: [u8; 32]) -> Self {
        let (queue, mut incoming) = mpsc::unbounded_channel::<Pending>();
        tokio::spawn(async move {
            while let Some(first) = incoming.recv().await {
                let mut batch = vec![first];
                while batch.len() < MAX_BATCH {
                    match incoming.try_recv() {
                        Ok(next) => batch.push(next),
                        Err(_) => break,
                    }
                }
                let hits: Vec<Hit> = batch.iter().map(|(hit, _)| *hit).collect();
                let written = db.write(move |tx| store::record_usage(tx, &hits, &ip_secret)).await;
                if let Err(e) = &written {
                    tracing::error!("API key usage not written: {e}");
                }
                for (_, done) in batch {
                    let _ = done.send(written.is_ok());
                }
            }
        });
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
