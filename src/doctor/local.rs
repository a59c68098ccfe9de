//! The checks on this machine: site file, data dir, uploads, database, listen address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::Check;
use crate::config::{DoctorOptions, Options};

/// Below this much free space the data dir check fails (uploads, the WAL and backups need room).
const MIN_FREE_BYTES: u64 = 200 * 1024 * 1024;

const RUN_AS_SERVICE_USER: &str = "run doctor as the user fanhub runs as (sudo -u fanhub fanhub doctor ...), and give that user the dir: chown -R fanhub: DIR";

/// Site file, data dir, uploads, database and its replication, in report order. Blocking (file
/// system, SQLite).
pub fn checks(options: &Options, doctor: &DoctorOptions) -> Vec<Check> {
    let mut checks = vec![check_site(options), super::secrets::check(&super::secrets::unit_path())];
    if options.temp {
        checks.push(Check::skipped("data dir", "--temp uses a fresh temporary dir"));
        return checks;
    }
    let dir = options.data_dir.as_path();
    let fix_for = |fix: &str| fix.replace("DIR", &dir.display().to_string());
    let meta = match std::fs::metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            checks.push(if probe_write(parent).is_ok() {
                Check::pass("data dir", format!("{} does not exist yet; fanhub serve creates it", dir.display()))
            } else {
                Check::fail(
                    "data dir",
                    format!("{} does not exist and {} is not writable", dir.display(), parent.display()),
                    fix_for("create it for the service's user: mkdir -p DIR && chown fanhub: DIR"),
                )
            });
            return checks;
        }
        Err(e) => {
            checks.push(Check::fail(
                "data dir",
                format!("cannot read {}: {e}", dir.display()),
                fix_for(RUN_AS_SERVICE_USER),
            ));
            return checks;
        }
    };
    if !meta.is_dir() {
        checks.push(Check::fail(
            "data dir",
            format!("{} is not a directory", dir.display()),
            "pass the directory that holds fanhub.db with --data-dir",
        ));
        return checks;
    }
    if let Err(e) = std::fs::read_dir(dir) {
        checks.push(Check::fail(
            "data dir",
            format!("cannot read {}: {e}", dir.display()),
            fix_for(RUN_AS_SERVICE_USER),
        ));
        return checks;
    }
    checks.push(match probe_write(dir) {
        Ok(()) => Check::pass("data dir", format!("{} exists and is writable", dir.display())),
        Err(e) if crate::disk::io_out_of_space(&e) => Check::fail(
            "data dir",
            format!("{} is out of disk space: {e}", dir.display()),
            "free space on that disk; until then fanhub answers every write with 507 and saves nothing",
        ),
        Err(e) => {
            Check::fail("data dir", format!("cannot write to {}: {e}", dir.display()), fix_for(RUN_AS_SERVICE_USER))
        }
    });
    checks.push(check_file_system(dir));
    checks.push(check_free_space(dir));
    checks.push(check_uploads(&dir.join("uploads")));
    checks.push(check_second_factor_key(&dir.join(crate::accounts::second_factor::totp::KEY_FILE)));
    let database = crate::db::database_path(dir);
    checks.extend(check_database(&database, doctor.full));
    if database.exists() {
        checks.push(super::replication::check(
            &database,
            doctor.litestream_config.as_deref(),
            options.backups.litestream,
            std::time::SystemTime::now(),
        ));
    }
    checks
}

/// The key that seals authenticator secrets: readable by the service only, and a key.
fn check_second_factor_key(path: &Path) -> Check {
    const NAME: &str = "second-factor key";
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Check::pass(NAME, format!("{} does not exist yet; fanhub serve creates it", path.display()));
        }
        Err(e) => return Check::fail(NAME, format!("cannot read {}: {e}", path.display()), RUN_AS_SERVICE_USER),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Check::fail(
                NAME,
                format!(
                    "{} is readable by other users (mode {mode:o}): with a copy of the database it opens the authenticator keys",
                    path.display()
                ),
                format!("chmod 600 {}", path.display()),
            );
        }
    }
    #[cfg(not(unix))]
    let _ = meta;
    match crate::accounts::second_factor::totp::Sealer::open(path.parent().unwrap_or(Path::new("."))) {
        Ok(_) => Check::pass(NAME, format!("{} is private to its owner", path.display())),
        Err(e) => Check::fail(
            NAME,
            e,
            "restore the file from your copy of the data dir; without it, authenticator codes stop working (an admin can reset them in the Users tab)",
        ),
    }
}

