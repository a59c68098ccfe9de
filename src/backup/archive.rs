//! Writing, listing and pruning the archives in `DATA_DIR/backups/`.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::db::Db;

const PREFIX: &str = "fanhub-";
const SUFFIX: &str = ".tar";
const PARTIAL: &str = ".partial-";
/// The database's name inside an archive.
pub const DB_ENTRY: &str = "fanhub.db";
pub const UPLOADS_ENTRY: &str = "uploads";

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BackupInfo {
    /// The file name in DATA_DIR/backups/, e.g. fanhub-20261123-020000.tar.
    pub name: String,
    pub size_bytes: u64,
    /// RFC 3339 time the backup was taken (from its name).
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// `fanhub-YYYYmmdd-HHMMSS[-N].tar` → (time, N). Anything else is not one of ours.
fn parse_name(name: &str) -> Option<(jiff::Timestamp, u32)> {
    let stem = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let (time, n) = match stem.get(15..) {
        Some("") => (stem, 0),
        Some(rest) => (&stem[..15], rest.strip_prefix('-')?.parse().ok().filter(|n| *n > 0)?),
        None => return None,
    };
    if !time.bytes().enumerate().all(|(i, b)| if i == 8 { b == b'-' } else { b.is_ascii_digit() }) {
        return None;
    }
    let dt = jiff::civil::DateTime::strptime("%Y%m%d-%H%M%S", time).ok()?;
    Some((dt.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp(), n))
}

pub fn is_backup_name(name: &str) -> bool {
    parse_name(name).is_some()
}

/// The archives, newest first.
pub fn list(dir: &Path) -> Result<Vec<BackupInfo>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else { continue };
        let Some(key) = parse_name(&name) else { continue };
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_file() {
            found.push((
                key,
                BackupInfo { created_at: crate::time::timestamp_text(key.0), name, size_bytes: meta.len() },
            ));
        }
    }
    found.sort_by_key(|b| std::cmp::Reverse(b.0));
    Ok(found.into_iter().map(|(_, info)| info).collect())
}

/// Removes all but the newest `keep` archives; returns the names removed.
pub fn prune(dir: &Path, keep: usize) -> Result<Vec<String>, String> {
    let mut removed = Vec::new();
    for old in list(dir)?.into_iter().skip(keep) {
        std::fs::remove_file(dir.join(&old.name)).map_err(|e| format!("cannot remove old backup {}: {e}", old.name))?;
        removed.push(old.name);
    }
    Ok(removed)
}

