//! SQLite storage: one writer connection and a few read-only readers, used from blocking
//! threads so the async workers never wait on disk. WAL mode; `synchronous=NORMAL` keeps every
//! committed transaction across a process kill (only a power cut can lose the last ones).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OpenFlags};

use crate::error::ApiError;

pub mod integrity;
mod migrations;
pub mod retention;
pub mod settings;
mod sql_log;
pub mod table_counts;

pub use migrations::{LATEST_VERSION, MigrationError};

const MAX_IDLE_READERS: usize = 8;

/// `PRAGMA application_id` of a fanhub database ("FhB1"), so `fanhub restore` can tell it
/// from another program's SQLite file.
pub const APPLICATION_ID: u32 = 0x4668_4231;

/// How the connections are used right now (for /metrics).
#[derive(Clone, Copy, Debug, Default)]
pub struct PoolStats {
    pub readers_busy: usize,
    pub readers_idle: usize,
    pub writer_busy: usize,
    pub writes_waiting: usize,
}

/// Decrements a usage gauge when the work it counts ends, however it ends.
struct InUse<'a>(&'a AtomicUsize);

impl<'a> InUse<'a> {
    fn enter(gauge: &'a AtomicUsize) -> Self {
        gauge.fetch_add(1, Ordering::Relaxed);
        Self(gauge)
    }
}

impl Drop for InUse<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[derive(Clone)]
pub struct Db {
    inner: Arc<DbInner>,
}

struct DbInner {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
    checkpointer: Mutex<Option<Connection>>,
    readers_busy: AtomicUsize,
    writer_busy: AtomicUsize,
    writes_waiting: AtomicUsize,
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    sql_log::install(conn);
    // No commit on any connection checkpoints by itself: the disk syncs of a checkpoint would land
    // on whichever request committed, and under Litestream (`--litestream`) only Litestream may
    // checkpoint (a checkpoint between two of its syncs makes it miss WAL pages and take a new
    // full snapshot). `checkpoint_passive` does that work in the background instead.
    conn.pragma_update(None, "wal_autocheckpoint", 0)?;
    Ok(())
}

/// Pages freed by pruning are kept in the file's free list until [`Db::return_free_pages`] hands
/// them back in small steps, instead of the file keeping its largest size for ever.
fn incremental_auto_vacuum(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")
}

/// SQLite's `auto_vacuum` of the file: 0 none, 1 full, 2 incremental.
pub fn auto_vacuum_mode(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "auto_vacuum", |r| r.get(0))
}

/// A database made before fanhub turned on incremental vacuum is rewritten once (SQLite can only
/// change the mode with a VACUUM, outside a transaction), with its progress in the log. It needs
/// free disk about twice the file; when that fails the site starts all the same and tries again
/// at the next start (pruning still makes room inside the file, it just does not shrink it).
fn upgrade_to_incremental_vacuum(conn: &mut Connection, path: &Path) {
    match auto_vacuum_mode(conn) {
        Ok(2) => return,
        Ok(_) => {}
        Err(e) => {
            tracing::warn!("cannot read the database's auto_vacuum mode: {e}");
            return;
        }
    }
    let size_mb = std::fs::metadata(path).map(|m| m.len() / 1_000_000).unwrap_or(0);
    tracing::info!(
        "one-time upgrade: rewriting the database ({size_mb} MB) so that space freed by pruning goes back to the disk"
    );
    let started = std::time::Instant::now();
    let wal = path.with_file_name(format!("{}-wal", path.file_name().and_then(|n| n.to_str()).unwrap_or("fanhub.db")));
    // VACUUM builds the new file aside, then writes it through the WAL: a line every 5 s says how
    // far that is, so a host watching the log sees the upgrade move.
    let rewritten = std::thread::scope(|scope| {
        let vacuuming = &mut *conn;
        let vacuum = scope.spawn(move || vacuuming.execute_batch("VACUUM").map_err(|e| e.to_string()));
        let mut last_line = std::time::Instant::now();
        while !vacuum.is_finished() {
            std::thread::sleep(std::time::Duration::from_millis(100));
            if last_line.elapsed() >= std::time::Duration::from_secs(5) {
                last_line = std::time::Instant::now();
                let written_mb = std::fs::metadata(&wal).map(|m| m.len() / 1_000_000).unwrap_or(0);
                tracing::info!(
                    "one-time upgrade: still rewriting the database ({} s, {written_mb} of about {size_mb} MB written)",
                    started.elapsed().as_secs()
                );
            }
        }
        vacuum.join().unwrap_or_else(|_| Err("the VACUUM thread panicked".into()))
    });
    match rewritten {
        Ok(()) => {
            // The rewrite went through the WAL: fold it back and give its space back at once.
            if let Err(e) = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)") {
                tracing::warn!("one-time upgrade: the WAL was not truncated: {e}");
            }
            let after_mb = std::fs::metadata(path).map(|m| m.len() / 1_000_000).unwrap_or(0);
            tracing::info!(
                "one-time upgrade done in {:.1} s: the database is {after_mb} MB and returns freed space from now on",
                started.elapsed().as_secs_f64()
            );
        }
        Err(e) => tracing::warn!(
            "one-time upgrade not done (tried again at the next start; it needs free disk about twice the database): {e}"
        ),
    }
}

