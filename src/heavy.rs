//! CPU-heavy work (password hashing, decoding and re-encoding uploaded images, drawing card
//! pictures) runs on blocking threads, each kind at most one job per core beyond the first at a
//! time, so a burst of one kind never takes every core away from the async workers that answer
//! the rest of the site, nor makes the other kinds wait behind it.

use std::sync::Arc;

use tokio::sync::Semaphore;

use crate::error::ApiError;

/// The kinds of heavy work, each with a bound of its own: a crowd fetching card pictures cannot
/// make sign-ins wait behind it, nor a burst of sign-ins hold back uploads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeavyKind {
    /// Hashing and checking passwords (argon2id).
    Passwords,
    /// Decoding and re-encoding uploaded images (advertisements).
    Uploads,
    /// Drawing the link cards' pictures.
    CardPictures,
}

#[derive(Clone)]
pub struct HeavyWork {
    passwords: Arc<Semaphore>,
    uploads: Arc<Semaphore>,
    card_pictures: Arc<Semaphore>,
}

impl HeavyWork {
    /// Each kind runs at most one job per core beyond the first at a time.
    pub fn new() -> Self {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let bound = || Arc::new(Semaphore::new(cores.saturating_sub(1).max(1)));
        Self { passwords: bound(), uploads: bound(), card_pictures: bound() }
    }

    /// Runs `job` on a blocking thread once a permit of its kind is free.
    pub async fn run<T: Send + 'static>(
        &self,
        kind: HeavyKind,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let permits = match kind {
            HeavyKind::Passwords => &self.passwords,
            HeavyKind::Uploads => &self.uploads,
            HeavyKind::CardPictures => &self.card_pictures,
        };
        let _permit = permits.acquire().await.map_err(ApiError::internal)?;
        tokio::task::spawn_blocking(job).await.map_err(ApiError::internal)
    }
}

impl Default for HeavyWork {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn one_kind_busy_leaves_the_others_free() {
        let work = HeavyWork::new();
        let (release, held) = std::sync::mpsc::channel::<()>();
        let held = Arc::new(std::sync::Mutex::new(held));
        // Every card-picture permit taken by a job that waits until told.
        let mut busy = Vec::new();
        for _ in 0..work.card_pictures.available_permits() {
            let (work, held) = (work.clone(), held.clone());
            busy.push(tokio::spawn(async move {
                work.run(HeavyKind::CardPictures, move || {
                    let _ = held.lock().unwrap().recv_timeout(Duration::from_secs(10));
                })
                .await
            }));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        let hashed = tokio::time::timeout(Duration::from_secs(2), work.run(HeavyKind::Passwords, || 42)).await;
        assert_eq!(hashed.expect("a password waits for no picture").unwrap(), 42);
        let queued = tokio::time::timeout(Duration::from_millis(200), work.run(HeavyKind::CardPictures, || 1)).await;
        assert!(queued.is_err(), "another picture waits for its kind's permit");
        for _ in &busy {
            release.send(()).unwrap();
        }
        for job in busy {
            job.await.unwrap().unwrap();
        }
    }
}
