//! Usage counting. A keyed call writes its count into the usage journal before it is answered:
//! a line copied into a file mapped into memory (`MAP_SHARED`, so the kernel's page cache holds it
//! at once), at an offset the call reserves with one atomic add: no system call, no lock to wait
//! for, no message to another thread, no wait for SQLite. A thread of its own reads the journal
//! back and commits the counts to SQLite once a second (one statement per key and hour, nothing for
//! a key and IP already written that day).
//! A kill -9 after an answer therefore loses no count: the page cache outlives the process, and the
//! journal is committed at the next start. (A power cut can lose the last seconds, as SQLite's
//! `synchronous=NORMAL` can.) A clean stop and every reader of the counts (`flush`) commit first.
//!
//! Two journal files take turns (`fanhub.db-usage-0` and `-1`), each preallocated (so a full
//! disk is an error when a file is started, never a fault while writing): a header
//! `fanhub-usage-journal 1 EPOCH`, then `KEY_ID AT_MS IP CHECK` a line. A commit first switches the
//! calls to the other file (a new epoch), then commits what the old file holds together with its
//! epoch (`settings.usage_journal_epoch`), then empties it. So a file is never emptied before its
//! counts are in SQLite, and a kill between the commit and the emptying counts nothing twice: a
//! journal whose epoch was committed is skipped at start. A line a kill cut short fails its check.

use std::collections::HashMap;
use std::fs::File;
use std::net::IpAddr;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::sync::oneshot;

use super::store::{self, AddressRule, Hit};
use crate::db::{Db, settings};
use crate::error::ApiError;

/// How long a count may wait in the journal before it is committed to SQLite.
pub const FLUSH_INTERVAL: Duration = Duration::from_secs(1);
/// While SQLite refuses the counts, keyed calls are refused past this many uncommitted ones.
const MAX_UNCOMMITTED: usize = 262_144;
const MAX_KNOWN_IPS: usize = 100_000;
const HEADER: &str = "fanhub-usage-journal 1";
/// Each journal file's size: a second of calls is a few MB even at 100,000 calls a second; a call
/// that finds its file full is refused and has it committed at once.
const JOURNAL_BYTES: usize = 16 << 20;
const EPOCH_SETTING: &str = "usage_journal_epoch";

enum Message {
    /// Commit everything journaled so far, then answer whether it was committed (None: the
    /// journal filled up; commit early).
    Flush(Option<oneshot::Sender<bool>>),
}

/// A journal file mapped into memory, written at reserved offsets.
struct Mapped {
    ptr: *mut u8,
    next: AtomicUsize,
    epoch: u64,
    _file: File,
}

// The mapping is written only at offsets reserved through `next` (each byte by one writer), and
// unmapped only when no call can hold it (see `UsageLog::current`).
unsafe impl Send for Mapped {}
unsafe impl Sync for Mapped {}

impl Mapped {
    /// A new, empty journal for `epoch` at `path`, preallocated and mapped.
    fn create(path: &Path, epoch: u64) -> Result<Self, ApiError> {
        let fail = |e: std::io::Error| {
            if crate::disk::io_out_of_space(&e) {
                return ApiError::from(e);
            }
            ApiError::internal(format!("cannot start the usage journal {}: {e}", path.display()))
        };
        let file = File::options().read(true).write(true).create(true).truncate(true).open(path).map_err(fail)?;
        // Real blocks, not a sparse file: writing to a mapped hole on a full disk would kill the process.
        let allocated = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, JOURNAL_BYTES as libc::off_t) };
        if allocated != 0 {
            return Err(fail(std::io::Error::from_raw_os_error(allocated)));
        }
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                JOURNAL_BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(fail(std::io::Error::last_os_error()));
        }
        let mapped = Self { ptr: ptr.cast(), next: AtomicUsize::new(0), epoch, _file: file };
        mapped.append(format!("{HEADER} {epoch}\n").as_bytes());
        Ok(mapped)
    }

    /// Copies `line` in at a reserved offset; false when the file is full.
    fn append(&self, line: &[u8]) -> bool {
        let at = self.next.fetch_add(line.len(), Ordering::Relaxed);
        if at + line.len() > JOURNAL_BYTES {
            return false;
        }
        // In bounds, and no other call was given these bytes.
        unsafe { std::ptr::copy_nonoverlapping(line.as_ptr(), self.ptr.add(at), line.len()) };
        true
    }
}