fn open_reader(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    configure(&conn)?;
    conn.pragma_update(None, "query_only", "ON")?;
    Ok(conn)
}

impl Db {
    /// Opens (creating if needed) the database and applies pending migrations.
    pub fn open(path: &Path) -> Result<Self, MigrationError> {
        let mut writer = Connection::open(path).map_err(MigrationError::Open)?;
        // Before anything is written: a new file gets it at once, an existing one at its VACUUM.
        incremental_auto_vacuum(&writer).map_err(MigrationError::Open)?;
        configure(&writer).map_err(MigrationError::Open)?;
        migrations::apply(&mut writer)?;
        upgrade_to_incremental_vacuum(&mut writer, path);
        table_counts::keep_counted(&writer).map_err(MigrationError::Open)?;
        let app_id: u32 =
            writer.pragma_query_value(None, "application_id", |r| r.get(0)).map_err(MigrationError::Open)?;
        if app_id == 0 {
            writer.pragma_update(None, "application_id", APPLICATION_ID).map_err(MigrationError::Open)?;
        }
        Ok(Self {
            inner: Arc::new(DbInner {
                path: path.to_owned(),
                writer: Mutex::new(writer),
                readers: Mutex::new(Vec::new()),
                checkpointer: Mutex::new(None),
                readers_busy: AtomicUsize::new(0),
                writer_busy: AtomicUsize::new(0),
                writes_waiting: AtomicUsize::new(0),
            }),
        })
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `f` on a read-only connection on a blocking thread.
    pub async fn read<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, ApiError> + Send + 'static,
    {
        let db = self.clone();
        run_blocking(move || db.read_blocking(f)).await
    }

    pub fn read_blocking<T>(&self, f: impl FnOnce(&Connection) -> Result<T, ApiError>) -> Result<T, ApiError> {
        let _busy = InUse::enter(&self.inner.readers_busy);
        let conn = self.inner.readers.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let conn = match conn {
            Some(c) => c,
            None => open_reader(&self.inner.path)?,
        };
        let result = f(&conn);
        let mut readers = self.inner.readers.lock().unwrap_or_else(|p| p.into_inner());
        if readers.len() < MAX_IDLE_READERS {
            readers.push(conn);
        }
        result
    }

    /// Runs `f` inside one immediate transaction on the writer, on a blocking thread.
    /// The transaction commits only when `f` returns Ok.
    pub async fn write<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction) -> Result<T, ApiError> + Send + 'static,
    {
        let db = self.clone();
        run_blocking(move || db.write_blocking(f)).await
    }

