//! The account page's calls for follows and Discord alerts, and a player's public history.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Extension, Json as JsonOut, Router};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::webhook::{self, Delivery};
use super::{FollowsState, store};
use crate::accounts::sessions;
use crate::error::ApiError;
use crate::http::client_ip::ClientIp;
use crate::http::extract::{Json, Path};
use crate::roblox::store::{PlayerEvent, PlayerRow};
use crate::time::now_ms;

/// Events of one player a history answer holds at most.
const HISTORY_LIMIT: usize = 100;
/// New events listed per followed player on the account page.
const NEW_EVENTS_LIMIT: usize = 20;
/// A webhook may be saved (and a test message sent) this often per account.
/// The pause between two tries at saving a webhook (each sends Discord a test message).
pub const SAVE_PAUSE: std::time::Duration = std::time::Duration::from_secs(10);
/// The largest id the API takes (JSON's exact integers: 2^53 - 1).
const MAX_ID: i64 = 9_007_199_254_740_991;
/// The alert kinds a fan chooses from.
pub const ALERT_KINDS: [&str; 3] = ["elc_badge", "classification", "name"];

pub fn router<S: Clone + Send + Sync + 'static>(state: FollowsState) -> Router<S> {
    Router::new()
        .route("/api/account/follows", get(list).post(follow))
        .route("/api/account/follows/seen", post(mark_seen))
        .route("/api/account/follows/{userId}", delete(unfollow))
        .route("/api/account/alerts", get(alerts).put(save_alerts).patch(choose_alerts).delete(remove_alerts))
        .route("/api/players/{userId}/history", get(history))
        .with_state(state)
}

/// A player as the site last checked them.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct PlayerSummary {
    pub user_id: u64,
    pub username: String,
    pub display_name: String,
    pub classification: String,
    /// The generation code (VETERAN, OLDGEN, MIDGEN, NEWGEN).
    pub generation: String,
    pub is_veteran: bool,
    pub is_newgen: bool,
    /// Null when the award dates could not be read.
    pub elc_count: Option<u32>,
    pub banned: bool,
    /// The last check (anyone's).
    #[schema(format = DateTime)]
    pub checked_at: String,
}

