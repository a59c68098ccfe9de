//! User management: list, change role or active state, delete. The last active admin can
//! be neither demoted, suspended nor deleted; each change runs in one transaction, so two
//! concurrent changes cannot both remove "the other" admin.

use axum::Json as JsonOut;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::accounts::{ROLES, User, store};
use crate::error::ApiError;
use crate::http::extract::{Json, Path, not_null};

/// What user management changes: accounts, and the figures and command scores that count them.
#[derive(Clone)]
pub struct UsersState {
    pub db: crate::db::Db,
    /// Which accounts' sign-ins are held back now.
    pub login_throttle: std::sync::Arc<crate::ratelimit::LoginThrottle>,
    pub commands: std::sync::Arc<crate::commands::Catalog>,
    pub stats_refresh: crate::jobs::Wake,
    /// `--require-second-factor`: admin accounts need one to reach the panel.
    pub second_factor_required: bool,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserList {
    users: Vec<User>,
    /// Accounts whose sign-ins are held back now after failed attempts (from browsers where the
    /// account never signed in: its own browsers are not held back by others' failures).
    throttled: Vec<ThrottledAccount>,
    /// The accounts that sign in with a second factor, and with which.
    second_factors: Vec<AccountSecondFactors>,
    /// The host requires a second factor for admin accounts (`--require-second-factor`).
    second_factor_required: bool,
}

/// An account's second factors.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountSecondFactors {
    user_id: i64,
    #[schema(inline, value_type = Vec<SecondFactorMethod>)]
    methods: Vec<&'static str>,
}

/// A kind of second factor: an authenticator app or security keys (passkeys).
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum SecondFactorMethod {
    Totp,
    Passkey,
}

/// An account whose sign-ins are held back.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThrottledAccount {
    user_id: i64,
    username: String,
    /// Failed sign-ins counted against the name (forgotten 30 minutes after the last).
    failed_sign_ins: u32,
    /// Seconds until a new browser may try again.
    retry_after_seconds: u64,
}

/// Every account, and which are held back after failed sign-ins.
#[utoipa::path(get, path = "/api/admin/users", tag = "admin", operation_id = "listUsers", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "Every account, oldest first, the throttled ones and who has a second factor", body = UserList)))]
pub(crate) async fn list(State(state): State<UsersState>) -> Result<JsonOut<UserList>, ApiError> {
    let users = state.db.read(store::list_users).await?;
    let throttled = users
        .iter()
        .filter_map(|u| {
            let (failed_sign_ins, retry_after_seconds) = state.login_throttle.held_back(&u.username)?;
            Some(ThrottledAccount { user_id: u.id, username: u.username.clone(), failed_sign_ins, retry_after_seconds })
        })
        .collect();
    let second_factors = state
        .db
        .read(crate::accounts::second_factor::store::methods_by_user)
        .await?
        .into_iter()
        .map(|(user_id, methods)| AccountSecondFactors { user_id, methods })
        .collect();
    Ok(JsonOut(UserList { users, throttled, second_factors, second_factor_required: state.second_factor_required }))
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserChange {
    #[serde(default, deserialize_with = "not_null")]
    pub role: Option<String>,
    #[serde(default, deserialize_with = "not_null")]
    pub is_active: Option<bool>,
}

// Written by hand: utoipa 5.5's `#[schema(min_properties = 1)]` comes out as maxProperties.
impl utoipa::PartialSchema for UserChange {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
        ObjectBuilder::new()
            .description(Some("At least one of the two."))
            .property("role", crate::http::schema::string_enum(&ROLES))
            .property("isActive", ObjectBuilder::new().schema_type(Type::Boolean))
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .min_properties(Some(1))
            .into()
    }
}

impl ToSchema for UserChange {}

#[derive(Serialize, ToSchema)]
pub struct UserResult {
    success: bool,
    user: User,
}

/// Change a user's role and/or active state.
#[utoipa::path(patch, path = "/api/admin/users/{id}", tag = "admin", operation_id = "updateUser", security(("adminKey" = []), ("adminSession" = []), ("session" = [])), params(("id" = i64, Path)), request_body = UserChange,
    responses((status = 200, description = "Changed", body = UserResult), (status = 400, description = "Invalid change"), (status = 404, description = "No such user"),
        (status = 409, description = "The last active admin cannot lose admin access")))]
pub(crate) async fn update(
    State(state): State<UsersState>,
    Path(id): Path<i64>,
    Json(change): Json<UserChange>,
) -> Result<JsonOut<UserResult>, ApiError> {
    let user = state.db.write(move |tx| store::apply_change(tx, id, change.role.as_deref(), change.is_active)).await?;
    tracing::info!("user {} changed: role {}, active {}", user.username, user.role, user.is_active);
    Ok(JsonOut(UserResult { success: true, user }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuspendBody {
    is_active: bool,
}

/// Suspend (isActive false) or reactivate a user.
#[utoipa::path(patch, path = "/api/admin/users/{id}/suspend", tag = "admin", operation_id = "setUserActive", security(("adminKey" = []), ("adminSession" = []), ("session" = [])), params(("id" = i64, Path)), request_body = SuspendBody,
    responses((status = 200, description = "Changed", body = UserResult), (status = 404, description = "No such user"), (status = 409, description = "The last active admin cannot be suspended")))]
pub(crate) async fn suspend(
    State(state): State<UsersState>,
    Path(id): Path<i64>,
    Json(body): Json<SuspendBody>,
) -> Result<JsonOut<UserResult>, ApiError> {
    let user = state.db.write(move |tx| store::apply_change(tx, id, None, Some(body.is_active))).await?;
    Ok(JsonOut(UserResult { success: true, user }))
}

/// Delete a user with their sessions, ratings and favorites.
#[utoipa::path(delete, path = "/api/admin/users/{id}", tag = "admin", operation_id = "deleteUser", security(("adminKey" = []), ("adminSession" = []), ("session" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "Deleted", body = crate::http::Success), (status = 404, description = "No such user"), (status = 409, description = "The last active admin cannot be deleted")))]
pub(crate) async fn remove(
    State(state): State<UsersState>,
    Path(id): Path<i64>,
) -> Result<JsonOut<crate::http::Success>, ApiError> {
    let name = state.db.write(move |tx| store::delete_user(tx, id)).await?;
    tracing::info!("user {name} deleted");
    crate::commands::refresh_scores(&state.db, &state.commands).await?;
    state.stats_refresh.wake();
    Ok(JsonOut(crate::http::Success::YES))
}

/// Remove every second factor of an account (its authenticator app, security keys and recovery
/// codes) and end its sessions: for a staff member who lost their phone and their codes. The
/// account signs in with its password alone afterwards, and can add a factor again.
#[utoipa::path(delete, path = "/api/admin/users/{id}/second-factors", tag = "admin", operation_id = "resetSecondFactors", security(("adminKey" = []), ("adminSession" = []), ("session" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "Removed, and the account's sessions ended", body = crate::http::Success), (status = 404, description = "No such user")))]
pub(crate) async fn reset_second_factors(
    State(state): State<UsersState>,
    Path(id): Path<i64>,
) -> Result<JsonOut<crate::http::Success>, ApiError> {
    use crate::accounts::second_factor::store as factors;
    let name = state
        .db
        .write(move |tx| {
            let user = store::find_user(tx, id)?.ok_or_else(|| ApiError::not_found("No such user."))?;
            factors::remove_all(tx, id)?;
            store::end_other_sessions(tx, id, None)?;
            Ok(user.username)
        })
        .await?;
    tracing::warn!("second factors of {name} removed by an admin");
    Ok(JsonOut(crate::http::Success::YES))
}
