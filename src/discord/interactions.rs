//! `POST /api/discord/interactions`: Discord's slash commands over HTTP. Every request is checked
//! (Ed25519 over timestamp + raw body with the application's public key, a 5-minute replay
//! window, each signature accepted once) and anything else gets 401, as Discord tests on purpose.
//! PING gets PONG; `/newgen <username>` and `/check <username>` answer at once from the player
//! cache, else with a deferred reply completed through the interaction webhook. Errors are
//! ephemeral (seen only by whoever ran the command).
//!
//! The player data comes through [`PlayerLookup`], so this module does not depend on how the
//! lookups are made; the server installs the real one with [`Discord::set_player_lookup`].

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde::Deserialize;
use serde_json::{Value, json};

use super::Discord;
use crate::error::ApiError;

/// Requests older or newer than this (by their signed timestamp) are refused.
pub const REPLAY_WINDOW_SECS: i64 = 300;
/// How long a deferred lookup may take before the reply says it failed (the token lives 15 min).
pub const DEFERRED_LOOKUP_LIMIT: Duration = Duration::from_secs(60);
const EPHEMERAL: u64 = 1 << 6;
const SEEN_LIMIT: usize = 20_000;

/// What the slash commands show about a player.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerCard {
    pub username: String,
    pub display_name: String,
    pub user_id: u64,
    pub avatar_url: Option<String>,
    pub profile_url: String,
    pub account_age_days: i64,
    /// The generation code: VETERAN, OLDGEN, MIDGEN or NEWGEN.
    pub generation: String,
    /// Its era's name from the site's settings, e.g. "OG".
    pub generation_label: String,
    pub classification: String,
    /// (found, tracked) ELC badges; None when the award dates were unavailable.
    pub elc_badges: Option<(u32, u32)>,
    /// Why the ELC badges are unavailable, when they are.
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LookupError {
    /// No player has that name.
    NotFound,
    /// The lookup failed or is not set up; the text says why (shown to the user).
    Unavailable(String),
}

pub type LookupFuture = Pin<Box<dyn Future<Output = Result<PlayerCard, LookupError>> + Send>>;

/// The Roblox player lookups the commands answer from.
pub trait PlayerLookup: Send + Sync + 'static {
    /// Whether lookups are set up at all (otherwise the commands say so at once).
    fn available(&self) -> bool {
        true
    }
    /// A fresh cached answer, without any network call.
    fn cached(&self, username: &str) -> Option<PlayerCard>;
    /// A full lookup at interactive priority.
    fn lookup(&self, username: &str) -> LookupFuture;
}

/// Used until the server installs the real lookups.
pub struct NoLookups;

impl PlayerLookup for NoLookups {
    fn available(&self) -> bool {
        false
    }
    fn cached(&self, _: &str) -> Option<PlayerCard> {
        None
    }
    fn lookup(&self, _: &str) -> LookupFuture {
        Box::pin(async { Err(LookupError::Unavailable("player lookups are not set up on this site".into())) })
    }
}

/// Signatures seen in the replay window (with when they were signed), and the same in arrival
/// order so the oldest can be forgotten first.
type SeenSignatures = (HashMap<[u8; 64], i64>, VecDeque<([u8; 64], i64)>);

/// The signature check and its replay memory, plus the installed lookups.
pub struct Verifier {
    key: Option<[u8; 32]>,
    application_id: Option<String>,
    seen: Mutex<SeenSignatures>,
    lookup: RwLock<Arc<dyn PlayerLookup>>,
}

#[derive(Debug, PartialEq)]
pub enum Refusal {
    MissingHeaders,
    BadSignature,
    Stale,
    Replayed,
}

