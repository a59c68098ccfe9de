//! The second factor's calls: adding and removing factors from the account page, and the
//! second step of signing in.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use webauthn_rs::prelude::{Passkey, PublicKeyCredential, RegisterPublicKeyCredential, Uuid};

use super::{Enrolment, PendingSignIn, SIGN_IN_COOKIE, WRONG_CODES_PER_SIGN_IN, may_enrol, store, totp};
use crate::accounts::{AccountsState, SESSION_COOKIE, User, sessions};
use crate::error::ApiError;
use crate::http::client_ip::ClientIp;
use crate::http::cookies;
use crate::http::extract::Json;
use crate::ratelimit::{Guarded, NameAttempt};

pub fn router<S: Clone + Send + Sync + 'static>(state: AccountsState) -> Router<S> {
    Router::new()
        .route("/api/account/second-factors", get(status))
        .route("/api/account/second-factors/totp", post(start_totp))
        .route("/api/account/second-factors/totp/confirm", post(confirm_totp))
        .route("/api/account/second-factors/passkeys", post(start_passkey))
        .route("/api/account/second-factors/passkeys/confirm", post(confirm_passkey))
        .route("/api/account/second-factors/remove", post(remove))
        .route("/api/account/second-factors/recovery-codes", post(new_recovery_codes))
        .route("/api/auth/second-factor", post(sign_in_with_code))
        .route("/api/auth/second-factor/passkey", post(start_passkey_sign_in))
        .route("/api/auth/second-factor/passkey/confirm", post(finish_passkey_sign_in))
        .with_state(state)
}

/// The site's origin as this request sees it (WebAuthn's relying party).
fn origin(state: &AccountsState, headers: &HeaderMap, client: &ClientIp) -> Option<String> {
    crate::http::origin::of_request(state.second_factors.base_url.as_deref(), headers, Some(client))
}

/// The signed-in admin or moderator.
async fn staff(state: &AccountsState, headers: &HeaderMap) -> Result<User, ApiError> {
    let user = sessions::require_user(&state.db, headers).await?;
    if !may_enrol(&user.role) {
        return Err(ApiError::forbidden("Second factors are for admin and moderator accounts."));
    }
    Ok(user)
}

/// Checks the account's password again before a factor is added or removed or codes are
/// replaced: a session left open on a shared computer (or stolen) must not be enough. Wrong ones
/// count as failed sign-ins, against this browser when the account signed in from it (so wrong
/// passwords sent for the name from elsewhere cannot block its owner here), else against the name.
pub(crate) async fn confirm_password(
    state: &AccountsState,
    client: &ClientIp,
    headers: &HeaderMap,
    user: &User,
    password: String,
) -> Result<(), ApiError> {
    state.auth_limiter.check(Guarded::Login, client.rate_key())?;
    let device = cookies::get(headers, crate::accounts::devices::DEVICE_COOKIE)
        .and_then(|value| state.devices.verify(&value))
        .filter(|d| d.user_id == user.id);
    let attempt = crate::accounts::recheck_attempt(state, &user.username, device.as_ref().map(|d| d.nonce.as_str()))?;
    let name = user.username.clone();
    let record = state.db.read(move |c| crate::accounts::store::password_record(c, &name)).await?;
    let ok = !password.is_empty()
        && password.len() <= 1024
        && state.hasher.verify(password, record.map(|r| r.password_hash)).await?;
    if !ok {
        attempt.failed();
        return Err(ApiError::field("password", "That is not your password."));
    }
    Ok(())
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TotpFactor {
    #[schema(format = DateTime)]
    added_at: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PasskeyFactor {
    id: i64,
    name: String,
    #[schema(format = DateTime)]
    added_at: String,
    #[schema(format = DateTime)]
    last_used: Option<String>,
}

/// The signed-in account's second factors.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecondFactorStatus {
    /// This account may add second factors (admins and moderators).
    available: bool,
    /// The host requires one for this account to reach the admin panel.
    required: bool,
    /// Signing in needs a second factor.
    enabled: bool,
    /// The authenticator app, when one is set up.
    totp: Option<TotpFactor>,
    passkeys: Vec<PasskeyFactor>,
    /// Unused recovery codes.
    recovery_codes_left: i64,
    /// Security keys and passkeys can be used at the address this page was opened at (a domain
    /// name, not an IP address).
    passkeys_supported: bool,
}

/// The signed-in account's second factors.
#[utoipa::path(get, path = "/api/account/second-factors", tag = "accounts", operation_id = "getSecondFactors", security(("session" = [])),
    responses((status = 200, description = "What the account has set up", body = SecondFactorStatus), (status = 401, description = "Not signed in")))]
