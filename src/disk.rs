//! Whether the data dir's disk has run out of space. A write that fails for want of space
//! (SQLite's SQLITE_FULL, ENOSPC or EDQUOT from a file write) marks the disk full; the next
//! write that succeeds, or the health task's probe finding room again, marks it writable. Each
//! change is logged once, so a full disk gives one warning however many requests it refuses.
//!
//! Process-wide: the error conversions that notice it (`From<rusqlite::Error>`, `From<io::Error>`)
//! have no request state to carry it, and one process serves one data dir.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use tokio::sync::Notify;

/// The data dir's disk as the server's own writes find it.
pub static DATA_DISK: DiskSpace = DiskSpace::new();

/// Bytes the health task writes (and removes) to learn whether space has come back.
const PROBE_BYTES: usize = 64 * 1024;

pub struct DiskSpace {
    full: AtomicBool,
    /// When the disk was found full (ms since the epoch; 0 while it is not).
    since_ms: AtomicI64,
    /// Wakes the health task so `/api/health` changes at once.
    pub changed: Notify,
}

impl DiskSpace {
    pub const fn new() -> Self {
        Self { full: AtomicBool::new(false), since_ms: AtomicI64::new(0), changed: Notify::const_new() }
    }

    /// A write failed for want of space (`what` says which, for the one log line).
    pub fn ran_out(&self, what: &str) {
        if !self.full.swap(true, Ordering::Relaxed) {
            self.since_ms.store(crate::time::now_ms(), Ordering::Relaxed);
            tracing::warn!(
                "the data dir's disk is full ({what}): writes answer 507 and save nothing until space is freed; reads go on"
            );
            self.changed.notify_one();
        }
    }

    /// A write succeeded: there is room again.
    pub fn has_room(&self) {
        // A plain load first: this runs after every committed write.
        if self.full.load(Ordering::Relaxed) && self.full.swap(false, Ordering::Relaxed) {
            self.since_ms.store(0, Ordering::Relaxed);
            tracing::info!("the data dir's disk has space again: writes are saved again");
            self.changed.notify_one();
        }
    }

    pub fn is_full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }

    /// RFC 3339 time since which the disk is full, if it is.
    pub fn full_since(&self) -> Option<String> {
        let ms = self.since_ms.load(Ordering::Relaxed);
        (self.is_full() && ms > 0).then(|| crate::time::rfc3339(ms))
    }

    /// While the disk is marked full, writes a probe file into `dir` (and removes it) to learn
    /// whether space has come back even when no request writes. Blocking.
    pub fn probe(&self, dir: &Path) {
        if !self.is_full() {
            return;
        }
        let probe = dir.join(".space-probe");
        let written = std::fs::write(&probe, vec![0u8; PROBE_BYTES]).and_then(|()| {
            std::fs::File::open(&probe)?.sync_all()?;
            Ok(())
        });
        let _ = std::fs::remove_file(&probe);
        if written.is_ok() {
            self.has_room();
        }
    }
}

impl Default for DiskSpace {
    fn default() -> Self {
        Self::new()
    }
}

/// ENOSPC (no space left) or EDQUOT (the user's quota is used up).
pub fn io_out_of_space(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded)
        || matches!(e.raw_os_error(), Some(code) if code == libc::ENOSPC || code == libc::EDQUOT)
}

/// SQLITE_FULL: SQLite could not grow the database or its WAL.
pub fn sqlite_out_of_space(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull)
}

/// Free bytes for an unprivileged user on the file system holding `dir`.
#[cfg(unix)]
pub fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "NUL in path"))?;
    // SAFETY: statvfs only writes into the zeroed struct we own; c_path is a valid C string.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut stat) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

#[cfg(not(unix))]
pub fn free_bytes(_dir: &Path) -> std::io::Result<u64> {
    Err(std::io::Error::other("not measured on this system"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_space_is_told_from_other_failures() {
        assert!(io_out_of_space(&std::io::Error::from_raw_os_error(libc::ENOSPC)));
        assert!(io_out_of_space(&std::io::Error::from_raw_os_error(libc::EDQUOT)));
        assert!(!io_out_of_space(&std::io::Error::from_raw_os_error(libc::EACCES)));
        let full = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL), None);
        assert!(sqlite_out_of_space(&full));
        let busy = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY), None);
        assert!(!sqlite_out_of_space(&busy));
    }

    #[test]
    fn the_flag_changes_once_per_episode_and_a_probe_clears_it() {
        let disk = DiskSpace::new();
        assert!(!disk.is_full() && disk.full_since().is_none());
        disk.ran_out("a test");
        let since = disk.full_since().expect("full");
        disk.ran_out("a test again");
        assert_eq!(disk.full_since(), Some(since), "a second failure keeps the first time");
        let dir = tempfile::tempdir().unwrap();
        disk.probe(dir.path());
        assert!(!disk.is_full(), "a probe that could write clears the flag");
        assert!(!dir.path().join(".space-probe").exists());
        disk.ran_out("again");
        disk.has_room();
        assert!(!disk.is_full());
    }
}