impl Verifier {
    /// `public_key` is the hex key of FANHUB_DISCORD_PUBLIC_KEY; a malformed one stops the start.
    pub fn new(public_key: Option<&str>, application_id: Option<String>) -> Result<Self, String> {
        let key = match public_key {
            None => None,
            Some(hex_key) => {
                let bytes = hex::decode(hex_key.trim())
                    .ok()
                    .and_then(|b| <[u8; 32]>::try_from(b).ok())
                    .ok_or("FANHUB_DISCORD_PUBLIC_KEY must be the 64 hex digits of the application's public key")?;
                Some(bytes)
            }
        };
        Ok(Self { key, application_id, seen: Mutex::default(), lookup: RwLock::new(Arc::new(NoLookups)) })
    }

    pub fn enabled(&self) -> bool {
        self.key.is_some()
    }

    pub fn lookup(&self) -> Arc<dyn PlayerLookup> {
        self.lookup.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Checks the headers' signature over `timestamp + body`, the timestamp's age and that the
    /// signature was not used before.
    pub fn verify(&self, headers: &HeaderMap, body: &[u8], now_secs: i64) -> Result<(), Refusal> {
        let key = self.key.as_ref().ok_or(Refusal::BadSignature)?;
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let (Some(signature), Some(timestamp)) = (header("x-signature-ed25519"), header("x-signature-timestamp"))
        else {
            return Err(Refusal::MissingHeaders);
        };
        let signature: [u8; 64] =
            hex::decode(signature).ok().and_then(|s| s.try_into().ok()).ok_or(Refusal::BadSignature)?;
        let mut message = Vec::with_capacity(timestamp.len() + body.len());
        message.extend_from_slice(timestamp.as_bytes());
        message.extend_from_slice(body);
        ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, key)
            .verify(&message, &signature)
            .map_err(|_| Refusal::BadSignature)?;
        let signed_at: i64 = timestamp.parse().map_err(|_| Refusal::Stale)?;
        if (now_secs - signed_at).abs() > REPLAY_WINDOW_SECS {
            return Err(Refusal::Stale);
        }
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let (set, order) = &mut *seen;
        while let Some((old, at)) = order.front().copied() {
            if now_secs - at <= REPLAY_WINDOW_SECS && order.len() < SEEN_LIMIT {
                break;
            }
            order.pop_front();
            set.remove(&old);
        }
        if set.insert(signature, signed_at).is_some() {
            return Err(Refusal::Replayed);
        }
        order.push_back((signature, signed_at));
        Ok(())
    }
}

impl Discord {
    /// Installs the player lookups the slash commands answer from.
    pub fn set_player_lookup(&self, lookup: Arc<dyn PlayerLookup>) {
        *self.interactions.lookup.write().unwrap_or_else(|p| p.into_inner()) = lookup;
    }
}

#[derive(Deserialize)]
struct Interaction {
    #[serde(rename = "type")]
    kind: u8,
    #[serde(default)]
    application_id: String,
    #[serde(default)]
    token: String,
    #[serde(default)]
    data: Option<CommandData>,
}

#[derive(Deserialize)]
struct CommandData {
    name: String,
    #[serde(default)]
    options: Vec<CommandOption>,
}

#[derive(Deserialize)]
struct CommandOption {
    name: String,
    #[serde(default)]
    value: Value,
}

pub fn router<S: Clone + Send + Sync + 'static>(discord: Arc<Discord>) -> Router<S> {
    Router::new().route("/api/discord/interactions", post(interactions)).with_state(discord)
}

/// Discord's interactions endpoint (set its URL in the Developer Portal). Needs
/// FANHUB_DISCORD_PUBLIC_KEY; requests must carry `X-Signature-Ed25519` and `X-Signature-Timestamp`.
#[utoipa::path(post, path = "/api/discord/interactions", tag = "site", operation_id = "discordInteraction",
    request_body(content = Object, description = "A Discord interaction (PING or an application command)"),
    responses((status = 200, description = "The interaction response: PONG, a message, or a deferred reply", body = Object),
        (status = 400, description = "Not an interaction this endpoint handles"),
        (status = 401, description = "Missing, invalid, stale or replayed signature"),
        (status = 404, description = "Interactions are not enabled (no FANHUB_DISCORD_PUBLIC_KEY)"),
        (status = 413, description = "Body too large")))]
