//! Usage counting. A keyed call is answered only once its count is in the usage journal (the file
//! `fanhub.db-usage` beside the database): a thread of its own appends the counts of every call
//! waiting at that moment with one write(2), so calls arriving together share it and none waits
//! for SQLite. The counts reach SQLite once a second (one statement per key and hour, nothing for a
//! key and IP already seen); the journal is emptied in step with each commit and replayed at start.
//! A kill -9 after an answer therefore loses no count: the write is in the kernel's page cache,
//! which outlives the process. (A power cut can lose the last seconds, as SQLite's
//! `synchronous=NORMAL` can.) A clean stop and every reader of the counts (`flush`) commit first.
//!
//! The journal is text: a header `fanhub-usage-journal 1 EPOCH`, then `KEY_ID AT_MS IP` a line.
//! Each commit stores its epoch in `settings` (`usage_journal_epoch`) in the same transaction as
//! the counts, then starts the journal anew with the next epoch, so a kill between the two never
//! counts a call twice: a journal whose epoch was already committed is discarded at start.

use std::collections::HashSet;
use std::fs::File;
use std::io::{Seek, Write};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::store::{self, Hit};
use crate::db::{Db, settings};
use crate::error::ApiError;

/// How long a count may wait in the journal before it is committed to SQLite.
pub const FLUSH_INTERVAL: Duration = Duration::from_secs(1);
const MAX_BATCH: usize = 65_536;
/// While SQLite refuses the counts, calls are refused past this many uncommitted ones.
const MAX_UNCOMMITTED: usize = 4 * MAX_BATCH;
const MAX_KNOWN_IPS: usize = 100_000;
const HEADER: &str = "fanhub-usage-journal 1";
const EPOCH_SETTING: &str = "usage_journal_epoch";

enum Message {
    /// Count one call; answers once the count is in the journal.
    Hit(Hit, oneshot::Sender<bool>),
    /// Commit everything counted so far, then answer whether it was committed.
    Flush(oneshot::Sender<bool>),
}

#[derive(Clone)]
pub struct UsageLog {
    queue: mpsc::Sender<Message>,
}

/// The journal of a database: `fanhub.db` -> `fanhub.db-usage`.
pub fn journal_path(db_path: &Path) -> PathBuf {
    let mut name = db_path.as_os_str().to_owned();
    name.push("-usage");
    PathBuf::from(name)
}

impl UsageLog {
    /// Commits what a killed process left in the journal, then starts the writer thread. It
    /// commits what is left and ends when every handle is dropped.
    pub fn start(db: Db, ip_secret: [u8; 32]) -> Result<Self, ApiError> {
        let path = journal_path(db.path());
        let epoch = replay(&db, &path, &ip_secret)?;
        let journal = Journal::create(&path, epoch + 1)?;
        let (queue, incoming) = mpsc::channel::<Message>();
        let mut writer = Writer { db, ip_secret, journal, known_ips: HashSet::new(), hits: Vec::new() };
        std::thread::Builder::new()
            .name("api-key-usage".into())
            .spawn(move || writer.run(incoming))
            .map_err(|e| ApiError::internal(format!("no thread for usage counting: {e}")))?;
        Ok(Self { queue })
    }

