//! A request body must keep arriving: after a grace period it must average a minimum rate (in the
//! style of Apache's mod_reqtimeout `MinRate`), and it may never stay silent longer than the read
//! timeout. A body that falls behind ends with an error, and the connection's service answers 408
//! and closes (`connections::serve`), so a client trickling a byte at a time cannot hold a
//! connection for ever.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use tokio::time::{Instant, Sleep};

/// What a body must keep up with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BodyPace {
    /// Bytes a second, averaged from the start of the body, once `grace` has passed.
    pub min_rate: u64,
    /// How long a body may arrive at any pace (a phone starting an upload on a poor network).
    pub grace: Duration,
    /// The longest silence between two pieces of a body.
    pub max_silence: Duration,
}

impl BodyPace {
    /// When a body begun at `started` with `received` bytes so far, last heard of at `now`, is
    /// too slow: at the silence limit, or when its average would fall under the rate.
    pub(crate) fn deadline(&self, started: Instant, received: u64, now: Instant) -> Instant {
        let earned = Duration::from_secs_f64(received as f64 / self.min_rate.max(1) as f64);
        (started + self.grace.max(earned)).min(now + self.max_silence)
    }
}

/// The error a body ends with when it fell behind.
#[derive(Debug)]
pub struct TooSlow;

impl std::fmt::Display for TooSlow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request body arrived too slowly")
    }
}

impl std::error::Error for TooSlow {}

/// A body held to a [`BodyPace`]; `too_slow` is set when it ended for falling behind.
pub struct PacedBody<B> {
    inner: B,
    pace: BodyPace,
    started: Instant,
    received: u64,
    deadline: Pin<Box<Sleep>>,
    too_slow: Arc<AtomicBool>,
}

impl<B> PacedBody<B> {
    pub fn new(inner: B, pace: BodyPace, too_slow: Arc<AtomicBool>) -> Self {
        let started = Instant::now();
        let deadline = Box::pin(tokio::time::sleep_until(pace.deadline(started, 0, started)));
        Self { inner, pace, started, received: 0, deadline, too_slow }
    }

    fn fell_behind(&mut self) -> Poll<Option<Result<Frame<Bytes>, axum::BoxError>>> {
        self.too_slow.store(true, Ordering::Relaxed);
        Poll::Ready(Some(Err(Box::new(TooSlow))))
    }
}

impl<B> Body for PacedBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<axum::BoxError>,
{
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if this.too_slow.load(Ordering::Relaxed) || this.deadline.as_ref().deadline() <= Instant::now() {
            return this.fell_behind();
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                let now = Instant::now();
                if now >= this.deadline.as_ref().deadline() {
                    return this.fell_behind();
                }
                this.received += frame.data_ref().map_or(0, |d| d.len() as u64);
                let next = this.pace.deadline(this.started, this.received, now);
                this.deadline.as_mut().reset(next);
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e.into()))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => this.fell_behind(),
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACE: BodyPace =
        BodyPace { min_rate: 500, grace: Duration::from_secs(10), max_silence: Duration::from_secs(10) };

    #[test]
    fn a_body_has_the_grace_period_then_must_keep_the_rate_and_never_fall_silent_for_long() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        assert_eq!(PACE.deadline(t0, 0, t0), t0 + s(10), "the grace period");
        assert_eq!(PACE.deadline(t0, 5, t0 + s(8)), t0 + s(10), "a trickle gets the grace period, no more");
        assert_eq!(PACE.deadline(t0, 10_000, t0 + s(1)), t0 + s(11), "silent at most 10 s");
        assert_eq!(PACE.deadline(t0, 10_000, t0 + s(15)), t0 + s(20), "20 s at 500 bytes a second");
        let at_200k = PACE.deadline(t0, 200_000, t0 + s(1));
        assert_eq!(at_200k, t0 + s(11), "a fast upload is only held to the silence limit");
    }

    /// A body fed through a channel.
    struct ChannelBody(tokio::sync::mpsc::Receiver<Bytes>);

    impl Body for ChannelBody {
        type Data = Bytes;
        type Error = std::convert::Infallible;
        fn poll_frame(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            self.0.poll_recv(cx).map(|piece| piece.map(|b| Ok(Frame::data(b))))
        }
    }

    #[tokio::test]
    async fn a_trickled_body_ends_with_too_slow_and_a_steady_one_completes() {
        use http_body_util::BodyExt;
        // The pace of the server, a tenth of the time.
        let pace = BodyPace { min_rate: 500, grace: Duration::from_secs(1), max_silence: Duration::from_secs(1) };
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let flag = Arc::new(AtomicBool::new(false));
        let mut body = PacedBody::new(ChannelBody(rx), pace, flag.clone());
        let trickle = tokio::spawn(async move {
            for _ in 0..30 {
                if tx.send(Bytes::from_static(b"x")).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        });
        let started = Instant::now();
        let mut got = 0;
        let err = loop {
            match body.frame().await {
                Some(Ok(frame)) => got += frame.data_ref().map_or(0, |d| d.len()),
                Some(Err(e)) => break e,
                None => panic!("the trickle ended on its own"),
            }
        };
        assert!(err.is::<TooSlow>(), "{err}");
        assert!(flag.load(Ordering::Relaxed));
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(950) && took <= Duration::from_millis(1500), "cut off after {took:?}");
        assert!((4..=6).contains(&got), "{got} bytes in");
        trickle.abort();

        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let flag = Arc::new(AtomicBool::new(false));
        let body = PacedBody::new(ChannelBody(rx), pace, flag.clone());
        tokio::spawn(async move {
            // 5 MB at 2 MB a second, for 2.5 s: past the grace period, well over the rate.
            for _ in 0..25 {
                tx.send(Bytes::from(vec![0u8; 200 * 1024])).await.unwrap();
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        let all = body.collect().await.expect("a steady upload completes").to_bytes();
        assert_eq!((all.len(), flag.load(Ordering::Relaxed)), (25 * 200 * 1024, false));
    }
}