fn check_site(options: &Options) -> Check {
    let which = match &options.site {
        Some(path) => path.display().to_string(),
        None => "the bundled data/site.toml".to_string(),
    };
    match crate::site::load(options.site.as_deref()) {
        Ok(site) => Check::pass("site file", format!("{which} is valid ({})", site.name)),
        Err(e) => Check::fail("site file", e.to_string(), "fix that entry (every key is described in data/README.md)"),
    }
}

fn probe_write(dir: &Path) -> std::io::Result<()> {
    let probe = dir.join(format!(".fanhub-doctor-{}", std::process::id()));
    // Removed even when the write failed: a full disk still creates the empty file.
    let written = std::fs::write(&probe, b"ok");
    let removed = std::fs::remove_file(&probe);
    written.and(removed)
}

/// statfs magic numbers (linux/magic.h) of file systems where SQLite's locking and WAL shared
/// memory do not work reliably.
#[cfg(target_os = "linux")]
const NETWORK_FILE_SYSTEMS: &[(u32, &str)] = &[
    (0x6969, "NFS"),
    (0x517B, "SMB"),
    (0xFF53_4D42, "CIFS"),
    (0xFE53_4D42, "SMB2"),
    (0x7375_7245, "Coda"),
    (0x5346_414F, "AFS"),
    (0x6B41_4653, "AFS"),
    (0x0102_1997, "9P"),
    (0x00C3_6400, "Ceph"),
    (0x0116_1970, "GFS2"),
    (0x7461_636F, "OCFS2"),
    (0x0BD0_0BD0, "Lustre"),
    (0x4750_4653, "GPFS"),
];

#[cfg(target_os = "linux")]
fn check_file_system(dir: &Path) -> Check {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c_path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return Check::fail("file system", "the data dir path contains a NUL byte", "choose another --data-dir");
    };
    // SAFETY: statfs only writes into the zeroed struct we own; c_path is a valid C string.
    let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c_path.as_ptr(), &mut stat) } != 0 {
        let e = std::io::Error::last_os_error();
        return Check::fail("file system", format!("statfs {}: {e}", dir.display()), "check the mount");
    }
    let magic = (stat.f_type as u64 & 0xFFFF_FFFF) as u32;
    match NETWORK_FILE_SYSTEMS.iter().find(|(m, _)| *m == magic) {
        Some((_, name)) => Check::fail(
            "file system",
            format!("{} is on {name}, a network file system: SQLite's locks and WAL are not safe there", dir.display()),
            "put the data dir on a local disk (and copy backups to the network share instead)",
        ),
        None => Check::pass("file system", format!("local (statfs type {magic:#x})")),
    }
}

#[cfg(not(target_os = "linux"))]
fn check_file_system(_dir: &Path) -> Check {
    Check::skipped("file system", "the network file system check is Linux-only")
}

fn check_free_space(dir: &Path) -> Check {
    let database = std::fs::metadata(crate::db::database_path(dir)).map(|m| m.len()).unwrap_or(0);
    match crate::disk::free_bytes(dir) {
        // A backup (VACUUM INTO) needs about the database's size again.
        Ok(free) if free >= MIN_FREE_BYTES.max(database) => Check::pass("free space", format!("{} free", mib(free))),
        Ok(free) => Check::fail(
            "free space",
            format!("only {} free (the database is {})", mib(free), mib(database)),
            format!("free at least {} on that disk", mib(MIN_FREE_BYTES.max(database))),
        ),
        Err(e) => Check::fail("free space", format!("cannot measure: {e}"), "check the mount"),
    }
}