    /// Counts one call; returns once the count is in the journal.
    pub async fn record(&self, hit: Hit) -> Result<(), ApiError> {
        let (done, journaled) = oneshot::channel();
        self.queue.send(Message::Hit(hit, done)).map_err(|_| ApiError::unavailable("The server is shutting down."))?;
        match journaled.await {
            Ok(true) => Ok(()),
            _ => Err(ApiError::unavailable("Your API usage could not be recorded. Please try again.")),
        }
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

/// Commits the counts of a journal left by a process that did not stop cleanly, unless its epoch
/// was committed already. Returns the last committed epoch.
fn replay(db: &Db, path: &Path, ip_secret: &[u8; 32]) -> Result<u64, ApiError> {
    let committed: u64 = db.read_blocking(|c| settings::get(c, EPOCH_SETTING))?.unwrap_or(0);
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(committed),
        Err(e) => return Err(ApiError::internal(format!("cannot read {}: {e}", path.display()))),
    };
    let Some((epoch, hits)) = parse(&text) else {
        if !text.is_empty() {
            tracing::warn!("{} is not a usage journal; ignored", path.display());
        }
        return Ok(committed);
    };
    if epoch <= committed || hits.is_empty() {
        return Ok(committed.max(epoch));
    }
    let new_ips: Vec<(i64, IpAddr)> =
        hits.iter().map(|h| (h.key_id, h.ip)).collect::<HashSet<_>>().into_iter().collect();
    db.write_blocking(|tx| {
        store::record_usage(tx, &hits, &new_ips, ip_secret)?;
        settings::set(tx, EPOCH_SETTING, &epoch)
    })?;
    tracing::info!("counted {} API calls from the usage journal of the last run", hits.len());
    Ok(epoch)
}

/// The journal's epoch and its complete lines; None when the header is missing. A line cut short
/// by a kill was never acknowledged, so it is dropped.
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

struct Journal {
    file: File,
    epoch: u64,
    line: String,
}

impl Journal {
    fn create(path: &Path, epoch: u64) -> Result<Self, ApiError> {
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| ApiError::internal(format!("cannot open {}: {e}", path.display())))?;
        let mut journal = Self { file, epoch: 0, line: String::new() };
        journal.restart(epoch).map_err(|e| ApiError::internal(format!("cannot write {}: {e}", path.display())))?;
        Ok(journal)
    }

    /// Empties the journal and starts `epoch`.
    fn restart(&mut self, epoch: u64) -> std::io::Result<()> {
        self.file.set_len(0)?;
        self.file.rewind()?;
        self.file.write_all(format!("{HEADER} {epoch}\n").as_bytes())?;
        self.epoch = epoch;
        Ok(())
    }

    fn append(&mut self, hits: &[Hit]) -> std::io::Result<()> {
        use std::fmt::Write as _;
        self.line.clear();
        for h in hits {
            let _ = writeln!(self.line, "{} {} {}", h.key_id, h.at_ms, h.ip);
        }
        self.file.write_all(self.line.as_bytes())
    }
}

struct Writer {
    db: Db,
    ip_secret: [u8; 32],
    journal: Journal,
    /// The (key, IP) pairs already in api_key_ips, so a returning caller costs no statement.
    known_ips: HashSet<(i64, IpAddr)>,
    /// Journaled, not yet committed.
    hits: Vec<Hit>,
}

