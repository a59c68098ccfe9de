//! The scans' sweep: each group keeps its newest `[retention] scans_per_group` finished scans
//! with their members (a rescan stores every member again), and closed abuse reports go
//! `[retention] resolved_reports_days` after their resolution. Members go in small batches,
//! then their emptied scan; the writer is never held for more than a batch.

use std::time::Duration;

use super::{ScansState, store};
use crate::db::now_ms;
use crate::db::retention::{PRUNE_BATCH, RetentionSettings, days_ms};
use crate::error::ApiError;
use crate::jobs::JobHandle;

/// How often the sweep runs (its first run is at start).
const SWEEP_EVERY: Duration = Duration::from_secs(3600);
/// Scans removed per run at most; a backlog goes over the next runs.
const SCANS_PER_SWEEP: u32 = 20;

pub async fn run(state: ScansState, retention: RetentionSettings, job: JobHandle) {
    crate::jobs::every(SWEEP_EVERY, None, move || {
        let (state, retention, job) = (state.clone(), retention.clone(), job.clone());
        async move {
            job.started();
            match job.report(sweep(&state, &retention).await) {
                Ok((0, 0)) => {}
                Ok((scans, reports)) => tracing::info!("removed {scans} old scans and {reports} closed reports"),
                Err(e) if e.is_out_of_space() => {}
                Err(e) => tracing::warn!("old scans not removed: {e}"),
            }
        }
    })
    .await
}

/// Returns the scans and the reports removed.
pub async fn sweep(state: &ScansState, retention: &RetentionSettings) -> Result<(usize, usize), ApiError> {
    let keep = retention.scans_per_group;
    let announcing = state.settings.webhook.is_some();
    let old = state.db.read(move |c| store::prunable_scans(c, keep, announcing, SCANS_PER_SWEEP)).await?;
    let mut scans = 0;
    for id in old {
        state.db.prune_in_batches(move |tx| store::prune_scan_members(tx, id, PRUNE_BATCH)).await?;
        if state.db.write(move |tx| store::delete_emptied_scan(tx, id)).await? {
            scans += 1;
        }
    }
    let closed_before = now_ms() - days_ms(retention.resolved_reports_days);
    let reports =
        state.db.prune_in_batches(move |tx| store::prune_closed_reports(tx, closed_before, PRUNE_BATCH)).await?;
    Ok((scans, reports))
}
