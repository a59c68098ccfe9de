//! The one poller of the update channels (`after=` the newest stored id, on the site file's
//! interval, however many visitors there are) and the member-count refresher. Every message batch
//! is committed before the next call, so aborting the task at any await loses nothing.

use std::sync::Arc;
use std::time::Duration;

use super::Discord;
use super::client::{DiscordError, RawMessage};
use super::store::{self, StoredMessage};
use super::summarise::{self, Kind};
use crate::db::Db;
use crate::jobs::JobHandle;
use crate::site::SiteSettings;

/// Pages of 100 read per channel and poll (a busy channel catches up over several polls).
const MAX_PAGES: usize = 5;
/// Messages a summary reads (newest first).
pub const SUMMARY_WINDOW: usize = 150;

/// What the pollers use: the channels and the served answers, the database the messages and
/// summaries are kept in, the language model (if any) and the site file's intervals and community.
#[derive(Clone)]
pub struct PollerState {
    pub discord: Arc<Discord>,
    pub db: Db,
    pub llm: Option<crate::llm::LlmClient>,
    pub site: Arc<SiteSettings>,
}

/// Discord's background work: the update channels' polls and the member count's, each only
/// when the site file gives it a source.
pub fn background(background: &mut crate::jobs::Background, state: PollerState, figures: crate::jobs::Wake) {
    if !state.discord.channels().is_empty() {
        let state = state.clone();
        background.job("discord-updates", |job| run_updates(state, job));
    }
    if members_configured(&state) {
        background.job("discord-members", |job| run_members(state, job, figures));
    }
}

pub async fn run_updates(state: PollerState, job: JobHandle) {
    let mut tick = tokio::time::interval(Duration::from_secs(state.site.poll.updates_secs));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        job.started();
        if let Err(e) = job.report(poll(&state).await) {
            tracing::warn!("discord: {e}");
        }
    }
}

/// Refreshes the member count; wakes `figures` when it changed (the public figures show it).
pub async fn run_members(state: PollerState, job: JobHandle, figures: crate::jobs::Wake) {
    let mut tick = tokio::time::interval(Duration::from_secs(state.site.poll.members_secs));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        job.started();
        match job.report(refresh_members(&state).await) {
            Ok(count) => {
                if count != state.discord.members() {
                    state.discord.set_members(count);
                    figures.wake();
                }
            }
            Err(e) => tracing::warn!("discord member count: {e}"),
        }
    }
}

/// Whether the member count has a source in the site file.
pub fn members_configured(state: &PollerState) -> bool {
    state.site.discord.invite_code.is_some() || (state.site.discord.guild_id.is_some() && state.discord.has_token())
}

async fn refresh_members(state: &PollerState) -> Result<Option<i64>, DiscordError> {
    let client = &state.discord.client;
    match (&state.site.discord.guild_id, &state.site.discord.invite_code) {
        (Some(guild), _) if client.has_token() => client.guild_members(guild).await,
        (_, Some(code)) => client.invite_members(code).await,
        _ => Ok(None),
    }
}

fn stored(channel_id: u64, m: RawMessage) -> Option<StoredMessage> {
    let id = m.id.parse().ok()?;
    Some(StoredMessage {
        channel_id,
        id,
        author: m.author.global_name.filter(|n| !n.is_empty()).unwrap_or(m.author.username),
        from_bot: m.author.bot || m.webhook_id.is_some(),
        content: m.content,
        embeds: m
            .embeds
            .into_iter()
            .filter(|e| e.title.is_some() || e.description.is_some() || !e.fields.is_empty())
            .collect(),
        posted_at: m.timestamp,
        edited_at: m.edited_timestamp,
    })
}

/// A user's message that came without any contents: what Discord sends when the bot lacks the
/// message-content intent (its own messages, webhooks and mentions of it keep theirs).
fn is_blank(m: &RawMessage) -> bool {
    matches!(m.kind, 0 | 19)
        && m.webhook_id.is_none()
        && !m.author.bot
        && m.content.is_empty()
        && m.embeds.is_empty()
        && m.attachments.is_empty()
}