    pub fn write_blocking<T>(
        &self,
        f: impl FnOnce(&rusqlite::Transaction) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let waiting = InUse::enter(&self.inner.writes_waiting);
        let mut conn = self.inner.writer.lock().unwrap_or_else(|p| p.into_inner());
        drop(waiting);
        let _busy = InUse::enter(&self.inner.writer_busy);
        let changes_before = conn.total_changes();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let value = f(&tx)?;
        tx.commit()?;
        // Only a commit that changed rows wrote to the disk; an empty one proves nothing about space.
        if conn.total_changes() != changes_before {
            crate::disk::DATA_DISK.has_room();
        }
        Ok(value)
    }

    pub fn pool_stats(&self) -> PoolStats {
        PoolStats {
            readers_busy: self.inner.readers_busy.load(Ordering::Relaxed),
            readers_idle: self.inner.readers.lock().unwrap_or_else(|p| p.into_inner()).len(),
            writer_busy: self.inner.writer_busy.load(Ordering::Relaxed),
            writes_waiting: self.inner.writes_waiting.load(Ordering::Relaxed),
        }
    }

    /// Writes a consistent copy of the database to `dest` (a new file, written under a temporary
    /// name and renamed into place). Safe while the site is serving.
    pub fn backup_to(&self, dest: &Path) -> Result<(), ApiError> {
        // VACUUM INTO writes the destination, so it needs a connection that is not query_only.
        let conn = Connection::open_with_flags(&self.inner.path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
        configure(&conn)?;
        backup_connection_to(&conn, dest)
    }

    /// Copies what the WAL holds into the database file without holding up readers or writers
    /// (every second, from a background task).
    /// Returns the WAL's frames and how many of them are now in the database file.
    pub fn checkpoint_passive(&self) -> Result<(i64, i64), ApiError> {
        let mut slot = self.inner.checkpointer.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            let conn = Connection::open(&self.inner.path)?;
            configure(&conn)?;
            *slot = Some(conn);
        }
        let conn = slot.as_ref().ok_or_else(|| ApiError::internal("no checkpoint connection"))?;
        Ok(conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| Ok((r.get(1)?, r.get(2)?)))?)
    }

    /// Hands pages in the file's free list (left by pruning) back to the file system:
    /// `pages_per_step` pages per write, each its own short transaction, at most `max_steps`
    /// steps. Returns the pages returned.
    pub fn return_free_pages(&self, pages_per_step: u32, max_steps: usize) -> Result<i64, ApiError> {
        let free = |c: &Connection| -> Result<i64, ApiError> {
            Ok(c.pragma_query_value(None, "freelist_count", |r| r.get(0))?)
        };
        let before = self.read_blocking(free)?;
        let mut left = before;
        for _ in 0..max_steps {
            if left == 0 {
                break;
            }
            left = self.write_blocking(|tx| {
                // The pragma frees one page per step of its statement: stepped to its end.
                let mut vacuum = tx.prepare(&format!("PRAGMA incremental_vacuum({pages_per_step})"))?;
                let mut steps = vacuum.query([])?;
                while steps.next()?.is_some() {}
                drop(steps);
                drop(vacuum);
                free(tx)
            })?;
        }
        Ok(before - left)
    }

    /// Folds the WAL back into the main file (on shutdown).
    pub fn checkpoint(&self) {
        let conn = self.inner.writer.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);") {
            tracing::warn!("WAL checkpoint failed: {e}");
        }
    }
}

pub fn backup_connection_to(conn: &Connection, dest: &Path) -> Result<(), ApiError> {
    let dir = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.partial-{}",
        dest.file_name().and_then(|n| n.to_str()).unwrap_or("backup"),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&tmp);
    let tmp_str = tmp.to_str().ok_or_else(|| ApiError::internal("backup path is not UTF-8"))?;
    conn.execute("VACUUM INTO ?1", [tmp_str])?;
    std::fs::rename(&tmp, dest).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        ApiError::internal(format!("backup rename: {e}"))
    })?;
    settings::set(conn, LAST_BACKUP_SETTING, &rfc3339(now_ms()))
}

