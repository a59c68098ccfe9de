//! `fanhub restore FILE`: puts a backup (an archive from DATA_DIR/backups/, or a database file
//! from `fanhub backup` or the admin panel's download) in place of the data dir's database.
//! Every check runs on a staged copy first; the current data is moved aside only once the copy
//! has passed them all, so a refused restore leaves the data dir as it was.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::archive::{DB_ENTRY, UPLOADS_ENTRY};
use super::lock::DataDirLock;
use crate::db::{APPLICATION_ID, LATEST_VERSION};

/// Tables every fanhub database has had since its first schema (for databases written before
/// fanhub set its application_id).
const CORE_TABLES: [&str; 3] = ["settings", "page_views", "visitor_salts"];

/// What the restore did, one sentence a line.
pub struct Report {
    pub lines: Vec<String>,
}

/// Removes the staging dir on every way out.
struct Staging(PathBuf);

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

enum Kind {
    Database,
    Archive,
}

fn sniff(file: &Path) -> Result<Kind, String> {
    let mut f = File::open(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mut head = [0u8; 512];
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
        }
    }
    if head[..n].starts_with(b"SQLite format 3\0") {
        return Ok(Kind::Database);
    }
    if n == 512 && &head[257..262] == b"ustar" {
        return Ok(Kind::Archive);
    }
    Err(format!("{} is neither an SQLite database nor a fanhub backup archive; nothing was changed", file.display()))
}

/// Checks the header of a staged database: not truncated, fanhub's, a schema this binary opens.
fn check_header(db: &Path, shown: &Path) -> Result<(), String> {
    let mut f = File::open(db).map_err(|e| format!("cannot read {}: {e}", shown.display()))?;
    let len = f.metadata().map_err(|e| e.to_string())?.len();
    let mut h = [0u8; 100];
    f.read_exact(&mut h)
        .map_err(|_| format!("{} is truncated (only {len} bytes); nothing was changed", shown.display()))?;
    let be32 = |at: usize| u32::from_be_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
    let page_size = match u16::from_be_bytes([h[16], h[17]]) {
        1 => 65_536,
        n => n as u64,
    };
    // The page count in the header is valid when the change counter matches "version-valid-for".
    if be32(24) == be32(92) {
        let expected = page_size * be32(28) as u64;
        if len < expected {
            return Err(format!(
                "{} is truncated: {len} bytes of the {expected} its header announces; nothing was changed",
                shown.display()
            ));
        }
    }
    let app_id = be32(68);
    if app_id != 0 && app_id != APPLICATION_ID {
        return Err(format!(
            "{} is another program's SQLite database (application_id {app_id:#010x}), not fanhub's; nothing was changed",
            shown.display()
        ));
    }
    let version = be32(60) as i64;
    if version > LATEST_VERSION {
        return Err(format!(
            "{} has schema version {version}, newer than this fanhub knows ({LATEST_VERSION}); restore it with a newer fanhub. Nothing was changed",
            shown.display()
        ));
    }
    let _ = f.seek(SeekFrom::Start(0));
    Ok(())
}

