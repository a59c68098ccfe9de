//! The Roblox tables' sweep: cached answers past their longest lifetime and badge days past
//! `[retention] badge_days`, pruned in small batches on their time indexes. It runs on its own
//! clock, so a Roblox that stops answering (no poll succeeds) still has its old rows pruned.

use std::time::Duration;

use super::{Roblox, store};
use crate::db::now_ms;
use crate::db::retention::{PRUNE_BATCH, RetentionSettings, days_ms};
use crate::error::ApiError;
use crate::jobs::JobHandle;

/// How often the sweep runs (its first run is at start).
const SWEEP_EVERY: Duration = Duration::from_secs(3600);
/// Cached answers are kept at least this long, whatever the shortest lifetime: the awards are
/// read again within it when their lifetime is shorter.
const CACHE_KEPT_AT_LEAST_MS: i64 = 7 * 86_400_000;

pub async fn run(roblox: Roblox, retention: RetentionSettings, job: JobHandle) {
    crate::jobs::every(SWEEP_EVERY, None, move || {
        let (roblox, retention, job) = (roblox.clone(), retention.clone(), job.clone());
        async move {
            job.started();
            match job.report(sweep(&roblox, &retention).await) {
                Ok(0) => {}
                Ok(n) => tracing::info!("removed {n} old Roblox answers and badge days"),
                Err(e) if e.is_out_of_space() => {}
                Err(e) => tracing::warn!("old Roblox rows not removed: {e}"),
            }
        }
    })
    .await
}

async fn sweep(roblox: &Roblox, retention: &RetentionSettings) -> Result<usize, ApiError> {
    let now = now_ms();
    let cache_before = now - roblox.awards_ttl_ms().max(CACHE_KEPT_AT_LEAST_MS);
    let cache = roblox.db.prune_in_batches(move |tx| store::prune_cache(tx, cache_before, PRUNE_BATCH)).await?;
    let days_before = store::utc_day(now - days_ms(retention.badge_days));
    let days = roblox.db.prune_in_batches(move |tx| store::prune_badge_days(tx, &days_before, PRUNE_BATCH)).await?;
    Ok(cache + days)
}
