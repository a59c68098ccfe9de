//! Discord webhooks: which URLs a fan may give (Discord's own webhook addresses and nothing
//! else), and the one client that posts to them: no redirects followed, 5 s per call, Discord's
//! 429 and `Retry-After` honoured, answers sorted into delivered / try later / refused.

use std::time::Duration;

use serde::Serialize;

use crate::jobs::{Jobs, Outcome};

/// The longest webhook URL taken (Discord's are about 120 characters).
pub const MAX_URL_LEN: usize = 256;
/// Each call to Discord gives up after this.
pub const TIMEOUT: Duration = Duration::from_secs(5);
/// The hosts of Discord's webhook URLs.
const HOSTS: [&str; 2] = ["discord.com", "discordapp.com"];

/// A webhook's id and token, from a URL that passed [`parse_url`].
#[derive(Clone, Debug, PartialEq)]
pub struct WebhookAddress {
    pub id: String,
    pub token: String,
}

/// `https://discord.com/api/webhooks/{id}/{token}` (or `discordapp.com`): the id and token.
/// Anything else is refused with the reason: another scheme or host, an address with a user,
/// a port, a query or a fragment, an IP address, a path of another shape, an overlong URL.
pub fn parse_url(url: &str) -> Result<WebhookAddress, String> {
    if url.trim().is_empty() {
        return Err("Paste the webhook URL from Discord (Server Settings > Integrations > Webhooks).".into());
    }
    if url.len() > MAX_URL_LEN {
        return Err(format!("That is longer than a Discord webhook URL (at most {MAX_URL_LEN} characters)."));
    }
    let parsed = reqwest::Url::parse(url).map_err(|_| "That is not a URL.".to_string())?;
    if parsed.scheme() != "https" {
        return Err("A Discord webhook URL starts with https://.".into());
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err("A Discord webhook URL has no user name or password in it.".into());
    }
    let host = parsed.host_str().unwrap_or_default();
    if !HOSTS.contains(&host) {
        return Err("Only Discord webhook URLs are taken: https://discord.com/api/webhooks/...".into());
    }
    if parsed.port().is_some() || parsed.query().is_some() || parsed.fragment().is_some() {
        return Err("A Discord webhook URL has no port, query or fragment.".into());
    }
    // The reasons above are for people; what is taken is exactly Discord's form, as written
    // (no case changes, spaces or escapes a URL parser would forgive).
    let shape = "A Discord webhook URL looks like https://discord.com/api/webhooks/ID/TOKEN.";
    let rest = HOSTS
        .iter()
        .find_map(|host| url.strip_prefix(&format!("https://{host}/api/webhooks/")))
        .ok_or_else(|| shape.to_string())?;
    let parts: Vec<&str> = rest.strip_suffix('/').unwrap_or(rest).split('/').collect();
    let [id, token] = parts.as_slice() else {
        return Err(shape.into());
    };
    let id_ok = (15..=21).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_digit());
    let token_ok =
        (30..=100).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !id_ok || !token_ok {
        return Err("That webhook URL's id or token is not of Discord's form.".into());
    }
    Ok(WebhookAddress { id: id.to_string(), token: token.to_string() })
}

/// What the account page shows of a webhook: never the token.
pub fn masked(id: &str) -> String {
    format!("https://discord.com/api/webhooks/{id}/…")
}

/// A Discord embed (the parts the alerts use).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Embed {
    pub title: String,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub color: u32,
    /// RFC 3339.
    pub timestamp: String,
    pub footer: Footer,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Footer {
    pub text: String,
}

/// A webhook message: the site's name as the author, one embed, no mentions.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Message {
    pub username: String,
    pub embeds: Vec<Embed>,
    pub allowed_mentions: AllowedMentions,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct AllowedMentions {
    pub parse: Vec<String>,
}

/// How Discord answered one message.
#[derive(Clone, Debug, PartialEq)]
pub enum Delivery {
    Delivered,
    /// 429 (with how long to wait), 5xx, a timeout or no connection: try again later.
    Later {
        wait: Option<Duration>,
        why: String,
    },
    /// 401 or 404: the webhook was deleted or its token is wrong.
    Refused(u16),
    /// Any other 4xx: this message will never be taken.
    Rejected(u16),
}

/// The one client that posts to fans' webhooks.
pub struct DiscordWebhooks {
    http: reqwest::Client,
    /// `FANHUB_DISCORD_API` (default `https://discord.com/api/v10`): webhooks are posted to
    /// `{api}/webhooks/{id}/{token}`, so tests point it at a fake Discord.
    api_base: String,
    jobs: Jobs,
    /// A fan's tries at saving a webhook, each of which sends a test message: one per account
    /// every [`crate::follows::routes::SAVE_PAUSE`], counted before sending.
    pub test_messages: crate::ratelimit::PerAccount,
}