pub(crate) async fn status(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
) -> Result<axum::Json<SecondFactorStatus>, ApiError> {
    let user = sessions::require_user(&state.db, &headers).await?;
    let id = user.id;
    let enrolled = state.db.read(move |c| store::enrolled(c, id)).await?;
    Ok(axum::Json(SecondFactorStatus {
        available: may_enrol(&user.role),
        required: user.role == "admin" && state.second_factors.required_for_admins,
        enabled: enrolled.any(),
        totp: enrolled.totp_since.clone().map(|added_at| TotpFactor { added_at }),
        passkeys: enrolled
            .passkeys
            .into_iter()
            .map(|p| PasskeyFactor { id: p.id, name: p.name, added_at: p.created_at, last_used: p.last_used })
            .collect(),
        recovery_codes_left: enrolled.recovery_codes_left,
        passkeys_supported: state.second_factors.webauthn_available(origin(&state, &headers, &client).as_deref()),
    }))
}

/// A new authenticator's secret, shown once.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TotpSetup {
    /// The secret in base32, for typing into an app that cannot scan.
    secret: String,
    /// The `otpauth://totp/...` URL the QR code holds.
    otpauth_url: String,
    /// The QR code as a PNG `data:` URL.
    qr_code: String,
    /// Seconds to confirm it with a code before it is forgotten.
    expires_in: u64,
}

/// Start adding an authenticator app: a new secret and its QR code, kept (not yet in use) for
/// five minutes until a code from the app confirms it.
#[utoipa::path(post, path = "/api/account/second-factors/totp", tag = "accounts", operation_id = "startTotp", security(("session" = [])),
    responses((status = 200, description = "Scan or type it, then confirm with a code", body = TotpSetup), (status = 401, description = "Not signed in"),
        (status = 403, description = "Not an admin or moderator account"), (status = 409, description = "An authenticator app is set up already")))]
pub(crate) async fn start_totp(
    State(state): State<AccountsState>,
    headers: HeaderMap,
) -> Result<axum::Json<TotpSetup>, ApiError> {
    let user = staff(&state, &headers).await?;
    let id = user.id;
    if state.db.read(move |c| store::totp(c, id)).await?.is_some() {
        return Err(ApiError::conflict("An authenticator app is set up already.")
            .with_message("Remove it first to set up another."));
    }
    let secret = totp::new_secret();
    let generator = totp::generator(secret.clone(), &state.second_factors.site_name, &user.username)?;
    let setup = TotpSetup {
        secret: generator.get_secret_base32(),
        otpauth_url: generator.get_url(),
        qr_code: totp::qr_data_url(&generator)?,
        expires_in: super::PENDING_SECS,
    };
    state.second_factors.enrolments.put(&format!("totp:{id}"), Enrolment::Totp(secret))?;
    Ok(axum::Json(setup))
}

#[derive(Deserialize, ToSchema)]
pub struct CodeBody {
    /// Six digits from the app (spaces ignored), or, when signing in, a recovery code.
    #[serde(default)]
    #[schema(required = true, min_length = 1, max_length = 64)]
    code: String,
}

/// What adding a factor answers; the recovery codes come with the account's first factor only.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FactorAdded {
    success: bool,
    /// Ten single-use codes, shown once: with the first factor, and when the account had none left.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    recovery_codes: Option<Vec<String>>,
    /// Sessions of this account on other browsers that ended (opened with the password alone).
    other_sessions_ended: usize,
}