/// Temporary files of backups a kill interrupted (every hidden name in `backups/` is one).
pub fn remove_partials(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if entry.file_name().to_str().is_some_and(|n| n.starts_with('.')) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// A name for now that no archive has yet.
fn fresh_name(dir: &Path) -> String {
    let time = jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string();
    let mut name = format!("{PREFIX}{time}{SUFFIX}");
    let mut n = 1;
    while dir.join(&name).exists() {
        name = format!("{PREFIX}{time}-{n}{SUFFIX}");
        n += 1;
    }
    name
}

/// Removes a temporary file when dropped (unless it was renamed into place).
pub(super) struct Partial(pub PathBuf);

impl Drop for Partial {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Writes one archive (database copy + uploads) into `dir` and returns it. Nothing is written
/// unless `dir`'s disk has room for the copy and the archive at once (the copy is removed only once
/// the archive holds it) with [`super::space::RESERVE`] to spare.
pub fn write(db: &Db, data_dir: &Path, dir: &Path) -> Result<BackupInfo, super::Failure> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let copy_bytes = db
        .read_blocking(|c| Ok(crate::db::copy_bytes(c)?))
        .map_err(|e| format!("cannot read the database's size: {}", e.internal.unwrap_or(e.body.error)))?;
    let uploads = super::space::tree_bytes(&data_dir.join(UPLOADS_ENTRY));
    super::space::ensure_room(dir, copy_bytes.saturating_mul(2).saturating_add(uploads))?;
    let token = crate::tokens::random_hex(6);
    let db_copy = Partial(dir.join(format!("{PARTIAL}{token}.db")));
    super::copy_database(db, &db_copy.0)?;
    let tar_tmp = Partial(dir.join(format!("{PARTIAL}{token}.tar")));
    let file = File::create(&tar_tmp.0).map_err(|e| format!("cannot create {}: {e}", tar_tmp.0.display()))?;
    let mut tar = tar::Builder::new(std::io::BufWriter::with_capacity(1 << 20, file));
    tar.mode(tar::HeaderMode::Deterministic);
    let io = |e: std::io::Error| format!("writing the archive: {e}");
    tar.append_path_with_name(&db_copy.0, DB_ENTRY).map_err(io)?;
    append_uploads(&mut tar, &data_dir.join(UPLOADS_ENTRY), Path::new(UPLOADS_ENTRY)).map_err(io)?;
    let mut out = tar.into_inner().map_err(io)?;
    out.flush().map_err(io)?;
    let file = out.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_all().map_err(io)?;
    let size_bytes = file.metadata().map_err(io)?.len();
    drop(file);
    drop(db_copy);
    let name = fresh_name(dir);
    std::fs::rename(&tar_tmp.0, dir.join(&name)).map_err(|e| format!("cannot rename the archive into place: {e}"))?;
    std::mem::forget(tar_tmp);
    sync_dir(dir).map_err(io)?;
    let created_at = parse_name(&name).map(|(t, _)| crate::time::timestamp_text(t)).unwrap_or_default();
    Ok(BackupInfo { name, size_bytes, created_at })
}

/// Every regular file under `src` (uploads are written under a temporary name and renamed, so
/// hidden names are skipped as unfinished).
fn append_uploads<W: Write>(tar: &mut tar::Builder<W>, src: &Path, name: &Path) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(src) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let mut entries: Vec<_> = entries.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let file_name = entry.file_name();
        if file_name.to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            append_uploads(tar, &entry.path(), &name.join(&file_name))?;
        } else if kind.is_file() {
            match tar.append_path_with_name(entry.path(), name.join(&file_name)) {
                // Deleted between listing and copying: it is not part of the copy.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                other => other?,
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_time_and_nothing_else_passes() {
        assert!(is_backup_name("fanhub-20261123-020000.tar"));
        assert!(is_backup_name("fanhub-20261123-020000-2.tar"));
        for bad in [
            "fanhub-20261123-020000.db",
            "fanhub-2026112-0200000.tar",
            "fanhub-20261323-020000.tar",
            "../fanhub-20261123-020000.tar",
            "fanhub-20261123-020000-0.tar",
            "fanhub-20261123-020000-.tar",
            ".partial-ab.tar",
        ] {
            assert!(!is_backup_name(bad), "{bad}");
        }
    }

    #[test]
    fn archives_hold_the_database_and_uploads_and_the_oldest_are_pruned() {
        let data = tempfile::tempdir().unwrap();
        let db = Db::open(&data.path().join("fanhub.db")).unwrap();
        db.write_blocking(|tx| crate::db::settings::set(tx, "probe", &"kept")).unwrap();
        std::fs::create_dir_all(data.path().join("uploads/ads")).unwrap();
        std::fs::write(data.path().join("uploads/ads/a.png"), b"png").unwrap();
        std::fs::write(data.path().join("uploads/.tmp-x"), b"half").unwrap();
        let dir = data.path().join("backups");
        let first = write(&db, data.path(), &dir).unwrap();
        let second = write(&db, data.path(), &dir).unwrap();
        assert_ne!(first.name, second.name);
        let mut archive = tar::Archive::new(File::open(dir.join(&second.name)).unwrap());
        let names: Vec<String> =
            archive.entries().unwrap().map(|e| e.unwrap().path().unwrap().display().to_string()).collect();
        assert_eq!(names, ["fanhub.db", "uploads/ads/a.png"]);
        assert_eq!(list(&dir).unwrap().len(), 2);
        assert_eq!(prune(&dir, 1).unwrap(), std::slice::from_ref(&first.name));
        assert_eq!(list(&dir).unwrap()[0].name, second.name);
        let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }
}
