//! Accounts: registration, sign-in with a session cookie, sign-out, the current user.

pub mod admin_keys;
pub mod devices;
pub mod guard;
pub mod password;
pub mod second_factor;
pub mod sessions;
pub mod store;

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::db::Db;
use crate::error::ApiError;
use crate::http::client_ip::{ClientIp, anonymize};
use crate::http::cookies;
use crate::http::extract::Json;
use crate::ratelimit::{AuthLimiter, Guarded, LoginThrottle, NameAttempt};

pub const SESSION_COOKIE: &str = "fanhub_session";
pub const ROLES: [&str; 3] = ["user", "moderator", "admin"];
const USERNAME_LEN: std::ops::RangeInclusive<usize> = 3..=32;
const PASSWORD_LEN: std::ops::RangeInclusive<usize> = 6..=128;

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: i64,
    pub username: String,
    pub email: Option<String>,
    pub roblox_id: Option<String>,
    #[schema(schema_with = role_values)]
    pub role: String,
    pub is_active: bool,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub last_login: Option<String>,
}

fn role_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&ROLES)
}

/// Sign-in: both fields non-empty (else 400 with `fields`); a wrong pair is a 401.
#[derive(Deserialize, ToSchema)]
pub struct Credentials {
    /// Surrounding spaces are ignored; not only spaces.
    #[serde(default)]
    #[schema(required = true, pattern = r"\S")]
    pub username: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    pub password: String,
}

/// A new account: exactly what `validate_registration` accepts.
#[derive(Deserialize, ToSchema)]
pub struct Registration {
    #[serde(default)]
    #[schema(required = true, pattern = "^[A-Za-z0-9_]{3,32}$")]
    pub username: String,
    #[serde(default)]
    #[schema(required = true, min_length = 6, max_length = 128)]
    pub password: String,
}

/// The field problems of a registration, in the words the form shows.
pub fn validate_registration(username: &str, password: &str) -> BTreeMap<String, String> {
    let mut fields = BTreeMap::new();
    let name_len = username.chars().count();
    if name_len < *USERNAME_LEN.start() {
        fields.insert("username".into(), "Username must be at least 3 characters".into());
    } else if name_len > *USERNAME_LEN.end() {
        fields.insert("username".into(), "Username must be at most 32 characters".into());
    } else if !username.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        fields.insert("username".into(), "Username may only use letters, digits and _".into());
    }
    let pass_len = password.chars().count();
    if pass_len < *PASSWORD_LEN.start() {
        fields.insert("password".into(), "Password must be at least 6 characters".into());
    } else if pass_len > *PASSWORD_LEN.end() {
        fields.insert("password".into(), "Password must be at most 128 characters".into());
    }
    fields
}

/// What registration and sign-in use.
#[derive(Clone)]
pub struct AccountsState {
    pub db: Db,
    pub hasher: password::Hasher,
    pub auth_limiter: std::sync::Arc<AuthLimiter>,
    pub login_throttle: std::sync::Arc<LoginThrottle>,
    /// Browsers where an account signed in before (`devices`), and their own failures, by nonce.
    pub devices: devices::DeviceCookies,
    pub device_throttle: std::sync::Arc<LoginThrottle>,
    /// The public figures count the members.
    pub stats_refresh: crate::jobs::Wake,
    /// Authenticator apps, security keys and recovery codes, and the sign-ins waiting for them.
    pub second_factors: std::sync::Arc<second_factor::SecondFactors>,
}

/// How often expired sessions and old sign-in records are removed.
const CLEANUP_EVERY: std::time::Duration = std::time::Duration::from_secs(3600);

/// The accounts' background work: sessions, admin sessions and challenges past their expiry, and
/// sign-in records past the kept window, removed hourly.
pub fn background(background: &mut crate::jobs::Background, db: Db) {
    background.job("expired-sessions", |job| {
        crate::jobs::every(CLEANUP_EVERY, None, move || {
            let (db, job) = (db.clone(), job.clone());
            async move {
                let pruned =
                    db.write(|tx| Ok(admin_keys::store::prune_expired(tx)? + store::prune_login_logs(tx)?)).await;
                match job.report(pruned) {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("removed {n} expired sessions and old sign-in records"),
                    Err(e) if e.is_out_of_space() => {}
                    Err(e) => tracing::warn!("expired sessions not removed: {e}"),
                }
            }
        })
    });
}