impl From<PlayerRow> for PlayerSummary {
    fn from(p: PlayerRow) -> Self {
        Self {
            user_id: p.user_id,
            username: p.username,
            display_name: p.display_name,
            classification: p.classification,
            generation: p.generation,
            is_veteran: p.is_veteran,
            is_newgen: p.is_newgen,
            elc_count: p.elc_count,
            banned: p.banned,
            checked_at: crate::db::rfc3339(p.checked_at),
        }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct Followed {
    pub player: PlayerSummary,
    #[schema(format = DateTime)]
    pub followed_at: String,
    /// What changed since the fan last looked (newest first, at most 20; baseline badges left out).
    pub new_events: Vec<PlayerEvent>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct FollowList {
    pub follows: Vec<Followed>,
    /// Players an account may follow.
    pub max: u32,
    /// A followed player is re-checked at most this often (hours).
    pub recheck_hours: f64,
}

/// The players the signed-in fan follows, with their verdict and what changed since they last looked.
#[utoipa::path(get, path = "/api/account/follows", tag = "follows", operation_id = "getFollows", security(("session" = [])),
    responses((status = 200, description = "The follows", body = FollowList), (status = 401, description = "Not signed in", body = crate::error::ErrorBody)))]
pub(crate) async fn list(
    State(state): State<FollowsState>,
    headers: HeaderMap,
) -> Result<JsonOut<FollowList>, ApiError> {
    let user = sessions::require_user(&state.db, &headers).await?;
    let follows = state
        .db
        .read(move |c| {
            let mut out = Vec::new();
            for f in store::follows_of(c, user.id)? {
                let Some(player) = crate::roblox::store::player(c, f.player_id)? else { continue };
                let new_events = crate::roblox::store::player_events(c, f.player_id, NEW_EVENTS_LIMIT)?
                    .into_iter()
                    .filter(|e| e.id > f.seen_event_id && !e.baseline && e.kind != "first_seen")
                    .collect();
                out.push(Followed {
                    player: player.into(),
                    followed_at: crate::db::rfc3339(f.followed_at),
                    new_events,
                });
            }
            Ok(out)
        })
        .await?;
    Ok(JsonOut(FollowList {
        follows,
        max: state.settings.max_per_account,
        recheck_hours: state.settings.recheck_hours,
    }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FollowBody {
    /// The player's Roblox user id (a player this site has checked).
    #[serde(deserialize_with = "crate::http::extract::whole_number")]
    #[schema(minimum = 1, maximum = 9007199254740991_i64)]
    user_id: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct FollowAnswer {
    pub following: bool,
    pub player: PlayerSummary,
    /// Players the account follows now.
    pub count: u32,
    pub max: u32,
}

/// Follows a player the site has checked (following twice is one follow).
#[utoipa::path(post, path = "/api/account/follows", tag = "follows", operation_id = "followPlayer", security(("session" = [])), request_body = FollowBody,
    responses((status = 201, description = "Followed", body = FollowAnswer), (status = 200, description = "Already followed", body = FollowAnswer),
        (status = 400, description = "Not a user id", body = crate::error::ErrorBody), (status = 401, description = "Not signed in", body = crate::error::ErrorBody),
        (status = 404, description = "The site has not checked this player", body = crate::error::ErrorBody),
        (status = 409, description = "The account follows the most players it may, or the player is banned on Roblox", body = crate::error::ErrorBody)))]
pub(crate) async fn follow(
    State(state): State<FollowsState>,
    headers: HeaderMap,
    Json(body): Json<FollowBody>,
) -> Result<Response, ApiError> {
    let user = sessions::require_user(&state.db, &headers).await?;
    if !(1..=MAX_ID).contains(&body.user_id) {
        return Err(ApiError::field("userId", "A Roblox user id is a whole number from 1."));
    }
    let player_id = body.user_id as u64;
    let max = state.settings.max_per_account;
    let (created, player, count) = state
        .db
        .write(move |tx| {
            let player = crate::roblox::store::player(tx, player_id)?.ok_or_else(|| {
                ApiError::not_found("This site has not checked that player.")
                    .with_message("Check the player on the Newgen Detector first, then follow them from the result.")
            })?;
            if player.banned && !store::is_following(tx, user.id, player_id)? {
                return Err(ApiError::conflict("That player is banned on Roblox: there is nothing to follow."));
            }
            let created = store::follow(tx, user.id, player_id, now_ms(), max)?;
            let count = store::follows_of(tx, user.id)?.len() as u32;
            Ok((created, player, count))
        })
        .await?;
    if created {
        state.watch.wake.wake();
    }
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, JsonOut(FollowAnswer { following: true, player: player.into(), count, max })).into_response())
}

/// Stops following a player.
#[utoipa::path(delete, path = "/api/account/follows/{userId}", tag = "follows", operation_id = "unfollowPlayer", security(("session" = [])),
    params(("userId" = u64, Path, minimum = 1, maximum = 9007199254740991_u64, description = "The player's Roblox user id")),
    responses((status = 204, description = "No longer followed"), (status = 400, description = "Not a user id", body = crate::error::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::error::ErrorBody), (status = 404, description = "Not followed", body = crate::error::ErrorBody)))]
pub(crate) async fn unfollow(
    State(state): State<FollowsState>,
    headers: HeaderMap,
    Path(user_id): Path<u64>,
) -> Result<StatusCode, ApiError> {
    let user = sessions::require_user(&state.db, &headers).await?;
    if user_id == 0 || user_id > MAX_ID as u64 {
        return Err(ApiError::bad_request("A Roblox user id is a whole number from 1."));
    }
    if state.db.write(move |tx| store::unfollow(tx, user.id, user_id)).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("You do not follow that player."))
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MarkSeen {
    /// The newest event id the fan was shown (`newEvents[].id`): changes up to it count as seen,
    /// one noticed after the page was read stays new.
    #[serde(deserialize_with = "crate::http::extract::whole_number")]
    #[schema(minimum = 0, maximum = 9007199254740991_i64)]
    up_to: i64,
}

/// Marks what changed about the followed players as seen (the account page calls it once shown).
#[utoipa::path(post, path = "/api/account/follows/seen", tag = "follows", operation_id = "markFollowsSeen", security(("session" = [])), request_body = MarkSeen,
    responses((status = 204, description = "Seen"), (status = 400, description = "Not an event id", body = crate::error::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::error::ErrorBody)))]
pub(crate) async fn mark_seen(
    State(state): State<FollowsState>,
    headers: HeaderMap,
    Json(body): Json<MarkSeen>,
) -> Result<StatusCode, ApiError> {
    let user = sessions::require_user(&state.db, &headers).await?;
    if !(0..=MAX_ID).contains(&body.up_to) {
        return Err(ApiError::field("upTo", "An event id is a whole number from 0."));
    }
    state.db.write(move |tx| store::mark_seen(tx, user.id, body.up_to)).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct PlayerHistory {
    pub user_id: u64,
    /// What the site noticed about the player, newest first (at most 100).
    pub events: Vec<PlayerEvent>,
}

/// What the site noticed about a player over time: first seen, name changes, each ELC badge
/// with its award date, classification changes. Public (Roblox's public facts).
#[utoipa::path(get, path = "/api/players/{userId}/history", tag = "follows", operation_id = "getPlayerHistory",
    params(("userId" = u64, Path, minimum = 1, maximum = 9007199254740991_u64, description = "The player's Roblox user id")),
    responses((status = 200, description = "The player's history (empty when the site never checked them)", body = PlayerHistory),
        (status = 400, description = "Not a user id (a whole number from 1)", body = crate::error::ErrorBody)))]
