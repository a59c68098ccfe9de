//! The admins' side of advertising: the applications, approve or reject, and the sponsored
//! banner (activate with colours, deactivate). Approving also makes the ad the banner, in the
//! colours taken from its image.

use std::path::Path as FsPath;

use axum::extract::State;
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::AdsState;
use super::colors::{Design, contrast};
use super::store::{self, Application};
use crate::error::ApiError;
use crate::http::extract::{Json as JsonIn, Path, Query};
use crate::site::is_hex_color;

/// How long the image of a rejected application is kept for the audit before its file is deleted.
pub const REJECTED_IMAGE_KEEP_MS: i64 = 7 * 24 * 3600 * 1000;

/// The admins' advertising routes, without the admin guard: the admin router merges them before
/// its `route_layer`, so the guard covers them.
pub fn router<S: Clone + Send + Sync + 'static>(state: AdsState) -> Router<S> {
    Router::new()
        .route("/api/admin/deactivate-banner", post(deactivate))
        .route("/api/admin/activate-banner", post(activate))
        .route("/api/admin/advertisements", get(list))
        .route("/api/admin/advertisements/{id}", patch(set_status))
        .route_layer(axum::middleware::from_fn_with_state(
            state.admin_gate.clone(),
            crate::accounts::guard::require_admin,
        ))
        .with_state(state)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Applications {
    /// One page of the applications asked for, newest first.
    applications: Vec<Application>,
    /// The `cursor` of the next (older) page; null on the last.
    next_cursor: Option<String>,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// pending, approved or rejected: only the applications of that status. Without it, the
    /// pending and approved ones (rejected applications leave the list; this reaches them for audit).
    #[param(value_type = Option<String>, pattern = "^(pending|approved|rejected)$")]
    status: Option<String>,
    /// Applications per page, 1-100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `nextCursor` of the page before, as it came.
    cursor: Option<String>,
}

/// The advertisement applications with their analysis and design, newest first, paged by key:
/// pending and approved ones, or those of one status.
#[utoipa::path(get, path = "/api/admin/advertisements", tag = "admin", operation_id = "listAdvertisements", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    params(ListQuery),
    responses((status = 200, description = "One page of applications", body = Applications), (status = 400, description = "Unknown status, bad limit or cursor", body = crate::error::ErrorBody),
        (status = 401, description = "Not an admin")))]
pub(crate) async fn list(
    State(state): State<AdsState>,
    Query(q): Query<ListQuery>,
) -> Result<Json<Applications>, ApiError> {
    let status = match q.status.as_deref() {
        None => None,
        Some(s) if store::STATUSES.contains(&s) => Some(s.to_string()),
        Some(_) => return Err(ApiError::field("status", "status must be pending, approved or rejected")),
    };
    let limit = crate::http::paging::keyset_limit(q.limit.as_deref())?;
    let before = crate::http::paging::id_cursor(q.cursor.as_deref())?;
    let (applications, next) = state.db.read(move |c| store::list(c, status.as_deref(), before, limit)).await?;
    Ok(Json(Applications { applications, next_cursor: next.map(|id| id.to_string()) }))
}

/// Deletes the image files of applications rejected more than the audit window before `now_ms`
/// and records each deletion; returns how many were deleted. A file already gone counts as deleted.
pub fn sweep_rejected_images(conn: &Connection, uploads: &FsPath, now_ms: i64) -> Result<usize, ApiError> {
    let due = store::rejected_images_due(conn, now_ms - REJECTED_IMAGE_KEEP_MS)?;
    for (id, name) in &due {
        match std::fs::remove_file(uploads.join(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(ApiError::internal(format!("cannot delete the image of advertisement {id}: {e}"))),
        }
        store::mark_image_removed(conn, *id, now_ms)?;
    }
    Ok(due.len())
}

#[derive(Deserialize, ToSchema)]
pub struct StatusChange {
    /// approved or rejected.
    #[schema(schema_with = review_values)]
    pub status: String,
}

fn review_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["approved", "rejected"])
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
    State(state): State<AdsState>,
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
    state.banner.refresh().await?;
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
    #[schema(format = DateTime)]
    expires_at: String,
}

/// Make an approved advertisement the sponsored banner in these colours, from now for its
/// duration. The text must meet WCAG AA (4.5:1) on the background.
#[utoipa::path(post, path = "/api/admin/activate-banner", tag = "admin", operation_id = "activateBanner", security(("adminKey" = []), ("adminSession" = []), ("session" = [])), request_body = Activation,
    responses((status = 200, body = Activated), (status = 400, description = "Bad colours"), (status = 401, description = "Not an admin"),
        (status = 404, description = "No such advertisement"), (status = 409, description = "Not approved")))]
pub(crate) async fn activate(
    State(state): State<AdsState>,
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
    state.banner.refresh().await?;
    tracing::info!("advertisement {id} is the banner");
    Ok(Json(Activated { success: true, expires_at: crate::db::rfc3339(expires) }))
}

