//! One small client for Discord's REST API: the bot token (never logged), the User-Agent Discord
//! requires, the shared outbound client (a timeout on every call, no redirect to another host,
//! answers of at most 4 MiB), and its rate limits read from the headers: per-bucket
//! `X-RateLimit-Remaining`/`Reset-After`, 429 `retry_after` (bucket or global scope), and a
//! budget far below the invalid-request ceiling (10,000 401/403/429 per 10 minutes per IP).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::jobs::{Jobs, Outcome};
use crate::outbound;

pub const TIMEOUT: Duration = Duration::from_secs(10);
/// A wait for a rate limit up to this long is slept through; a longer one fails the call.
pub const MAX_WAIT: Duration = Duration::from_secs(5);
/// 401/403/429 answers allowed per 10 minutes: 2% of the 10,000 that get an IP banned.
pub const INVALID_BUDGET: usize = 200;
const INVALID_WINDOW: Duration = Duration::from_secs(600);
/// After a 401 the token is not sent again for this long (a bad token would otherwise burn the
/// invalid-request budget on every poll).
pub const BAD_TOKEN_PAUSE: Duration = Duration::from_secs(600);

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DiscordError {
    #[error("no bot token is set (FANHUB_DISCORD_TOKEN)")]
    NoToken,
    #[error("Discord refused the bot token (401); check FANHUB_DISCORD_TOKEN")]
    BadToken,
    #[error("the bot may not read this (403); give it View Channel and Read Message History")]
    Forbidden,
    #[error("Discord does not know this {0} (404)")]
    NotFound(&'static str),
    #[error("Discord asks to wait {0:.1} s (rate limited)")]
    RateLimited(f64),
    #[error("paused: too many refused calls in the last 10 minutes")]
    InvalidBudget,
    #[error("Discord did not answer within {0:?}")]
    Timeout(Duration),
    #[error("Discord could not be reached: {0}")]
    Unreachable(String),
    #[error("Discord answered HTTP {0}")]
    Status(u16),
    #[error("Discord's answer was not understood: {0}")]
    BadAnswer(String),
}

#[derive(Clone)]
pub struct DiscordClient {
    http: reqwest::Client,
    base: String,
    token: Option<String>,
    jobs: Jobs,
    limits: Arc<Mutex<Limits>>,
}

#[derive(Default)]
struct Limits {
    /// (route template, major parameter) → the bucket Discord named for it.
    route_buckets: HashMap<(&'static str, String), String>,
    /// bucket:major → (remaining, when it refills).
    buckets: HashMap<String, (u32, Instant)>,
    global_until: Option<Instant>,
    invalid: VecDeque<Instant>,
    token_refused_until: Option<Instant>,
}

impl Limits {
    fn bucket_key(&self, route: &'static str, major: &str) -> Option<String> {
        self.route_buckets.get(&(route, major.to_string())).map(|b| format!("{b}:{major}"))
    }

    /// How long to wait before this call may go out.
    fn wait_for(&self, route: &'static str, major: &str, now: Instant) -> Duration {
        let mut wait = self.global_until.map(|t| t.saturating_duration_since(now)).unwrap_or_default();
        if let Some(key) = self.bucket_key(route, major)
            && let Some((0, reset)) = self.buckets.get(&key)
        {
            wait = wait.max(reset.saturating_duration_since(now));
        }
        wait
    }

    fn note_invalid(&mut self, now: Instant) {
        self.invalid.push_back(now);
        self.forget_old(now);
    }

    fn forget_old(&mut self, now: Instant) {
        while self.invalid.front().is_some_and(|t| now.duration_since(*t) > INVALID_WINDOW) {
            self.invalid.pop_front();
        }
    }

    fn learn(&mut self, route: &'static str, major: &str, headers: &HeaderMap, now: Instant) {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        if let Some(bucket) = header("x-ratelimit-bucket") {
            self.route_buckets.insert((route, major.to_string()), bucket.to_string());
        }
        let Some(key) = self.bucket_key(route, major) else { return };
        let remaining = header("x-ratelimit-remaining").and_then(|v| v.parse::<u32>().ok());
        let reset_after = header("x-ratelimit-reset-after").and_then(|v| v.parse::<f64>().ok());
        if let (Some(remaining), Some(after)) = (remaining, reset_after) {
            self.buckets.insert(key, (remaining, now + secs(after)));
        }
    }
}

/// A failed send or read, in Discord's terms (the words never carry the URL, which can hold an
/// interaction token).
impl From<outbound::Failure> for DiscordError {
    fn from(failure: outbound::Failure) -> Self {
        match failure {
            outbound::Failure::Timeout => Self::Timeout(TIMEOUT),
            outbound::Failure::Unreachable(why) => Self::Unreachable(why),
            too_long @ outbound::Failure::TooLong(_) => Self::BadAnswer(too_long.to_string()),
        }
    }
}

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s.clamp(0.0, 3600.0))
}