pub(crate) async fn interactions(
    State(discord): State<Arc<Discord>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let verifier = &discord.interactions;
    if !verifier.enabled() {
        return Err(ApiError::not_found("Discord interactions are not enabled on this site."));
    }
    let body = body.map_err(|e| ApiError::new(e.status(), "The request body is too large."))?;
    let now = jiff::Timestamp::now().as_second();
    if let Err(refusal) = verifier.verify(&headers, &body, now) {
        tracing::info!("discord interaction refused: {refusal:?}");
        return Err(ApiError::unauthorized("invalid request signature"));
    }
    let interaction: Interaction =
        serde_json::from_slice(&body).map_err(|_| ApiError::bad_request("Not a Discord interaction."))?;
    if let Some(expected) = &verifier.application_id
        && !interaction.application_id.is_empty()
        && &interaction.application_id != expected
    {
        return Err(ApiError::unauthorized("invalid request signature"));
    }
    match interaction.kind {
        1 => Ok(Json(json!({"type": 1})).into_response()),
        2 => Ok(Json(command(&discord, interaction)).into_response()),
        _ => Err(ApiError::bad_request("Only PING and slash commands are handled here.")),
    }
}

fn ephemeral(text: &str) -> Value {
    json!({"type": 4, "data": {"content": text, "flags": EPHEMERAL}})
}

