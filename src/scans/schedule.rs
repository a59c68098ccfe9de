//! Scheduled scans (`[[scans.schedule]]`): each group is queued again once its newest scan is
//! `every_hours` old (a restart does not scan twice: the time is the scans table's own), and
//! each finished scheduled scan is announced once on the host's Discord webhook (`[scans]
//! webhook`): the members new since the group's scan before, by verdict. The announcement is
//! marked only after Discord took it, so a crash before it is sent after the restart.

use std::time::Duration;

use super::ScansState;
use super::store::{self, NewMembers, ScanRow};
use crate::db::now_ms;
use crate::error::ApiError;
use crate::follows::webhook::{self, Delivery, Embed, Footer, Message};
use crate::jobs::JobHandle;
use crate::roblox::Priority;

/// The longest wait between two looks at the schedule.
const TICK: Duration = Duration::from_secs(60);

pub async fn run(state: ScansState, job: JobHandle) {
    let shortest = state.settings.schedule.iter().map(|s| s.every_hours).fold(f64::MAX, f64::min);
    let tick = TICK.min(Duration::from_secs_f64((shortest * 3600.0 / 4.0).max(0.25)));
    loop {
        job.started();
        let result = async {
            queue_due(&state).await?;
            announce_finished(&state).await
        }
        .await;
        let _ = job.report(result);
        tokio::time::sleep(tick).await;
    }
}

/// Queues a scan of each scheduled group whose newest scan is old enough.
async fn queue_due(state: &ScansState) -> Result<(), ApiError> {
    for scheduled in &state.settings.schedule {
        let group_id = scheduled.group_id;
        let last = state.db.read(move |c| store::last_scan_at(c, group_id)).await?;
        let every_ms = (scheduled.every_hours * 3_600_000.0) as i64;
        if last.is_some_and(|at| now_ms() - at < every_ms) {
            continue;
        }
        let group = match state.roblox.group_info(group_id, Priority::Background).await {
            Ok(group) => group,
            Err(e) => {
                tracing::warn!(group_id, "a scheduled scan could not start: {e}");
                continue;
            }
        };
        let (scan, created) = state
            .db
            .write(move |tx| {
                let (scan, created) =
                    store::queue_scan(tx, group_id, &group.name, group.member_count, "schedule", None, now_ms())?;
                if created {
                    store::mark_scheduled(tx, scan.id)?;
                }
                Ok((scan, created))
            })
            .await?;
        if created {
            tracing::info!(group_id, scan = scan.id, "scheduled scan queued");
            state.scans.wake.notify_one();
        }
    }
    Ok(())
}

/// The message about a finished scheduled scan.
pub fn announcement(state: &ScansState, scan: &ScanRow, new: &NewMembers) -> Message {
    let name = if scan.group_name.is_empty() { format!("Group {}", scan.group_id) } else { scan.group_name.clone() };
    let title = match scan.state.as_str() {
        "completed" => format!("{name}: scan finished"),
        other => format!("{name}: scan {other}"),
    };
    let counted = new.veterans + new.newgens + new.others + new.failed;
    let mut description = format!("{} members checked.", scan.processed);
    if new.compared {
        description.push_str(&format!(" {counted} new since the last scan"));
    } else {
        description.push_str(" First scan of this group");
    }
    if counted > 0 {
        description.push_str(&format!(": {} veterans, {} newgens, {} others", new.veterans, new.newgens, new.others));
        if new.failed > 0 {
            description.push_str(&format!(", {} could not be checked", new.failed));
        }
    }
    description.push('.');
    Message {
        username: state.site_name.clone(),
        embeds: vec![Embed {
            title,
            description,
            url: state.base_url.clone(),
            color: state.color,
            timestamp: crate::db::rfc3339(scan.finished_at.unwrap_or(scan.updated_at)),
            footer: Footer { text: format!("{} · scheduled scan", state.site_name) },
        }],
        allowed_mentions: Default::default(),
    }
}

/// Announces the finished scheduled scans not announced yet, oldest first.
async fn announce_finished(state: &ScansState) -> Result<(), ApiError> {
    let Some(url) = &state.settings.webhook else { return Ok(()) };
    let Ok(to) = webhook::parse_url(url) else { return Ok(()) };
    while let Some((scan, new)) = state
        .db
        .read(|c| {
            let Some(scan) = store::next_unannounced(c)? else { return Ok(None) };
            let new = store::new_members(c, &scan)?;
            Ok(Some((scan, new)))
        })
        .await?
    {
        let message = announcement(state, &scan, &new);
        match state.discord.send(&to, &message).await {
            Delivery::Delivered => {}
            Delivery::Later { why, .. } => {
                tracing::info!(scan = scan.id, "the scheduled scan's message waits: {why}");
                return Ok(());
            }
            Delivery::Refused(code) | Delivery::Rejected(code) => {
                // The host's webhook is gone or wrong: said in the log, not retried for ever.
                tracing::warn!(scan = scan.id, "Discord refused the site webhook ([scans] webhook): {code}");
            }
        }
        let id = scan.id;
        state.db.write(move |tx| store::mark_announced(tx, id, now_ms())).await?;
    }
    Ok(())
}