#[derive(Deserialize)]
struct TooMany {
    retry_after: Option<f64>,
    #[serde(default)]
    global: bool,
}

/// A message as the channel-messages endpoint returns it (the fields the summaries use).
#[derive(Debug, Clone, Deserialize)]
pub struct RawMessage {
    pub id: String,
    #[serde(default)]
    pub author: RawAuthor,
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub timestamp: String,
    #[serde(default)]
    pub edited_timestamp: Option<String>,
    #[serde(default)]
    pub embeds: Vec<RawEmbed>,
    #[serde(default)]
    pub attachments: Vec<serde_json::Value>,
    #[serde(default, rename = "type")]
    pub kind: u32,
    #[serde(default)]
    pub webhook_id: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct RawAuthor {
    #[serde(default)]
    pub username: String,
    #[serde(default)]
    pub global_name: Option<String>,
    #[serde(default)]
    pub bot: bool,
}

#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, PartialEq)]
pub struct RawEmbed {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<RawField>,
}

#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, PartialEq)]
pub struct RawField {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub value: String,
}

#[derive(Deserialize)]
struct Counts {
    approximate_member_count: Option<i64>,
}

impl DiscordClient {
    /// `base` is the API root (`https://discord.com/api/v10`); `site_url` goes into the User-Agent.
    pub fn new(base: &str, token: Option<String>, site_url: &str, jobs: Jobs) -> Self {
        let http = outbound::client(TIMEOUT, &format!("DiscordBot ({site_url}, {})", env!("CARGO_PKG_VERSION")));
        Self { http, base: base.trim_end_matches('/').to_string(), token, jobs, limits: Arc::default() }
    }

    pub fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// 401/403/429 answers counted in the last 10 minutes.
    pub fn invalid_requests(&self) -> usize {
        let mut limits = self.limits.lock().expect("limits lock");
        limits.forget_old(Instant::now());
        limits.invalid.len()
    }

    /// Up to `limit` (1-100) messages of a channel, newest first; with `after`, only newer ones.
    pub async fn channel_messages(
        &self,
        channel_id: &str,
        after: Option<u64>,
        limit: u8,
    ) -> Result<Vec<RawMessage>, DiscordError> {
        let mut path = format!("/channels/{channel_id}/messages?limit={}", limit.clamp(1, 100));
        if let Some(after) = after {
            path.push_str(&format!("&after={after}"));
        }
        self.call(Method::GET, "channels/{channel_id}/messages", channel_id, &path, None, true, "channel").await
    }

    /// The approximate member count behind an invite (no token needed).
    pub async fn invite_members(&self, code: &str) -> Result<Option<i64>, DiscordError> {
        let path = format!("/invites/{code}?with_counts=true");
        let counts: Counts = self.call(Method::GET, "invites/{code}", code, &path, None, false, "invite").await?;
        Ok(counts.approximate_member_count)
    }

    /// The approximate member count of a server the bot is in.
    pub async fn guild_members(&self, guild_id: &str) -> Result<Option<i64>, DiscordError> {
        let path = format!("/guilds/{guild_id}?with_counts=true");
        let counts: Counts = self.call(Method::GET, "guilds/{guild_id}", guild_id, &path, None, true, "server").await?;
        Ok(counts.approximate_member_count)
    }