pub(crate) async fn history(
    State(state): State<FollowsState>,
    Path(user_id): Path<u64>,
) -> Result<JsonOut<PlayerHistory>, ApiError> {
    if user_id == 0 || user_id > MAX_ID as u64 {
        return Err(ApiError::bad_request("A Roblox user id is a whole number from 1."));
    }
    let events = state.db.read(move |c| crate::roblox::store::player_events(c, user_id, HISTORY_LIMIT)).await?;
    Ok(JsonOut(PlayerHistory { user_id, events }))
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct AlertWebhook {
    /// The webhook's address without its token.
    pub url: String,
    /// What it hears about: `elc_badge`, `classification`, `name`.
    pub kinds: Vec<String>,
    /// Discord refused it `[follows] broken_after` times in a row (deleted, or its token changed):
    /// nothing is sent until it is saved again.
    pub broken: bool,
    #[schema(format = DateTime)]
    pub broken_since: Option<String>,
    #[schema(format = DateTime)]
    pub last_delivered_at: Option<String>,
    /// Alerts waiting to be delivered.
    pub pending: u64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct AlertSettings {
    /// Null when no webhook is set.
    pub webhook: Option<AlertWebhook>,
    /// The kinds a webhook may hear about.
    pub kinds: Vec<String>,
}

async fn alert_settings(state: &FollowsState, account: i64) -> Result<AlertSettings, ApiError> {
    let found = state
        .db
        .read(move |c| {
            let Some(w) = store::webhook_of(c, account)? else { return Ok(None) };
            Ok(Some((w, store::pending_alerts(c, account)?)))
        })
        .await?;
    Ok(AlertSettings {
        webhook: found.map(|(w, pending)| AlertWebhook {
            url: webhook::masked(&w.webhook_id),
            kinds: w.kinds,
            broken: w.broken_at.is_some(),
            broken_since: w.broken_at.map(crate::db::rfc3339),
            last_delivered_at: w.last_delivered_at.map(crate::db::rfc3339),
            pending,
        }),
        kinds: ALERT_KINDS.iter().map(|k| k.to_string()).collect(),
    })
}

/// The signed-in fan's Discord webhook.
#[utoipa::path(get, path = "/api/account/alerts", tag = "follows", operation_id = "getAlerts", security(("session" = [])),
    responses((status = 200, description = "The webhook (without its token), or null", body = AlertSettings),
        (status = 401, description = "Not signed in", body = crate::error::ErrorBody)))]
pub(crate) async fn alerts(
    State(state): State<FollowsState>,
    headers: HeaderMap,
) -> Result<JsonOut<AlertSettings>, ApiError> {
    let user = sessions::require_user(&state.db, &headers).await?;
    Ok(JsonOut(alert_settings(&state, user.id).await?))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SaveAlerts {
    /// `https://discord.com/api/webhooks/{id}/{token}` (or discordapp.com), from Discord's
    /// channel settings (Integrations > Webhooks).
    #[schema(
        max_length = 256,
        pattern = r"^https://(discord|discordapp)\.com/api/webhooks/[0-9]{15,21}/[A-Za-z0-9_-]{30,100}/?$"
    )]
    url: String,
    /// What to hear about: any of `elc_badge`, `classification`, `name` (at least one).
    #[schema(schema_with = alert_kinds)]
    kinds: Vec<String>,
}

fn alert_kinds() -> utoipa::openapi::Array {
    utoipa::openapi::schema::ArrayBuilder::new()
        .items(crate::http::schema::string_enum(&ALERT_KINDS))
        .min_items(Some(1))
        .build()
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChooseAlerts {
    /// What to hear about: any of `elc_badge`, `classification`, `name` (at least one).
    #[schema(schema_with = alert_kinds)]
    kinds: Vec<String>,
}

fn checked_kinds(kinds: Vec<String>) -> Result<Vec<String>, ApiError> {
    let mut out: Vec<String> = Vec::new();
    for kind in kinds {
        if !ALERT_KINDS.contains(&kind.as_str()) {
            return Err(ApiError::field("kinds", "Choose from new ELC badge, classification change and name change."));
        }
        if !out.contains(&kind) {
            out.push(kind);
        }
    }
    if out.is_empty() {
        return Err(ApiError::field("kinds", "Choose at least one change to hear about."));
    }
    Ok(out)
}

/// Sets the fan's Discord webhook (replacing any): the URL is checked, one test message is sent,
/// and it is saved only when Discord took it.
#[utoipa::path(put, path = "/api/account/alerts", tag = "follows", operation_id = "saveAlerts", security(("session" = [])), request_body = SaveAlerts,
    responses((status = 200, description = "Saved; the test message arrived", body = AlertSettings),
        (status = 400, description = "Not a Discord webhook URL, no kind chosen, or Discord refused the test message (`fields.url` says why)", body = crate::error::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::error::ErrorBody),
        (status = 429, description = "Tried a moment ago (one test message per account every 10 s, whether it was taken or not): wait a few seconds", body = crate::error::ErrorBody),
        (status = 502, description = "Discord did not answer the test message: nothing saved", body = crate::error::ErrorBody)))]
