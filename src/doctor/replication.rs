//! Whether Litestream replicates the data dir's database, and how far behind it is.
//!
//! Found two ways, both read from files (doctor never runs Litestream or reaches a bucket):
//! the Litestream config (`--litestream-config`, else `$LITESTREAM_CONFIG`, else
//! `/etc/litestream.yml`: where `litestream replicate` itself looks) naming the database, and the
//! state Litestream 0.5 keeps beside it, `.fanhub.db-litestream/ltx/LEVEL/MINTXID-MAXTXID.ltx`
//! (one file per batch of transactions it took from the WAL; `meta-path` in the config moves it).
//! A file replica is read the same way (`PATH/ltx/LEVEL/...`); other replicas (S3, ...) are named
//! but not read from here.
//!
//! How far behind: every write goes to the WAL, so a WAL changed after Litestream's newest file
//! holds writes Litestream has not taken yet, and a file replica whose newest transaction is older
//! than the newest one taken locally lacks the ones after it. The check reports since when the
//! oldest of those has waited, and fails past [`BEHIND_LIMIT`] (Litestream takes the WAL every
//! second and a replica syncs every `sync-interval`, 1 s by default).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::Check;

const NAME: &str = "replication";
/// Where `litestream replicate` reads its config when neither `-config` nor `$LITESTREAM_CONFIG` names one.
pub const DEFAULT_CONFIG: &str = "/etc/litestream.yml";
/// Writes left unreplicated for longer than this fail the check (Litestream is stopped or failing).
pub const BEHIND_LIMIT: Duration = Duration::from_secs(60);

/// The check for the database at `db`, with the config at `config` (the default when `None`).
pub fn check(db: &Path, config: Option<&Path>, litestream_flag: bool, now: SystemTime) -> Check {
    let config_path = config.map_or_else(|| PathBuf::from(DEFAULT_CONFIG), Path::to_path_buf);
    let entry = match std::fs::read_to_string(&config_path) {
        Ok(text) => database_entry(&parse(&text), db),
        Err(_) => None,
    };
    let meta = entry
        .as_ref()
        .and_then(|e| e.meta_path.clone())
        .unwrap_or_else(|| db.with_file_name(format!(".{}-litestream", file_name(db))));
    let local = ltx_files(&meta.join("ltx"));
    let Some(entry) = entry.or_else(|| (!local.is_empty()).then(DbEntry::default)) else {
        let why = if config_path.exists() {
            format!("{} names no {}", config_path.display(), db.display())
        } else {
            format!("no Litestream config at {}", config_path.display())
        };
        return Check::pass(
            NAME,
            format!(
                "not configured ({why}): the database lives on this disk only; README \"Litestream\" streams it elsewhere"
            ),
        );
    };
    let whence = if entry.found_in_config {
        format!("Litestream replicates {} ({})", db.display(), config_path.display())
    } else {
        format!(
            "Litestream has replicated {} ({} exists, but {} does not name it: pass --litestream-config)",
            db.display(),
            meta.display(),
            config_path.display()
        )
    };
    let to = entry.replica.as_ref().map_or(String::new(), |r| format!(" to {}", r.describe()));
    let flag_note = if litestream_flag {
        ""
    } else {
        "; fanhub must run with --litestream (FANHUB_LITESTREAM=true) to leave checkpoints to Litestream: give doctor that flag too"
    };
    let Some(newest_local) = local.iter().max_by_key(|f| (f.max_txid, std::cmp::Reverse(f.modified))) else {
        return Check::fail(
            NAME,
            format!("{whence}{to}, but Litestream has taken nothing yet (no files in {})", meta.join("ltx").display()),
            "start it: systemctl enable --now litestream (README \"Litestream\", packaging/litestream.yml)",
        );
    };
    // The oldest write not yet replicated, if any: first what Litestream has not taken from the WAL...
    let last_write = modified(&db.with_file_name(format!("{}-wal", file_name(db))));
    let mut waiting_since = last_write.filter(|w| *w > newest_local.modified).map(|_| newest_local.modified);
    // ...then what a file replica lacks of what it took.
    let mut replica_txid = None;
    if let Some(dir) = entry.replica.as_ref().and_then(Replica::local_dir) {
        let held = ltx_files(&dir.join("ltx")).iter().map(|f| f.max_txid).max().unwrap_or(0);
        replica_txid = Some(held);
        if held < newest_local.max_txid {
            let first_missing =
                local.iter().filter(|f| f.max_txid > held).map(|f| f.modified).min().unwrap_or(newest_local.modified);
            waiting_since = Some(waiting_since.map_or(first_missing, |w| w.min(first_missing)));
        }
    }
    let position = match replica_txid {
        Some(held) => format!("transaction {held} in the replica, {} taken locally", newest_local.max_txid),
        None => format!("transaction {} taken", newest_local.max_txid),
    };
    let last = last_write.map_or(String::new(), |w| format!(", the last write {} ago", ago(now, w)));
    match waiting_since {
        Some(since) if now.duration_since(since).unwrap_or_default() > BEHIND_LIMIT => Check::fail(
            NAME,
            format!("{whence}{to}: {} behind ({position}{last}){flag_note}", ago(now, since)),
            "check that litestream replicate runs and reaches the replica: systemctl status litestream; journalctl -u litestream",
        ),
        Some(since) => {
            Check::pass(NAME, format!("{whence}{to}: {} behind ({position}{last}){flag_note}", ago(now, since)))
        }
        None => Check::pass(NAME, format!("{whence}{to}: up to date ({position}{last}){flag_note}")),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| "fanhub.db".into(), |n| n.to_string_lossy().into_owned())
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// `4 s`, `3 min`, `5 h`, `2 d`.
fn ago(now: SystemTime, then: SystemTime) -> String {
    let secs = now.duration_since(then).unwrap_or_default().as_secs();
    match secs {
        0..120 => format!("{secs} s"),
        120..7200 => format!("{} min", secs / 60),
        7200..172_800 => format!("{} h", secs / 3600),
        _ => format!("{} d", secs / 86_400),
    }
}

/// One LTX file: the transactions it holds and when it was written.
#[derive(Debug, Clone, PartialEq)]
struct LtxFile {
    max_txid: u64,
    modified: SystemTime,
}

/// The LTX files of every level under `dir` (`dir/LEVEL/MIN-MAX.ltx`, TXIDs in hex).
fn ltx_files(dir: &Path) -> Vec<LtxFile> {
    let mut found = Vec::new();
    let Ok(levels) = std::fs::read_dir(dir) else { return found };
    for level in levels.flatten().filter(|l| l.file_type().is_ok_and(|t| t.is_dir())) {
        let Ok(files) = std::fs::read_dir(level.path()) else { continue };
        for file in files.flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            let Some(max) = name.strip_suffix(".ltx").and_then(|n| n.split_once('-')).map(|(_, max)| max) else {
                continue;
            };
            let (Ok(max_txid), Some(modified)) = (u64::from_str_radix(max, 16), modified(&file.path())) else {
                continue;
            };
            found.push(LtxFile { max_txid, modified });
        }
    }
    found
}