fn mib(bytes: u64) -> String {
    if bytes >= 10 * 1024 * 1024 * 1024 {
        format!("{} GiB", bytes / (1024 * 1024 * 1024))
    } else {
        format!("{} MiB", bytes / (1024 * 1024))
    }
}

fn check_uploads(uploads: &Path) -> Check {
    let meta = match std::fs::metadata(uploads) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Check::pass(
                "uploads",
                format!("{} does not exist yet; fanhub serve creates it", uploads.display()),
            );
        }
        Err(e) => {
            return Check::fail(
                "uploads",
                format!("cannot read {}: {e}", uploads.display()),
                format!("chown -R fanhub: {}", uploads.display()),
            );
        }
    };
    if !meta.is_dir() {
        return Check::fail(
            "uploads",
            format!("{} is not a directory", uploads.display()),
            "move that file away; fanhub keeps uploaded files in that directory",
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o7777;
        if mode & 0o002 != 0 {
            return Check::fail(
                "uploads",
                format!("{} is writable by every user (mode {mode:o})", uploads.display()),
                format!("chmod o-w {}", uploads.display()),
            );
        }
    }
    match probe_write(uploads).and_then(|()| std::fs::read_dir(uploads).map(|_| ())) {
        Ok(()) => Check::pass("uploads", format!("{} is readable and writable", uploads.display())),
        Err(e) if crate::disk::io_out_of_space(&e) => Check::fail(
            "uploads",
            format!("{} is out of disk space: {e}", uploads.display()),
            "free space on that disk (ad uploads answer 507 until then)",
        ),
        Err(e) => Check::fail(
            "uploads",
            format!("cannot use {}: {e}", uploads.display()),
            format!("chown -R fanhub: {} (the user fanhub runs as)", uploads.display()),
        ),
    }
}

/// Opening (with `full`: integrity over the whole file), schema version and journal mode, through
/// a read-only connection (a running server is not disturbed: SQLite readers never block the WAL
/// writer).
fn check_database(path: &Path, full: bool) -> Vec<Check> {
    if !path.exists() {
        return vec![Check::pass(
            "database",
            format!("{} does not exist yet; fanhub serve creates it", path.display()),
        )];
    }
    let restore = "restore the last backup (README: Backups and upgrades)";
    let conn =
        match Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX) {
            Ok(conn) => conn,
            Err(e) => {
                let dir = path.parent().unwrap_or(Path::new(".")).display().to_string();
                let fix = RUN_AS_SERVICE_USER.replace("DIR", &dir);
                return vec![Check::fail("database", format!("cannot open {}: {e}", path.display()), fix)];
            }
        };
    let _ = conn.busy_timeout(Duration::from_secs(3));
    // quick_check reads every page (about 4 s a GB), so doctor runs it only with `--full`. The
    // server checks the whole file daily and records it (crate::db::integrity): a record of the
    // last two days is shown; without one, the schema is read from the file's first pages, whatever
    // its size. Ok(Err(first problem)) when it is damaged.
    let recorded = crate::db::integrity::last(&conn)
        .ok()
        .flatten()
        .filter(|c| crate::db::now_ms() - c.checked_at < 2 * crate::db::integrity::CHECK_EVERY_MS);
    let read: rusqlite::Result<Result<String, String>> = match (full, recorded) {
        (true, _) => crate::db::quick_check(&conn)
            .map(|first| if first == "ok" { Ok("quick_check ok".into()) } else { Err(first) }),
        (false, Some(check)) if check.result == "ok" => {
            Ok(Ok(format!("quick_check ok (the server's daily check: {})", check.describe())))
        }
        (false, Some(check)) => Ok(Err(format!("{} (the server's daily check: {})", check.result, check.describe()))),
        (false, None) => crate::db::schema_objects(&conn)
            .map(|_| Ok("opens and its schema reads (fanhub doctor --full reads every page)".into())),
    };
    let integrity = match read {
        Ok(Ok(found)) => Check::pass("database", format!("{}: {found}", path.display())),
        Ok(Err(first)) => {
            // quick_check's first answer may hold many lines (one per damaged page): one line here.
            let mut found: String =
                first.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
            if found.chars().count() > 300 {
                found = found.chars().take(300).collect::<String>() + "...";
            }
            return vec![Check::fail("database", format!("{} is damaged: {found}", path.display()), restore)];
        }
        Err(e) => {
            return vec![Check::fail(
                "database",
                format!("{} cannot be read as a database: {e}", path.display()),
                restore,
            )];
        }
    };
    let latest = crate::db::LATEST_VERSION;
    let schema = match conn.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0)) {
        Ok(v) if v == latest => Check::pass("schema", format!("version {v}, this binary's")),
        Ok(v) if v < latest => {
            Check::pass("schema", format!("version {v}; this binary migrates it to {latest} on start"))
        }
        Ok(v) => Check::fail(
            "schema",
            format!("version {v} was written by a newer fanhub (this one knows {latest})"),
            "run the newer fanhub again, or restore a backup made by this version",
        ),
        Err(e) => Check::fail("schema", format!("cannot read user_version: {e}"), restore),
    };
    let wal = match conn.pragma_query_value(None, "journal_mode", |r| r.get::<_, String>(0)) {
        Ok(mode) if mode.eq_ignore_ascii_case("wal") => Check::pass("journal mode", "WAL"),
        Ok(mode) => Check::fail(
            "journal mode",
            format!("{mode}, not WAL (another program changed it?)"),
            "start fanhub once: it switches the database back to WAL",
        ),
        Err(e) => Check::fail("journal mode", format!("cannot read it: {e}"), restore),
    };
    vec![integrity, schema, wal]
}

