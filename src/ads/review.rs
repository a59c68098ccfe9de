//! The admins' side of advertising: the applications, approve or reject, and the sponsored
//! banner (activate with colours, deactivate). Approving also makes the ad the banner, in the
//! colours taken from its image.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::colors::{Design, contrast};
use super::store::{self, Application};
use crate::error::ApiError;
use crate::http::extract::{Json as JsonIn, Path};
use crate::site::is_hex_color;
use crate::state::AppState;

#[derive(Serialize, ToSchema)]
pub struct Applications {
    /// Every application, newest first (the panel hides rejected ones).
    applications: Vec<Application>,
}

/// Every advertisement application with its analysis and design.
#[utoipa::path(get, path = "/api/admin/advertisements", tag = "admin", operation_id = "listAdvertisements", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "Every application", body = Applications)))]
pub(crate) async fn list(State(state): State<AppState>) -> Result<Json<Applications>, ApiError> {
    let applications = state.db.read(store::list).await?;
    Ok(Json(Applications { applications }))
}

#[derive(Deserialize, ToSchema)]
pub struct StatusChange {
    /// approved or rejected.
    #[schema(pattern = "^(approved|rejected)$")]
    pub status: String,
}

#[derive(Serialize, ToSchema)]
pub struct Reviewed {
    success: bool,
    advertisement: Application,
}

/// Approve or reject a pending application. Approving makes it the sponsored banner at once
/// (replacing any running one), in the colours taken from its image.
#[utoipa::path(patch, path = "/api/admin/advertisements/{id}", tag = "admin", operation_id = "reviewAdvertisement", security(("adminKey" = []), ("adminSession" = []), ("session" = [])), request_body = StatusChange,
    params(("id" = i64, Path)),
    responses((status = 200, body = Reviewed), (status = 400, description = "Unknown status"), (status = 401, description = "Not an admin"),
        (status = 404, description = "No such advertisement"), (status = 409, description = "Not pending any more")))]
pub(crate) async fn set_status(
    State(state): State<AppState>,
    Path(id): Path<i64>,
    JsonIn(body): JsonIn<StatusChange>,
) -> Result<Json<Reviewed>, ApiError> {
    let status = body.status.trim().to_string();
    if status != "approved" && status != "rejected" {
        return Err(ApiError::field("status", "status must be approved or rejected"));
    }
    let advertisement = state
        .db
        .write(move |tx| {
            let ad = store::review(tx, id, &status)?;
            if status == "approved" {
                store::activate(tx, id, &ad.design)?;
            }
            store::find(tx, id)?.ok_or_else(|| ApiError::internal("reviewed ad vanished"))
        })
        .await?;
    tracing::info!("advertisement {id} {}", advertisement.status);
    crate::banner::refresh(&state).await?;
    Ok(Json(Reviewed { success: true, advertisement }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Activation {
    pub advertisement_id: i64,
    #[schema(pattern = "^#[0-9a-fA-F]{6}$")]
    pub background_color: String,
    #[schema(pattern = "^#[0-9a-fA-F]{6}$")]
    pub text_color: String,
    #[schema(pattern = "^#[0-9a-fA-F]{6}$")]
    pub border_color: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Activated {
    success: bool,
    expires_at: String,
}

/// Make an approved advertisement the sponsored banner in these colours, from now for its
/// duration. The text must meet WCAG AA (4.5:1) on the background.
#[utoipa::path(post, path = "/api/admin/activate-banner", tag = "admin", operation_id = "activateBanner", security(("adminKey" = []), ("adminSession" = []), ("session" = [])), request_body = Activation,
    responses((status = 200, body = Activated), (status = 400, description = "Bad colours"), (status = 401, description = "Not an admin"),
        (status = 404, description = "No such advertisement"), (status = 409, description = "Not approved")))]
pub(crate) async fn activate(
    State(state): State<AppState>,
    JsonIn(body): JsonIn<Activation>,
) -> Result<Json<Activated>, ApiError> {
    for (name, value) in [
        ("backgroundColor", &body.background_color),
        ("textColor", &body.text_color),
        ("borderColor", &body.border_color),
    ] {
        if !is_hex_color(value) {
            return Err(ApiError::field(name, "Colours must look like #7c3aed"));
        }
    }
    if contrast(&body.background_color, &body.text_color) < 4.5 {
        return Err(ApiError::field(
            "textColor",
            "The text colour needs a contrast of at least 4.5:1 with the background",
        ));
    }
    let design = Design {
        background_color: body.background_color.to_ascii_lowercase(),
        text_color: body.text_color.to_ascii_lowercase(),
        border_color: body.border_color.to_ascii_lowercase(),
    };
    let id = body.advertisement_id;
    let expires = state.db.write(move |tx| store::activate(tx, id, &design)).await?;
    crate::banner::refresh(&state).await?;
    tracing::info!("advertisement {id} is the banner");
    Ok(Json(Activated { success: true, expires_at: crate::db::rfc3339(expires) }))
}

/// End the sponsored banner (the default clan banner is back).
#[utoipa::path(post, path = "/api/admin/deactivate-banner", tag = "admin", operation_id = "deactivateBanner", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, body = crate::http::Success), (status = 401, description = "Not an admin")))]
pub(crate) async fn deactivate(State(state): State<AppState>) -> Result<Json<crate::http::Success>, ApiError> {
    let ended = state.db.write(|tx| store::deactivate(tx)).await?;
    crate::banner::refresh(&state).await?;
    if ended {
        tracing::info!("sponsored banner ended by an admin");
    }
    Ok(Json(crate::http::Success::YES))
}