/// End the sponsored banner (the default clan banner is back).
#[utoipa::path(post, path = "/api/admin/deactivate-banner", tag = "admin", operation_id = "deactivateBanner", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, body = crate::http::Success), (status = 401, description = "Not an admin")))]
pub(crate) async fn deactivate(State(state): State<AdsState>) -> Result<Json<crate::http::Success>, ApiError> {
    let ended = state.db.write(|tx| store::deactivate(tx)).await?;
    state.banner.refresh().await?;
    if ended {
        tracing::info!("sponsored banner ended by an admin");
    }
    Ok(Json(crate::http::Success::YES))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::now_ms;

    #[test]
    fn a_rejected_applications_image_is_deleted_after_the_audit_window_and_the_listing_says_so() {
        let (_dir, conn) = crate::db::open_for_tests();
        let uploads = tempfile::tempdir().unwrap();
        let mut ids = Vec::new();
        for _ in 0..3 {
            let new = store::tests::ad("1-day");
            std::fs::write(uploads.path().join(&new.image_name), b"image").unwrap();
            ids.push((store::insert(&conn, &new).unwrap(), new.image_name));
        }
        store::review(&conn, ids[0].0, "rejected").unwrap();
        store::review(&conn, ids[1].0, "approved").unwrap();
        let now = now_ms();
        assert_eq!(sweep_rejected_images(&conn, uploads.path(), now).unwrap(), 0, "kept during the audit window");
        assert!(uploads.path().join(&ids[0].1).exists());

        let later = now + REJECTED_IMAGE_KEEP_MS + 1000;
        assert_eq!(sweep_rejected_images(&conn, uploads.path(), later).unwrap(), 1);
        assert!(!uploads.path().join(&ids[0].1).exists(), "the rejected image is deleted");
        assert!(uploads.path().join(&ids[1].1).exists() && uploads.path().join(&ids[2].1).exists());
        let rejected = store::find(&conn, ids[0].0).unwrap().unwrap();
        assert_eq!(rejected.image_path, None);
        assert!(rejected.image_removed_at.is_some());
        assert!(store::find(&conn, ids[1].0).unwrap().unwrap().image_path.is_some());
        assert_eq!(sweep_rejected_images(&conn, uploads.path(), later).unwrap(), 0, "each image once");

        // A file deleted by hand still ends as removed, not as a broken link.
        store::review(&conn, ids[2].0, "rejected").unwrap();
        std::fs::remove_file(uploads.path().join(&ids[2].1)).unwrap();
        assert_eq!(sweep_rejected_images(&conn, uploads.path(), later + REJECTED_IMAGE_KEEP_MS + 1000).unwrap(), 1);
        assert_eq!(store::find(&conn, ids[2].0).unwrap().unwrap().image_path, None);
    }

    #[test]
    fn the_default_list_leaves_out_rejected_applications() {
        let (_dir, conn) = crate::db::open_for_tests();
        let ids: Vec<i64> = (0..3).map(|_| store::insert(&conn, &store::tests::ad("1-day")).unwrap()).collect();
        store::review(&conn, ids[0], "rejected").unwrap();
        store::review(&conn, ids[1], "approved").unwrap();
        let listed = |status| store::list(&conn, status, None, 100).unwrap().0.iter().map(|a| a.id).collect::<Vec<_>>();
        assert_eq!(listed(None), vec![ids[2], ids[1]]);
        assert_eq!(listed(Some("rejected")), vec![ids[0]]);
        assert_eq!(listed(Some("pending")), vec![ids[2]]);
    }

    #[test]
    fn applications_are_paged_by_key_without_a_gap_or_a_repeat_while_new_ones_arrive() {
        let (_dir, conn) = crate::db::open_for_tests();
        let mut ids: Vec<i64> = (0..7).map(|_| store::insert(&conn, &store::tests::ad("1-day")).unwrap()).collect();
        store::review(&conn, ids[3], "rejected").unwrap();
        store::review(&conn, ids[5], "approved").unwrap();
        let (first, next) = store::list(&conn, None, None, 3).unwrap();
        assert_eq!(first.iter().map(|a| a.id).collect::<Vec<_>>(), vec![ids[6], ids[5], ids[4]]);
        // Applications sent between two pages wait at the top; the next page goes on below.
        ids.push(store::insert(&conn, &store::tests::ad("1-day")).unwrap());
        let (second, last) = store::list(&conn, None, next, 3).unwrap();
        assert_eq!(
            second.iter().map(|a| a.id).collect::<Vec<_>>(),
            vec![ids[2], ids[1], ids[0]],
            "the rejected one is left out"
        );
        assert_eq!(last, None, "the last page says so");
        let (rejected, none) = store::list(&conn, Some("rejected"), None, 3).unwrap();
        assert_eq!((rejected.iter().map(|a| a.id).collect::<Vec<_>>(), none), (vec![ids[3]], None));
        let (exact, end) = store::list(&conn, Some("pending"), None, 6).unwrap();
        assert_eq!((exact.len(), end), (6, None), "a page that ends the list exactly says so");
    }
}