/// The config's entry for the database.
#[derive(Debug, Default)]
struct DbEntry {
    found_in_config: bool,
    meta_path: Option<PathBuf>,
    replica: Option<Replica>,
}

#[derive(Debug, PartialEq)]
struct Replica {
    kind: String,
    /// A file replica's folder, or the URL or bucket of another.
    location: String,
}

impl Replica {
    fn describe(&self) -> String {
        if self.kind == "file" { format!("file {}", self.location) } else { format!("{} {}", self.kind, self.location) }
    }

    fn local_dir(&self) -> Option<PathBuf> {
        (self.kind == "file").then(|| PathBuf::from(&self.location))
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The entry of `dbs:` whose `path` is `db` (or whose `dir` holds it).
fn database_entry(config: &Yaml, db: &Path) -> Option<DbEntry> {
    let Some(Yaml::List(dbs)) = config.get("dbs") else { return None };
    let entry = dbs.iter().find(|e| {
        e.text("path").is_some_and(|p| same_file(Path::new(p), db))
            || e.text("dir").is_some_and(|d| db.parent().is_some_and(|parent| same_file(Path::new(d), parent)))
    })?;
    let replica = entry.get("replica").or_else(|| match entry.get("replicas") {
        Some(Yaml::List(list)) => list.first(),
        _ => None,
    });
    Some(DbEntry {
        found_in_config: true,
        meta_path: entry.text("meta-path").map(PathBuf::from),
        replica: replica.map(|r| {
            let url = r.text("url");
            let kind = r
                .text("type")
                .or_else(|| url.and_then(|u| u.split_once("://")).map(|(scheme, _)| scheme))
                .unwrap_or("file")
                .to_string();
            let location = match (kind.as_str(), url) {
                (_, Some(url)) if kind == "file" => url.trim_start_matches("file://").to_string(),
                (_, Some(url)) => url.to_string(),
                ("file", None) => r.text("path").unwrap_or_default().to_string(),
                (_, None) => match (r.text("bucket"), r.text("path")) {
                    (Some(bucket), Some(path)) => format!("{bucket}/{path}"),
                    (Some(bucket), None) => bucket.to_string(),
                    _ => r.text("path").unwrap_or_default().to_string(),
                },
            };
            Replica { kind, location }
        }),
    })
}

/// The block-style YAML a `litestream.yml` is written in: mappings, lists and plain or quoted
/// scalars, with `$VAR` and `${VAR}` expanded as Litestream expands them. (Flow style, anchors and
/// multi-line scalars are not read; no Litestream example uses them.)
#[derive(Debug, Clone, PartialEq)]
enum Yaml {
    Scalar(String),
    Map(Vec<(String, Yaml)>),
    List(Vec<Yaml>),
}

impl Yaml {
    fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn text(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Yaml::Scalar(s)) if !s.is_empty() => Some(s),
            _ => None,
        }
    }
}