pub fn router<S: Clone + Send + Sync + 'static>(state: AccountsState) -> Router<S> {
    Router::new()
        .route("/api/auth/register", post(register))
        .route("/api/auth/login", post(login))
        .route("/api/auth/logout", post(logout))
        .route("/api/auth/user", get(current_user))
        .merge(second_factor::routes::router(state.clone()))
        .with_state(state)
}

#[derive(Serialize, ToSchema)]
pub struct UserEnvelope {
    success: bool,
    user: User,
}

/// Create an account. Username 3-32 of `[A-Za-z0-9_]`, password 6-128 characters.
/// The username is taken as sent (the form trims it); surrounding spaces are refused.
#[utoipa::path(post, path = "/api/auth/register", tag = "accounts", operation_id = "register", request_body = Registration,
    responses((status = 201, description = "Created; not signed in yet", body = UserEnvelope), (status = 400, description = "Invalid fields (with `fields`)"),
        (status = 409, description = "Username taken"), (status = 429, description = "More than 10 attempts a minute from this IP")))]
pub(crate) async fn register(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    Json(body): Json<Registration>,
) -> Result<Response, ApiError> {
    state.auth_limiter.check(Guarded::Register, client.rate_key())?;
    let username = body.username;
    let fields = validate_registration(&username, &body.password);
    if !fields.is_empty() {
        return Err(ApiError::validation(fields));
    }
    let taken = || ApiError::conflict("That username is taken").with_message("Choose another username.");
    let lookup = username.clone();
    if state.db.read(move |c| store::username_taken(c, &lookup)).await? {
        return Err(taken());
    }
    let hash = state.hasher.hash(body.password).await?;
    let user = state
        .db
        .write(move |tx| {
            let id = store::insert_user(tx, &username, &hash)?.ok_or_else(taken)?;
            let user = store::find_user(tx, id)?.ok_or_else(|| ApiError::internal("new user vanished"))?;
            let members = store::count_users(tx)?;
            crate::events::record(tx, crate::events::MEMBER_JOINED, serde_json::json!({ "members": members }))?;
            Ok(user)
        })
        .await?;
    tracing::info!("account created: {}", user.username);
    state.stats_refresh.wake();
    Ok((StatusCode::CREATED, axum::Json(UserEnvelope { success: true, user })).into_response())
}

/// The IP as logs keep it: anonymised unless the visitor's privacy settings allow more.
pub fn loggable_ip(client: &ClientIp, headers: &HeaderMap) -> String {
    if cookies::ip_logging_allowed(headers) { client.ip.to_string() } else { anonymize(client.ip) }
}

/// Sign in; sets the session cookie.
#[utoipa::path(post, path = "/api/auth/login", tag = "accounts", operation_id = "login", request_body = Credentials,
    responses((status = 200, description = "Signed in; sets the fanhub_session cookie", body = UserEnvelope),
        (status = 202, description = "The password was right and the account has a second factor: sets the short-lived fanhub_sign_in cookie; finish with /api/auth/second-factor or a security key", body = second_factor::routes::SecondFactorNeeded),
        (status = 400, description = "Username or password missing (with `fields`)", body = crate::error::ErrorBody),
        (status = 401, description = "Invalid username or password"),
        (status = 403, description = "Account suspended"), (status = 429, description = "Too many attempts from this IP or for this username")))]