impl Writer {
    fn run(&mut self, incoming: mpsc::Receiver<Message>) {
        let mut deadline = Instant::now();
        let mut arrived: Vec<Hit> = Vec::new();
        let mut waiting: Vec<oneshot::Sender<bool>> = Vec::new();
        let mut flushes: Vec<oneshot::Sender<bool>> = Vec::new();
        loop {
            let first = if self.hits.is_empty() {
                incoming.recv().map_err(|_| RecvTimeoutError::Disconnected)
            } else {
                incoming.recv_timeout(deadline.saturating_duration_since(Instant::now()))
            };
            let first = match first {
                Ok(m) => m,
                Err(RecvTimeoutError::Timeout) => {
                    self.commit();
                    // After a failed commit, the next try waits an interval instead of spinning.
                    deadline = Instant::now() + FLUSH_INTERVAL;
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            // Everything waiting now shares one journal write.
            for message in std::iter::once(first).chain(incoming.try_iter().take(MAX_BATCH)) {
                match message {
                    Message::Hit(hit, done) => {
                        arrived.push(hit);
                        waiting.push(done);
                    }
                    Message::Flush(done) => flushes.push(done),
                }
            }
            if !arrived.is_empty() {
                let journaled = if self.hits.len() >= MAX_UNCOMMITTED {
                    tracing::error!("API key usage cannot be committed to the database: keyed calls are refused");
                    false
                } else {
                    match self.journal.append(&arrived) {
                        Ok(()) => true,
                        Err(e) => {
                            tracing::error!("API key usage not journaled (the calls are refused): {e}");
                            false
                        }
                    }
                };
                if journaled {
                    if self.hits.is_empty() {
                        deadline = Instant::now() + FLUSH_INTERVAL;
                    }
                    self.hits.append(&mut arrived);
                }
                arrived.clear();
                for done in waiting.drain(..) {
                    let _ = done.send(journaled);
                }
            }
            if !flushes.is_empty() || self.hits.len() >= MAX_BATCH {
                let committed = self.commit();
                for done in flushes.drain(..) {
                    let _ = done.send(committed);
                }
            }
        }
        self.commit();
    }

    /// Commits the journaled hits with the journal's epoch, then starts the next epoch; true when
    /// there was nothing to commit or it was committed. Hits that could not be committed stay in
    /// the journal and in memory for the next try.
    fn commit(&mut self) -> bool {
        if self.hits.is_empty() {
            return true;
        }
        if self.known_ips.len() > MAX_KNOWN_IPS {
            self.known_ips.clear();
        }
        let new_ips: Vec<(i64, IpAddr)> = self
            .hits
            .iter()
            .map(|h| (h.key_id, h.ip))
            .filter(|pair| !self.known_ips.contains(pair))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let (hits, secret, epoch) = (&self.hits, &self.ip_secret, self.journal.epoch);
        let written = self.db.write_blocking(|tx| {
            store::record_usage(tx, hits, &new_ips, secret)?;
            settings::set(tx, EPOCH_SETTING, &epoch)
        });
        match written {
            Ok(()) => {
                self.known_ips.extend(new_ips);
                self.hits.clear();
                if let Err(e) = self.journal.restart(epoch + 1) {
                    // The counts are committed under this epoch, so a replay would skip them.
                    tracing::error!("the usage journal could not be started anew: {e}");
                }
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
    fn a_journal_is_committed_once_at_start_and_an_already_committed_one_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let db_path = dir.path().join("fanhub.db");
        let db = Db::open(&db_path).unwrap();
        let owner = super::super::Owner::Anonymous(crate::tokens::sha256("owner"));
        let (id, secret) = db
            .write_blocking(|tx| Ok((store::create(tx, "k", &owner, "192.0.2.9".parse().unwrap())?.1.id, store::ip_secret(tx)?)))
            .unwrap();
        let requests = || db.read_blocking(|c| store::view(c, id)).unwrap().requests;
        let journal = journal_path(&db_path);
        let lines = format!("{id} 1700000000000 192.0.2.1\n{id} 1700000000001 192.0.2.2\n");

        std::fs::write(&journal, format!("{HEADER} 4\n{lines}")).unwrap();
        assert_eq!(replay(&db, &journal, &secret).unwrap(), 4);
        assert_eq!(requests(), 2, "a killed run's counts are committed");
        // Killed after that commit but before the journal was started anew: the same file again.
        assert_eq!(replay(&db, &journal, &secret).unwrap(), 4);
        assert_eq!(requests(), 2, "never counted twice");

        // The writer starts the next epoch, journals, and commits on flush.
        let log = UsageLog::start(db.clone(), secret).unwrap();
        assert!(std::fs::read_to_string(&journal).unwrap().starts_with(&format!("{HEADER} 5\n")));
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            for ms in 0..3 {
                log.record(Hit { key_id: id, at_ms: 1_700_000_000_100 + ms, ip: "192.0.2.3".parse().unwrap() }).await.unwrap();
            }
            let text = std::fs::read_to_string(&journal).unwrap();
            assert_eq!(text.lines().count(), 4, "journaled before the answer: {text}");
            log.flush().await.unwrap();
        });
        assert_eq!(requests(), 5);
        assert_eq!(std::fs::read_to_string(&journal).unwrap(), format!("{HEADER} 6\n"), "emptied after the commit");
    }

    #[test]
    fn the_journal_path_sits_beside_the_database() {
        assert_eq!(journal_path(Path::new("/d/fanhub.db")), Path::new("/d/fanhub.db-usage"));
    }
}
