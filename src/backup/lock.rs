//! `DATA_DIR/fanhub.lock`: a running server holds a shared `flock` on it, a restore an
//! exclusive one. The kernel drops a lock when its process ends, however it ends, so a crashed
//! server never leaves a stale lock behind (the file itself stays; its presence means nothing).

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

pub const LOCK_FILE: &str = "fanhub.lock";

pub struct DataDirLock {
    _file: File,
}

fn open(data_dir: &Path) -> Result<File, String> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(data_dir.join(LOCK_FILE))
        .map_err(|e| format!("cannot open {}: {e}", data_dir.join(LOCK_FILE).display()))
}

impl DataDirLock {
    /// For a server: fails only while a restore holds the dir.
    pub fn shared(data_dir: &Path) -> Result<Self, String> {
        let file = open(data_dir)?;
        match file.try_lock_shared() {
            Ok(()) => Ok(Self { _file: file }),
            Err(TryLockError::WouldBlock) => Err(format!(
                "{} is being restored (fanhub restore holds {LOCK_FILE}); start again when it is done",
                data_dir.display()
            )),
            Err(TryLockError::Error(e)) => Err(format!("cannot lock {}: {e}", data_dir.join(LOCK_FILE).display())),
        }
    }

    /// For a restore: fails while any server uses the dir.
    pub fn exclusive(data_dir: &Path) -> Result<Self, String> {
        let file = open(data_dir)?;
        match file.try_lock() {
            Ok(()) => Ok(Self { _file: file }),
            Err(TryLockError::WouldBlock) => Err(format!(
                "a fanhub server is using {} (it holds {LOCK_FILE}); stop it first, then restore",
                data_dir.display()
            )),
            Err(TryLockError::Error(e)) => Err(format!("cannot lock {}: {e}", data_dir.join(LOCK_FILE).display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_share_the_dir_and_a_restore_waits_for_them() {
        let dir = tempfile::tempdir().unwrap();
        let a = DataDirLock::shared(dir.path()).unwrap();
        let b = DataDirLock::shared(dir.path()).unwrap();
        assert!(DataDirLock::exclusive(dir.path()).err().unwrap().contains("stop it first"));
        drop((a, b));
        let restore = DataDirLock::exclusive(dir.path()).unwrap();
        assert!(DataDirLock::shared(dir.path()).err().unwrap().contains("being restored"));
        drop(restore);
        DataDirLock::shared(dir.path()).unwrap();
    }
}
