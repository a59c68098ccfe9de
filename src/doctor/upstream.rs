//! The upstream checks: each configured service reachable with its credentials. One async
//! function per service, each returning its report lines; `check_all` runs them at the same time
//! under one deadline, so a service that never answers costs [`DEADLINE`] and no more.
//!
//! The Roblox and Discord checks read the same environment variables as the server
//! (`FANHUB_ROBLOX_API`, `FANHUB_ROBLOX_COOKIE`, `FANHUB_DISCORD_TOKEN`, `FANHUB_DISCORD_API`) and
//! make their own two requests; when the `src/roblox` and `src/discord` clients land, their
//! config types replace `RobloxSettings` / `DiscordSettings` here.
//!
//! Every check sends its credential (the LLM key, the cookie, the Open Cloud key, the bot token)
//! only to the host configured for it: a redirect to another host is not followed, and the
//! check fails saying so.

use std::time::Duration;

use reqwest::StatusCode;

use super::Check;
use crate::config::Secrets;
use crate::llm::LlmConfig;

/// The doctor's calls say who they are.
pub(super) const USER_AGENT: &str = concat!("fanhub-doctor/", env!("CARGO_PKG_VERSION"));
/// One request's limit.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(4);
/// One service's limit (a service may make two requests).
pub const DEADLINE: Duration = Duration::from_secs(9);

pub const ROBLOX_DEFAULT_API: &str = "https://{service}.roblox.com";
pub const DISCORD_DEFAULT_API: &str = "https://discord.com/api/v10";

/// Discord application flags: the message-content intent, approved or limited (under 100 servers).
const GATEWAY_MESSAGE_CONTENT: u64 = 1 << 18;
const GATEWAY_MESSAGE_CONTENT_LIMITED: u64 = 1 << 19;

#[derive(Clone, Debug)]
pub struct RobloxSettings {
    /// `{service}` is replaced by users, badges, thumbnails or groups.
    pub api_template: String,
    pub cookie: Option<String>,
    /// FANHUB_ROBLOX_OPEN_CLOUD_API (the client appends `/cloud/v2/...`).
    pub open_cloud_api: String,
    pub open_cloud_key: Option<String>,
}

#[derive(Clone, Debug)]
pub struct DiscordSettings {
    pub api: String,
    pub token: Option<String>,
}