pub(crate) async fn save_alerts(
    State(state): State<FollowsState>,
    headers: HeaderMap,
    Extension(client): Extension<ClientIp>,
    Json(body): Json<SaveAlerts>,
) -> Result<JsonOut<AlertSettings>, ApiError> {
    let user = sessions::require_user(&state.db, &headers).await?;
    let address = webhook::parse_url(&body.url).map_err(|why| ApiError::field("url", &why))?;
    let kinds = checked_kinds(body.kinds)?;
    let account = user.id;
    let now = now_ms();
    // Every try sends a message to Discord, refused ones too: the pause counts tries, not saves.
    state.discord.test_messages.check(account)?;
    let origin = crate::http::origin::of_request(state.base_url.as_deref(), &headers, Some(&client));
    let test = webhook::Message {
        username: state.site_name.clone(),
        embeds: vec![webhook::Embed {
            title: format!("Alerts from {} are on", state.site_name),
            description: format!("{} will post here when a player {} follows changes.", state.site_name, user.username),
            url: origin.clone(),
            color: state.color,
            timestamp: crate::db::rfc3339(now),
            footer: webhook::Footer { text: state.site_name.clone() },
        }],
        allowed_mentions: Default::default(),
    };
    match state.discord.send(&address, &test).await {
        Delivery::Delivered => {}
        Delivery::Refused(code) | Delivery::Rejected(code) => {
            return Err(ApiError::field(
                "url",
                &format!(
                    "Discord refused the test message ({code}): check that the webhook still exists and the URL is whole."
                ),
            ));
        }
        Delivery::Later { why, .. } => {
            return Err(ApiError::new(
                StatusCode::BAD_GATEWAY,
                "Discord did not take the test message; nothing was saved.",
            )
            .with_message(format!("{why}. Try again in a minute.")));
        }
    }
    let row = store::WebhookRow {
        account_id: account,
        webhook_id: address.id,
        token: address.token,
        kinds,
        link_origin: origin,
        refusals: 0,
        broken_at: None,
        created_at: now,
        last_delivered_at: Some(now),
    };
    state.db.write(move |tx| store::save_webhook(tx, &row)).await?;
    Ok(JsonOut(alert_settings(&state, account).await?))
}

/// Changes which changes the webhook hears about.
#[utoipa::path(patch, path = "/api/account/alerts", tag = "follows", operation_id = "chooseAlerts", security(("session" = [])), request_body = ChooseAlerts,
    responses((status = 200, description = "Changed", body = AlertSettings),
        (status = 400, description = "No kind, or one the site does not know (`fields.kinds`)", body = crate::error::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::error::ErrorBody), (status = 404, description = "No webhook set", body = crate::error::ErrorBody)))]
pub(crate) async fn choose_alerts(
    State(state): State<FollowsState>,
    headers: HeaderMap,
    Json(body): Json<ChooseAlerts>,
) -> Result<JsonOut<AlertSettings>, ApiError> {
    let user = sessions::require_user(&state.db, &headers).await?;
    let kinds = checked_kinds(body.kinds)?;
    let account = user.id;
    if !state.db.write(move |tx| store::set_webhook_kinds(tx, account, &kinds)).await? {
        return Err(ApiError::not_found("No Discord webhook is set."));
    }
    Ok(JsonOut(alert_settings(&state, account).await?))
}

/// Removes the fan's webhook and its undelivered alerts.
#[utoipa::path(delete, path = "/api/account/alerts", tag = "follows", operation_id = "removeAlerts", security(("session" = [])),
    responses((status = 204, description = "Removed"), (status = 401, description = "Not signed in", body = crate::error::ErrorBody),
        (status = 404, description = "No webhook set", body = crate::error::ErrorBody)))]
pub(crate) async fn remove_alerts(
    State(state): State<FollowsState>,
    headers: HeaderMap,
) -> Result<StatusCode, ApiError> {
    let user = sessions::require_user(&state.db, &headers).await?;
    if state.db.write(move |tx| store::delete_webhook(tx, user.id)).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("No Discord webhook is set."))
    }
}
