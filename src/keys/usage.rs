//! Usage counting. A keyed call appends its count to the usage journal (a file beside the
//! database) before it is answered: one small write(2) on the request's own thread, no hop and no
//! wait for SQLite. A thread of its own commits the counts to SQLite once a second (one statement
//! per key and hour, nothing for a key and IP already seen). A kill -9 after an answer therefore
//! loses no count: the write is in the kernel's page cache, which outlives the process, and the
//! journal is committed at the next start. (A power cut can lose the last seconds, as SQLite's
//! `synchronous=NORMAL` can.) A clean stop and every reader of the counts (`flush`) commit first.
//!
//! Two journal files take turns (`fanhub.db-usage-0` and `-1`), each a header
//! `fanhub-usage-journal 1 EPOCH` and then `KEY_ID AT_MS IP` a line. A commit first switches the
//! calls to the other file (a new epoch), then commits what the old file holds together with its
//! epoch (`settings.usage_journal_epoch`), then empties it. So a file is never emptied before its
//! counts are in SQLite, and a kill between the commit and the emptying counts nothing twice: a
//! journal whose epoch was committed is skipped at start.

use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::store::{self, Hit};
use crate::db::{Db, settings};
use crate::error::ApiError;

/// How long a count may wait in the journal before it is committed to SQLite.
pub const FLUSH_INTERVAL: Duration = Duration::from_secs(1);
const MAX_BATCH: usize = 65_536;
/// While SQLite refuses the counts, keyed calls are refused past this many uncommitted ones.
const MAX_UNCOMMITTED: usize = 4 * MAX_BATCH;
const MAX_KNOWN_IPS: usize = 100_000;
const HEADER: &str = "fanhub-usage-journal 1";
const EPOCH_SETTING: &str = "usage_journal_epoch";

enum Message {
    /// A journaled call and the epoch of the file it is in.
    Hit(Hit, u64),
    /// Commit everything journaled so far, then answer whether it was committed.
    Flush(oneshot::Sender<bool>),
}

/// The file calls append to now.
struct Current {
    file: File,
    epoch: u64,
}

#[derive(Clone)]
pub struct UsageLog {
    queue: mpsc::Sender<Message>,
    /// Read-locked by a call across its append and its message, so the writer, which switches
    /// files under the write lock, finds every call of the old file in its queue.
    current: Arc<RwLock<Current>>,
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
    pub fn start(db: Db, ip_secret: [u8; 32]) -> Result<Self, ApiError> {
        let paths = journal_paths(db.path());
        let epoch = replay(&db, &paths, &ip_secret)? + 1;
        let current = Arc::new(RwLock::new(Current { file: start_journal(path_for(&paths, epoch), epoch)?, epoch }));
        let refusing = Arc::new(AtomicBool::new(false));
        let (queue, incoming) = mpsc::channel::<Message>();
        let mut writer = Writer {
            db,
            ip_secret,
            paths,
            current: current.clone(),
            refusing: refusing.clone(),
            known_ips: HashSet::new(),
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
        let line = format!("{} {} {}\n", hit.key_id, hit.at_ms, hit.ip);
        let current = self.current.read().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = (&current.file).write_all(line.as_bytes()) {
            tracing::error!("API key usage not journaled (the call is refused): {e}");
            return Err(ApiError::unavailable("Your API usage could not be recorded. Please try again."));
        }
        self.queue.send(Message::Hit(hit, current.epoch)).map_err(|_| ApiError::unavailable("The server is shutting down."))
    }

    /// Commits every count so far; returns once they are in SQLite.
    pub async fn flush(&self) -> Result<(), ApiError> {
        let (done, written) = oneshot::channel();
        self.queue.send(Message::Flush(done)).map_err(|_| ApiError::unavailable("The server is shutting down."))?;
        match written.await {
            Ok(true) => Ok(()),
            _ => Err(ApiError::unavailable("API usage could not be written. Please try again.")),
        }
    }
}

/// An empty journal for `epoch`, opened for appending.
fn start_journal(path: &Path, epoch: u64) -> Result<File, ApiError> {
    let fail = |e: std::io::Error| ApiError::internal(format!("cannot start the usage journal {}: {e}", path.display()));
    std::fs::write(path, format!("{HEADER} {epoch}\n")).map_err(fail)?;
    File::options().append(true).open(path).map_err(fail)
}

/// Commits the journals a process that did not stop cleanly left, oldest first, skipping those
/// whose epoch was committed already; empties them. Returns the last committed epoch.
fn replay(db: &Db, paths: &[PathBuf; 2], ip_secret: &[u8; 32]) -> Result<u64, ApiError> {
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
        let new_ips: Vec<(i64, IpAddr)> =
            hits.iter().map(|h| (h.key_id, h.ip)).collect::<HashSet<_>>().into_iter().collect();
        db.write_blocking(|tx| {
            store::record_usage(tx, &hits, &new_ips, ip_secret)?;
            settings::set(tx, EPOCH_SETTING, &epoch)
        })?;
        if !hits.is_empty() {
            tracing::info!("counted {} API calls from the usage journal of the last run", hits.len());
        }
        committed = epoch;
    }
    for path in paths {
        if path.exists() {
            std::fs::write(path, b"").map_err(|e| ApiError::internal(format!("cannot empty {}: {e}", path.display())))?;
        }
    }
    Ok(committed)
}

