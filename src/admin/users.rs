//! User management: list, change role or active state, delete. The last active admin can
//! be neither demoted, suspended nor deleted; each change runs in one transaction, so two
//! concurrent changes cannot both remove "the other" admin.

use axum::Json as JsonOut;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::accounts::{ROLES, User, store};
use crate::error::ApiError;
use crate::http::extract::{Json, Path, Query, not_null};

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
    /// One page of the accounts asked for: oldest first, or A to Z when searching by name.
    users: Vec<User>,
    /// The `cursor` of the next page; null on the last.
    next_cursor: Option<String>,
    /// Every account, the active ones and the admins (whatever the filters).
    counts: store::UserCounts,
    /// The accounts of this page whose sign-ins are held back now after failed attempts (from
    /// browsers where the account never signed in: its own browsers are not held back by others' failures).
    throttled: Vec<ThrottledAccount>,
    /// The accounts of this page that sign in with a second factor, and with which.
    second_factors: Vec<AccountSecondFactors>,
    /// The host requires a second factor for admin accounts (`--require-second-factor`).
    second_factor_required: bool,
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UserQuery {
    /// The start of the username, any case (the accounts whose names begin with it, A to Z).
    #[param(value_type = Option<String>, max_length = 100)]
    q: Option<String>,
    /// user, moderator or admin.
    #[param(value_type = Option<String>, pattern = "^(user|moderator|admin)$")]
    role: Option<String>,
    /// active or suspended.
    #[param(value_type = Option<String>, pattern = "^(active|suspended)$")]
    status: Option<String>,
    /// Accounts per page, 1-100 (default 20).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// The `nextCursor` of the page before, as it came.
    cursor: Option<String>,
}

/// A cursor of the name order: the last name of the page, base64url, so any name stays one token.
const NAME_CURSOR: &str = "n.";

fn encode_cursor(cursor: &store::UserCursor) -> String {
    use base64::Engine as _;
    match cursor {
        store::UserCursor::Id(id) => id.to_string(),
        store::UserCursor::Name(name) => {
            format!("{NAME_CURSOR}{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(name))
        }
    }
}

fn decode_cursor(raw: &str) -> Result<store::UserCursor, ApiError> {
    use base64::Engine as _;
    let name = |encoded: &str| {
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(encoded).ok()?;
        String::from_utf8(bytes).ok().filter(|n| !n.is_empty() && n.chars().count() <= 64)
    };
    let cursor = match raw.strip_prefix(NAME_CURSOR) {
        Some(encoded) => name(encoded).map(store::UserCursor::Name),
        None => crate::http::paging::id_cursor(Some(raw))?.map(store::UserCursor::Id),
    };
    cursor.ok_or_else(crate::http::paging::bad_cursor)
}

fn user_filter(q: &UserQuery) -> Result<store::UserFilter, ApiError> {
    let role = match q.role.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
        None => None,
        Some(r) if ROLES.contains(&r) => Some(r.to_string()),
        Some(_) => return Err(ApiError::field("role", "role must be user, moderator or admin")),
    };
    let active = match q.status.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some("active") => Some(true),
        Some("suspended") => Some(false),
        Some(_) => return Err(ApiError::field("status", "status must be active or suspended")),
    };
    Ok(store::UserFilter { name_prefix: crate::http::paging::optional_search(q.q.as_deref())?, role, active })
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

/// A page of accounts (search, role and state filters), the figures of all, which of the page
/// are held back after failed sign-ins and who has a second factor.
#[utoipa::path(get, path = "/api/admin/users", tag = "admin", operation_id = "listUsers", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    params(UserQuery),
    responses((status = 200, description = "One page of accounts, the throttled ones and who has a second factor", body = UserList),
        (status = 400, description = "Bad filter, limit or cursor", body = crate::error::ErrorBody)))]
pub(crate) async fn list(
    State(state): State<UsersState>,
    Query(q): Query<UserQuery>,
) -> Result<JsonOut<UserList>, ApiError> {
    let filter = user_filter(&q)?;
    let limit = crate::http::paging::keyset_limit(q.limit.as_deref())?;
    let after = q.cursor.as_deref().map(str::trim).filter(|c| !c.is_empty()).map(decode_cursor).transpose()?;
    let (users, next, counts, mut factors) = state
        .db
        .read(move |c| {
            let (users, next) = store::users_page(c, &filter, after.as_ref(), limit)?;
            let factors = crate::accounts::second_factor::store::methods_by_user(c)?;
            Ok((users, next, store::user_counts(c)?, factors))
        })
        .await?;
    let throttled = users
        .iter()
        .filter_map(|u| {
            let (failed_sign_ins, retry_after_seconds) = state.login_throttle.held_back(&u.username)?;
            Some(ThrottledAccount { user_id: u.id, username: u.username.clone(), failed_sign_ins, retry_after_seconds })
        })
        .collect();
    let second_factors = users
        .iter()
        .filter_map(|u| factors.remove(&u.id).map(|methods| AccountSecondFactors { user_id: u.id, methods }))
        .collect();
    Ok(JsonOut(UserList {
        users,
        next_cursor: next.as_ref().map(encode_cursor),
        counts,
        throttled,
        second_factors,
        second_factor_required: state.second_factor_required,
    }))
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