/// Stores a confirmed factor's row with `add`, and on the account's first factor makes its
/// recovery codes and ends its other sessions.
async fn factor_added<F>(
    state: &AccountsState,
    headers: &HeaderMap,
    user_id: i64,
    add: F,
) -> Result<FactorAdded, ApiError>
where
    F: FnOnce(&rusqlite::Connection) -> Result<(), ApiError> + Send + 'static,
{
    let current = cookies::get(headers, SESSION_COOKIE);
    let (codes, ended) = state
        .db
        .write(move |tx| {
            let first = !store::enrolled(tx, user_id)?.any();
            add(tx)?;
            let codes = if first || store::recovery_codes_left(tx, user_id)? == 0 {
                Some(store::replace_recovery_codes(tx, user_id)?)
            } else {
                None
            };
            let ended =
                if first { crate::accounts::store::end_other_sessions(tx, user_id, current.as_deref())? } else { 0 };
            Ok((codes, ended))
        })
        .await?;
    Ok(FactorAdded { success: true, recovery_codes: codes, other_sessions_ended: ended })
}

/// Confirm the authenticator app with a code it shows: from now on signing in needs a code.
#[utoipa::path(post, path = "/api/account/second-factors/totp/confirm", tag = "accounts", operation_id = "confirmTotp", security(("session" = [])), request_body = CodeBody,
    responses((status = 200, description = "Set up (with recovery codes when it is the first factor)", body = FactorAdded),
        (status = 400, description = "Not the app's current code (with `fields.code`)", body = crate::error::ErrorBody), (status = 401, description = "Not signed in"),
        (status = 403, description = "Not an admin or moderator account"), (status = 409, description = "No set-up under way (it expired after five minutes, or was confirmed)")))]
pub(crate) async fn confirm_totp(
    State(state): State<AccountsState>,
    headers: HeaderMap,
    Json(body): Json<CodeBody>,
) -> Result<axum::Json<FactorAdded>, ApiError> {
    let user = staff(&state, &headers).await?;
    let key = format!("totp:{}", user.id);
    let Some(Enrolment::Totp(secret)) = state.second_factors.enrolments.get(&key) else {
        return Err(ApiError::conflict("No authenticator set-up is under way.")
            .with_message("Set-ups expire after five minutes: start again."));
    };
    let generator = totp::generator(secret.clone(), &state.second_factors.site_name, &user.username)?;
    let step = totp::matching_step(&generator, &body.code, now_secs(), -1).ok_or_else(|| {
        ApiError::field(
            "code",
            "That is not the app's current code. Check the phone's clock is right, and try the next code.",
        )
    })?;
    if state.second_factors.enrolments.take(&key).is_none() {
        return Err(ApiError::conflict("No authenticator set-up is under way."));
    }
    let (id, sealed) = (user.id, state.second_factors.sealer.seal(user.id, &secret));
    let added = factor_added(&state, &headers, id, move |tx| store::set_totp(tx, id, &sealed, step)).await?;
    tracing::info!("second factor: {} added an authenticator app", user.username);
    Ok(axum::Json(added))
}

#[derive(Deserialize, ToSchema)]
pub struct PasskeyName {
    /// What the account page calls it ("Laptop", "Blue key"); 1-64 characters.
    #[serde(default)]
    #[schema(required = true, min_length = 1, max_length = 64, pattern = r"\S")]
    name: String,
}

/// Start adding a security key or passkey: the options for `navigator.credentials.create`.
#[utoipa::path(post, path = "/api/account/second-factors/passkeys", tag = "accounts", operation_id = "startPasskey", security(("session" = [])), request_body = PasskeyName,
    responses((status = 200, description = "WebAuthn creation options (`{publicKey: {...}}`, binary fields base64url)", body = Object),
        (status = 400, description = "No name, or a name over 64 characters (with `fields.name`)", body = crate::error::ErrorBody), (status = 401, description = "Not signed in"),
        (status = 403, description = "Not an admin or moderator account"),
        (status = 409, description = "Ten security keys already, or the site is opened by an IP address (browsers allow security keys on domain names only)")))]