const LAST_BACKUP_SETTING: &str = "last_backup";

/// About the bytes a copy of the database written by `VACUUM INTO` takes: the pages in use (free
/// pages are left out of a copy), as this connection sees the database, WAL included.
pub fn copy_bytes(conn: &Connection) -> rusqlite::Result<u64> {
    let pages: i64 = conn.pragma_query_value(None, "page_count", |r| r.get(0))?;
    let free: i64 = conn.pragma_query_value(None, "freelist_count", |r| r.get(0))?;
    let page_size: i64 = conn.pragma_query_value(None, "page_size", |r| r.get(0))?;
    Ok(((pages - free).max(0) as u64).saturating_mul(page_size.max(0) as u64))
}

/// What the public database check reports: the schema and the file, read from pragmas (cheap:
/// no table is scanned, nothing about accounts, sessions or backups).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseHealth {
    pub schema_version: i64,
    pub latest_schema_version: i64,
    /// The database file's size in bytes (pages in use and free), without the WAL.
    pub size_bytes: i64,
    pub journal_mode: String,
}

/// What the admin's database check reports: the public part, rows per table and the last backup.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseStatus {
    #[serde(flatten)]
    pub health: DatabaseHealth,
    /// Rows per table.
    #[schema(value_type = std::collections::BTreeMap<String, i64>)]
    pub tables: std::collections::BTreeMap<String, i64>,
    /// When the last backup was written (admin panel or `fanhub backup`), if ever.
    #[schema(format = DateTime)]
    pub last_backup: Option<String>,
}

pub fn health(conn: &Connection) -> Result<DatabaseHealth, ApiError> {
    let schema_version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let page_count: i64 = conn.pragma_query_value(None, "page_count", |r| r.get(0))?;
    let page_size: i64 = conn.pragma_query_value(None, "page_size", |r| r.get(0))?;
    let journal_mode: String = conn.pragma_query_value(None, "journal_mode", |r| r.get(0))?;
    Ok(DatabaseHealth {
        schema_version,
        latest_schema_version: LATEST_VERSION,
        size_bytes: page_count * page_size,
        journal_mode,
    })
}

pub fn status(conn: &Connection) -> Result<DatabaseStatus, ApiError> {
    // Kept by triggers (`table_counts`): a count over a year's tables took half a second.
    let tables = table_counts::counts(conn)?;
    Ok(DatabaseStatus { health: health(conn)?, tables, last_backup: settings::get(conn, LAST_BACKUP_SETTING)? })
}

async fn run_blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ApiError::internal(format!("blocking task: {e}")))?
}

pub use crate::time::{now_ms, rfc3339};

/// SQLite's `PRAGMA quick_check`: "ok", or the first problem it found.
pub fn quick_check(conn: &Connection) -> rusqlite::Result<String> {
    conn.query_row("PRAGMA quick_check", [], |r| r.get(0))
}

/// How many tables, indexes, views and triggers the schema holds (reading it proves the file is a
/// database whose schema SQLite can parse, without reading its tables).
pub fn schema_objects(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT COUNT(*) FROM sqlite_schema", [], |r| r.get(0))
}

/// Whether SQLite answers at all (the cheapest statement).
pub fn answers(conn: &Connection) -> rusqlite::Result<()> {
    conn.query_row("SELECT 1", [], |r| r.get::<_, i64>(0)).map(|_| ())
}

/// Whether the database has a table of this name.
pub fn has_table(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1", [name], |r| {
        r.get::<_, i64>(0)
    })
    .map(|n| n > 0)
}

/// The database file in a data dir.
pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join("fanhub.db")
}