impl Mapped {
    /// What was written, as text (called once no call can write any more).
    fn written(&self) -> String {
        let len = self.next.load(Ordering::Relaxed).min(JOURNAL_BYTES);
        // Every call that reserved bytes has copied them: the writer holds the file switched out.
        let bytes = unsafe { std::slice::from_raw_parts(self.ptr, len) };
        String::from_utf8_lossy(bytes).into_owned()
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        unsafe { libc::munmap(self.ptr.cast(), JOURNAL_BYTES) };
    }
}

/// `KEY_ID AT_MS IP CHECK\n`: the check is a hash of the rest, so a line a kill cut short (or
/// pieced from two) is not read as a call.
fn line(hit: &Hit) -> String {
    use std::fmt::Write as _;
    let mut line = String::with_capacity(96);
    let _ = write!(line, "{} {} {}", hit.key_id, hit.at_ms, hit.ip);
    let sum = check(&line);
    let _ = writeln!(line, " {sum:08x}");
    line
}

fn check(fields: &str) -> u32 {
    fields.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ b as u32).wrapping_mul(0x0100_0193))
}

#[derive(Clone)]
pub struct UsageLog {
    queue: mpsc::Sender<Message>,
    /// Read-locked by a call across its append, so once the writer has switched files under the
    /// write lock, the old file is complete and no call holds it.
    current: Arc<RwLock<Arc<Mapped>>>,
    /// Set while SQLite has refused the counts for too long.
    refusing: Arc<AtomicBool>,
}

/// The two journal files of a database: `fanhub.db` -> `fanhub.db-usage-0`, `fanhub.db-usage-1`.
pub fn journal_paths(db_path: &Path) -> [PathBuf; 2] {
    [0, 1].map(|n| {
        let mut name = db_path.as_os_str().to_owned();
        name.push(format!("-usage-{n}"));
        PathBuf::from(name)
    })
}

fn path_for(paths: &[PathBuf; 2], epoch: u64) -> &Path {
    &paths[(epoch % 2) as usize]
}

impl UsageLog {
    /// Commits what a killed process left in the journals, then starts the writer thread. It
    /// commits what is left and ends when every handle is dropped.
    pub fn start(db: Db, ip_secret: [u8; 32], rule: AddressRule) -> Result<Self, ApiError> {
        let paths = journal_paths(db.path());
        let epoch = replay(&db, &paths, &ip_secret, rule)? + 1;
        let current = Arc::new(RwLock::new(Arc::new(Mapped::create(path_for(&paths, epoch), epoch)?)));
        let refusing = Arc::new(AtomicBool::new(false));
        let (queue, incoming) = mpsc::channel::<Message>();
        let mut writer = Writer {
            db,
            ip_secret,
            paths,
            current: current.clone(),
            refusing: refusing.clone(),
            rule,
            known_ips: HashMap::new(),
            pending: Vec::new(),
            incoming,
        };
        std::thread::Builder::new()
            .name("api-key-usage".into())
            .spawn(move || writer.run())
            .map_err(|e| ApiError::internal(format!("no thread for usage counting: {e}")))?;
        Ok(Self { queue, current, refusing })
    }

    /// Counts one call; returns once the count is in the journal.
    pub fn record(&self, hit: Hit) -> Result<(), ApiError> {
        if self.refusing.load(Ordering::Relaxed) {
            return Err(ApiError::unavailable("Your API usage could not be recorded. Please try again."));
        }
        let line = line(&hit);
        if self.current.read().unwrap_or_else(|p| p.into_inner()).append(line.as_bytes()) {
            return Ok(());
        }
        let _ = self.queue.send(Message::Flush(None));
        tracing::error!("the API key usage journal is full (the call is refused)");
        Err(ApiError::unavailable("Your API usage could not be recorded. Please try again."))
    }