impl DiscordWebhooks {
    pub fn new(api_base: &str, jobs: Jobs) -> Self {
        Self {
            http: crate::outbound::client_without_redirects(TIMEOUT, crate::outbound::USER_AGENT),
            api_base: api_base.trim_end_matches('/').to_string(),
            jobs,
            test_messages: crate::ratelimit::PerAccount::every(
                crate::follows::routes::SAVE_PAUSE,
                "One test message every 10 seconds: wait a moment before trying again.",
            ),
        }
    }

    /// Posts `message` to the webhook.
    pub async fn send(&self, to: &WebhookAddress, message: &Message) -> Delivery {
        let url = format!("{}/webhooks/{}/{}?wait=true", self.api_base, to.id, to.token);
        let sent = self.http.post(url).json(message).send().await;
        let delivery = match sent {
            Err(e) => Delivery::Later { wait: None, why: crate::outbound::Failure::from(e).to_string() },
            Ok(response) => {
                let status = response.status();
                let retry_header = response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<f64>().ok());
                let body = crate::outbound::read_text(response).await.map(|(_, text)| text).unwrap_or_default();
                match status.as_u16() {
                    200..=299 => Delivery::Delivered,
                    429 => {
                        // Discord gives seconds in the body (`retry_after`, fractional) and the header.
                        let from_body = serde_json::from_str::<serde_json::Value>(&body)
                            .ok()
                            .and_then(|v| v.get("retry_after").and_then(serde_json::Value::as_f64));
                        let secs = from_body.or(retry_header).unwrap_or(5.0).clamp(0.0, 3600.0);
                        Delivery::Later {
                            wait: Some(Duration::from_secs_f64(secs)),
                            why: "Discord said slow down (429)".into(),
                        }
                    }
                    401 | 403 | 404 => Delivery::Refused(status.as_u16()),
                    code @ 300..=399 => Delivery::Rejected(code),
                    code @ 400..=499 => Delivery::Rejected(code),
                    code => Delivery::Later { wait: None, why: format!("Discord answered {code}") },
                }
            }
        };
        let outcome = match &delivery {
            Delivery::Delivered => Outcome::Ok,
            Delivery::Later { wait: Some(_), .. } => Outcome::Throttled,
            _ => Outcome::Failed,
        };
        self.jobs.upstream_call("discord-webhooks", "webhooks/{id}/{token}", outcome);
        delivery
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "aB3_dE-fGhIjKlMnOpQrStUvWxYz0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01234";

    #[test]
    fn only_discords_webhook_urls_are_taken() {
        let ok = format!("https://discord.com/api/webhooks/123456789012345678/{TOKEN}");
        assert_eq!(parse_url(&ok).unwrap(), WebhookAddress { id: "123456789012345678".into(), token: TOKEN.into() });
        assert!(parse_url(&format!("https://discordapp.com/api/webhooks/123456789012345678/{TOKEN}")).is_ok());
        let refused = [
            String::new(),
            format!("http://discord.com/api/webhooks/123456789012345678/{TOKEN}"),
            format!("https://evil.example/api/webhooks/123456789012345678/{TOKEN}"),
            format!("https://discord.com.evil.example/api/webhooks/123456789012345678/{TOKEN}"),
            format!("https://user:pw@discord.com/api/webhooks/123456789012345678/{TOKEN}"),
            format!("https://discord.com:8443/api/webhooks/123456789012345678/{TOKEN}"),
            format!("https://162.159.128.233/api/webhooks/123456789012345678/{TOKEN}"),
            format!("https://[::1]/api/webhooks/123456789012345678/{TOKEN}"),
            format!("https://discord.com/api/webhooks/123456789012345678/{TOKEN}?redirect=https://evil.example"),
            format!("https://discord.com/api/webhooks/123456789012345678/{TOKEN}#x"),
            format!("https://discord.com/api/webhooks/123456789012345678/{TOKEN}/slack"),
            format!("https://discord.com/api/webhooks/abc/{TOKEN}"),
            "https://discord.com/api/webhooks/123456789012345678/short".into(),
            format!("https://discord.com/api/webhooks/123456789012345678/{}", "a".repeat(300)),
            "javascript:alert(1)".into(),
            "https://discord.com/invite/abc".into(),
            format!("HTTPS://DISCORD.COM/api/webhooks/123456789012345678/{TOKEN}"),
            format!(" https://discord.com/api/webhooks/123456789012345678/{TOKEN}"),
            format!("https://discord.com/api/webhooks/123456789012345678/{TOKEN}%2F"),
        ];
        for url in refused {
            assert!(parse_url(&url).is_err(), "{url}");
        }
    }
}
