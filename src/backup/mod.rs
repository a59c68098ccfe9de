//! Backups the server writes by itself, `fanhub restore`, and the data dir lock that keeps a
//! restore away from a live server.
//!
//! A backup is one tar archive, `DATA_DIR/backups/fanhub-YYYYmmdd-HHMMSS.tar`, holding a
//! consistent copy of the database (`fanhub.db`, written by `VACUUM INTO`) and the `uploads/`
//! folder. It is written under a hidden temporary name, synced, and renamed: a final name
//! never holds half a file, even after kill -9. It is written by a thread at the lowest CPU
//! priority, so the site keeps its speed while a large database is copied.

pub mod archive;
pub mod lock;
pub mod restore;
pub mod routes;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use archive::BackupInfo;
pub use lock::DataDirLock;

pub use crate::config::{BackupOptions, parse_every};
use crate::db::Db;
use crate::jobs::{JobHandle, Jobs};

/// The job's name in [`Jobs`] (and in /metrics).
pub const JOB: &str = "backup";

/// What the backup routes and the schedule use: the archives, the database and data dir they copy,
/// and the jobs registry the backup job reports to.
#[derive(Clone)]
pub struct BackupState {
    /// The admin check (with the host's second-factor policy).
    pub admin_gate: crate::accounts::guard::AdminGate,
    pub backups: Arc<Backups>,
    pub db: Db,
    pub data_dir: Arc<Path>,
    pub jobs: Jobs,
}

/// Shown in the admin panel: `86400` seconds as `24h`.
pub fn format_every(every: Duration) -> String {
    let mut secs = every.as_secs();
    let mut out = String::new();
    for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)] {
        if secs >= size {
            out.push_str(&format!("{}{unit}", secs / size));
            secs %= size;
        }
    }
    out
}

/// What the server holds for backups: the data dir lock (released by the kernel when the
/// process dies, so a crashed server never blocks `fanhub restore`) and one-at-a-time writing.
pub struct Backups {
    pub dir: PathBuf,
    pub options: BackupOptions,
    writing: tokio::sync::Mutex<()>,
    _lock: DataDirLock,
}

impl Backups {
    /// Takes the data dir's shared lock (several servers may share a dir; a restore may not).
    pub fn open(data_dir: &Path, options: BackupOptions) -> Result<Self, String> {
        let lock = DataDirLock::shared(data_dir)?;
        Ok(Self { dir: data_dir.join("backups"), options, writing: Default::default(), _lock: lock })
    }

    /// Writes one archive now and prunes the oldest beyond `--backup-keep`. `None`: one is
    /// being written already.
    pub async fn run_now(&self, db: &Db, data_dir: &Path) -> Option<Result<BackupInfo, String>> {
        let _writing = self.writing.try_lock().ok()?;
        let (db, data_dir, dir, keep) = (db.clone(), data_dir.to_owned(), self.dir.clone(), self.options.backup_keep);
        let (answer, answered) = tokio::sync::oneshot::channel();
        let writer = move || {
            lowest_priority();
            let result = archive::write(&db, &data_dir, &dir)
                .and_then(|info| archive::prune(&dir, keep as usize).map(|pruned| (info, pruned)));
            let _ = answer.send(result);
        };
        // A thread of its own, not the blocking pool: its priority is lowered for good.
        let result = match std::thread::Builder::new().name("backup".into()).spawn(writer) {
            Ok(_) => answered.await.unwrap_or_else(|_| Err("the backup thread ended without an answer".into())),
            Err(e) => Err(format!("cannot start the backup thread: {e}")),
        };
        Some(result.map(|(info, pruned)| {
            tracing::info!(
                "backup written: {} ({} bytes){}",
                info.name,
                info.size_bytes,
                if pruned.is_empty() { String::new() } else { format!("; removed {}", pruned.join(", ")) }
            );
            info
        }))
    }
}