fn parse(text: &str) -> Yaml {
    let mut lines: Vec<(usize, String)> = text
        .lines()
        .map(without_comment)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with("---"))
        .map(|l| (l.len() - l.trim_start().len(), l.trim().to_string()))
        .collect();
    let indent = lines.first().map_or(0, |(i, _)| *i);
    parse_block(&mut lines, &mut 0, indent)
}

fn without_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (c, quote) {
            ('\'' | '"', None) => quote = Some(c),
            (c, Some(q)) if c == q => quote = None,
            ('#', None) if i == 0 || line[..i].ends_with(char::is_whitespace) => return &line[..i],
            _ => {}
        }
    }
    line
}

fn is_item(line: &str) -> bool {
    line == "-" || line.starts_with("- ")
}

/// `key: value` or `key:` (the value below): the key and the rest.
fn split_key(line: &str) -> Option<(String, &str)> {
    let at = line.find(": ").or_else(|| line.strip_suffix(':').map(str::len))?;
    let key = scalar(&line[..at]);
    (!key.is_empty()).then(|| (key, line[at + 1..].trim()))
}

fn scalar(text: &str) -> String {
    let text = text.trim();
    let unquoted =
        ['"', '\''].iter().find_map(|q| text.strip_prefix(*q).and_then(|t| t.strip_suffix(*q))).unwrap_or(text);
    expand_env(unquoted)
}