/// Reads new messages of every channel, stores them, and re-summarises the lists whose messages
/// changed. Errors of single channels are collected; the other channels still go on.
/// `state`: anything the pollers' state is made from (tests pass the assembled state).
pub async fn poll_once<S>(state: &S) -> Result<usize, String>
where
    PollerState: axum::extract::FromRef<S>,
{
    poll(&axum::extract::FromRef::from_ref(state)).await
}

async fn poll(state: &PollerState) -> Result<usize, String> {
    let discord = &state.discord;
    let mut errors = Vec::new();
    let mut blank_channels = Vec::new();
    let mut new_messages = 0;
    for channel in discord.channels() {
        match read_channel(state, channel).await {
            Ok((n, blank)) => {
                new_messages += n;
                if blank {
                    blank_channels.push(channel);
                }
            }
            Err(e) => errors.push(format!("channel {channel}: {e}")),
        }
    }
    for (product, kind, channels) in discord.lists() {
        if let Err(e) = summarise_if_changed(state, &product, kind, channels).await {
            errors.push(format!("{product} {}: {e}", kind.as_str()));
        }
    }
    let error = (!errors.is_empty()).then(|| errors.join("; "));
    discord.note_poll(blank_channels, error.clone());
    match error {
        Some(e) => Err(e),
        None => Ok(new_messages),
    }
}

/// New messages of one channel: (how many, whether they came without contents).
async fn read_channel(state: &PollerState, channel: u64) -> Result<(usize, bool), String> {
    let mut after = state.db.read(move |c| store::newest_id(c, channel)).await.map_err(|e| e.body.error)?;
    let (mut total, mut users, mut blanks) = (0, 0, 0);
    for _ in 0..MAX_PAGES {
        let limit = if after.is_some() { 100 } else { 50 };
        let page = state
            .discord
            .client
            .channel_messages(&channel.to_string(), after, limit)
            .await
            .map_err(|e| e.to_string())?;
        let full = page.len() == usize::from(limit);
        for m in &page {
            if matches!(m.kind, 0 | 19) && m.webhook_id.is_none() && !m.author.bot {
                users += 1;
                blanks += usize::from(is_blank(m));
            }
        }
        let batch: Vec<StoredMessage> = page.into_iter().filter_map(|m| stored(channel, m)).collect();
        if batch.is_empty() {
            break;
        }
        after = batch.iter().map(|m| m.id).max();
        total += batch.len();
        state.db.write(move |tx| store::insert_messages(tx, &batch)).await.map_err(|e| e.body.error)?;
        // The first read takes the newest 50 only; later reads page forward with after=.
        if !full || limit == 50 {
            break;
        }
    }
    Ok((total, users > 0 && blanks == users))
}

async fn summarise_if_changed(
    state: &PollerState,
    product: &str,
    kind: Kind,
    channels: Vec<u64>,
) -> Result<(), String> {
    let messages =
        state.db.read(move |c| store::recent(c, &channels, SUMMARY_WINDOW)).await.map_err(|e| e.body.error)?;
    let digest = summarise::digest(&messages);
    if state.discord.summary_digest(product, kind).as_deref() == Some(digest.as_str()) {
        return Ok(());
    }
    let (summary, failure) = summarise::summarise(state.llm.as_ref(), kind, &messages, crate::db::now_ms()).await;
    if let Some(e) = failure {
        tracing::warn!(
            "discord: the language model failed for {product} {}, using the extractive summary: {e}",
            kind.as_str()
        );
    }
    let (p, k, s) = (product.to_string(), kind.as_str(), summary.clone());
    state.db.write(move |tx| store::save_summary(tx, &p, k, &s)).await.map_err(|e| e.body.error)?;
    state.discord.set_summary(product, kind, summary);
    Ok(())
}