#[derive(Clone, Debug)]
pub struct UpstreamSettings {
    pub llm: Option<LlmConfig>,
    pub roblox: RobloxSettings,
    pub discord: DiscordSettings,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

impl UpstreamSettings {
    pub fn from_secrets(secrets: &Secrets) -> Self {
        Self {
            llm: secrets.llm.clone(),
            roblox: RobloxSettings {
                api_template: env("FANHUB_ROBLOX_API").unwrap_or_else(|| ROBLOX_DEFAULT_API.into()),
                cookie: env("FANHUB_ROBLOX_COOKIE"),
                open_cloud_api: env("FANHUB_ROBLOX_OPEN_CLOUD_API")
                    .unwrap_or_else(|| crate::roblox::DEFAULT_OPEN_CLOUD_API.into())
                    .trim_end_matches('/')
                    .into(),
                open_cloud_key: env("FANHUB_ROBLOX_OPEN_CLOUD_KEY"),
            },
            discord: DiscordSettings {
                api: env("FANHUB_DISCORD_API")
                    .unwrap_or_else(|| DISCORD_DEFAULT_API.into())
                    .trim_end_matches('/')
                    .into(),
                token: env("FANHUB_DISCORD_TOKEN"),
            },
        }
    }
}

/// Every upstream at once, in report order: LLM, Roblox (anonymous, cookie), Discord (token, intent).
pub async fn check_all(settings: &UpstreamSettings) -> Vec<Check> {
    let (llm, roblox, discord) = tokio::join!(
        within_deadline(&["LLM"], check_llm(settings.llm.as_ref())),
        within_deadline(&["Roblox", "Roblox cookie", "Roblox Open Cloud key"], check_roblox(&settings.roblox)),
        within_deadline(&["Discord token", "Discord intent"], check_discord(&settings.discord)),
    );
    [llm, roblox, discord].concat()
}

async fn within_deadline(names: &[&'static str], checks: impl Future<Output = Vec<Check>>) -> Vec<Check> {
    match tokio::time::timeout(DEADLINE, checks).await {
        Ok(checks) => checks,
        Err(_) => names
            .iter()
            .map(|&name| {
                Check::fail(
                    name,
                    format!("no answer within {}s", DEADLINE.as_secs()),
                    "check the service's URL and this machine's network (firewall, DNS, proxy)",
                )
            })
            .collect(),
    }
}

/// The shared outbound client: it never follows a redirect to another host, so a key, a
/// cookie or a token is only ever sent to the host configured for it.
fn client() -> reqwest::Client {
    crate::outbound::client(REQUEST_TIMEOUT, USER_AGENT)
}

/// A transport failure in one line, with its causes and without the URL (it may carry
/// credentials).
fn why(e: reqwest::Error) -> String {
    match crate::outbound::Failure::from(e) {
        crate::outbound::Failure::Timeout => format!("no answer within {}s", REQUEST_TIMEOUT.as_secs()),
        other => other.to_string(),
    }
}

/// The check's failure when `response` is a redirect to another host, which was not followed:
/// `credential` (what the request carried) was not sent there, and the report says so.
fn refused_redirect(name: &'static str, url: &str, response: &reqwest::Response, credential: &str) -> Option<Check> {
    let host = crate::outbound::redirected_elsewhere(response)?;
    Some(Check::fail(
        name,
        format!(
            "{url} answered HTTP {} with a redirect to another host ({host}); the redirect was refused, so {credential} was not sent there",
            response.status().as_u16()
        ),
        "set the URL to the service itself (a redirect to another host is never followed: it would carry the credential away)",
    ))
}

/// The answer's status and body (at most the outbound cap; empty when unreadable).
async fn text(response: reqwest::Response) -> (StatusCode, String) {
    let status = response.status();
    (status, crate::outbound::read_text(response).await.map(|(_, t)| t).unwrap_or_default())
}

/// The answer as JSON (at most the outbound cap); None when unreadable.
async fn json(response: reqwest::Response) -> Option<serde_json::Value> {
    serde_json::from_str(&crate::outbound::read_text(response).await.ok()?.1).ok()
}

/// The first 160 characters of an error body, on one line.
fn snippet(body: &str) -> String {
    let text: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    text.chars().take(160).collect()
}

const NETWORK_FIX: &str = "check the URL and that this machine can reach it (firewall, DNS, proxy)";

/// The LLM: the model listed by `GET /models`, or, where a server has no model list, a
/// one-token chat completion.
pub async fn check_llm(config: Option<&LlmConfig>) -> Vec<Check> {
    const NAME: &str = "LLM";
    let Some(config) = config else {
        return vec![Check::skipped(NAME, "not configured (FANHUB_LLM_URL unset): the built-in heuristics are used")];
    };
    let http = client();
    let credential = if config.key.is_some() { "the key (FANHUB_LLM_KEY)" } else { "the request" };
    let with_key = |request: reqwest::RequestBuilder| match &config.key {
        Some(key) => request.bearer_auth(key),
        None => request,
    };
    let base = &config.base_url;
    let key_fix = "check FANHUB_LLM_KEY (the server refused it)";
    let response = match with_key(http.get(format!("{base}/models"))).send().await {
        Ok(r) => r,
        Err(e) => return vec![Check::fail(NAME, format!("{base}: {}", why(e)), NETWORK_FIX)],
    };
    if let Some(refused) = refused_redirect(NAME, &format!("{base}/models"), &response, credential) {
        return vec![refused];
    }
    let status = response.status();
    if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        return vec![Check::fail(NAME, format!("{base} refused the key (HTTP {})", status.as_u16()), key_fix)];
    }
    if status.is_success() {
        let listed: Option<Vec<String>> = json(response).await.and_then(|v| {
            v["data"]
                .as_array()
                .map(|models| models.iter().filter_map(|m| m["id"].as_str().map(String::from)).collect())
        });
        if let Some(models) = listed.filter(|m| !m.is_empty()) {
            if models.iter().any(|m| m == &config.model) {
                return vec![Check::pass(NAME, format!("{base} offers the model {}", config.model))];
            }
            let offered: Vec<&str> = models.iter().take(8).map(String::as_str).collect();
            return vec![Check::fail(
                NAME,
                format!("{base} does not offer the model {} (it offers {})", config.model, offered.join(", ")),
                "set FANHUB_LLM_MODEL to one of the models it offers",
            )];
        }
    }
    // No usable model list: ask for one token.
    let body = serde_json::json!({
        "model": config.model,
        "messages": [{"role": "user", "content": "Reply with OK."}],
        "max_tokens": 1,
    });
    let response = match with_key(http.post(format!("{base}/chat/completions")).json(&body)).send().await {
        Ok(r) => r,
        Err(e) => return vec![Check::fail(NAME, format!("{base}: {}", why(e)), NETWORK_FIX)],
    };
    if let Some(refused) = refused_redirect(NAME, &format!("{base}/chat/completions"), &response, credential) {
        return vec![refused];
    }
    let (status, text) = text(response).await;
    vec![match status.as_u16() {
        200..=299 => Check::pass(NAME, format!("{base} answered a one-token request with the model {}", config.model)),
        401 | 403 => Check::fail(NAME, format!("{base} refused the key (HTTP {})", status.as_u16()), key_fix),
        code => Check::fail(
            NAME,
            format!("{base}/chat/completions answered HTTP {code} for the model {}: {}", config.model, snippet(&text)),
            "check FANHUB_LLM_URL (the base that /chat/completions is appended to) and FANHUB_LLM_MODEL",
        ),
    }]
}

/// Roblox: an anonymous request to the users service, then, when a cookie is set, who it signs in as.
pub async fn check_roblox(settings: &RobloxSettings) -> Vec<Check> {
    let http = client();
    let users = settings.api_template.replace("{service}", "users").trim_end_matches('/').to_string();
    let user_1 = format!("{users}/v1/users/1");
    let anonymous = match http.get(&user_1).send().await {
        Err(e) => Check::fail("Roblox", format!("{users}: {}", why(e)), NETWORK_FIX),
        Ok(r) if let Some(refused) = refused_redirect("Roblox", &user_1, &r, "the request") => refused,
        Ok(r) if r.status().is_success() => Check::pass("Roblox", format!("{users} answers anonymous requests")),
        Ok(r) if r.status() == StatusCode::TOO_MANY_REQUESTS => Check::fail(
            "Roblox",
            format!("{users} is rate-limiting this machine (HTTP 429)"),
            "wait a minute; if it persists, another program on this address is using the quota",
        ),
        Ok(r) => Check::fail(
            "Roblox",
            format!("{user_1} answered HTTP {}", r.status().as_u16()),
            "check FANHUB_ROBLOX_API (a template like https://{service}.roblox.com)",
        ),
    };
    let open_cloud = check_open_cloud(&http, settings).await;
    let Some(cookie) = &settings.cookie else {
        let why = if settings.open_cloud_key.is_some() {
            "FANHUB_ROBLOX_COOKIE not set (not needed: the Open Cloud key reads join and award dates)"
        } else {
            "FANHUB_ROBLOX_COOKIE not set (only endpoints that refuse anonymous calls need it)"
        };
        return vec![anonymous, Check::skipped("Roblox cookie", why), open_cloud];
    };
    let cookie_fix = "sign in to Roblox again and copy the new .ROBLOSECURITY cookie into FANHUB_ROBLOX_COOKIE";
    const COOKIE: &str = "the cookie (FANHUB_ROBLOX_COOKIE)";
    let url = format!("{users}/v1/users/authenticated");
    let request = http.get(&url).header("cookie", format!(".ROBLOSECURITY={cookie}"));
    let with_cookie = match request.send().await {
        Err(e) if e.is_builder() => {
            Check::fail("Roblox cookie", "FANHUB_ROBLOX_COOKIE is not a valid header value", cookie_fix)
        }
        Err(e) => Check::fail("Roblox cookie", format!("{users}: {}", why(e)), NETWORK_FIX),
        Ok(r) if let Some(refused) = refused_redirect("Roblox cookie", &url, &r, COOKIE) => refused,
        Ok(r) if r.status().is_success() => {
            let who = json(r).await.and_then(|v| v["name"].as_str().map(String::from));
            Check::pass(
                "Roblox cookie",
                format!("accepted (signed in as {})", who.as_deref().unwrap_or("an unnamed account")),
            )
        }
        Ok(r) if matches!(r.status(), StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) => Check::fail(
            "Roblox cookie",
            format!("refused (HTTP {}): it expired or the account signed out", r.status().as_u16()),
            cookie_fix,
        ),
        Ok(r) => Check::fail("Roblox cookie", format!("{url} answered HTTP {}", r.status().as_u16()), cookie_fix),
    };
    let with_cookie = if settings.open_cloud_key.is_none() {
        Check {
            detail: format!(
                "{}; an Open Cloud API key (FANHUB_ROBLOX_OPEN_CLOUD_KEY) is the preferred way: made for servers, revocable, no whole Roblox account on this machine (README: Roblox Open Cloud)",
                with_cookie.detail
            ),
            ..with_cookie
        }
    } else {
        with_cookie
    };
    vec![anonymous, with_cookie, open_cloud]
}

/// The Open Cloud key: one lookup of user 1, with the quota Roblox reports.
async fn check_open_cloud(http: &reqwest::Client, settings: &RobloxSettings) -> Check {
    const NAME: &str = "Roblox Open Cloud key";
    let Some(key) = &settings.open_cloud_key else {
        return Check::skipped(
            NAME,
            "FANHUB_ROBLOX_OPEN_CLOUD_KEY not set (recommended: join dates 30 times faster and ELC award dates without a cookie; README: Roblox Open Cloud)",
        );
    };
    let fix = "create a key on Roblox's Creator Dashboard (Open Cloud > API Keys), check its expiry and that its IP allow list has this server's address, and put it in FANHUB_ROBLOX_OPEN_CLOUD_KEY";
    let base = &settings.open_cloud_api;
    let response = match http.get(format!("{base}/cloud/v2/users/1")).header("x-api-key", key).send().await {
        Err(e) if e.is_builder() => {
            return Check::fail(NAME, "FANHUB_ROBLOX_OPEN_CLOUD_KEY is not a valid header value", fix);
        }
        Err(e) => return Check::fail(NAME, format!("{base}: {}", why(e)), NETWORK_FIX),
        Ok(r) => r,
    };
    let url = format!("{base}/cloud/v2/users/1");
    if let Some(refused) = refused_redirect(NAME, &url, &response, "the key (FANHUB_ROBLOX_OPEN_CLOUD_KEY)") {
        return refused;
    }
    let quota = crate::roblox::http::RateHeaders::read(response.headers()).map_or_else(
        || "Roblox sent no quota figures".to_string(),
        |q| match q.limit {
            Some(limit) => format!("{} of {limit} user lookups left this minute", q.remaining),
            None => format!("{} user lookups left this minute", q.remaining),
        },
    );
    let (status, text) = text(response).await;
    match status.as_u16() {
        200..=299 => Check::pass(NAME, format!("accepted by {base} ({quota})")),
        429 => Check::fail(
            NAME,
            format!("accepted, but the key owner's quota is spent (HTTP 429; {quota})"),
            "wait a minute; if it persists, another program uses keys of the same owner",
        ),
        401 | 403 => Check::fail(
            NAME,
            format!("refused (HTTP {}): {}", status.as_u16(), crate::roblox::http::open_cloud_message(text.as_bytes())),
            fix,
        ),
        code => Check::fail(
            NAME,
            format!("{url} answered HTTP {code}: {}", snippet(&text)),
            "check FANHUB_ROBLOX_OPEN_CLOUD_API (default https://apis.roblox.com)",
        ),
    }
}

/// Discord: the bot token (`GET /users/@me`) and the message-content intent
/// (`GET /applications/@me`, its flags).
pub async fn check_discord(settings: &DiscordSettings) -> Vec<Check> {
    let Some(token) = &settings.token else {
        return vec![
            Check::skipped("Discord token", "FANHUB_DISCORD_TOKEN not set (no update channels are read)"),
            Check::skipped("Discord intent", "no token"),
        ];
    };
    let http = client();
    let api = &settings.api;
    let token_fix =
        "copy the bot token again (Developer Portal → your application → Bot → Reset Token) into FANHUB_DISCORD_TOKEN";
    const TOKEN: &str = "the token (FANHUB_DISCORD_TOKEN)";
    let get = |url: &str| http.get(url).header("authorization", format!("Bot {token}")).send();
    let (me_url, app_url) = (format!("{api}/users/@me"), format!("{api}/applications/@me"));
    let bot = match get(&me_url).await {
        Err(e) if e.is_builder() => {
            Err(Check::fail("Discord token", "FANHUB_DISCORD_TOKEN is not a valid header value", token_fix))
        }
        Err(e) => Err(Check::fail("Discord token", format!("{api}: {}", why(e)), NETWORK_FIX)),
        Ok(r) if let Some(refused) = refused_redirect("Discord token", &me_url, &r, TOKEN) => Err(refused),
        Ok(r) if r.status().is_success() => {
            let user = json(r).await.unwrap_or_default();
            Ok(user["username"].as_str().unwrap_or("an unnamed bot").to_string())
        }
        Ok(r) if r.status() == StatusCode::UNAUTHORIZED => {
            Err(Check::fail("Discord token", "refused (HTTP 401): the token is wrong or was reset", token_fix))
        }
        Ok(r) => Err(Check::fail(
            "Discord token",
            format!("{me_url} answered HTTP {}", r.status().as_u16()),
            "check FANHUB_DISCORD_API (default https://discord.com/api/v10)",
        )),
    };
    let name = match bot {
        Ok(name) => name,
        Err(check) => return vec![check, Check::skipped("Discord intent", "needs a working token")],
    };
    let token_line = Check::pass("Discord token", format!("accepted (bot {name})"));
    let intent_fix =
        "Developer Portal → your application → Bot → Privileged Gateway Intents → turn on Message Content Intent";
    let intent = match get(&app_url).await {
        Err(e) => Check::fail("Discord intent", format!("{api}: {}", why(e)), NETWORK_FIX),
        Ok(r) if let Some(refused) = refused_redirect("Discord intent", &app_url, &r, TOKEN) => refused,
        Ok(r) if r.status().is_success() => {
            let flags = json(r).await.and_then(|v| v["flags"].as_u64());
            match flags {
                Some(f) if f & (GATEWAY_MESSAGE_CONTENT | GATEWAY_MESSAGE_CONTENT_LIMITED) != 0 => {
                    Check::pass("Discord intent", "the message-content intent is on")
                }
                Some(_) => Check::fail(
                    "Discord intent",
                    "the message-content intent is off: the bot would read empty messages",
                    intent_fix,
                ),
                None => Check::fail("Discord intent", "/applications/@me has no flags field", intent_fix),
            }
        }
        Ok(r) => Check::fail("Discord intent", format!("{app_url} answered HTTP {}", r.status().as_u16()), intent_fix),
    };
    vec![token_line, intent]
}