/// A journal's epoch and its complete lines; None without the header. A line cut short by a kill
/// was never acknowledged, so it is dropped.
fn parse(text: &str) -> Option<(u64, Vec<Hit>)> {
    let mut lines = text.split_inclusive('\n').filter(|l| l.ends_with('\n')).map(str::trim_end);
    let epoch = lines.next()?.strip_prefix(HEADER)?.trim().parse().ok()?;
    let hits = lines
        .filter_map(|line| {
            let mut parts = line.split(' ');
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

struct Writer {
    db: Db,
    ip_secret: [u8; 32],
    paths: [PathBuf; 2],
    current: Arc<RwLock<Current>>,
    refusing: Arc<AtomicBool>,
    /// The (key, IP) pairs already in api_key_ips, so a returning caller costs no statement.
    known_ips: HashSet<(i64, IpAddr)>,
    /// Journaled calls not committed yet, with their file's epoch.
    pending: Vec<(Hit, u64)>,
    incoming: mpsc::Receiver<Message>,
}

impl Writer {
    fn run(&mut self) {
        let mut deadline = Instant::now() + FLUSH_INTERVAL;
        loop {
            let message = if self.pending.is_empty() {
                self.incoming.recv().map_err(|_| RecvTimeoutError::Disconnected)
            } else {
                self.incoming.recv_timeout(deadline.saturating_duration_since(Instant::now()))
            };
            match message {
                Ok(Message::Hit(hit, epoch)) => {
                    if self.pending.is_empty() {
                        deadline = Instant::now() + FLUSH_INTERVAL;
                    }
                    self.pending.push((hit, epoch));
                    if self.pending.len() >= MAX_BATCH {
                        self.commit(&mut Vec::new());
                    }
                }
                Ok(Message::Flush(done)) => {
                    let mut flushes = vec![done];
                    let committed = self.commit(&mut flushes);
                    for done in flushes {
                        let _ = done.send(committed);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.commit(&mut Vec::new());
                    // After a failed commit, the next try waits an interval instead of spinning.
                    deadline = Instant::now() + FLUSH_INTERVAL;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        self.commit(&mut Vec::new());
    }

    /// Switches the calls to the other journal, commits everything the old one holds with its
    /// epoch, then empties it. True when it was committed (or there was nothing). Flush requests
    /// met in the queue meanwhile join `flushes`.
    fn commit(&mut self, flushes: &mut Vec<oneshot::Sender<bool>>) -> bool {
        // A call sends its message before it is answered, so anything a flush must cover is here.
        if self.pending.is_empty() {
            return true;
        }
        let old_epoch = self.current.read().unwrap_or_else(|p| p.into_inner()).epoch;
        let next_epoch = old_epoch + 1;
        let next = match start_journal(path_for(&self.paths, next_epoch), next_epoch) {
            Ok(file) => file,
            Err(e) => {
                tracing::error!("API key usage not committed: {e}");
                return false;
            }
        };
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = Current { file: next, epoch: next_epoch };
        // Every call of the old file sent its message while holding the read lock: all are queued.
        for message in self.incoming.try_iter() {
            match message {
                Message::Hit(hit, epoch) => self.pending.push((hit, epoch)),
                Message::Flush(done) => flushes.push(done),
            }
        }
        let (batch, later): (Vec<_>, Vec<_>) = self.pending.drain(..).partition(|(_, epoch)| *epoch <= old_epoch);
        self.pending = later;
        let hits: Vec<Hit> = batch.iter().map(|(hit, _)| *hit).collect();
        let written = self.write(&hits, old_epoch);
        if !written {
            // Kept in the new journal and in memory for the next try.
            let lines: String = hits.iter().map(|h| format!("{} {} {}\n", h.key_id, h.at_ms, h.ip)).collect();
            let current = self.current.read().unwrap_or_else(|p| p.into_inner());
            if let Err(e) = (&current.file).write_all(lines.as_bytes()) {
                tracing::error!("uncommitted API key usage could not be journaled again: {e}");
            }
            self.pending.extend(hits.into_iter().map(|hit| (hit, next_epoch)));
        }
        self.refusing.store(self.pending.len() >= MAX_UNCOMMITTED, Ordering::Relaxed);
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
        let new_ips: Vec<(i64, IpAddr)> = hits
            .iter()
            .map(|h| (h.key_id, h.ip))
            .filter(|pair| !self.known_ips.contains(pair))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let secret = &self.ip_secret;
        let written = self.db.write_blocking(|tx| {
            store::record_usage(tx, hits, &new_ips, secret)?;
            settings::set(tx, EPOCH_SETTING, &epoch)
        });
        match written {
            Ok(()) => {
                self.known_ips.extend(new_ips);
                true
            }
            Err(e) => {
                tracing::error!("API key usage not written (kept for the next try): {e}");
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_keeps_complete_lines_and_needs_its_header() {
        let text = "fanhub-usage-journal 1 7\n3 1700000000000 192.0.2.1\n4 1700000000001 2001:db8::1\n5 17000";
        let (epoch, hits) = parse(text).unwrap();
        assert_eq!(epoch, 7);
        assert_eq!(hits.len(), 2, "the cut line was never acknowledged");
        assert_eq!((hits[1].key_id, hits[1].at_ms, hits[1].ip.to_string().as_str()), (4, 1_700_000_000_001, "2001:db8::1"));
        assert!(parse("3 1700000000000 192.0.2.1\n").is_none());
        assert!(parse("fanhub-usage-journal 1 7").is_none(), "a header cut short");
        assert_eq!(parse("fanhub-usage-journal 1 2\nbad line\n1 2 3 4\n").unwrap().1.len(), 0);
    }

    #[test]
    fn journals_are_committed_once_at_start_oldest_first_and_a_committed_one_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let db_path = dir.path().join("fanhub.db");
        let db = Db::open(&db_path).unwrap();
        let owner = super::super::Owner::Anonymous(crate::tokens::sha256("owner"));
        let (id, secret) = db
            .write_blocking(|tx| Ok((store::create(tx, "k", &owner, "192.0.2.9".parse().unwrap())?.1.id, store::ip_secret(tx)?)))
            .unwrap();
        let requests = || db.read_blocking(|c| store::view(c, id)).unwrap().requests;
        let paths = journal_paths(&db_path);
        let lines = |n: usize| (0..n).map(|i| format!("{id} {} 192.0.2.{}\n", 1_700_000_000_000u64 + i as u64, i + 1)).collect::<String>();

        // A kill mid-commit: epoch 4 switched out (2 calls), epoch 5 current (1 call).
        std::fs::write(&paths[0], format!("{HEADER} 4\n{}", lines(2))).unwrap();
        std::fs::write(&paths[1], format!("{HEADER} 5\n{}", lines(1))).unwrap();
        assert_eq!(replay(&db, &paths, &secret).unwrap(), 5);
        assert_eq!(requests(), 3, "both journals are committed");
        assert_eq!(std::fs::read(&paths[0]).unwrap(), b"", "and emptied");

        // Killed after a commit, before its journal was emptied: the same file again.
        std::fs::write(&paths[1], format!("{HEADER} 5\n{}", lines(1))).unwrap();
        assert_eq!(replay(&db, &paths, &secret).unwrap(), 5);
        assert_eq!(requests(), 3, "never counted twice");

        // The writer journals each call before it returns, and commits on flush.
        let log = UsageLog::start(db.clone(), secret).unwrap();
        for ms in 0..3 {
            log.record(Hit { key_id: id, at_ms: 1_700_000_000_100 + ms, ip: "192.0.2.3".parse().unwrap() }).unwrap();
        }
        let text = std::fs::read_to_string(&paths[0]).unwrap();
        assert_eq!(text.lines().collect::<Vec<_>>()[0], format!("{HEADER} 6"));
        assert_eq!(text.lines().count(), 4, "journaled before the answer: {text}");
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(log.flush()).unwrap();
        assert_eq!(requests(), 6);
        assert_eq!(std::fs::read(&paths[0]).unwrap(), b"", "emptied after its commit");
        assert_eq!(std::fs::read_to_string(&paths[1]).unwrap(), format!("{HEADER} 7\n"), "the calls go to the other one");
    }

    #[test]
    fn the_journals_sit_beside_the_database() {
        assert_eq!(journal_paths(Path::new("/d/fanhub.db")), [PathBuf::from("/d/fanhub.db-usage-0"), PathBuf::from("/d/fanhub.db-usage-1")]);
    }
}