pub(crate) async fn start_passkey(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
    Json(body): Json<PasskeyName>,
) -> Result<Response, ApiError> {
    let user = staff(&state, &headers).await?;
    let name = body.name.trim().to_string();
    if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
        return Err(ApiError::field("name", "Name it in 1 to 64 characters."));
    }
    let webauthn = state.second_factors.webauthn(origin(&state, &headers, &client).as_deref())?;
    let id = user.id;
    let (handle, existing) = state
        .db
        .write(move |tx| Ok((crate::accounts::store::webauthn_handle(tx, id)?, store::passkeys(tx, id)?)))
        .await?;
    if existing.len() as i64 >= store::MAX_PASSKEYS {
        return Err(ApiError::conflict("This account has ten security keys already.").with_message("Remove one first."));
    }
    let exclude = existing
        .iter()
        .filter_map(|row| serde_json::from_str::<Passkey>(&row.passkey).ok())
        .map(|p| p.cred_id().clone())
        .collect::<Vec<_>>();
    let handle = Uuid::parse_str(&handle).map_err(ApiError::internal)?;
    let (options, registration) = webauthn
        .start_passkey_registration(handle, &user.username, &user.username, Some(exclude))
        .map_err(|e| ApiError::internal(format!("webauthn: {e}")))?;
    state.second_factors.enrolments.put(&format!("passkey:{id}"), Enrolment::Passkey { name, state: registration })?;
    Ok(axum::Json(options).into_response())
}

#[derive(Deserialize, ToSchema)]
pub struct CredentialBody {
    /// The browser's `PublicKeyCredential` as JSON (binary fields base64url).
    #[schema(value_type = Object)]
    credential: serde_json::Value,
}

/// Finish adding a security key or passkey with the browser's answer.
#[utoipa::path(post, path = "/api/account/second-factors/passkeys/confirm", tag = "accounts", operation_id = "confirmPasskey", security(("session" = [])), request_body = CredentialBody,
    responses((status = 200, description = "Added (with recovery codes when it is the first factor)", body = FactorAdded),
        (status = 400, description = "Not a valid answer for this set-up", body = crate::error::ErrorBody), (status = 401, description = "Not signed in"),
        (status = 403, description = "Not an admin or moderator account"),
        (status = 409, description = "No set-up under way, the key is registered already, or the site is opened by an IP address")))]
pub(crate) async fn confirm_passkey(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
    Json(body): Json<CredentialBody>,
) -> Result<axum::Json<FactorAdded>, ApiError> {
    let user = staff(&state, &headers).await?;
    let key = format!("passkey:{}", user.id);
    let Some(Enrolment::Passkey { name, state: registration }) = state.second_factors.enrolments.get(&key) else {
        return Err(ApiError::conflict("No security key set-up is under way.")
            .with_message("Set-ups expire after five minutes: start again."));
    };
    let credential: RegisterPublicKeyCredential = serde_json::from_value(body.credential)
        .map_err(|_| ApiError::bad_request("That is not a security key's answer."))?;
    let webauthn = state.second_factors.webauthn(origin(&state, &headers, &client).as_deref())?;
    let passkey = webauthn.finish_passkey_registration(&credential, &registration).map_err(|e| {
        tracing::info!("second factor: a security key for {} was refused: {e}", user.username);
        ApiError::bad_request("The security key's answer did not check out.").with_message("Try adding it again.")
    })?;
    state.second_factors.enrolments.remove(&key);
    let (id, credential_id, json) =
        (user.id, passkey.cred_id().to_vec(), serde_json::to_string(&passkey).map_err(ApiError::internal)?);
    let added = factor_added(&state, &headers, id, move |tx| {
        store::add_passkey(tx, id, &credential_id, &name, &json)?
            .map(|_| ())
            .ok_or_else(|| ApiError::conflict("This security key is registered already."))
    })
    .await?;
    tracing::info!("second factor: {} added a security key", user.username);
    Ok(axum::Json(added))
}