    /// Commits every count so far; returns once they are in SQLite.
    pub async fn flush(&self) -> Result<(), ApiError> {
        let (done, written) = oneshot::channel();
        self.queue
            .send(Message::Flush(Some(done)))
            .map_err(|_| ApiError::unavailable("The server is shutting down."))?;
        match written.await {
            Ok(true) => Ok(()),
            _ => Err(ApiError::unavailable("API usage could not be written. Please try again.")),
        }
    }
}

/// Commits the journals a process that did not stop cleanly left, oldest first, skipping those
/// whose epoch was committed already; empties them. Returns the last committed epoch.
fn replay(db: &Db, paths: &[PathBuf; 2], ip_secret: &[u8; 32], rule: AddressRule) -> Result<u64, ApiError> {
    let mut committed: u64 = db.read_blocking(|c| settings::get(c, EPOCH_SETTING))?.unwrap_or(0);
    let mut journals = Vec::new();
    for path in paths {
        match std::fs::read(path) {
            Ok(bytes) => match parse(&String::from_utf8_lossy(&bytes)) {
                Some(journal) => journals.push(journal),
                None if !bytes.is_empty() => tracing::warn!("{} is not a usage journal; ignored", path.display()),
                None => {}
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(ApiError::internal(format!("cannot read {}: {e}", path.display()))),
        }
    }
    journals.sort_by_key(|(epoch, _)| *epoch);
    for (epoch, hits) in journals {
        if epoch <= committed {
            continue;
        }
        let addresses = addresses(&hits, rule, &HashMap::new());
        db.write_blocking(|tx| {
            store::record_usage(tx, &hits, &addresses, ip_secret, rule)?;
            settings::set(tx, EPOCH_SETTING, &epoch)
        })?;
        if !hits.is_empty() {
            tracing::info!("counted {} API calls from the usage journal of the last run", hits.len());
        }
        committed = epoch;
    }
    for path in paths {
        if path.exists() {
            std::fs::write(path, b"")
                .map_err(|e| ApiError::internal(format!("cannot empty {}: {e}", path.display())))?;
        }
    }
    Ok(committed)
}

/// A journal's epoch and its whole lines; None without the header. The unused rest of a file is
/// zeros, and so is a line whose call was killed before it was written; a line cut short by a kill
/// fails its check. Neither was answered, so neither counts.
fn parse(text: &str) -> Option<(u64, Vec<Hit>)> {
    let mut lines = text
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .map(|l| l.trim_end().rsplit('\0').next().unwrap_or(""));
    let epoch = lines.next()?.strip_prefix(HEADER)?.trim().parse().ok()?;
    let hits = lines
        .filter_map(|line| {
            let (fields, sum) = line.rsplit_once(' ')?;
            if u32::from_str_radix(sum, 16).ok()? != check(fields) {
                return None;
            }
            let mut parts = fields.split(' ');
            let hit = Hit {
                key_id: parts.next()?.parse().ok()?,
                at_ms: parts.next()?.parse().ok()?,
                ip: parts.next()?.parse().ok()?,
            };
            parts.next().is_none().then_some(hit)
        })
        .collect();
    Some((epoch, hits))
}

/// The (key, IP, day of its latest call) of `hits` not written for that day yet (`known`); none
/// for the public key, nor when keys keep no addresses.
fn addresses(hits: &[Hit], rule: AddressRule, known: &HashMap<(i64, IpAddr), i64>) -> Vec<(i64, IpAddr, i64)> {
    if rule.keep == 0 {
        return Vec::new();
    }
    let mut latest: HashMap<(i64, IpAddr), i64> = HashMap::new();
    for hit in hits.iter().filter(|h| Some(h.key_id) != rule.public_key_id) {
        let day = store::day_of(hit.at_ms);
        if known.get(&(hit.key_id, hit.ip)).is_some_and(|&written| written >= day) {
            continue;
        }
        let entry = latest.entry((hit.key_id, hit.ip)).or_insert(day);
        *entry = (*entry).max(day);
    }
    latest.into_iter().map(|((key_id, ip), day)| (key_id, ip, day)).collect()
}

struct Writer {
    db: Db,
    ip_secret: [u8; 32],
    paths: [PathBuf; 2],
    current: Arc<RwLock<Arc<Mapped>>>,
    refusing: Arc<AtomicBool>,
    rule: AddressRule,
    /// The (key, IP) pairs in api_key_ips with the day written for them, so a returning caller
    /// costs no statement until the next day.
    known_ips: HashMap<(i64, IpAddr), i64>,
    /// Calls whose commit failed and that the journal had no room for, kept for the next try.
    pending: Vec<Hit>,
    incoming: mpsc::Receiver<Message>,
}

impl Writer {
    fn run(&mut self) {
        loop {
            match self.incoming.recv_timeout(FLUSH_INTERVAL) {
                Ok(Message::Flush(done)) => {
                    let mut flushes: Vec<_> = done.into_iter().collect();
                    // Flushes that arrived meanwhile are answered by the same commit.
                    for Message::Flush(more) in self.incoming.try_iter() {
                        flushes.extend(more);
                    }
                    let committed = self.commit();
                    for done in flushes {
                        let _ = done.send(committed);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.commit();
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        self.commit();
    }

    /// Switches the calls to the other journal, commits everything the old one holds with its
    /// epoch, then empties it. True when it was committed (or there was nothing).
    fn commit(&mut self) -> bool {
        let (old_epoch, has_calls) = {
            let current = self.current.read().unwrap_or_else(|p| p.into_inner());
            let header = HEADER.len() + 1 + current.epoch.to_string().len() + 1;
            (current.epoch, current.next.load(Ordering::Relaxed) > header)
        };
        if !has_calls && self.pending.is_empty() {
            return true;
        }
        let next_epoch = old_epoch + 1;
        let next = match Mapped::create(path_for(&self.paths, next_epoch), next_epoch) {
            Ok(mapped) => Arc::new(mapped),
            Err(e) => {
                // A full disk is logged once, by the disk flag, not at every try.
                if !e.is_out_of_space() {
                    tracing::error!("API key usage not committed: {e}");
                }
                return false;
            }
        };
        let old = std::mem::replace(&mut *self.current.write().unwrap_or_else(|p| p.into_inner()), next.clone());
        let mut hits = std::mem::take(&mut self.pending);
        hits.extend(parse(&old.written()).map(|(_, journaled)| journaled).unwrap_or_default());
        drop(old);
        let written = self.write(&hits, old_epoch);
        if !written {
            // Into the new journal for the next try (read back from there), or kept here.
            self.pending = hits.iter().filter(|hit| !next.append(line(hit).as_bytes())).copied().collect();
            if !self.pending.is_empty() {
                tracing::error!(
                    "{} uncommitted API key calls are kept in memory only (the journal is full)",
                    self.pending.len()
                );
            }
        }
        self.refusing.store(!written && hits.len() >= MAX_UNCOMMITTED, Ordering::Relaxed);
        let old = path_for(&self.paths, old_epoch);
        if let Err(e) = std::fs::write(old, b"") {
            tracing::warn!("the used usage journal {} could not be emptied: {e}", old.display());
        }
        written
    }

    /// One transaction: the counts and the epoch they close.
    fn write(&mut self, hits: &[Hit], epoch: u64) -> bool {
        if self.known_ips.len() > MAX_KNOWN_IPS {
            self.known_ips.clear();
        }
        let addresses = addresses(hits, self.rule, &self.known_ips);
        let (secret, rule) = (&self.ip_secret, self.rule);
        let written = self.db.write_blocking(|tx| {
            store::record_usage(tx, hits, &addresses, secret, rule)?;
            settings::set(tx, EPOCH_SETTING, &epoch)
        });
        match written {
            Ok(()) => {
                self.known_ips.extend(addresses.into_iter().map(|(key_id, ip, day)| ((key_id, ip), day)));
                true
            }
            Err(e) => {
                if !e.is_out_of_space() {
                    tracing::error!("API key usage not written (kept for the next try): {e}");
                }
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULE: AddressRule = AddressRule { keep: 20, public_key_id: None };

    #[test]
    fn a_journal_keeps_whole_checked_lines_and_needs_its_header() {
        let hit = |key_id, ip: &str| Hit { key_id, at_ms: 1_700_000_000_000 + key_id, ip: ip.parse().unwrap() };
        let (a, b, c) = (line(&hit(3, "192.0.2.1")), line(&hit(4, "2001:db8::1")), line(&hit(123, "10.0.0.1")));
        // A call killed before its copy (zeros), one cut short (its start only), one pieced
        // together from a lost start and a later end, and the unused zeros after the last line.
        let pieced = format!("1\0\0{}", &c[2..]);
        let text = format!("fanhub-usage-journal 1 7\n{a}\0\0\0\0{b}{}\0\0\0{pieced}{a}\0\0\0\0", &c[..9]);
        let (epoch, hits) = parse(&text).unwrap();
        assert_eq!(epoch, 7);
        let read: Vec<(i64, String)> = hits.iter().map(|h| (h.key_id, h.ip.to_string())).collect();
        assert_eq!(read, vec![(3, "192.0.2.1".into()), (4, "2001:db8::1".into()), (3, "192.0.2.1".into())]);
        assert!(parse(&a).is_none(), "no header");
        assert!(parse("fanhub-usage-journal 1 7").is_none(), "a header cut short");
        assert_eq!(parse("fanhub-usage-journal 1 2\nbad line\n1 2 3 4\n1 2 10.0.0.1 00000000\n").unwrap().1.len(), 0);
    }

    #[test]
    fn journals_are_committed_once_at_start_oldest_first_and_a_committed_one_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let db_path = dir.path().join("fanhub.db");
        let db = Db::open(&db_path).unwrap();
        let owner = super::super::Owner::Anonymous(crate::tokens::sha256("owner"));
        let (id, secret) = db
            .write_blocking(|tx| {
                Ok((store::create(tx, "k", &owner, "192.0.2.9".parse().unwrap())?.1.id, store::ip_secret(tx)?))
            })
            .unwrap();
        let requests = || db.read_blocking(|c| store::view(c, id)).unwrap().requests;
        let paths = journal_paths(&db_path);
        let lines = |n: usize| {
            (0..n)
                .map(|i| {
                    line(&Hit {
                        key_id: id,
                        at_ms: 1_700_000_000_000 + i as i64,
                        ip: format!("192.0.2.{}", i + 1).parse().unwrap(),
                    })
                })
                .collect::<String>()
        };

        // A kill mid-commit: epoch 4 switched out (2 calls), epoch 5 current (1 call).
        std::fs::write(&paths[0], format!("{HEADER} 4\n{}", lines(2))).unwrap();
        std::fs::write(&paths[1], format!("{HEADER} 5\n{}", lines(1))).unwrap();
        assert_eq!(replay(&db, &paths, &secret, RULE).unwrap(), 5);
        assert_eq!(requests(), 3, "both journals are committed");
        assert_eq!(std::fs::read(&paths[0]).unwrap(), b"", "and emptied");

        // Killed after a commit, before its journal was emptied: the same file again.
        std::fs::write(&paths[1], format!("{HEADER} 5\n{}", lines(1))).unwrap();
        assert_eq!(replay(&db, &paths, &secret, RULE).unwrap(), 5);
        assert_eq!(requests(), 3, "never counted twice");

        // The writer journals each call before it returns, and commits on flush.
        let log = UsageLog::start(db.clone(), secret, RULE).unwrap();
        for ms in 0..3 {
            log.record(Hit { key_id: id, at_ms: 1_700_000_000_100 + ms, ip: "192.0.2.3".parse().unwrap() }).unwrap();
        }
        let (epoch, journaled) = parse(&String::from_utf8_lossy(&std::fs::read(&paths[0]).unwrap())).unwrap();
        assert_eq!((epoch, journaled.len()), (6, 3), "journaled before the answer");
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(log.flush()).unwrap();
        assert_eq!(requests(), 6);
        assert_eq!(std::fs::read(&paths[0]).unwrap(), b"", "emptied after its commit");
        let (epoch, journaled) = parse(&String::from_utf8_lossy(&std::fs::read(&paths[1]).unwrap())).unwrap();
        assert_eq!((epoch, journaled.len()), (7, 0), "the calls go to the other one");
    }

    #[test]
    fn the_journals_sit_beside_the_database() {
        assert_eq!(
            journal_paths(Path::new("/d/fanhub.db")),
            [PathBuf::from("/d/fanhub.db-usage-0"), PathBuf::from("/d/fanhub.db-usage-1")]
        );
    }
}
