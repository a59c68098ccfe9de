//! The scan runner: picks queued scans (and, on start, scans a killed process left running),
//! walks each group's member pages with Roblox's cursor, classifies every member through
//! `Roblox::lookup_user_id` (the newgen check's own code and cache) at background priority,
//! and records each page in one transaction with the next cursor, so a stop at any point redoes
//! at most the page in flight and counts nobody twice.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::Semaphore;

use super::ScansState;
use super::store::{self, MemberOutcome, ScanRow};
use crate::db::now_ms;
use crate::roblox::{Awards, GroupMember, MembersPage, Priority, RobloxError, Unavailable};

/// How often the runner looks for queued scans without being woken.
const IDLE_TICK: Duration = Duration::from_secs(5);
/// A page fetch or member lookup that keeps failing (not throttled) is tried this many times.
const ATTEMPTS: u32 = 4;
/// Rate-limited calls are retried for this long before the scan stops (resumable).
const MAX_THROTTLED: Duration = Duration::from_secs(15 * 60);

/// The background task: runs every live scan, up to `max_running` at once.
pub async fn run(state: ScansState, job: crate::jobs::JobHandle) {
    let slots = Arc::new(Semaphore::new(state.scans.max_running.max(1)));
    let mut first = true;
    loop {
        match state.db.read(store::live_scans).await {
            Ok(live) => {
                job.succeeded();
                for scan in live {
                    if state.scans.is_active(scan.id) {
                        continue;
                    }
                    let Ok(slot) = slots.clone().try_acquire_owned() else { break };
                    let interrupted = first && scan.state == "running";
                    let cancel = state.scans.activate(scan.id);
                    let s = state.clone();
                    tokio::spawn(async move {
                        let id = scan.id;
                        run_scan(&s, scan, interrupted, &cancel).await;
                        s.scans.deactivate(id);
                        drop(slot);
                        s.scans.wake.notify_one();
                    });
                }
            }
            Err(e) => {
                tracing::warn!("group scans: cannot read the queue: {e}");
                job.failed(e);
            }
        }
        first = false;
        tokio::select! {
            _ = state.scans.wake.notified() => {}
            _ = tokio::time::sleep(IDLE_TICK) => {}
        }
    }
}

/// Why a scan stopped early.
enum Stop {
    Cancelled,
    Failed(String),
}

async fn run_scan(state: &ScansState, scan: ScanRow, interrupted: bool, cancel: &std::sync::atomic::AtomicBool) {
    let id = scan.id;
    let marked = state
        .db
        .write(move |tx| {
            store::mark_running(tx, id, now_ms())?;
            if interrupted {
                store::note_redone_page(tx, id)?;
            }
            Ok(())
        })
        .await;
    if let Err(e) = marked {
        tracing::warn!("scan {id}: cannot start: {e}");
        return;
    }
    state.scans.start_rate(id);
    let outcome = walk(state, &scan, cancel).await;
    let (end, error, notice) = match outcome {
        Ok(notice) => ("completed", None, notice),
        Err(Stop::Cancelled) => {
            state.scans.forget_rate(id);
            return;
        }
        Err(Stop::Failed(why)) => ("failed", Some(why), None),
    };
    let written = state
        .db
        .write(move |tx| {
            if let Some(n) = &notice {
                store::note_once(tx, id, n)?;
            }
            store::finish(tx, id, end, error.as_deref(), now_ms())
        })
        .await;
    if let Err(e) = written {
        tracing::warn!("scan {id}: end not recorded: {e}");
    }
    state.scans.forget_rate(id);
}

/// Walks the pages from the stored cursor. Ok(notice) when the last page is done.
async fn walk(
    state: &ScansState,
    scan: &ScanRow,
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<Option<String>, Stop> {
    let mut cursor = scan.cursor.clone();
    let mut seen: HashSet<Option<String>> = HashSet::from([cursor.clone()]);
    let workers = Arc::new(Semaphore::new(state.scans.workers.max(1)));
    let mut cookie_noted = scan.notice.is_some();
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(Stop::Cancelled);
        }
        let page = fetch_page(state, scan.group_id, cursor.as_deref(), cancel).await?;
        let ids: Vec<u64> = page.members.iter().map(|m| m.user_id).collect();
        state.roblox.prefetch_headshots(&ids, Priority::Background).await;
        let (outcomes, refused) = classify_page(state, scan.id, &page.members, &workers, cancel).await?;
        if let Some(why) = refused.filter(|_| !cookie_noted) {
            cookie_noted = true;
            let notice = format!("{} Members are classified by their join date instead.", why.sentence());
            let id = scan.id;
            let _ = state.db.write(move |tx| store::note_once(tx, id, &notice)).await;
        }
        let next = page.next_cursor.clone();
        let repeated = next.is_some() && seen.contains(&next);
        // A repeating cursor ends the walk: recording it as the last page keeps the counts exact.
        let record_next = if repeated { None } else { next.clone() };
        let (id, group_id) = (scan.id, scan.group_id);
        state
            .db
            .write(move |tx| store::record_page(tx, id, group_id, &outcomes, record_next.as_deref(), now_ms()))
            .await
            .map_err(|e| Stop::Failed(format!("the page could not be saved: {e}")))?;
        state.scans.page_saved(id);
        if repeated {
            return Ok(Some(
                "Roblox sent a page cursor it had sent before; the scan stopped there so no member is counted twice."
                    .into(),
            ));
        }
        match next {
            Some(c) => {
                seen.insert(Some(c.clone()));
                cursor = Some(c);
            }
            None => return Ok(None),
        }
    }
}