/// Which factor to remove.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoveFactor {
    #[schema(required = true)]
    method: RemovableMethod,
    /// The security key's id, when `method` is `passkey`.
    #[serde(default, deserialize_with = "crate::http::extract::optional_whole_number")]
    passkey_id: Option<i64>,
    /// The account's password, asked again.
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    password: String,
}

#[derive(Deserialize, ToSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RemovableMethod {
    Totp,
    Passkey,
}

/// What is left after a removal.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FactorRemoved {
    success: bool,
    /// Signing in still needs a second factor (false: the last one went, with the recovery codes).
    enabled: bool,
}

/// Remove the authenticator app or one security key; the password is asked again. Removing the
/// last factor also deletes the recovery codes.
#[utoipa::path(post, path = "/api/account/second-factors/remove", tag = "accounts", operation_id = "removeSecondFactor", security(("session" = [])), request_body = RemoveFactor,
    responses((status = 200, description = "Removed", body = FactorRemoved), (status = 400, description = "Wrong password (`fields.password`) or no passkey id", body = crate::error::ErrorBody),
        (status = 401, description = "Not signed in"), (status = 403, description = "Not an admin or moderator account"), (status = 404, description = "No such factor on this account"),
        (status = 429, description = "Too many wrong passwords")))]
pub(crate) async fn remove(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
    Json(body): Json<RemoveFactor>,
) -> Result<axum::Json<FactorRemoved>, ApiError> {
    let user = staff(&state, &headers).await?;
    if body.method == RemovableMethod::Passkey && body.passkey_id.is_none() {
        return Err(ApiError::field("passkeyId", "Say which security key to remove."));
    }
    confirm_password(&state, &client, &headers, &user, body.password).await?;
    let (id, method, passkey_id) = (user.id, body.method, body.passkey_id);
    let enabled = state
        .db
        .write(move |tx| {
            let removed = match (method, passkey_id) {
                (RemovableMethod::Totp, _) => store::remove_totp(tx, id)?,
                (RemovableMethod::Passkey, Some(key)) => store::remove_passkey(tx, id, key)?,
                (RemovableMethod::Passkey, None) => false,
            };
            if !removed {
                return Err(ApiError::not_found("This account has no such second factor."));
            }
            let enabled = store::enrolled(tx, id)?.any();
            if !enabled {
                store::remove_all(tx, id)?;
            }
            Ok(enabled)
        })
        .await?;
    tracing::info!("second factor: {} removed a factor", user.username);
    Ok(axum::Json(FactorRemoved { success: true, enabled }))
}

#[derive(Deserialize, ToSchema)]
pub struct PasswordBody {
    /// The account's password, asked again.
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    password: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryCodes {
    /// Ten single-use codes, shown once; the ones before stop working.
    recovery_codes: Vec<String>,
}

/// Ten new recovery codes in place of the old ones; the password is asked again.
#[utoipa::path(post, path = "/api/account/second-factors/recovery-codes", tag = "accounts", operation_id = "newRecoveryCodes", security(("session" = [])), request_body = PasswordBody,
    responses((status = 200, description = "New codes, shown once", body = RecoveryCodes), (status = 400, description = "Wrong password (`fields.password`)", body = crate::error::ErrorBody),
        (status = 401, description = "Not signed in"), (status = 403, description = "Not an admin or moderator account"),
        (status = 409, description = "No second factor to recover"), (status = 429, description = "Too many wrong passwords")))]
pub(crate) async fn new_recovery_codes(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
    Json(body): Json<PasswordBody>,
) -> Result<axum::Json<RecoveryCodes>, ApiError> {
    let user = staff(&state, &headers).await?;
    confirm_password(&state, &client, &headers, &user, body.password).await?;
    let id = user.id;
    let recovery_codes = state
        .db
        .write(move |tx| {
            if !store::enrolled(tx, id)?.any() {
                return Err(ApiError::conflict("Add a second factor first: recovery codes stand in for one."));
            }
            store::replace_recovery_codes(tx, id)
        })
        .await?;
    Ok(axum::Json(RecoveryCodes { recovery_codes }))
}

