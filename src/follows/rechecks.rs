//! The background re-checks of followed players: each followed player is checked again once
//! its last check (anyone's: a visitor's counts) is `[follows] recheck_hours` old, once however
//! many fans follow it. The checks are the Roblox client's own, at background priority, so they
//! use at most `[roblox] background_share` of each Roblox budget and wait when it is spent: on a
//! busy site players are checked less often, and a visitor's check never waits behind them.
//! Progress is the players' own `checked_at`, so a restart picks up where it was.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::FollowsState;
use super::store::{self, WatchCounts};
use crate::jobs::{JobHandle, Wake};
use crate::time::now_ms;

/// Players asked for per round (the round ends early when the budget makes them wait).
const ROUND: usize = 200;
/// Checks running at once: enough to keep the budget's share busy with Roblox's latency.
const AT_ONCE: usize = 4;
/// A round with nothing due sleeps this long (or until a follow wakes it).
const IDLE: Duration = Duration::from_secs(60);
/// A re-check reuses what a lookup read this recently (a visitor's check just before it), or
/// within half the interval when that is shorter.
const REUSE_MS: i64 = 10 * 60 * 1000;
/// A player whose check failed (deleted from Roblox, or Roblox failing) waits this long.
const FAILED_PAUSE_MS: i64 = 60 * 60 * 1000;

/// What the re-checks are doing, for System Health and `/metrics`: counted from the database
/// after each round, and the checks this process made.
#[derive(Default)]
pub struct Watch {
    counts: Mutex<WatchCounts>,
    /// Re-checks made since start, and the failed ones among them.
    pub checks: AtomicU64,
    pub failures: AtomicU64,
    /// Woken by a new follow (its player may be due at once).
    pub wake: Wake,
}

impl Watch {
    pub fn counts(&self) -> WatchCounts {
        *self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set_counts(&self, counts: WatchCounts) {
        *self.counts.lock().unwrap_or_else(|p| p.into_inner()) = counts;
    }

    /// System Health's line.
    pub fn health_line(&self, recheck_hours: f64) -> String {
        let c = self.counts();
        format!(
            "{} players followed by {} accounts; {} checks due; {} followed players checked in the last hour; \
             {} re-checks since start ({} failed); each at most every {recheck_hours} h within the Roblox \
             budgets' background share",
            c.followed_players,
            c.following_accounts,
            c.due,
            c.checked_last_hour,
            self.checks.load(Ordering::Relaxed),
            self.failures.load(Ordering::Relaxed),
        )
    }
}

async fn refresh_counts(state: &FollowsState) -> Result<(), crate::error::ApiError> {
    let now = now_ms();
    let before = now - state.settings.recheck_ms();
    let counts = state.db.read(move |c| store::watch_counts(c, before, now - 3_600_000)).await?;
    state.watch.set_counts(counts);
    Ok(())
}

/// Runs the re-checks for the life of the process.
pub async fn run(state: FollowsState, job: JobHandle) {
    let mut paused: HashMap<u64, i64> = HashMap::new();
    loop {
        job.started();
        // Counted before the round too: a round at the background pace can take minutes.
        if let Err(e) = refresh_counts(&state).await {
            tracing::warn!("the follows' figures were not read: {}", e.body.error);
        }
        let checked = round(&state, &mut paused).await;
        let refreshed = refresh_counts(&state).await;
        match (checked, refreshed) {
            (Ok(n), Ok(())) => {
                job.succeeded();
                if n > 0 {
                    continue;
                }
            }
            (Err(e), _) | (_, Err(e)) => job.failed(e.body.error),
        }
        // A player followed now is due at the latest after one interval.
        let idle =
            IDLE.min(Duration::from_millis(state.settings.recheck_ms() as u64 / 2).max(Duration::from_millis(200)));
        tokio::select! {
            _ = tokio::time::sleep(idle) => {},
            _ = state.watch.wake.woken() => {},
        }
    }
}

/// One round: the due players (not paused after a failure), checked a few at a time. Returns
/// how many were checked.
async fn round(state: &FollowsState, paused: &mut HashMap<u64, i64>) -> Result<usize, crate::error::ApiError> {
    let now = now_ms();
    paused.retain(|_, until| *until > now);
    let before = now - state.settings.recheck_ms();
    let due = state.db.read(move |c| store::due_players(c, before, ROUND + 64)).await?;
    let due: Vec<u64> = due.into_iter().filter(|id| !paused.contains_key(id)).take(ROUND).collect();
    let mut done = 0;
    for chunk in due.chunks(AT_ONCE) {
        let mut running = tokio::task::JoinSet::new();
        for &id in chunk {
            let roblox = state.roblox.clone();
            let fresh_since = now_ms() - REUSE_MS.min(state.settings.recheck_ms() / 2);
            running.spawn(async move { (id, roblox.recheck(id, fresh_since).await) });
        }
        while let Some(joined) = running.join_next().await {
            let Ok((id, result)) = joined else { continue };
            state.watch.checks.fetch_add(1, Ordering::Relaxed);
            done += 1;
            if let Err(e) = result {
                state.watch.failures.fetch_add(1, Ordering::Relaxed);
                tracing::info!(player = id, "a followed player's re-check failed: {e}");
                paused.insert(id, now_ms() + FAILED_PAUSE_MS);
            }
        }
    }
    Ok(done)
}