pub(crate) async fn login(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
    Json(body): Json<Credentials>,
) -> Result<Response, ApiError> {
    let ip = loggable_ip(&client, &headers);
    let ua = crate::http::user_agent(&headers).to_string();
    let username = body.username.trim().to_string();
    // A refused attempt writes nothing: the limiter counts it and logs a summary a minute.
    state.auth_limiter.check(Guarded::Login, client.rate_key())?;
    // A browser where an account signed in before skips that name's throttle (failures sent from
    // elsewhere cannot lock its owner out), unless the browser failed too often itself.
    let device = cookies::get(&headers, devices::DEVICE_COOKIE).and_then(|value| state.devices.verify(&value));
    let mut missing = BTreeMap::new();
    if username.is_empty() {
        missing.insert("username".to_string(), "Enter your username".to_string());
    }
    if body.password.is_empty() {
        missing.insert("password".to_string(), "Enter your password".to_string());
    }
    if !missing.is_empty() {
        return Err(ApiError::validation(missing));
    }
    let lookup = username.clone();
    let found = state.db.read(move |c| store::password_record(c, &lookup)).await?;
    // Known only to the account it names: another account's device cookie makes this browser new here.
    let known_device = device.filter(|d| found.as_ref().is_some_and(|f| f.id == d.user_id));
    // The guess takes its place in the count before the password is checked, so guesses sent at
    // once cannot all be checked before the first failure is counted.
    let attempt = attempt(&state, &username, known_device.as_ref().map(|d| d.nonce.as_str()))?;
    let known_device = known_device.filter(|_| attempt.is_against(&state.device_throttle));
    let ok = body.password.len() <= 1024
        && state.hasher.verify(body.password, found.as_ref().map(|f| f.password_hash.clone())).await?;
    let outcome = match (&found, ok) {
        (Some(f), true) if f.is_active => "success",
        (Some(_), true) => "suspended",
        _ => "failure",
    };
    if outcome == "failure" {
        attempt.failed();
    } else {
        // A right password settles nothing yet: the session (or the second factor) decides.
        drop(attempt);
    }
    match (outcome, found) {
        ("success", Some(found)) => {
            let id = found.id;
            let enrolled = state.db.read(move |c| second_factor::store::enrolled(c, id)).await?;
            if enrolled.any() {
                // The password was right; the session waits for the second factor, and the
                // name's failures stay counted until it comes.
                let nonce = known_device.map(|d| d.nonce.clone());
                return second_factor::routes::begin(&state, &client, &username, id, nonce, enrolled.methods()).await;
            }
            open_session(&state, &client, &headers, &username, id, known_device.as_ref()).await
        }
        (outcome, _) => {
            let (u, ip, ua) = (username.clone(), ip, ua);
            state.db.write(move |tx| store::log_attempt(tx, &u, &ip, &ua, outcome)).await?;
            if outcome == "suspended" {
                return Err(suspended());
            }
            Err(ApiError::unauthorized("Invalid username or password"))
        }
    }
}

/// Takes a guess's place in the count it meets: this browser's when the account signed in from it
/// before (`device_nonce`) and the browser is not held back itself, else the name's. Refused (429,
/// noted in the address limiter's summary) while that count holds guesses back.
pub(crate) fn attempt(
    state: &AccountsState,
    username: &str,
    device_nonce: Option<&str>,
) -> Result<NameAttempt, ApiError> {
    if let Some(nonce) = device_nonce
        && let Ok(attempt) = state.device_throttle.begin(nonce)
    {
        return Ok(attempt);
    }
    state.login_throttle.begin(username).inspect_err(|_| state.auth_limiter.note_refused(Guarded::Login))
}

/// The place of a password asked again in a signed-in session: this browser's count when the
/// account signed in from it, with no way back to the name's once it is held back (a stolen
/// session gets its browser's 5 guesses, not the name's 5 more), else the name's.
pub(crate) fn recheck_attempt(
    state: &AccountsState,
    username: &str,
    device_nonce: Option<&str>,
) -> Result<NameAttempt, ApiError> {
    let attempt = match device_nonce {
        Some(nonce) => state.device_throttle.begin(nonce),
        None => state.login_throttle.begin(username),
    };
    attempt.inspect_err(|_| state.auth_limiter.note_refused(Guarded::Login))
}

/// The refusal of a suspended account's sign-in.
pub(crate) fn suspended() -> ApiError {
    ApiError::forbidden("This account is suspended.").with_message("Ask an admin to reactivate it.")
}

