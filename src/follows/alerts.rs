//! Alerts in Discord: the player events the Roblox feature writes become one outbox row per fan
//! who wants to hear about them (the fan-out, which moves its progress in the same transaction),
//! and each row is posted to the fan's webhook and deleted once Discord took it. A crash between
//! noticing and sending leaves the event or the row in the database: it is sent after the
//! restart. Discord's 429 waits as long as it says; 5xx and timeouts are tried again with
//! backoff; `[follows] broken_after` refusals (401/404) in a row mark the webhook broken.

use std::collections::HashMap;
use std::time::Duration;

use super::FollowsState;
use super::store::{self, DueAlert};
use super::webhook::{AllowedMentions, Delivery, Embed, Footer, Message, WebhookAddress};
use crate::error::ApiError;
use crate::jobs::JobHandle;
use crate::roblox::store::{PlayerEvent, PlayerRow};
use crate::time::now_ms;

/// Events turned into alerts per transaction.
const FAN_OUT_BATCH: usize = 500;
/// Alerts sent per round.
const SEND_BATCH: usize = 50;
/// The first retry waits this long, doubling each time up to [`MAX_BACKOFF_MS`].
const FIRST_BACKOFF_MS: i64 = 5_000;
const MAX_BACKOFF_MS: i64 = 60 * 60 * 1000;
/// An alert Discord has not taken for this long is given up (its news is stale).
const MAX_AGE_MS: i64 = 7 * 24 * 60 * 60 * 1000;
/// The longest a round sleeps with nothing due.
const IDLE: Duration = Duration::from_secs(30);

/// The wait before attempt `attempts + 1`.
pub fn backoff_ms(attempts: u32) -> i64 {
    (FIRST_BACKOFF_MS << attempts.min(10)).min(MAX_BACKOFF_MS)
}

/// The link to a player's result on the site.
pub fn player_link(origin: Option<&str>, username: &str) -> Option<String> {
    origin.map(|o| format!("{}/newgen-detector?username={username}", o.trim_end_matches('/')))
}

fn day(rfc3339: &str) -> &str {
    rfc3339.get(..10).unwrap_or(rfc3339)
}

/// The message of one event about `player`: an embed in the site's colour, linking to the
/// player's result. Holds names and dates only: never a key, a token or an address.
pub fn message(state: &FollowsState, origin: Option<&str>, player: &PlayerRow, event: &PlayerEvent) -> Message {
    let name = &player.username;
    let before = event.before.as_deref().unwrap_or("?");
    let after = event.after.as_deref().unwrap_or("?");
    let (title, description) = match event.kind.as_str() {
        "elc_badge" => (
            format!("{name} earned {after}"),
            format!(
                "Awarded {} (noticed {}). {name} now has {} ELC badges.",
                event.awarded_at.as_deref().map_or("on an unknown day", day),
                day(&event.noticed_at),
                player.elc_count.map_or_else(|| "some".to_string(), |n| n.to_string())
            ),
        ),
        "classification" => {
            (format!("{name} is now {after}"), format!("Was {before} until {}.", day(&event.noticed_at)))
        }
        "username" => (
            format!("{before} is now called {after}"),
            format!("Renamed on Roblox; noticed {}.", day(&event.noticed_at)),
        ),
        "display_name" => {
            (format!("{name}'s display name is now {after}"), format!("Was {before} until {}.", day(&event.noticed_at)))
        }
        _ => (format!("{name}: {after}"), format!("Noticed {}.", day(&event.noticed_at))),
    };
    Message {
        username: state.site_name.clone(),
        embeds: vec![Embed {
            title,
            description,
            url: player_link(origin, name),
            color: state.color,
            timestamp: event.noticed_at.clone(),
            footer: Footer { text: format!("{} · you follow {name}", state.site_name) },
        }],
        allowed_mentions: AllowedMentions::default(),
    }
}

/// Runs the fan-out and the deliveries for the life of the process.
pub async fn run(state: FollowsState, job: JobHandle) {
    // Webhooks Discord asked to slow down (429), until when (ms).
    let mut slowed: HashMap<i64, i64> = HashMap::new();
    loop {
        job.started();
        let result = async {
            fan_out(&state).await?;
            deliver(&state, &mut slowed).await
        }
        .await;
        // A failed round is reported and tried again after the idle wait.
        let next_due = job.report(result).unwrap_or_default();
        let wait =
            next_due.map_or(IDLE, |at| Duration::from_millis((at - now_ms()).clamp(0, IDLE.as_millis() as i64) as u64));
        if wait.is_zero() {
            tokio::task::yield_now().await;
            continue;
        }
        tokio::select! {
            _ = tokio::time::sleep(wait) => {},
            _ = state.roblox.player_events.woken() => {},
        }
    }
}

