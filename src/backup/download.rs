//! The admin panel's download of the live database, streamed from disk. The copy (`VACUUM INTO`,
//! on the backup thread) is written to a hidden file in `backups/`, opened, and its name removed at
//! once: the kernel keeps its pages while the download reads them and frees them when the last
//! handle closes, so a finished download, a client that went away, a kill -9 or a crash all leave
//! nothing behind. It is sent in 256 KiB pieces read as the client takes them, so a download adds
//! about one piece of memory whatever the database's size.
//!
//! A client that takes nothing for the idle limit (a stalled or abandoned connection: its socket
//! buffers are full and it reads no more) loses the download: the copy is closed, giving its disk
//! space back, while the connection waits for the client or the kernel to end it.

use std::fs::File;
use std::io;
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::time::Instant;

use super::Failure;
use super::archive::Partial;
use crate::db::Db;

/// The pieces a download is read and sent in.
const PIECE: usize = 256 * 1024;

/// A copy of the database whose name is already gone: only this handle keeps its pages.
pub struct Copy {
    file: File,
    pub len: u64,
}

/// Writes the copy into `dir` once its disk has room for it (see [`super::copy_database`]),
/// opens it and removes its name. Blocking.
pub fn write_copy(db: &Db, dir: &Path) -> Result<Copy, Failure> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let named = Partial(dir.join(format!(".download-{}.db", crate::tokens::random_hex(8))));
    super::copy_database(db, &named.0)?;
    let file = File::open(&named.0).map_err(|e| format!("cannot open the copy: {e}"))?;
    drop(named);
    let len = file.metadata().map_err(|e| format!("cannot read the copy's size: {e}"))?.len();
    Ok(Copy { file, len })
}

/// What the body and its watchdog share: the open copy (taken away when the client stalls) and
/// when the client last took a piece.
struct Sending {
    file: Mutex<Option<tokio::fs::File>>,
    started: Instant,
    /// Milliseconds from `started` to the last piece read for the client.
    last_piece_ms: AtomicU64,
}

impl Sending {
    fn last_piece(&self) -> Instant {
        self.started + Duration::from_millis(self.last_piece_ms.load(Ordering::Relaxed))
    }

    fn took_a_piece(&self) {
        self.last_piece_ms.store(self.started.elapsed().as_millis() as u64, Ordering::Relaxed);
    }
}

/// The copy as the body reads it: the file while it is open, an error once the watchdog closed it.
struct Reader(Arc<Sending>);

impl AsyncRead for Reader {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let sending = &self.0;
        let mut slot = sending.file.lock().unwrap_or_else(|p| p.into_inner());
        let Some(file) = slot.as_mut() else {
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client stopped taking the download")));
        };
        let before = buf.filled().len();
        let read = Pin::new(file).poll_read(cx, buf);
        if matches!(read, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            sending.took_a_piece();
        }
        read
    }
}

/// The response body sending `copy`; the copy is closed when the body ends or is dropped (the
/// client went away), or when the client took nothing for `idle`.
pub fn body(copy: Copy, idle: Duration) -> Body {
    let sending = Arc::new(Sending {
        file: Mutex::new(Some(tokio::fs::File::from_std(copy.file))),
        started: Instant::now(),
        last_piece_ms: AtomicU64::new(0),
    });
    tokio::spawn(watch(Arc::downgrade(&sending), idle, copy.len));
    Body::from_stream(tokio_util::io::ReaderStream::with_capacity(Reader(sending), PIECE))
}

/// Closes the copy once the client has taken nothing for `idle`; ends with the body.
async fn watch(sending: Weak<Sending>, idle: Duration, len: u64) {
    loop {
        let Some(deadline) = sending.upgrade().map(|s| s.last_piece() + idle) else { return };
        tokio::time::sleep_until(deadline).await;
        let Some(live) = sending.upgrade() else { return };
        if live.last_piece() + idle <= Instant::now() {
            let closed = live.file.lock().unwrap_or_else(|p| p.into_inner()).take();
            drop(closed);
            tracing::warn!(
                "a database download ({len} bytes) stopped: the client took nothing for {} s; its copy was removed",
                idle.as_secs()
            );
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    fn database_with(rows: usize) -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(&dir.path().join("fanhub.db")).unwrap();
        db.write_blocking(|tx| {
            for i in 0..rows {
                crate::db::settings::set(tx, &format!("k{i}"), &"x".repeat(4000))?;
            }
            Ok(())
        })
        .unwrap();
        (dir, db)
    }

    fn names_in(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
    }

    #[tokio::test]
    async fn the_copy_streams_whole_and_leaves_no_file() {
        let (dir, db) = database_with(300);
        let backups = dir.path().join("backups");
        let copy = write_copy(&db, &backups).unwrap();
        assert!(names_in(&backups).is_empty(), "the copy's name is removed at once: {:?}", names_in(&backups));
        let len = copy.len;
        let bytes = body(copy, Duration::from_secs(5)).collect().await.unwrap().to_bytes();
        assert_eq!(bytes.len() as u64, len);
        let copied = dir.path().join("copied.db");
        std::fs::write(&copied, &bytes).unwrap();
        let conn = rusqlite::Connection::open(&copied).unwrap();
        assert_eq!(crate::db::settings::get::<String>(&conn, "k299").unwrap().unwrap().len(), 4000);
    }

    #[tokio::test]
    async fn a_client_that_takes_nothing_loses_the_copy_after_the_idle_limit() {
        let (dir, db) = database_with(200);
        let copy = write_copy(&db, &dir.path().join("backups")).unwrap();
        assert!(copy.len > 2 * PIECE as u64, "more than one piece to send");
        let mut body = body(copy, Duration::from_secs(1));
        let first = body.frame().await.unwrap().unwrap();
        assert!(first.data_ref().is_some_and(|d| !d.is_empty()));
        // The client stops reading for longer than the limit: the next piece is an error.
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let next = body.frame().await.expect("the body ends with an error");
        let error = next.unwrap_err().to_string();
        assert!(error.contains("stopped taking the download"), "{error}");
    }
}
