//! An answer must keep leaving: once a client stops taking what it asked for (a write that would
//! block), the answer must average the same minimum rate as a request body after the same grace,
//! and may never be stuck longer than the read timeout. A client that falls behind has its
//! connection closed, so clients that ask and never read cannot hold every connection (the
//! request side of the rule is `body_rate`).
//!
//! The clock runs only while writes are blocked: an answer the kernel takes at once costs nothing,
//! and a client that reads slowly but steadily (a phone on a poor network) keeps its connection.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use crate::http::body_rate::BodyPace;

/// Since when a client has not kept up, and what it took since.
struct Behind {
    started: Instant,
    written: u64,
    last_progress: Instant,
}

/// A connection's stream whose writes are held to a [`BodyPace`].
pub struct PacedWrites<S> {
    inner: S,
    pace: BodyPace,
    behind: Option<Behind>,
    deadline: Pin<Box<Sleep>>,
}

impl<S> PacedWrites<S> {
    pub fn new(inner: S, pace: BodyPace) -> Self {
        Self { inner, pace, behind: None, deadline: Box::pin(tokio::time::sleep(pace.max_silence)) }
    }

    fn too_slow() -> io::Error {
        io::Error::new(io::ErrorKind::TimedOut, "the client stopped reading its answer")
    }
}

impl<S: AsyncWrite + Unpin> PacedWrites<S> {
    /// What a write (or flush) that returned `poll` means for the pace.
    fn paced<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<io::Result<T>>,
        wrote: impl Fn(&T) -> u64,
    ) -> Poll<io::Result<T>> {
        let now = Instant::now();
        match poll {
            Poll::Ready(Ok(value)) => {
                if let Some(behind) = &mut self.behind {
                    let n = wrote(&value);
                    if n > 0 {
                        behind.written += n;
                        behind.last_progress = now;
                    }
                    if now >= self.pace.deadline(behind.started, behind.written, behind.last_progress) {
                        return Poll::Ready(Err(Self::too_slow()));
                    }
                }
                Poll::Ready(Ok(value))
            }
            Poll::Pending => {
                let behind = self.behind.get_or_insert(Behind { started: now, written: 0, last_progress: now });
                let deadline = self.pace.deadline(behind.started, behind.written, behind.last_progress);
                if now >= deadline {
                    return Poll::Ready(Err(Self::too_slow()));
                }
                // Wakes the connection at the deadline even if the client never reads again.
                self.deadline.as_mut().reset(deadline);
                if self.deadline.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(Self::too_slow()));
                }
                Poll::Pending
            }
            other => other,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for PacedWrites<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for PacedWrites<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.paced(cx, poll, |n| *n as u64)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.paced(cx, poll, |n| *n as u64)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        let poll = self.paced(cx, poll, |_| 0);
        if let Poll::Ready(Ok(())) = poll {
            // Everything was handed over: the client kept up, and the next answer starts afresh.
            self.behind = None;
        }
        poll
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;

    const PACE: BodyPace =
        BodyPace { min_rate: 1000, grace: Duration::from_millis(300), max_silence: Duration::from_millis(200) };

    #[tokio::test]
    async fn a_client_that_never_reads_is_cut_off_after_the_silence_limit() {
        // A 1 KiB pipe whose other end is never read.
        let (ours, _theirs) = tokio::io::duplex(1024);
        let mut paced = PacedWrites::new(ours, PACE);
        let started = std::time::Instant::now();
        let err = paced.write_all(&vec![b'x'; 64 * 1024]).await.expect_err("the write must end");
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(190) && took < Duration::from_secs(2), "{took:?}");
    }

    #[tokio::test]
    async fn a_trickling_reader_under_the_rate_is_cut_off_and_a_steady_one_is_not() {
        use tokio::io::AsyncReadExt;
        for (chunk, every, must_end) in [(16usize, 100u64, true), (512, 100, false)] {
            let (ours, mut theirs) = tokio::io::duplex(256);
            let reader = tokio::spawn(async move {
                let mut buf = vec![0u8; chunk];
                let mut total = 0;
                loop {
                    tokio::time::sleep(Duration::from_millis(every)).await;
                    match theirs.read(&mut buf).await {
                        Ok(0) | Err(_) => return total,
                        Ok(n) => total += n,
                    }
                }
            });
            let mut paced = PacedWrites::new(ours, PACE);
            // 16 B every 100 ms is 160 B/s, under 1000 B/s; 512 B every 100 ms is above it.
            let result = async {
                paced.write_all(&vec![b'x'; 4 * 1024]).await?;
                paced.flush().await
            }
            .await;
            assert_eq!(result.is_err(), must_end, "chunk {chunk}: {result:?}");
            drop(paced);
            reader.await.unwrap();
        }
    }
}