fn expand_env(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, len) = match after.strip_prefix('{').and_then(|a| a.find('}').map(|end| (&a[..end], end + 2))) {
            Some(braced) => braced,
            None => {
                let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        if name.is_empty() {
            out.push('$');
        } else {
            out.push_str(&std::env::var(name).unwrap_or_default());
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

fn parse_block(lines: &mut [(usize, String)], at: &mut usize, indent: usize) -> Yaml {
    if lines.get(*at).is_some_and(|(i, l)| *i == indent && is_item(l)) {
        let mut items = Vec::new();
        while let Some((i, line)) = lines.get(*at).cloned() {
            if i != indent || !is_item(&line) {
                break;
            }
            let rest = line[1..].trim_start();
            if rest.is_empty() {
                *at += 1;
                match lines.get(*at).map(|(i, _)| *i).filter(|child| *child > indent) {
                    Some(child) => items.push(parse_block(lines, at, child)),
                    None => items.push(Yaml::Scalar(String::new())),
                }
            } else if split_key(rest).is_some() {
                // `- key: value` opens a mapping whose keys line up with `key`.
                let inner = indent + (line.len() - rest.len());
                lines[*at] = (inner, rest.to_string());
                items.push(parse_block(lines, at, inner));
            } else {
                items.push(Yaml::Scalar(scalar(rest)));
                *at += 1;
            }
        }
        return Yaml::List(items);
    }
    let mut entries = Vec::new();
    while let Some((i, line)) = lines.get(*at).cloned() {
        if i != indent {
            break;
        }
        *at += 1;
        let Some((key, value)) = split_key(&line) else { continue };
        if !value.is_empty() {
            entries.push((key, Yaml::Scalar(scalar(value))));
            continue;
        }
        let child = lines.get(*at).filter(|(ci, cl)| *ci > indent || (*ci == indent && is_item(cl))).map(|(ci, _)| *ci);
        entries.push((key, child.map_or(Yaml::Scalar(String::new()), |child| parse_block(lines, at, child))));
    }
    Yaml::Map(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACKAGED: &str = include_str!("../../packaging/litestream.yml");

    #[test]
    fn the_packaged_config_reads_as_litestream_reads_it() {
        let config = parse(PACKAGED);
        let entry = database_entry(&config, Path::new("/var/lib/fanhub/fanhub.db")).expect("names the database");
        assert_eq!(entry.replica, Some(Replica { kind: "file".into(), location: "/mnt/replica/fanhub".into() }));
        assert!(database_entry(&config, Path::new("/srv/other/fanhub.db")).is_none());
    }

    #[test]
    fn lists_maps_quotes_comments_urls_and_the_environment() {
        // SAFETY: this test's own variable, read only by this test.
        unsafe { std::env::set_var("FANHUB_DOCTOR_TEST_BUCKET", "my-bucket") };
        let text = "# replication\ndbs:\n- path: \"/data/fanhub.db\"   # the site\n  meta-path: /state/meta\n  replicas:\n    - url: s3://${FANHUB_DOCTOR_TEST_BUCKET}/fanhub\n      sync-interval: 10s\n- path: /data/other.db\n  replica:\n    type: file\n    path: '/mnt/x # not a comment'\n";
        let config = parse(text);
        let entry = database_entry(&config, Path::new("/data/fanhub.db")).unwrap();
        assert_eq!(entry.meta_path, Some(PathBuf::from("/state/meta")));
        assert_eq!(entry.replica, Some(Replica { kind: "s3".into(), location: "s3://my-bucket/fanhub".into() }));
        let other = database_entry(&config, Path::new("/data/other.db")).unwrap();
        assert_eq!(other.replica.unwrap().location, "/mnt/x # not a comment");
    }

    fn at(base: SystemTime, secs: u64) -> SystemTime {
        base + Duration::from_secs(secs)
    }

    fn touch(path: &Path, when: SystemTime) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"x").unwrap();
        std::fs::File::options().write(true).open(path).unwrap().set_modified(when).unwrap();
    }

    /// A data dir with Litestream's state and a file replica: `taken` local LTX files (one
    /// transaction each, the n-th written at base + n s), `held` of them in the replica, and the
    /// WAL last written at `wal`.
    fn setup(taken: u64, held: u64, wal: u64) -> (tempfile::TempDir, PathBuf, PathBuf, SystemTime) {
        let dir = tempfile::tempdir().unwrap();
        let base = SystemTime::now() - Duration::from_secs(3600);
        let db = dir.path().join("data/fanhub.db");
        touch(&db, base);
        for n in 1..=taken {
            let name = format!("ltx/0/{n:016x}-{n:016x}.ltx");
            touch(&dir.path().join("data/.fanhub.db-litestream").join(&name), at(base, n));
            if n <= held {
                touch(&dir.path().join("replica").join(&name), at(base, n));
            }
        }
        touch(&dir.path().join("data/fanhub.db-wal"), at(base, wal));
        let config = dir.path().join("litestream.yml");
        let text = format!(
            "dbs:\n  - path: {}\n    replica:\n      type: file\n      path: {}\n",
            db.display(),
            dir.path().join("replica").display()
        );
        std::fs::write(&config, text).unwrap();
        (dir, db, config, base)
    }

    #[test]
    fn a_replica_that_holds_every_write_is_up_to_date() {
        let (_dir, db, config, base) = setup(5, 5, 5);
        let check = check(&db, Some(&config), true, at(base, 600));
        assert!(check.ok, "{}", check.line());
        assert!(
            check
                .detail
                .contains("up to date (transaction 5 in the replica, 5 taken locally, the last write 9 min ago)"),
            "{}",
            check.line()
        );
    }

    #[test]
    fn writes_litestream_did_not_take_or_the_replica_lacks_count_as_behind() {
        // The WAL changed 95 s after Litestream's newest file: stopped for that long.
        let (_dir, db, config, base) = setup(5, 5, 100);
        let stopped = check(&db, Some(&config), true, at(base, 100));
        assert!(!stopped.ok && stopped.detail.contains(": 95 s behind"), "{}", stopped.line());
        assert!(stopped.fix.as_deref().unwrap().contains("systemctl status litestream"));
        // Taken locally up to 5, the replica holds 3: behind since transaction 4 was taken.
        let (_dir, db, config, base) = setup(5, 3, 5);
        let lagging = check(&db, Some(&config), true, at(base, 30));
        assert!(
            lagging.ok && lagging.detail.contains(": 26 s behind (transaction 3 in the replica, 5 taken locally"),
            "{}",
            lagging.line()
        );
        let late = check(&db, Some(&config), true, at(base, 300));
        assert!(!late.ok, "{}", late.line());
    }

    #[test]
    fn without_a_config_or_litestream_state_it_is_not_configured() {
        let (dir, db, _config, base) = setup(0, 0, 1);
        let missing = dir.path().join("none.yml");
        let check = check(&db, Some(&missing), false, at(base, 5));
        assert!(check.ok && check.detail.starts_with("not configured (no Litestream config at"), "{}", check.line());
        // Named in the config but nothing taken yet: Litestream is not running.
        let (_dir, db, config, base) = setup(0, 0, 1);
        let idle = super::check(&db, Some(&config), false, at(base, 5));
        assert!(!idle.ok && idle.detail.contains("has taken nothing yet"), "{}", idle.line());
    }
}