/// Gives the calling thread the lowest CPU priority (nice 19; on Linux the I/O priority follows),
/// so a backup of a large database takes the cores only when fans' requests leave them idle.
/// Returns the thread's nice value afterwards.
fn lowest_priority() -> i32 {
    // SAFETY: setpriority and getpriority only read their integer arguments; on Linux, `who = 0`
    // with PRIO_PROCESS names the calling thread, whose nice value is its own.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
        libc::getpriority(libc::PRIO_PROCESS, 0)
    }
}

/// How often the WAL is checkpointed into the database file (passive: it never waits on readers).
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// The backups' background work: the scheduled backups when `--backup-every` is set, and the WAL
/// checkpoints unless Litestream (`--litestream`) checkpoints where its replication wants it.
pub fn background(background: &mut crate::jobs::Background, state: BackupState) {
    if state.backups.options.backup_every.is_some() {
        let state = state.clone();
        background.job(JOB, |job| schedule(state, job));
    }
    if state.backups.options.litestream {
        return;
    }
    background.job("wal-checkpoint", |job| {
        crate::jobs::every(CHECKPOINT_EVERY, None, move || {
            let (db, job) = (state.db.clone(), job.clone());
            async move {
                match tokio::task::spawn_blocking(move || db.checkpoint_passive()).await {
                    Ok(Ok(_)) => job.succeeded(),
                    Ok(Err(e)) => {
                        if !e.is_out_of_space() {
                            tracing::warn!("background WAL checkpoint failed: {e}");
                        }
                        job.failed(e);
                    }
                    Err(e) => tracing::warn!("background WAL checkpoint stopped: {e}"),
                }
            }
        })
    });
}

/// The scheduled backups: the first one `--backup-every` after the newest archive (at once
/// when there is none or it is older), then every interval.
pub async fn schedule(state: BackupState, job: JobHandle) {
    let Some(every) = state.backups.options.backup_every else { return };
    let dir = state.backups.dir.clone();
    let newest = tokio::task::spawn_blocking(move || {
        archive::remove_partials(&dir);
        archive::list(&dir).ok().and_then(|l| l.into_iter().next())
    })
    .await
    .ok()
    .flatten();
    let first = match newest.and_then(|b| b.created_at.parse::<jiff::Timestamp>().ok()) {
        Some(at) => {
            let age = jiff::Timestamp::now().as_millisecond().saturating_sub(at.as_millisecond()).max(0) as u64;
            every.saturating_sub(Duration::from_millis(age))
        }
        None => Duration::ZERO,
    };
    tracing::info!(
        "backups every {} into {}, keeping {}",
        format_every(every),
        state.backups.dir.display(),
        state.backups.options.backup_keep
    );
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + first, every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        job.started();
        match state.backups.run_now(&state.db, &state.data_dir).await {
            Some(Ok(_)) => job.succeeded(),
            Some(Err(e)) => {
                tracing::warn!("scheduled backup failed: {e}");
                job.failed(e);
            }
            None => job.succeeded(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backup_thread_runs_at_the_lowest_priority_and_only_it() {
        let nice = std::thread::spawn(lowest_priority).join().unwrap();
        assert_eq!(nice, 19);
        // SAFETY: as in lowest_priority.
        let here = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
        assert!(here < 19, "the test thread keeps its priority: {here}");
    }

    #[test]
    fn intervals_read_like_humantime() {
        assert_eq!(parse_every("24h"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse_every("1d12h"), Ok(Duration::from_secs(129_600)));
        assert_eq!(parse_every("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_every("1w"), Ok(Duration::from_secs(604_800)));
        for bad in ["", "h", "24", "24x", "0s", "-1h", "1.5h", "400d", "99999999999999999999h"] {
            assert!(parse_every(bad).is_err(), "{bad:?} accepted");
        }
        assert_eq!(format_every(Duration::from_secs(129_600)), "1d12h");
    }
}