// ---- signing in ----

/// The pending sign-in this browser's cookie names, or 401 asking for the password again; 403
/// when the account was suspended since its password was accepted.
async fn pending(state: &AccountsState, headers: &HeaderMap) -> Result<(String, PendingSignIn), ApiError> {
    let expired =
        || ApiError::unauthorized("Your sign-in expired.").with_message("Enter your username and password again.");
    let token = cookies::get(headers, SIGN_IN_COOKIE).filter(|t| t.len() == 64).ok_or_else(expired)?;
    let pending = state.second_factors.sign_ins.get(&token).ok_or_else(expired)?;
    let user_id = pending.user_id;
    let user = state.db.read(move |c| crate::accounts::store::find_user(c, user_id)).await?;
    if !user.is_some_and(|u| u.is_active) {
        state.second_factors.sign_ins.remove(&token);
        return Err(crate::accounts::suspended());
    }
    Ok((token, pending))
}

/// The limits a code attempt meets, as a password attempt does: the address's, and the name's
/// unless this browser is one the account signed in from. The attempt holds its place in the
/// count until [`wrong_code`] keeps it or it is dropped.
fn limits(state: &AccountsState, client: &ClientIp, pending: &PendingSignIn) -> Result<NameAttempt, ApiError> {
    state.auth_limiter.check(Guarded::Login, client.rate_key())?;
    crate::accounts::attempt(state, &pending.username, pending.device_nonce.as_deref())
}

/// A wrong code: counted where a wrong password is, logged, and after five the pending sign-in ends.
async fn wrong_code(
    state: &AccountsState,
    client: &ClientIp,
    headers: &HeaderMap,
    token: &str,
    pending: &PendingSignIn,
    attempt: NameAttempt,
) -> Result<ApiError, ApiError> {
    attempt.failed();
    let mut wrong = 0;
    state.second_factors.sign_ins.update(token, |p| {
        p.wrong_codes += 1;
        p.passkey = None;
        wrong = p.wrong_codes;
    });
    let ip = crate::accounts::loggable_ip(client, headers);
    let ua = crate::http::user_agent(headers).to_string();
    let name = pending.username.clone();
    state.db.write(move |tx| crate::accounts::store::log_attempt(tx, &name, &ip, &ua, "second_factor_failure")).await?;
    if wrong >= WRONG_CODES_PER_SIGN_IN {
        state.second_factors.sign_ins.remove(token);
        return Ok(
            ApiError::unauthorized("Too many wrong codes.").with_message("Enter your username and password again.")
        );
    }
    Ok(ApiError::unauthorized("That code is not right.")
        .with_message("Use the code your authenticator app shows now, or one of your recovery codes."))
}

/// The second step of signing in with a code: six digits from the authenticator app, or a
/// recovery code (used once).
#[utoipa::path(post, path = "/api/auth/second-factor", tag = "accounts", operation_id = "signInWithCode", security(("pendingSignIn" = [])), request_body = CodeBody,
    responses((status = 200, description = "Signed in; sets the fanhub_session cookie", body = crate::accounts::UserEnvelope),
        (status = 400, description = "No code", body = crate::error::ErrorBody),
        (status = 401, description = "Wrong code, or no sign-in waiting for one (expired after five minutes or five wrong codes)"),
        (status = 403, description = "The account was suspended meanwhile"),
        (status = 429, description = "Too many attempts from this IP or for this username")))]