/// A Roblox username: 3-20 letters, digits and underscores.
pub fn valid_username(name: &str) -> bool {
    (3..=20).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn command(discord: &Discord, interaction: Interaction) -> Value {
    let Some(data) = interaction.data else { return ephemeral("This command carries no data.") };
    let quick = match data.name.as_str() {
        "check" => true,
        "newgen" => false,
        _ => return ephemeral("This site does not know that command."),
    };
    let username = data
        .options
        .iter()
        .find(|o| o.name == "username")
        .and_then(|o| o.value.as_str())
        .map(str::trim)
        .unwrap_or_default()
        .to_string();
    if !valid_username(&username) {
        return ephemeral("Give a Roblox username: 3 to 20 letters, digits or underscores.");
    }
    let lookup = discord.interactions.lookup();
    if !lookup.available() {
        return ephemeral("Player lookups are not available on this site yet.");
    }
    if let Some(card) = lookup.cached(&username) {
        return json!({"type": 4, "data": {"embeds": [embed(&card, quick)]}});
    }
    let client = discord.client.clone();
    let future = lookup.lookup(&username);
    let (app, token) = (interaction.application_id, interaction.token);
    tokio::spawn(async move {
        let result = match tokio::time::timeout(DEFERRED_LOOKUP_LIMIT, future).await {
            Ok(r) => r,
            Err(_) => Err(LookupError::Unavailable("the lookup took too long; try again in a minute".into())),
        };
        let sent = match result {
            Ok(card) => client.edit_original(&app, &token, &json!({"embeds": [embed(&card, quick)]})).await,
            Err(e) => {
                let text = match e {
                    LookupError::NotFound => format!("No Roblox player is called {username}."),
                    LookupError::Unavailable(why) => format!("Could not look up {username}: {why}."),
                };
                // A deferred reply is public; the error goes as an ephemeral follow-up instead.
                let _ = client.delete_original(&app, &token).await;
                client.follow_up(&app, &token, &json!({"content": text, "flags": EPHEMERAL})).await
            }
        };
        if let Err(e) = sent {
            tracing::warn!("discord: could not complete a deferred reply: {e}");
        }
    });
    json!({"type": 5})
}

/// The reply's embed: the quick check or the full analysis.
pub fn embed(card: &PlayerCard, quick: bool) -> Value {
    let title = if card.display_name.is_empty() || card.display_name == card.username {
        card.username.clone()
    } else {
        format!("{} (@{})", card.display_name, card.username)
    };
    let badges = match card.elc_badges {
        Some((found, total)) => format!("{found} of {total}"),
        None => "unavailable".into(),
    };
    // The code, with the site's name for it when that says more than the code in another case.
    let generation = if card.generation_label.eq_ignore_ascii_case(&card.generation) || card.generation_label.is_empty()
    {
        card.generation.clone()
    } else {
        format!("{} ({})", card.generation, card.generation_label)
    };
    let mut fields = vec![
        json!({"name": "Generation", "value": generation, "inline": true}),
        json!({"name": "Account age", "value": format!("{} days", card.account_age_days), "inline": true}),
        json!({"name": "ELC badges", "value": badges, "inline": true}),
    ];
    if !quick {
        fields.push(json!({"name": "Classification", "value": card.classification, "inline": false}));
        fields.push(json!({"name": "User ID", "value": card.user_id.to_string(), "inline": true}));
        if let Some(note) = &card.note {
            fields.push(json!({"name": "Note", "value": note, "inline": false}));
        }
    }
    let mut embed = json!({"title": title, "url": card.profile_url, "fields": fields});
    if let Some(avatar) = &card.avatar_url {
        embed["thumbnail"] = json!({"url": avatar});
    }
    embed
}

/// The two commands, as `fanhub discord register-commands` registers them.
pub fn command_definitions() -> Value {
    let option = json!([{"type": 3, "name": "username", "description": "The Roblox username", "required": true,
        "min_length": 3, "max_length": 20}]);
    json!([
        {"name": "newgen", "type": 1, "description": "Full analysis of a Roblox player: generation, ELC badges, account age", "options": option},
        {"name": "check", "type": 1, "description": "Quick check of a Roblox player", "options": option},
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{Ed25519KeyPair, KeyPair};

    fn key() -> Ed25519KeyPair {
        Ed25519KeyPair::from_seed_unchecked(&[7u8; 32]).unwrap()
    }

    fn signed(pair: &Ed25519KeyPair, ts: &str, body: &[u8]) -> HeaderMap {
        let mut msg = ts.as_bytes().to_vec();
        msg.extend_from_slice(body);
        let mut h = HeaderMap::new();
        h.insert("x-signature-ed25519", hex::encode(pair.sign(&msg).as_ref()).parse().unwrap());
        h.insert("x-signature-timestamp", ts.parse().unwrap());
        h
    }

    #[test]
    fn signatures_are_checked_over_timestamp_and_raw_body_once_within_the_window() {
        let pair = key();
        let verifier = Verifier::new(Some(&hex::encode(pair.public_key().as_ref())), None).unwrap();
        let body = br#"{"type":1}"#;
        let now = 1_800_000_000;
        let good = signed(&pair, &now.to_string(), body);
        assert_eq!(verifier.verify(&good, body, now), Ok(()));
        assert_eq!(verifier.verify(&good, body, now), Err(Refusal::Replayed));
        let fresh = signed(&pair, &(now + 1).to_string(), body);
        assert_eq!(verifier.verify(&fresh, br#"{"type":2}"#, now), Err(Refusal::BadSignature), "other body");
        assert_eq!(verifier.verify(&fresh, &body[..5], now), Err(Refusal::BadSignature), "truncated body");
        let old = signed(&pair, &(now - 301).to_string(), body);
        assert_eq!(verifier.verify(&old, body, now), Err(Refusal::Stale));
        let other = Ed25519KeyPair::from_seed_unchecked(&[9u8; 32]).unwrap();
        assert_eq!(verifier.verify(&signed(&other, &now.to_string(), body), body, now), Err(Refusal::BadSignature));
        assert_eq!(verifier.verify(&HeaderMap::new(), body, now), Err(Refusal::MissingHeaders));
        assert!(Verifier::new(Some("zz"), None).is_err());
    }

    #[test]
    fn usernames_are_checked() {
        assert!(valid_username("Builder_01"));
        for bad in ["ab", "a".repeat(21).as_str(), "bad name", "<script>", ""] {
            assert!(!valid_username(bad), "{bad}");
        }
    }
}
