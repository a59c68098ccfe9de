//! Favorites and 1-5 ratings of commands, for signed-in users. The `userId` a request names
//! must be the signed-in user's; popular commands and averages follow every change.

use std::sync::Arc;

use axum::Json as JsonOut;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::CommandsState;
use super::store;
use crate::accounts::sessions::require_user;
use crate::error::ApiError;
use crate::http::extract::{Json, Path, whole_number};

#[derive(Serialize, Deserialize, ToSchema, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Favorite {
    #[serde(deserialize_with = "whole_number")]
    pub user_id: i64,
    /// Only commands can be favorites.
    #[schema(schema_with = item_type_values)]
    pub item_type: String,
    #[serde(deserialize_with = "whole_number")]
    pub item_id: i64,
}

fn item_type_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["command"])
}

fn same_user(claimed: i64, signed_in: i64) -> Result<(), ApiError> {
    if claimed == signed_in {
        Ok(())
    } else {
        Err(ApiError::forbidden("You can only change your own favorites and ratings."))
    }
}

/// The signed-in user's favorites.
#[utoipa::path(get, path = "/api/favorites", tag = "commands", operation_id = "listMyFavorites", security(("session" = [])),
    responses((status = 200, description = "Newest first", body = Vec<Favorite>), (status = 401, description = "Not signed in")))]
pub(crate) async fn list(
    State(state): State<Arc<CommandsState>>,
    headers: HeaderMap,
) -> Result<JsonOut<Vec<Favorite>>, ApiError> {
    let user = require_user(&state.db, &headers).await?;
    Ok(JsonOut(state.db.read(move |c| store::favorites_of(c, user.id)).await?))
}

/// The same, addressed by user id (the app's query key carries it); only your own.
#[utoipa::path(get, path = "/api/favorites/{userId}", tag = "commands", operation_id = "listUserFavorites", security(("session" = [])),
    params(("userId" = i64, Path, description = "The signed-in user's id")),
    responses((status = 200, description = "Newest first", body = Vec<Favorite>), (status = 401, description = "Not signed in"), (status = 403, description = "Someone else's")))]
pub(crate) async fn list_for(
    State(state): State<Arc<CommandsState>>,
    headers: HeaderMap,
    Path(user_id): Path<i64>,
) -> Result<JsonOut<Vec<Favorite>>, ApiError> {
    let user = require_user(&state.db, &headers).await?;
    same_user(user_id, user.id)?;
    Ok(JsonOut(state.db.read(move |c| store::favorites_of(c, user.id)).await?))
}

/// Add a command to your favorites.
#[utoipa::path(post, path = "/api/favorites", tag = "commands", operation_id = "addFavorite", security(("session" = [])), request_body = Favorite,
    responses((status = 201, description = "Added (or already there)", body = Favorite), (status = 400, description = "Unknown item type"), (status = 401, description = "Not signed in"),
        (status = 403, description = "Not your userId"), (status = 404, description = "No such command")))]
pub(crate) async fn add(
    State(state): State<Arc<CommandsState>>,
    headers: HeaderMap,
    Json(body): Json<Favorite>,
) -> Result<Response, ApiError> {
    let user = require_user(&state.db, &headers).await?;
    same_user(body.user_id, user.id)?;
    if body.item_type != "command" {
        return Err(ApiError::field("itemType", "Only commands can be favorites."));
    }
    if !u32::try_from(body.item_id).is_ok_and(|id| state.commands.contains(id)) {
        return Err(ApiError::not_found("No such command."));
    }
    let (uid, command_id) = (body.user_id, body.item_id);
    state.db.write(move |tx| store::add_favorite(tx, uid, command_id)).await?;
    state.refresh_scores().await?;
    Ok((StatusCode::CREATED, JsonOut(body)).into_response())
}

/// Remove a command from your favorites.
#[utoipa::path(delete, path = "/api/favorites/{userId}/command/{commandId}", tag = "commands", operation_id = "removeFavorite", security(("session" = [])),
    params(("userId" = i64, Path, description = "The signed-in user's id"), ("commandId" = i64, Path)),
    responses((status = 200, description = "Removed (or was not there)", body = crate::http::Success), (status = 401, description = "Not signed in"), (status = 403, description = "Not your userId")))]
pub(crate) async fn remove(
    State(state): State<Arc<CommandsState>>,
    headers: HeaderMap,
    Path((user_id, command_id)): Path<(i64, i64)>,
) -> Result<JsonOut<crate::http::Success>, ApiError> {
    let user = require_user(&state.db, &headers).await?;
    same_user(user_id, user.id)?;
    state.db.write(move |tx| store::remove_favorite(tx, user_id, command_id)).await?;
    state.refresh_scores().await?;
    Ok(JsonOut(crate::http::Success::YES))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingBody {
    #[serde(deserialize_with = "whole_number")]
    user_id: i64,
    #[serde(deserialize_with = "whole_number")]
    #[schema(minimum = 1, maximum = 5)]
    rating: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingResult {
    success: bool,
    #[schema(minimum = 1, maximum = 5)]
    avg_rating: f64,
    #[schema(minimum = 1)]
    rating_count: i64,
}

/// Rate a command 1-5 (a second rating replaces the first).
#[utoipa::path(post, path = "/api/commands/{commandId}/rating", tag = "commands", operation_id = "rateCommand", security(("session" = [])),
    params(("commandId" = i64, Path)), request_body = RatingBody,
    responses((status = 200, body = RatingResult), (status = 400, description = "Rating not 1-5"), (status = 401, description = "Not signed in"), (status = 403, description = "Not your userId"), (status = 404, description = "No such command")))]
pub(crate) async fn rate(
    State(state): State<Arc<CommandsState>>,
    headers: HeaderMap,
    Path(command_id): Path<i64>,
    Json(body): Json<RatingBody>,
) -> Result<JsonOut<RatingResult>, ApiError> {
    let user = require_user(&state.db, &headers).await?;
    same_user(body.user_id, user.id)?;
    if !(1..=5).contains(&body.rating) {
        return Err(ApiError::field("rating", "Rating must be a whole number from 1 to 5."));
    }
    if !u32::try_from(command_id).is_ok_and(|id| state.commands.contains(id)) {
        return Err(ApiError::not_found("No such command."));
    }
    let (uid, rating) = (user.id, body.rating);
    let (avg, count) = state.db.write(move |tx| store::rate(tx, uid, command_id, rating)).await?;
    state.refresh_scores().await?;
    Ok(JsonOut(RatingResult { success: true, avg_rating: (avg * 100.0).round() / 100.0, rating_count: count }))
}