/// Waits `wait` unless the scan is cancelled first.
async fn pause(wait: Duration, cancel: &std::sync::atomic::AtomicBool) -> Result<(), Stop> {
    let step = Duration::from_millis(200);
    let mut left = wait;
    while !left.is_zero() {
        if cancel.load(Ordering::Relaxed) {
            return Err(Stop::Cancelled);
        }
        let d = left.min(step);
        tokio::time::sleep(d).await;
        left -= d;
    }
    Ok(())
}

async fn fetch_page(
    state: &ScansState,
    group_id: u64,
    cursor: Option<&str>,
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<MembersPage, Stop> {
    let mut failures = 0;
    let mut throttled = Duration::ZERO;
    loop {
        match state.roblox.group_members_page(group_id, cursor, Priority::Background).await {
            Ok(page) => return Ok(page),
            Err(RobloxError::Throttled { retry_after_secs }) if throttled < MAX_THROTTLED => {
                let wait = Duration::from_secs(retry_after_secs.max(1));
                throttled += wait;
                pause(wait, cancel).await?;
            }
            Err(RobloxError::UnknownGroup(g)) => return Err(Stop::Failed(format!("Roblox has no group {g}."))),
            Err(RobloxError::Upstream(s @ (401 | 403))) => {
                return Err(Stop::Failed(format!(
                    "Roblox refused to list this group's members (HTTP {s}); the group may be private."
                )));
            }
            Err(e) => {
                failures += 1;
                if failures >= ATTEMPTS {
                    return Err(Stop::Failed(format!(
                        "A page of members could not be read after {ATTEMPTS} tries: {e} Resume the scan to try again."
                    )));
                }
                pause(Duration::from_secs(1 << failures), cancel).await?;
            }
        }
    }
}

/// Classifies a page's members, `workers` at a time. Also returns why award dates were refused
/// for the whole site (no cookie, cookie rejected), if they were.
async fn classify_page(
    state: &ScansState,
    scan_id: i64,
    members: &[GroupMember],
    workers: &Arc<Semaphore>,
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<(Vec<MemberOutcome>, Option<Unavailable>), Stop> {
    let mut tasks = tokio::task::JoinSet::new();
    // Duplicates inside one page are classified once.
    let mut unique = HashSet::new();
    for (index, member) in members.iter().enumerate() {
        if !unique.insert(member.user_id) {
            continue;
        }
        let permit = workers.clone().acquire_owned().await.expect("the semaphore is never closed");
        let s = state.clone();
        let user_id = member.user_id;
        tasks.spawn(async move {
            let result = classify_member(&s, user_id).await;
            drop(permit);
            s.scans.note_member(scan_id);
            (index, result)
        });
        if cancel.load(Ordering::Relaxed) {
            tasks.abort_all();
            return Err(Stop::Cancelled);
        }
    }
    let mut outcomes = Vec::with_capacity(members.len());
    let mut refused = None;
    while let Some(joined) = tasks.join_next().await {
        let (index, (outcome, why)) = joined.map_err(|e| Stop::Failed(format!("a member lookup stopped: {e}")))?;
        let m = &members[index];
        refused = refused.or(why);
        outcomes.push(MemberOutcome {
            user_id: m.user_id,
            role_name: m.role_name.clone(),
            role_rank: m.role_rank,
            outcome,
        });
    }
    if cancel.load(Ordering::Relaxed) {
        return Err(Stop::Cancelled);
    }
    Ok((outcomes, refused))
}

/// veteran, newgen, other or failed; and the site-wide refusal of award dates, if that is why they are missing.
async fn classify_member(state: &ScansState, user_id: u64) -> (&'static str, Option<Unavailable>) {
    let mut failures = 0;
    let mut throttled = Duration::ZERO;
    loop {
        match state.roblox.lookup_user_id(user_id, Priority::Background).await {
            Ok(report) => {
                let refused = match &report.awards {
                    Awards::Unavailable(u @ (Unavailable::NeedsCookie | Unavailable::CookieRejected)) => {
                        Some(u.clone())
                    }
                    _ => None,
                };
                let outcome = if report.verdict.is_veteran {
                    "veteran"
                } else if report.verdict.is_newgen {
                    "newgen"
                } else {
                    "other"
                };
                return (outcome, refused);
            }
            Err(RobloxError::Throttled { retry_after_secs }) if throttled < MAX_THROTTLED => {
                let wait = Duration::from_secs(retry_after_secs.max(1));
                throttled += wait;
                tokio::time::sleep(wait).await;
            }
            Err(RobloxError::UnknownUser(_) | RobloxError::BadUsername(_)) => return ("failed", None),
            Err(e) => {
                failures += 1;
                if failures >= ATTEMPTS {
                    tracing::info!("scan: member {user_id} not classified: {e}");
                    return ("failed", None);
                }
                tokio::time::sleep(Duration::from_millis(500 << failures)).await;
            }
        }
    }
}