    /// Completes a deferred interaction reply (the interaction token authorises it).
    pub async fn edit_original(
        &self,
        application_id: &str,
        interaction_token: &str,
        body: &serde_json::Value,
    ) -> Result<(), DiscordError> {
        let path = format!("/webhooks/{application_id}/{interaction_token}/messages/@original");
        let _: serde_json::Value = self
            .call(
                Method::PATCH,
                "webhooks/{application_id}/{token}/messages/@original",
                interaction_token,
                &path,
                Some(body),
                false,
                "interaction",
            )
            .await?;
        Ok(())
    }

    /// Removes the deferred "thinking" reply (before an ephemeral error follow-up).
    pub async fn delete_original(&self, application_id: &str, interaction_token: &str) -> Result<(), DiscordError> {
        let path = format!("/webhooks/{application_id}/{interaction_token}/messages/@original");
        let route = "webhooks/{application_id}/{token}/messages/@original";
        let _: serde_json::Value =
            self.call(Method::DELETE, route, interaction_token, &path, None, false, "interaction").await?;
        Ok(())
    }

    /// Sends a follow-up message of an interaction (ephemeral with `flags: 64`).
    pub async fn follow_up(
        &self,
        application_id: &str,
        interaction_token: &str,
        body: &serde_json::Value,
    ) -> Result<(), DiscordError> {
        let path = format!("/webhooks/{application_id}/{interaction_token}");
        let route = "webhooks/{application_id}/{token}";
        let _: serde_json::Value =
            self.call(Method::POST, route, interaction_token, &path, Some(body), false, "interaction").await?;
        Ok(())
    }

