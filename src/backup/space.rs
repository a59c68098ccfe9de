//! Whether a backup fits on its disk, checked before anything is written: a copy of the database
//! (and, for an archive, the archive beside it) must leave [`RESERVE`] free, so a backup never
//! fills the disk the site writes to.

use std::path::{Path, PathBuf};

use axum::http::StatusCode;

use crate::error::ApiError;

/// Free space a backup leaves for the site's own writes (the WAL, uploads, the logs).
pub const RESERVE: u64 = 64 * 1024 * 1024;

/// A backup that would not fit: what it needs on which disk, and what is free there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoRoom {
    pub dir: PathBuf,
    pub needed: u64,
    pub free: u64,
}

impl std::fmt::Display for NoRoom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "not enough free disk space for a backup: it needs about {} free in {} (the copy and {} kept for the site's own writes) and {} are free",
            size(self.needed),
            self.dir.display(),
            size(RESERVE),
            size(self.free)
        )
    }
}

/// 507 with the reason: the site's writes are not refused (the disk is not marked full).
impl From<NoRoom> for ApiError {
    fn from(no_room: NoRoom) -> Self {
        let mut sentence = no_room.to_string();
        if let Some(first) = sentence.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        ApiError::new(StatusCode::INSUFFICIENT_STORAGE, format!("{sentence}."))
            .with_message("Free space on the server's disk (old archives in backups/ can go), then try again.")
    }
}

/// Checks that `bytes` more fit in `dir` (the nearest existing folder of it) with [`RESERVE`] to spare.
pub fn ensure_room(dir: &Path, bytes: u64) -> Result<(), NoRoom> {
    let measured = dir.ancestors().find(|d| d.is_dir()).unwrap_or(Path::new("."));
    // An unmeasurable disk (not Linux, a failing statvfs) is not refused: the copy's own write
    // errors still stop it.
    let Ok(free) = crate::disk::free_bytes(measured) else { return Ok(()) };
    let needed = bytes.saturating_add(RESERVE);
    if free < needed {
        return Err(NoRoom { dir: dir.to_owned(), needed, free });
    }
    Ok(())
}

/// The bytes of the regular files under `dir` (the uploads an archive carries).
pub fn tree_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => tree_bytes(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

/// `1.2 GiB`, `340 MiB`, `12 KiB`.
fn size(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= 1024 * MIB {
        format!("{:.1} GiB", bytes as f64 / (1024 * MIB) as f64)
    } else if bytes >= MIB {
        format!("{} MiB", bytes.div_ceil(MIB))
    } else {
        format!("{} KiB", bytes.div_ceil(1024))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_must_leave_the_reserve_free() {
        let dir = tempfile::tempdir().unwrap();
        let free = crate::disk::free_bytes(dir.path()).unwrap();
        assert_eq!(ensure_room(dir.path(), 0), Ok(()));
        let refused = ensure_room(&dir.path().join("backups"), free).unwrap_err();
        assert_eq!(refused.needed, free + RESERVE);
        assert!(refused.free <= free + 1024 * 1024, "measured on the existing parent: {refused:?}");
        let text = refused.to_string();
        assert!(text.contains("backups") && text.contains("64 MiB kept"), "{text}");
        let answer = ApiError::from(refused);
        assert_eq!(answer.status, StatusCode::INSUFFICIENT_STORAGE);
        assert!(answer.body.error.starts_with("Not enough free disk space for a backup"), "{}", answer.body.error);
        assert!(!crate::disk::DATA_DISK.is_full(), "a refused backup does not stop the site's writes");
    }

    #[test]
    fn sizes_read_in_the_unit_that_fits() {
        assert_eq!(size(1536), "2 KiB");
        assert_eq!(size(64 * 1024 * 1024), "64 MiB");
        assert_eq!(size(3 * 1024 * 1024 * 1024 / 2), "1.5 GiB");
    }

    #[test]
    fn the_uploads_are_counted_with_their_folders() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ads/2026")).unwrap();
        std::fs::write(dir.path().join("a.png"), [0u8; 100]).unwrap();
        std::fs::write(dir.path().join("ads/2026/b.png"), [0u8; 50]).unwrap();
        assert_eq!(tree_bytes(dir.path()), 150);
        assert_eq!(tree_bytes(&dir.path().join("missing")), 0);
    }
}