/// Free, or held by a fanhub that answers `/api/health`.
pub async fn check_listen(addr: SocketAddr) -> Check {
    let error = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => {
            drop(listener);
            return Check::pass("listen address", format!("{addr} is free"));
        }
        Err(e) => e,
    };
    match error.kind() {
        std::io::ErrorKind::AddrInUse => match running_fanhub(addr).await {
            Some(found) => Check::pass("listen address", format!("{addr} is held by a running {found}")),
            None => Check::fail(
                "listen address",
                format!("{addr} is in use by another program (not a fanhub answering /api/health)"),
                format!("stop that program (ss -ltnp 'sport = :{}' names it) or choose another --addr", addr.port()),
            ),
        },
        std::io::ErrorKind::PermissionDenied => Check::fail(
            "listen address",
            format!("{addr}: {error}"),
            "use a port above 1023 behind a reverse proxy, or give the binary CAP_NET_BIND_SERVICE",
        ),
        _ => Check::fail(
            "listen address",
            format!("cannot listen on {addr}: {error}"),
            "use an address of this machine (127.0.0.1 behind a reverse proxy, or 0.0.0.0)",
        ),
    }
}

/// `fanhub VERSION (status S)` when a fanhub answers `/api/health` at `addr`.
async fn running_fanhub(addr: SocketAddr) -> Option<String> {
    let ip = match addr.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    let client = crate::outbound::client(Duration::from_secs(3), super::upstream::USER_AGENT);
    let url = format!("http://{}/api/health", SocketAddr::new(ip, addr.port()));
    let (_, body) = crate::outbound::read_text(client.get(url).send().await.ok()?).await.ok()?;
    let health: serde_json::Value = serde_json::from_str(&body).ok()?;
    let version = health["version"].as_str()?;
    let status = health["status"].as_str()?;
    let disk = if health["disk"] == "full" { ", its disk is full: writes answer 507" } else { "" };
    let note =
        if version == env!("CARGO_PKG_VERSION") { String::new() } else { ", another version than this binary".into() };
    Some(format!("fanhub {version} (status {status}{disk}{note})"))
}