/// A sign-in that succeeded (the password, and the second factor when the account has one):
/// clears the failures counted against the name (or against this browser), logs it, opens the
/// session and sets its cookies and the device cookie.
pub(crate) async fn open_session(
    state: &AccountsState,
    client: &ClientIp,
    headers: &HeaderMap,
    username: &str,
    user_id: i64,
    known_device: Option<&devices::Device>,
) -> Result<Response, ApiError> {
    let ip = loggable_ip(client, headers);
    let ua = crate::http::user_agent(headers).to_string();
    let token = crate::tokens::random_hex(32);
    let (u, t) = (username.to_string(), token.clone());
    let user = state
        .db
        .write(move |tx| {
            // Checked in the transaction that opens the session: a suspension racing the sign-in wins.
            if !store::find_user(tx, user_id)?.is_some_and(|u| u.is_active) {
                return Err(suspended());
            }
            store::log_attempt(tx, &u, &ip, &ua, "success")?;
            store::create_session(tx, &t, user_id)?;
            store::touch_last_login(tx, user_id)?;
            store::find_user(tx, user_id)
        })
        .await?
        .ok_or_else(|| ApiError::unauthorized("Invalid username or password"))?;
    match known_device {
        // Signing in from a known browser leaves strangers' failures counted against the name.
        Some(d) => state.device_throttle.succeeded(&d.nonce),
        None => state.login_throttle.succeeded(username),
    }
    tracing::info!("sign-in: {}", user.username);
    let secs = sessions::USER_SESSION_SECS;
    let cookie = cookies::session(SESSION_COOKIE, &token, secs, client.https);
    let hint = cookies::hint(cookies::USER_HINT, secs, client.https);
    let device = state.devices.issue(user.id);
    let device = cookies::session(devices::DEVICE_COOKIE, &device, devices::DEVICE_COOKIE_SECS, client.https);
    let mut res = axum::Json(UserEnvelope { success: true, user }).into_response();
    res.headers_mut().append(header::SET_COOKIE, cookie);
    res.headers_mut().append(header::SET_COOKIE, hint);
    res.headers_mut().append(header::SET_COOKIE, device);
    Ok(res)
}

/// Sign out: ends this session and this browser's admin session, and clears their cookies.
#[utoipa::path(post, path = "/api/auth/logout", tag = "accounts", operation_id = "logout", security(("session" = []), ("adminSession" = []), ()),
    responses((status = 200, description = "Signed out, of the admin panel too (also when not signed in)", body = crate::http::Success)))]
pub(crate) async fn logout(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let tokens = cookies::get_all(&headers, SESSION_COOKIE);
    if !tokens.is_empty() {
        state.db.write(move |tx| tokens.iter().try_for_each(|token| store::delete_session(tx, token))).await?;
    }
    let mut res = axum::Json(crate::http::Success::YES).into_response();
    cookies::clear(res.headers_mut(), SESSION_COOKIE, client.https);
    cookies::clear(res.headers_mut(), cookies::USER_HINT, client.https);
    admin_keys::end_admin_sessions(&state.db, &headers, res.headers_mut(), client.https).await?;
    second_factor::routes::forget_pending(&state, &headers, res.headers_mut(), client.https);
    Ok(res)
}

/// The signed-in user, or 401.
#[utoipa::path(get, path = "/api/auth/user", tag = "accounts", operation_id = "getCurrentUser", security(("session" = [])),
    responses((status = 200, description = "The signed-in user", body = User), (status = 401, description = "Not signed in")))]
pub(crate) async fn current_user(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    match sessions::signed_in(&state.db, &headers).await? {
        Some(user) => Ok(axum::Json(user).into_response()),
        None => {
            // The session is gone (signed out elsewhere, expired, suspended): drop the hint too.
            let mut res = ApiError::unauthorized("Not signed in.").into_response();
            res.headers_mut().append(header::SET_COOKIE, cookies::hint(cookies::USER_HINT, 0, client.https));
            Ok(res)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registration_rules() {
        assert!(validate_registration("abc", "123456").is_empty());
        assert_eq!(validate_registration("ab", "123456")["username"], "Username must be at least 3 characters");
        assert_eq!(validate_registration("abc", "12345")["password"], "Password must be at least 6 characters");
        assert!(validate_registration(&"a".repeat(33), "123456").contains_key("username"));
        assert!(validate_registration("bad name", "123456").contains_key("username"));
        assert!(validate_registration("émile", "123456").contains_key("username"));
        assert!(validate_registration("abc", &"p".repeat(129)).contains_key("password"));
    }
}
