//! CPU-heavy work (password hashing, decoding and re-encoding uploaded images) runs on blocking
//! threads, at most one job per core beyond the first at a time, so a burst of sign-ins or
//! uploads never takes every core away from the async workers that answer the rest of the site.

use std::sync::Arc;

use tokio::sync::Semaphore;

use crate::error::ApiError;

#[derive(Clone)]
pub struct HeavyWork {
    permits: Arc<Semaphore>,
}

impl HeavyWork {
    pub fn new() -> Self {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        Self { permits: Arc::new(Semaphore::new(cores.saturating_sub(1).max(1))) }
    }

    /// Runs `job` on a blocking thread once a permit is free.
    pub async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
        let _permit = self.permits.acquire().await.map_err(ApiError::internal)?;
        tokio::task::spawn_blocking(job).await.map_err(ApiError::internal)
    }
}

impl Default for HeavyWork {
    fn default() -> Self {
        Self::new()
    }
}