/// A migrated database in a temporary directory (SQLite's WAL needs a file), for store tests.
#[cfg(test)]
pub fn open_for_tests() -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let mut conn = Connection::open(dir.path().join("test.db")).unwrap();
    incremental_auto_vacuum(&conn).unwrap();
    migrations::apply(&mut conn).unwrap();
    table_counts::keep_counted(&conn).unwrap();
    (dir, conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(db: &Db, pragma: &'static str) -> i64 {
        db.read_blocking(|c| Ok(c.pragma_query_value(None, pragma, |r| r.get(0))?)).unwrap()
    }

    #[test]
    fn a_new_database_hands_pruned_pages_back_in_steps() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("v.db")).unwrap();
        assert_eq!(db.read_blocking(|c| Ok(auto_vacuum_mode(c)?)).unwrap(), 2, "incremental from the first table");
        for i in 0..300 {
            db.write_blocking(|tx| settings::set(tx, &format!("k{i}"), &"x".repeat(3000))).unwrap();
        }
        db.write_blocking(|tx| Ok(tx.execute("DELETE FROM settings WHERE key LIKE 'k%'", [])?)).unwrap();
        let (size, free) = (pages(&db, "page_count"), pages(&db, "freelist_count"));
        assert!(free >= 250, "the deleted rows' pages are free: {free}");
        assert_eq!(db.return_free_pages(16, 2).unwrap(), 32, "two steps of 16 pages");
        assert_eq!(pages(&db, "page_count"), size - 32);
        assert_eq!(db.return_free_pages(64, 1000).unwrap(), free - 32, "the rest, then nothing to do");
        assert_eq!((pages(&db, "freelist_count"), pages(&db, "page_count")), (0, size - free));
        assert_eq!(db.return_free_pages(64, 1000).unwrap(), 0);
        assert_eq!(db.read_blocking(|c| Ok(quick_check(c)?)).unwrap(), "ok");
    }

    #[test]
    fn an_existing_database_is_rewritten_once_for_incremental_vacuum() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema/v17_0017_follows.db");
        let dir = tempfile::tempdir().unwrap();
        let path = database_path(dir.path());
        std::fs::copy(fixture, &path).unwrap();
        let count = |c: &Connection| -> (i64, i64) {
            c.query_row("SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM players)", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap()
        };
        let (before, mode) = {
            let c = Connection::open(&path).unwrap();
            (count(&c), auto_vacuum_mode(&c).unwrap())
        };
        assert_eq!(mode, 0, "the fixture was written without auto_vacuum");
        let db = Db::open(&path).unwrap();
        db.read_blocking(|c| {
            assert_eq!(auto_vacuum_mode(c)?, 2);
            assert_eq!(count(c), before, "every row is still there");
            assert_eq!(quick_check(c)?, "ok");
            Ok(())
        })
        .unwrap();
        drop(db);
        let wal = std::fs::metadata(path.with_file_name("fanhub.db-wal")).map(|m| m.len()).unwrap_or(0);
        assert_eq!(wal, 0, "the rewrite's WAL was folded back and truncated");
        assert!(!has_table(&Connection::open(&path).unwrap(), "badge_snapshots").unwrap(), "0019 dropped it");
        drop(Db::open(&path).unwrap());
    }

    #[test]
    fn commits_leave_checkpoints_to_the_background() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("c.db")).unwrap();
        // SQLite's own checkpoint would restart the WAL after 1,000 pages; these commits write more.
        for i in 0..1200 {
            db.write_blocking(|tx| settings::set(tx, &format!("k{i}"), &"x".repeat(3000))).unwrap();
        }
        let (frames, copied) = db.checkpoint_passive().unwrap();
        assert!(frames > 1000, "commits checkpointed by themselves: only {frames} frames in the WAL");
        assert_eq!(copied, frames);
        assert_eq!(db.read_blocking(|c| settings::get::<String>(c, "k1199")).unwrap().unwrap().len(), 3000);
    }
}