pub(crate) async fn sign_in_with_code(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
    Json(body): Json<CodeBody>,
) -> Result<Response, ApiError> {
    let (token, pending) = pending(&state, &headers).await?;
    let attempt = limits(&state, &client, &pending)?;
    let code = body.code.trim().to_string();
    if code.is_empty() {
        return Err(ApiError::field("code", "Enter the code."));
    }
    let user_id = pending.user_id;
    let accepted = if totp::looks_like_code(&code) {
        match state.db.read(move |c| store::totp(c, user_id)).await? {
            Some((sealed, last_step)) => {
                let secret = state.second_factors.sealer.open_secret(user_id, &sealed).ok_or_else(|| {
                    ApiError::internal(
                        "the TOTP secret does not open: is DATA_DIR/second-factor.key the one it was sealed with?",
                    )
                })?;
                let generator = totp::generator(secret, &state.second_factors.site_name, &pending.username)?;
                match totp::matching_step(&generator, &code, now_secs(), last_step) {
                    Some(step) => state.db.write(move |tx| store::use_totp_step(tx, user_id, step)).await?,
                    None => false,
                }
            }
            None => false,
        }
    } else {
        match store::normalize_recovery_code(&code) {
            Some(code) => state.db.write(move |tx| store::use_recovery_code(tx, user_id, &code)).await?,
            None => false,
        }
    };
    if !accepted {
        return Err(wrong_code(&state, &client, &headers, &token, &pending, attempt).await?);
    }
    complete(&state, &client, &headers, &token, pending).await
}

/// The pending sign-in done: the session opens, and the pending cookie goes.
async fn complete(
    state: &AccountsState,
    client: &ClientIp,
    headers: &HeaderMap,
    token: &str,
    pending: PendingSignIn,
) -> Result<Response, ApiError> {
    if state.second_factors.sign_ins.take(token).is_none() {
        // Two requests completed the same sign-in: the other one opened the session.
        return Err(
            ApiError::unauthorized("Your sign-in expired.").with_message("Enter your username and password again.")
        );
    }
    let device = pending.device_nonce.map(|nonce| crate::accounts::devices::Device { user_id: pending.user_id, nonce });
    let mut res =
        crate::accounts::open_session(state, client, headers, &pending.username, pending.user_id, device.as_ref())
            .await?;
    cookies::clear(res.headers_mut(), SIGN_IN_COOKIE, client.https);
    Ok(res)
}

/// Start signing in with a security key or passkey: the options for `navigator.credentials.get`.
#[utoipa::path(post, path = "/api/auth/second-factor/passkey", tag = "accounts", operation_id = "startPasskeySignIn", security(("pendingSignIn" = [])),
    responses((status = 200, description = "WebAuthn request options (`{publicKey: {...}}`, binary fields base64url)", body = Object),
        (status = 401, description = "No sign-in waiting for a second factor"),
        (status = 403, description = "The account was suspended meanwhile"),
        (status = 409, description = "The account has no security key, or the site is opened by an IP address"),
        (status = 429, description = "Too many attempts from this IP or for this username")))]
pub(crate) async fn start_passkey_sign_in(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let (token, pending) = pending(&state, &headers).await?;
    // Asking for a challenge checks nothing: the attempt only has to be allowed.
    drop(limits(&state, &client, &pending)?);
    let webauthn = state.second_factors.webauthn(origin(&state, &headers, &client).as_deref())?;
    let user_id = pending.user_id;
    let passkeys: Vec<Passkey> = state
        .db
        .read(move |c| store::passkeys(c, user_id))
        .await?
        .iter()
        .filter_map(|row| serde_json::from_str(&row.passkey).ok())
        .collect();
    if passkeys.is_empty() {
        return Err(ApiError::conflict("This account has no security key.").with_message("Use a code instead."));
    }
    let (options, authentication) =
        webauthn.start_passkey_authentication(&passkeys).map_err(|e| ApiError::internal(format!("webauthn: {e}")))?;
    state.second_factors.sign_ins.update(&token, |p| p.passkey = Some(authentication));
    Ok(axum::Json(options).into_response())
}

/// Finish signing in with the browser's answer from the security key or passkey.
#[utoipa::path(post, path = "/api/auth/second-factor/passkey/confirm", tag = "accounts", operation_id = "finishPasskeySignIn", security(("pendingSignIn" = [])), request_body = CredentialBody,
    responses((status = 200, description = "Signed in; sets the fanhub_session cookie", body = crate::accounts::UserEnvelope),
        (status = 400, description = "Not a security key's answer", body = crate::error::ErrorBody),
        (status = 401, description = "The key's answer did not check out (a removed key, another site's), or no sign-in waiting"),
        (status = 403, description = "The account was suspended meanwhile"),
        (status = 409, description = "No security key sign-in was started, or the site is opened by an IP address"),
        (status = 429, description = "Too many attempts from this IP or for this username")))]