/// Turns every event after the progress into outbox rows.
pub async fn fan_out(state: &FollowsState) -> Result<usize, ApiError> {
    let mut queued = 0;
    loop {
        let (n, more) = state
            .db
            .write(|tx| {
                let after = store::alert_progress(tx)?;
                let events = crate::roblox::store::events_after(tx, after, FAN_OUT_BATCH)?;
                let n = store::fan_out(tx, &events, now_ms())?;
                Ok((n, events.len() == FAN_OUT_BATCH))
            })
            .await?;
        queued += n;
        if !more {
            return Ok(queued);
        }
    }
}

/// Sends the due alerts once each; returns when the next one is due.
pub async fn deliver(state: &FollowsState, slowed: &mut HashMap<i64, i64>) -> Result<Option<i64>, ApiError> {
    let now = now_ms();
    slowed.retain(|_, until| *until > now);
    let due = state.db.read(move |c| store::due_alerts(c, now, SEND_BATCH)).await?;
    // Webhooks marked broken during this batch: their other alerts were dropped with it.
    let mut broken = std::collections::HashSet::new();
    for alert in due {
        if broken.contains(&alert.webhook.account_id) {
            continue;
        }
        if let Some(until) = slowed.get(&alert.webhook.account_id) {
            let until = *until;
            state
                .db
                .write(move |tx| store::alert_retry(tx, alert.id, until, "waiting for Discord's rate limit"))
                .await?;
            continue;
        }
        let account = alert.webhook.account_id;
        if send_one(state, alert, slowed).await? {
            broken.insert(account);
        }
    }
    state.db.read(store::next_alert_due).await
}

/// Sends one alert and records the answer; true when it marked the webhook broken.
async fn send_one(state: &FollowsState, alert: DueAlert, slowed: &mut HashMap<i64, i64>) -> Result<bool, ApiError> {
    let event_id = alert.event_id;
    let found = state
        .db
        .read(move |c| {
            let Some(event) = crate::roblox::store::event(c, event_id)? else { return Ok(None) };
            Ok(crate::roblox::store::player(c, event.user_id)?.map(|p| (event, p)))
        })
        .await?;
    let Some((event, player)) = found else {
        state.db.write(move |tx| store::alert_dropped(tx, alert.id)).await?;
        return Ok(false);
    };
    let message = message(state, alert.webhook.link_origin.as_deref(), &player, &event);
    let to = WebhookAddress { id: alert.webhook.webhook_id.clone(), token: alert.webhook.token.clone() };
    let delivery = state.discord.send(&to, &message).await;
    let now = now_ms();
    let account = alert.webhook.account_id;
    let broken_after = state.settings.broken_after;
    match delivery {
        Delivery::Delivered => {
            state.db.write(move |tx| store::alert_delivered(tx, alert.id, account, now)).await?;
            Ok(false)
        }
        Delivery::Later { wait, why } => {
            if now - alert.created_at > MAX_AGE_MS {
                tracing::warn!(account, "a Discord alert was given up after a week of failures: {why}");
                state.db.write(move |tx| store::alert_dropped(tx, alert.id)).await?;
                return Ok(false);
            }
            let next = match wait {
                Some(wait) => {
                    let until = now + wait.as_millis() as i64;
                    slowed.insert(account, until);
                    until
                }
                None => now + backoff_ms(alert.attempts),
            };
            state.db.write(move |tx| store::alert_retry(tx, alert.id, next, &why)).await?;
            Ok(false)
        }
        Delivery::Refused(code) => {
            let next = now + backoff_ms(alert.attempts);
            state
                .db
                .write(move |tx| {
                    let broken = store::webhook_refused(tx, account, broken_after, now)?;
                    if !broken {
                        store::alert_retry(tx, alert.id, next, &format!("Discord answered {code}"))?;
                    }
                    Ok(broken)
                })
                .await
        }
        Delivery::Rejected(code) => {
            tracing::warn!(account, "Discord refused an alert for good ({code}); dropped");
            state.db.write(move |tx| store::alert_dropped(tx, alert.id)).await?;
            Ok(false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_an_hour() {
        assert_eq!(backoff_ms(0), 5_000);
        assert_eq!(backoff_ms(1), 10_000);
        assert_eq!(backoff_ms(20), MAX_BACKOFF_MS);
    }

    #[test]
    fn links_lead_to_the_players_result() {
        assert_eq!(
            player_link(Some("https://fans.example/"), "Alpha_1").as_deref(),
            Some("https://fans.example/newgen-detector?username=Alpha_1")
        );
        assert_eq!(player_link(None, "Alpha"), None);
    }
}
