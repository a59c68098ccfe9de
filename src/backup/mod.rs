//! Backups the server writes by itself, `fanhub restore`, and the data dir lock that keeps a
//! restore away from a live server.
//!
//! A backup is one tar archive, `DATA_DIR/backups/fanhub-YYYYmmdd-HHMMSS.tar`, holding a
//! consistent copy of the database (`fanhub.db`, written by `VACUUM INTO`) and the `uploads/`
//! folder. It is written under a hidden temporary name, synced, and renamed: a final name
//! never holds half a file, even after kill -9. It is written by a thread at the lowest CPU
//! priority, so the site keeps its speed while a large database is copied. Every copy is read from
//! and written to disk, never held in memory, and only starts once its disk has room for it
//! ([`space`]).

pub mod archive;
pub mod download;
pub mod lock;
pub mod restore;
pub mod routes;
pub mod space;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub use archive::BackupInfo;
pub use lock::DataDirLock;

pub use crate::config::{BackupOptions, parse_every};
use crate::db::Db;
use crate::error::ApiError;
use crate::jobs::{JobHandle, Jobs};
use space::NoRoom;

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
    /// How long a database download may go without the client taking any of it before its copy
    /// is closed and removed (`--read-timeout-secs`).
    pub download_idle: Duration,
}

/// Why a backup was not written.
#[derive(Debug)]
pub enum Failure {
    /// Its disk has no room for it; nothing was written.
    NoRoom(NoRoom),
    Failed(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoRoom(no_room) => no_room.fmt(f),
            Self::Failed(why) => f.write_str(why),
        }
    }
}

impl From<String> for Failure {
    fn from(why: String) -> Self {
        Self::Failed(why)
    }
}

impl From<NoRoom> for Failure {
    fn from(no_room: NoRoom) -> Self {
        Self::NoRoom(no_room)
    }
}

impl From<Failure> for ApiError {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::NoRoom(no_room) => no_room.into(),
            Failure::Failed(why) => ApiError::internal(format!("backup failed: {why}")),
        }
    }
}

/// Writes a consistent copy of the live database to `dest` (SQLite `VACUUM INTO`, from disk to
/// disk) once `dest`'s disk has room for the copy and [`space::RESERVE`]. Blocking.
pub fn copy_database(db: &Db, dest: &Path) -> Result<(), Failure> {
    let described = |e: ApiError| e.internal.unwrap_or(e.body.error);
    let bytes = db.read_blocking(|c| Ok(crate::db::copy_bytes(c)?)).map_err(|e| Failure::Failed(described(e)))?;
    let dir = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    space::ensure_room(dir, bytes)?;
    db.backup_to(dest).map_err(|e| {
        if e.is_out_of_space() {
            let free = crate::disk::free_bytes(dir).unwrap_or(0);
            return Failure::NoRoom(NoRoom { dir: dir.to_owned(), needed: bytes + space::RESERVE, free });
        }
        Failure::Failed(format!("database copy failed: {}", described(e)))
    })
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
    /// One database download's copy is written at a time (each costs a copy's disk and a core).
    copying: tokio::sync::Mutex<()>,
    _lock: DataDirLock,
}

impl Backups {
    /// Takes the data dir's shared lock (several servers may share a dir; a restore may not).
    pub fn open(data_dir: &Path, options: BackupOptions) -> Result<Self, String> {
        let lock = DataDirLock::shared(data_dir)?;
        Ok(Self {
            dir: data_dir.join("backups"),
            options,
            writing: Default::default(),
            copying: Default::default(),
            _lock: lock,
        })
    }

    /// Writes one archive now and prunes the oldest beyond `--backup-keep`. `None`: one is
    /// being written already.
    pub async fn run_now(&self, db: &Db, data_dir: &Path) -> Option<Result<BackupInfo, Failure>> {
        let _writing = self.writing.try_lock().ok()?;
        let (db, data_dir, dir, keep) = (db.clone(), data_dir.to_owned(), self.dir.clone(), self.options.backup_keep);
        let result = on_backup_thread(move || {
            let info = archive::write(&db, &data_dir, &dir)?;
            let pruned = archive::prune(&dir, keep as usize)?;
            Ok((info, pruned))
        })
        .await
        .and_then(|result| result);
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

/// Runs `work` on a thread of its own at the lowest CPU priority (not the blocking pool: its
/// priority is lowered for good) and waits for its answer.
async fn on_backup_thread<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, Failure> {
    let (answer, answered) = tokio::sync::oneshot::channel();
    let worker = move || {
        lowest_priority();
        let _ = answer.send(work());
    };
    std::thread::Builder::new()
        .name("backup".into())
        .spawn(worker)
        .map_err(|e| Failure::Failed(format!("cannot start the backup thread: {e}")))?;
    answered.await.map_err(|_| Failure::Failed("the backup thread ended without an answer".into()))
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