pub(crate) async fn finish_passkey_sign_in(
    State(state): State<AccountsState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
    Json(body): Json<CredentialBody>,
) -> Result<Response, ApiError> {
    let (token, pending) = pending(&state, &headers).await?;
    let attempt = limits(&state, &client, &pending)?;
    let Some(authentication) = pending.passkey.clone() else {
        return Err(
            ApiError::conflict("No security key sign-in was started.").with_message("Choose the security key again.")
        );
    };
    let credential: PublicKeyCredential = serde_json::from_value(body.credential)
        .map_err(|_| ApiError::bad_request("That is not a security key's answer."))?;
    let webauthn = state.second_factors.webauthn(origin(&state, &headers, &client).as_deref())?;
    let result = match webauthn.finish_passkey_authentication(&credential, &authentication) {
        Ok(result) => result,
        Err(e) => {
            tracing::info!("second factor: a security key answer for {} was refused: {e}", pending.username);
            return Err(wrong_code(&state, &client, &headers, &token, &pending, attempt).await?);
        }
    };
    let user_id = pending.user_id;
    let used = result.cred_id().to_vec();
    let stored = state
        .db
        .write(move |tx| {
            for row in store::passkeys(tx, user_id)? {
                let Ok(mut passkey) = serde_json::from_str::<Passkey>(&row.passkey) else { continue };
                if passkey.cred_id().as_slice() == used.as_slice() {
                    passkey.update_credential(&result);
                    let json = serde_json::to_string(&passkey).map_err(ApiError::internal)?;
                    store::passkey_used(tx, user_id, row.id, &json)?;
                    return Ok(true);
                }
            }
            Ok(false)
        })
        .await?;
    if !stored {
        // Removed between the challenge and the answer.
        return Err(wrong_code(&state, &client, &headers, &token, &pending, attempt).await?);
    }
    complete(&state, &client, &headers, &token, pending).await
}

/// Forgets a pending sign-in at sign-out.
pub fn forget_pending(state: &AccountsState, headers: &HeaderMap, res: &mut HeaderMap, https: bool) {
    if let Some(token) = cookies::get(headers, SIGN_IN_COOKIE) {
        state.second_factors.sign_ins.remove(&token);
        cookies::clear(res, SIGN_IN_COOKIE, https);
    }
}

fn now_secs() -> u64 {
    (crate::db::now_ms() / 1000).max(0) as u64
}

/// The password step's answer when the account has a second factor.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecondFactorNeeded {
    /// Always true: the password was right, the session opens after the second factor.
    second_factor_required: bool,
    /// What the account can use: `passkey`, `totp`, `recovery`.
    #[schema(inline, value_type = Vec<String>)]
    methods: Vec<&'static str>,
    /// Seconds the sign-in waits for it.
    expires_in: u64,
}

/// Starts a pending sign-in for an account whose password was right: the 202 answer with its cookie.
pub async fn begin(
    state: &AccountsState,
    client: &ClientIp,
    username: &str,
    user_id: i64,
    device_nonce: Option<String>,
    methods: Vec<&'static str>,
) -> Result<Response, ApiError> {
    let token = crate::tokens::random_hex(32);
    let pending =
        PendingSignIn { user_id, username: username.to_string(), device_nonce, wrong_codes: 0, passkey: None };
    state.second_factors.sign_ins.put(&token, pending)?;
    let body = SecondFactorNeeded { second_factor_required: true, methods, expires_in: super::PENDING_SECS };
    let mut res = (StatusCode::ACCEPTED, axum::Json(body)).into_response();
    let cookie = cookies::session(SIGN_IN_COOKIE, &token, super::PENDING_SECS as i64, client.https);
    res.headers_mut().append(axum::http::header::SET_COOKIE, cookie);
    Ok(res)
}
