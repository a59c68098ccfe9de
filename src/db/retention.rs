//! How long the tables that grow with use keep their rows (site.toml `[retention]`), and the two
//! tools every feature's sweep uses: pruning in small batches, each its own short write (the
//! writer is never held for more than a batch), and handing the pages pruning freed back to the
//! file system in small steps (`auto_vacuum = INCREMENTAL`, see [`super::Db::return_free_pages`]).

use serde::{Deserialize, Serialize};

use super::Db;
use crate::error::ApiError;

/// Rows one prune statement deletes at most: a few milliseconds of the writer on a small VPS.
pub const PRUNE_BATCH: usize = 500;

/// Batches one sweep of one table deletes at most, so a sweep that finds a year's backlog yields
/// the writer between batches and finishes it over the next sweeps.
pub const MAX_BATCHES_PER_SWEEP: usize = 200;

/// `[retention]` of site.toml: the windows a host may want to change. Every table not named here
/// is bounded by its feature (see README "What the database keeps").
#[derive(Clone, Debug, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RetentionSettings {
    /// Days of each monitored badge's daily figures kept (the 365-day charts and downloads read them).
    pub badge_days: u32,
    /// Finished scans kept per group, newest first, with their members (at least 2: the
    /// scheduled scan's "new since the last scan" compares a scan with the one before).
    pub scans_per_group: u32,
    /// Days the developer API's event feed (`/api/v1/events`) keeps an event.
    pub events_days: u32,
    /// Days a resolved or dismissed abuse report is kept after its resolution.
    pub resolved_reports_days: u32,
}

impl Default for RetentionSettings {
    fn default() -> Self {
        Self { badge_days: 400, scans_per_group: 5, events_days: 90, resolved_reports_days: 180 }
    }
}

impl RetentionSettings {
    /// The windows a site file may not shrink below what a reader needs.
    pub fn validate(&self) -> Result<(), String> {
        if self.badge_days < 366 {
            return Err(format!(
                "[retention] badge_days is {}: the badge history serves up to 365 days (take 366 or more)",
                self.badge_days
            ));
        }
        if self.scans_per_group < 2 {
            return Err(
                "[retention] scans_per_group must be at least 2 (a scan is compared with the one before)".into()
            );
        }
        if self.events_days == 0 || self.resolved_reports_days == 0 {
            return Err("[retention] events_days and resolved_reports_days are days, at least 1".into());
        }
        Ok(())
    }
}

const DAY_MS: i64 = 86_400_000;

/// `days` as milliseconds.
pub fn days_ms(days: u32) -> i64 {
    i64::from(days) * DAY_MS
}

impl Db {
    /// Runs `batch` (one prune statement deleting at most [`PRUNE_BATCH`] rows, returning how
    /// many it deleted) in its own write transaction, again and again until a batch deletes fewer
    /// than a full batch or [`MAX_BATCHES_PER_SWEEP`] have run. Returns the rows deleted.
    pub async fn prune_in_batches<F>(&self, batch: F) -> Result<usize, ApiError>
    where
        F: Fn(&rusqlite::Transaction) -> Result<usize, ApiError> + Clone + Send + 'static,
    {
        let mut total = 0;
        for _ in 0..MAX_BATCHES_PER_SWEEP {
            let one = batch.clone();
            let deleted = self.write(move |tx| one(tx)).await?;
            total += deleted;
            if deleted < PRUNE_BATCH {
                break;
            }
        }
        Ok(total)
    }
}

/// How often the pages pruning freed are handed back to the file system.
const FREE_PAGES_EVERY: std::time::Duration = std::time::Duration::from_secs(600);
/// Pages per step of `PRAGMA incremental_vacuum` (1 MiB of 4 KiB pages): one step holds the
/// writer about as long as a prune batch.
const FREE_PAGES_PER_STEP: u32 = 256;
/// Steps per run: at most 64 MiB a run, the rest at the next.
const FREE_PAGE_STEPS: usize = 64;

/// The database file's background work: the pages the features' sweeps freed go back to the
/// disk every ten minutes, a mebibyte per write.
pub fn background(background: &mut crate::jobs::Background, db: Db) {
    background.job("free-pages", |job| {
        crate::jobs::every(FREE_PAGES_EVERY, None, move || {
            let (db, job) = (db.clone(), job.clone());
            async move {
                let returned =
                    tokio::task::spawn_blocking(move || db.return_free_pages(FREE_PAGES_PER_STEP, FREE_PAGE_STEPS))
                        .await
                        .unwrap_or_else(|e| Err(ApiError::internal(format!("blocking task: {e}"))));
                match job.report(returned) {
                    Ok(0) => {}
                    Ok(pages) => tracing::debug!("returned {pages} free database pages to the disk"),
                    Err(e) if e.is_out_of_space() => {}
                    Err(e) => tracing::warn!("free database pages not returned: {e}"),
                }
            }
        })
    });
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn pruning_runs_batch_after_batch_each_its_own_write_until_one_is_short() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("p.db")).unwrap();
        db.write(|tx| {
            for i in 0..(2 * PRUNE_BATCH + 7) {
                super::super::settings::set(tx, &format!("old{i:05}"), &i)?;
            }
            super::super::settings::set(tx, "kept", &1)
        })
        .await
        .unwrap();
        let batches = Arc::new(AtomicUsize::new(0));
        let counted = batches.clone();
        let deleted = db
            .prune_in_batches(move |tx| {
                counted.fetch_add(1, Ordering::Relaxed);
                assert!(!tx.is_autocommit(), "each batch runs in a transaction");
                Ok(tx.execute(
                    "DELETE FROM settings WHERE key IN (SELECT key FROM settings WHERE key LIKE 'old%' LIMIT ?1)",
                    [PRUNE_BATCH as i64],
                )?)
            })
            .await
            .unwrap();
        assert_eq!((deleted, batches.load(Ordering::Relaxed)), (2 * PRUNE_BATCH + 7, 3));
        let kept: Option<i64> = db.read(|c| super::super::settings::get(c, "kept")).await.unwrap();
        assert_eq!(kept, Some(1));
    }

    #[test]
    fn the_defaults_pass_and_windows_too_short_for_a_reader_are_refused() {
        assert!(RetentionSettings::default().validate().is_ok());
        let short = RetentionSettings { badge_days: 365, ..Default::default() };
        assert!(short.validate().unwrap_err().contains("365 days"));
        let one = RetentionSettings { scans_per_group: 1, ..Default::default() };
        assert!(one.validate().is_err());
        let parsed: RetentionSettings = toml::from_str("scans_per_group = 3").unwrap();
        assert_eq!((parsed.scans_per_group, parsed.badge_days), (3, 400), "unnamed keys keep their defaults");
        assert!(toml::from_str::<RetentionSettings>("snapshots_days = 3").is_err(), "an unknown key is refused");
    }
}