    /// Replaces the application's commands (globally, or in one server).
    pub async fn put_commands(
        &self,
        application_id: &str,
        guild_id: Option<&str>,
        commands: &serde_json::Value,
    ) -> Result<serde_json::Value, DiscordError> {
        match guild_id {
            Some(g) => {
                let path = format!("/applications/{application_id}/guilds/{g}/commands");
                let route = "applications/{id}/guilds/{guild_id}/commands";
                self.call(Method::PUT, route, application_id, &path, Some(commands), true, "application").await
            }
            None => {
                let path = format!("/applications/{application_id}/commands");
                let route = "applications/{id}/commands";
                self.call(Method::PUT, route, application_id, &path, Some(commands), true, "application").await
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        route: &'static str,
        major: &str,
        path: &str,
        body: Option<&serde_json::Value>,
        bot_auth: bool,
        what: &'static str,
    ) -> Result<T, DiscordError> {
        let token = if bot_auth { Some(self.token.as_deref().ok_or(DiscordError::NoToken)?) } else { None };
        // One retry after a 429 that asks for a short wait.
        for attempt in 0..2 {
            let wait = {
                let mut limits = self.limits.lock().expect("limits lock");
                let now = Instant::now();
                limits.forget_old(now);
                if limits.invalid.len() >= INVALID_BUDGET {
                    return Err(DiscordError::InvalidBudget);
                }
                if token.is_some() && limits.token_refused_until.is_some_and(|t| t > now) {
                    return Err(DiscordError::BadToken);
                }
                limits.wait_for(route, major, now)
            };
            if wait > MAX_WAIT {
                return Err(DiscordError::RateLimited(wait.as_secs_f64()));
            }
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
            let mut request = self.http.request(method.clone(), format!("{}{path}", self.base));
            if let Some(token) = token {
                request = request.header("authorization", format!("Bot {token}"));
            }
            if let Some(body) = body {
                request = request.json(body);
            }
            let response = match request.send().await {
                Ok(r) => r,
                Err(e) => return Err(self.failed(route, e.into())),
            };
            let now = Instant::now();
            let headers = response.headers().clone();
            self.limits.lock().expect("limits lock").learn(route, major, &headers, now);
            let (status, text) = match outbound::read_text(response).await {
                Ok(answer) => answer,
                Err(failure) => return Err(self.failed(route, failure)),
            };
            if status == StatusCode::TOO_MANY_REQUESTS {
                self.jobs.upstream_call("discord", route, Outcome::Throttled);
                let retry_after = self.note_throttled(route, major, &headers, &text, now);
                if attempt == 0 && secs(retry_after) <= MAX_WAIT {
                    continue;
                }
                return Err(DiscordError::RateLimited(retry_after));
            }
            if !status.is_success() {
                self.jobs.upstream_call("discord", route, Outcome::Failed);
                let error = self.note_refused(status, token.is_some(), what, now);
                if status.is_server_error() {
                    self.jobs.upstream_failed("discord", format!("{route}: {error}"));
                }
                return Err(error);
            }
            self.jobs.upstream_call("discord", route, Outcome::Ok);
            let text = if text.trim().is_empty() { "null" } else { &text };
            return serde_json::from_str(text).map_err(|e| DiscordError::BadAnswer(e.to_string()));
        }
        unreachable!("the loop returns on its second pass")
    }

    /// A call that got no readable answer: counted and logged.
    fn failed(&self, route: &'static str, failure: outbound::Failure) -> DiscordError {
        self.jobs.upstream_call("discord", route, Outcome::Failed);
        let error = DiscordError::from(failure);
        self.jobs.upstream_failed("discord", format!("{route}: {error}"));
        error
    }

    fn note_throttled(&self, route: &'static str, major: &str, headers: &HeaderMap, body: &str, now: Instant) -> f64 {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let parsed: Option<TooMany> = serde_json::from_str(body).ok();
        let retry_after = parsed
            .as_ref()
            .and_then(|b| b.retry_after)
            .or_else(|| header("retry-after").and_then(|v| v.parse().ok()))
            .unwrap_or(1.0);
        let scope = header("x-ratelimit-scope").unwrap_or("user");
        let global = parsed.as_ref().is_some_and(|b| b.global) || header("x-ratelimit-global") == Some("true");
        let mut limits = self.limits.lock().expect("limits lock");
        if global || scope == "global" {
            limits.global_until = Some(now + secs(retry_after));
        } else if let Some(key) = limits.bucket_key(route, major) {
            limits.buckets.insert(key, (0, now + secs(retry_after)));
        } else {
            let key = format!("{route}:{major}");
            limits.route_buckets.insert((route, major.to_string()), route.to_string());
            limits.buckets.insert(key, (0, now + secs(retry_after)));
        }
        // Discord does not count a shared-resource 429 against the ceiling.
        if scope != "shared" {
            limits.note_invalid(now);
        }
        retry_after
    }

    fn note_refused(&self, status: StatusCode, sent_token: bool, what: &'static str, now: Instant) -> DiscordError {
        let mut limits = self.limits.lock().expect("limits lock");
        match status {
            StatusCode::UNAUTHORIZED => {
                limits.note_invalid(now);
                if sent_token {
                    limits.token_refused_until = Some(now + BAD_TOKEN_PAUSE);
                }
                DiscordError::BadToken
            }
            StatusCode::FORBIDDEN => {
                limits.note_invalid(now);
                DiscordError::Forbidden
            }
            StatusCode::NOT_FOUND => DiscordError::NotFound(what),
            s => DiscordError::Status(s.as_u16()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_bucket_waits_until_it_refills_and_global_waits_for_all() {
        let mut limits = Limits::default();
        let now = Instant::now();
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-bucket", "abc".parse().unwrap());
        headers.insert("x-ratelimit-remaining", "0".parse().unwrap());
        headers.insert("x-ratelimit-reset-after", "2.5".parse().unwrap());
        limits.learn("channels/{channel_id}/messages", "1", &headers, now);
        let wait = limits.wait_for("channels/{channel_id}/messages", "1", now);
        assert!(wait > Duration::from_secs(2) && wait <= Duration::from_millis(2500), "{wait:?}");
        assert_eq!(limits.wait_for("channels/{channel_id}/messages", "2", now), Duration::ZERO, "another channel");
        limits.global_until = Some(now + Duration::from_secs(4));
        assert!(limits.wait_for("invites/{code}", "x", now) > Duration::from_secs(3));
    }

    #[test]
    fn refused_calls_age_out_of_the_budget() {
        let mut limits = Limits::default();
        let long_ago = Instant::now();
        limits.note_invalid(long_ago);
        limits.forget_old(long_ago + INVALID_WINDOW + Duration::from_secs(1));
        assert!(limits.invalid.is_empty());
    }
}