/// Opens the staged copy, checks it through SQLite and migrates it forward. Returns the schema
/// version it had.
fn check_and_migrate(db: &Path, shown: &Path) -> Result<i64, String> {
    let refuse = |why: String| format!("{}: {why}; nothing was changed", shown.display());
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(|e| refuse(format!("SQLite cannot open it ({e})")))?;
    // The check the server would run daily, run now on what comes back and recorded in it, so
    // System Health and doctor show it from the restored server's first start.
    let check = crate::db::integrity::run(&conn);
    if !check.passed() {
        return Err(refuse(format!("it is damaged (quick_check: {})", check.result)));
    }
    let app_id: i64 =
        conn.pragma_query_value(None, "application_id", |r| r.get(0)).map_err(|e| refuse(e.to_string()))?;
    let version: i64 =
        conn.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(|e| refuse(e.to_string()))?;
    if app_id == 0 {
        let mut missing = Vec::new();
        for table in CORE_TABLES {
            if !crate::db::has_table(&conn, table).map_err(|e| refuse(e.to_string()))? {
                missing.push(table);
            }
        }
        if version == 0 || !missing.is_empty() {
            return Err(refuse(format!(
                "it is another program's SQLite database (no fanhub schema: missing {})",
                if missing.is_empty() { "the schema version".to_string() } else { missing.join(", ") }
            )));
        }
    }
    drop(conn);
    // Migrations and the application_id exactly as a starting server applies them.
    let migrated = crate::db::Db::open(db).map_err(|e| refuse(e.to_string()))?;
    migrated.write_blocking(|tx| crate::db::integrity::record(tx, &check)).map_err(|e| refuse(e.body.error))?;
    migrated.checkpoint();
    drop(migrated);
    let conn = Connection::open(db).map_err(|e| refuse(e.to_string()))?;
    conn.pragma_update(None, "journal_mode", "DELETE").map_err(|e| refuse(e.to_string()))?;
    drop(conn);
    Ok(version)
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

fn rename(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::rename(from, to).map_err(|e| format!("cannot move {} to {}: {e}", from.display(), to.display()))
}

/// Restores `file` into `data_dir` (created if missing).
pub fn restore(file: &Path, data_dir: &Path) -> Result<Report, String> {
    let kind = sniff(file)?;
    std::fs::create_dir_all(data_dir).map_err(|e| format!("cannot create {}: {e}", data_dir.display()))?;
    let _lock = DataDirLock::exclusive(data_dir)?;
    let staging = Staging(data_dir.join(format!(".restore-{}", crate::tokens::random_hex(6))));
    std::fs::create_dir(&staging.0).map_err(|e| format!("cannot create {}: {e}", staging.0.display()))?;
    let staged_db = staging.0.join(DB_ENTRY);
    let mut staged_uploads = None;
    match kind {
        Kind::Database => {
            check_header(file, file)?;
            std::fs::copy(file, &staged_db).map_err(|e| format!("cannot copy {}: {e}", file.display()))?;
        }
        Kind::Archive => {
            unpack(file, &staging.0)?;
            if !staged_db.is_file() {
                return Err(format!(
                    "{} is a tar archive without {DB_ENTRY}, not a fanhub backup; nothing was changed",
                    file.display()
                ));
            }
            check_header(&staged_db, file)?;
            let uploads = staging.0.join(UPLOADS_ENTRY);
            if !uploads.is_dir() {
                std::fs::create_dir(&uploads).map_err(|e| e.to_string())?;
            }
            staged_uploads = Some(uploads);
        }
    }
    let from_version = check_and_migrate(&staged_db, file)?;
    File::open(&staged_db).and_then(|f| f.sync_all()).map_err(|e| e.to_string())?;

    let mut lines = Vec::new();
    let stamp = jiff::Timestamp::now().strftime("%Y%m%d-%H%M%S").to_string();
    let live = crate::db::database_path(data_dir);
    if live.exists() {
        let aside = data_dir.join(format!("fanhub.db.before-restore-{stamp}"));
        rename(&live, &aside)?;
        // The WAL goes with its database, under the name SQLite looks for beside the new name.
        let wal = data_dir.join("fanhub.db-wal");
        if wal.exists() {
            rename(&wal, &data_dir.join(format!("fanhub.db.before-restore-{stamp}-wal")))?;
        }
        // So are the API usage journals: their counts belong to the database set aside.
        let journals = crate::keys::usage::journal_paths(&live);
        for (journal, kept) in journals.iter().zip(crate::keys::usage::journal_paths(&aside)) {
            if journal.exists() {
                rename(journal, &kept)?;
            }
        }
        let _ = std::fs::remove_file(data_dir.join("fanhub.db-shm"));
        lines.push(format!("kept the previous database as {}", aside.display()));
        // Device cookies are signed anew: any made with the old key (or a key a backup once
        // carried) stop exempting anyone from the username throttle.
        if crate::accounts::devices::forget_key(data_dir) {
            lines.push(
                "device cookies: a new signing key (browsers meet the username throttle until they sign in)".into(),
            );
        }
    }
    rename(&staged_db, &live)?;
    if let Some(uploads) = staged_uploads {
        let current = data_dir.join(UPLOADS_ENTRY);
        if current.exists() {
            let aside = data_dir.join(format!("uploads.before-restore-{stamp}"));
            rename(&current, &aside)?;
            lines.push(format!("kept the previous uploads as {}", aside.display()));
        }
        rename(&uploads, &current)?;
        lines.push(format!("restored uploads/ from {}", file.display()));
    } else {
        lines.push(
            "uploads/ left as it was (a database file carries no uploads; restore an archive from backups/ for both)"
                .into(),
        );
    }
    sync_dir(data_dir);
    lines.insert(
        0,
        if from_version < LATEST_VERSION {
            format!(
                "restored {} into {} (schema version {from_version}, migrated to {LATEST_VERSION})",
                file.display(),
                live.display()
            )
        } else {
            format!("restored {} into {} (schema version {from_version})", file.display(), live.display())
        },
    );
    Ok(Report { lines })
}

/// Unpacks an archive into `into`, accepting only `fanhub.db` and files under `uploads/`.
fn unpack(file: &Path, into: &Path) -> Result<(), String> {
    let bad = |why: String| format!("{} is not a fanhub backup archive ({why}); nothing was changed", file.display());
    let f = File::open(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let mut archive = tar::Archive::new(std::io::BufReader::new(f));
    let entries = archive.entries().map_err(|e| bad(e.to_string()))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| bad(format!("damaged: {e}")))?;
        let path = entry.path().map_err(|e| bad(e.to_string()))?.into_owned();
        let kind = entry.header().entry_type();
        let allowed = (path == Path::new(DB_ENTRY) && kind.is_file())
            || (path.starts_with(UPLOADS_ENTRY) && (kind.is_file() || kind.is_dir()));
        if !allowed {
            return Err(bad(format!("unexpected entry {}", path.display())));
        }
        let size = entry.header().size().unwrap_or(0);
        // unpack_in refuses names that climb out of `into` (.. or absolute paths).
        match entry.unpack_in(into) {
            Ok(true) => {}
            Ok(false) => return Err(bad(format!("unsafe entry {}", path.display()))),
            Err(e) => return Err(bad(format!("entry {} ({size} bytes) cannot be read: {e}", path.display()))),
        }
    }
    Ok(())
}

/// `fanhub restore FILE [--data-dir D]`. The error is the one line shown to the operator.
pub fn run(options: &crate::config::Options, file: &Path) -> Result<(), String> {
    if options.temp {
        return Err("restore needs a data dir (--data-dir), not --temp".into());
    }
    let report = restore(file, &options.data_dir).map_err(|e| format!("restore refused: {e}"))?;
    for line in &report.lines {
        println!("{line}");
    }
    tracing::info!("restore done: {}", report.lines.join("; "));
    Ok(())
}
