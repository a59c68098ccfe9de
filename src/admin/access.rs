//! Getting admin access: verifying a key into an admin session, the secret-phrase flow
//! (challenge, then an IP-bound lifetime key), the loopback-only direct key, and managing keys.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json as JsonOut};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::accounts::admin_keys::{ADMIN_COOKIE, ADMIN_SESSION_SECS, KeyRecord, store as keys};
use crate::accounts::guard::Admin;
use crate::error::ApiError;
use crate::http::client_ip::ClientIp;
use crate::http::extract::{Json, Path};
use crate::http::{cookies, csrf};
use crate::ratelimit::Guarded;
use crate::tokens::constant_time_eq;

/// What getting admin access uses: the keys and sessions, the phrase, the challenges, the limiter.
#[derive(Clone)]
pub struct AccessState {
    pub db: crate::db::Db,
    /// FANHUB_ADMIN_PHRASE, when the phrase flow is on.
    pub admin_phrase: Option<std::sync::Arc<str>>,
    pub auth_limiter: std::sync::Arc<crate::ratelimit::AuthLimiter>,
    pub challenges: std::sync::Arc<crate::accounts::admin_keys::Challenges>,
}

#[derive(Deserialize, ToSchema)]
pub struct KeyBody {
    #[serde(default)]
    #[schema(required = true, pattern = r"\S")]
    key: String,
}

/// Trade an admin key for a 12-hour admin session cookie.
#[utoipa::path(post, path = "/api/admin/verify-key", tag = "admin", operation_id = "verifyAdminKey", request_body = KeyBody,
    responses((status = 200, description = "Valid; sets the fanhub_admin cookie", body = crate::http::Success), (status = 400, description = "No key given"),
        (status = 401, description = "Invalid admin key"), (status = 403, description = "Key bound to another IP"), (status = 429, description = "More than 10 attempts a minute from this IP")))]
pub(crate) async fn verify_key(
    State(state): State<AccessState>,
    Extension(client): Extension<ClientIp>,
    Json(body): Json<KeyBody>,
) -> Result<Response, ApiError> {
    state.auth_limiter.check(Guarded::VerifyKey, client.rate_key())?;
    let key = body.key.trim().to_string();
    if key.is_empty() {
        return Err(ApiError::bad_request("Please enter an admin key"));
    }
    if key.len() > 200 {
        return Err(ApiError::unauthorized("Invalid admin key"));
    }
    let token = state
        .db
        .write(move |tx| {
            let record = keys::find(tx, &key)?.ok_or_else(|| ApiError::unauthorized("Invalid admin key"))?;
            if !record.allows(client.ip) {
                return Err(ApiError::forbidden("This admin key is bound to another IP address."));
            }
            keys::touch(tx, record.id)?;
            keys::create_session(tx, record.id)
        })
        .await
        .inspect_err(|e| tracing::warn!("admin key refused from {}: {}", client.ip, e.body.error))?;
    tracing::info!("admin session opened from {}", client.ip);
    let mut res = JsonOut(crate::http::Success::YES).into_response();
    res.headers_mut()
        .append(header::SET_COOKIE, cookies::session(ADMIN_COOKIE, &token, ADMIN_SESSION_SECS, client.https));
    res.headers_mut().append(header::SET_COOKIE, cookies::hint(cookies::ADMIN_HINT, ADMIN_SESSION_SECS, client.https));
    Ok(res)
}

/// Sign out of the admin panel: ends this browser's admin session (other admin sessions stay).
#[utoipa::path(post, path = "/api/admin/logout", tag = "admin", operation_id = "adminLogout", security(("adminSession" = []), ()),
    responses((status = 200, description = "Signed out; clears the fanhub_admin cookie (also when there was no session)", body = crate::http::Success),
        (status = 403, description = "Cross-site request")))]
pub(crate) async fn logout(
    State(state): State<AccessState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let mut res = JsonOut(crate::http::Success::YES).into_response();
    crate::accounts::admin_keys::end_admin_sessions(&state.db, &headers, res.headers_mut(), client.https).await?;
    tracing::info!("admin session closed from {}", client.ip);
    Ok(res)
}

#[derive(Serialize, ToSchema)]
pub struct CheckKey {
    admin: bool,
    via: crate::accounts::guard::AdminVia,
}

/// Whether this request is an admin's (and how); 401 otherwise.
#[utoipa::path(get, path = "/api/admin/check-key", tag = "admin", operation_id = "checkAdminAccess", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "An admin", body = CheckKey)))]
pub(crate) async fn check_key(Extension(admin): Extension<Admin>) -> JsonOut<CheckKey> {
    JsonOut(CheckKey { admin: true, via: admin.via })
}

#[derive(Deserialize, ToSchema)]
pub struct PhraseBody {
    #[serde(default)]
    #[schema(required = true)]
    phrase: String,
}

#[derive(Deserialize, ToSchema)]
pub struct ChallengeAnswer {
    #[serde(default)]
    #[schema(required = true)]
    phrase: String,
    #[serde(default)]
    #[schema(required = true)]
    challenge: String,
}

#[derive(Serialize, ToSchema)]
pub struct Challenge {
    success: bool,
    /// Single use, for this IP, valid 5 minutes.
    challenge: String,
    /// The IP the challenge and the key will be bound to.
    ip: String,
}

#[derive(Serialize, ToSchema)]
#[schema(as = NewAdminKey)]
pub struct NewKey {
    success: bool,
    /// The full key, shown this once.
    key: String,
    /// The IP the key is bound to (lifetime keys only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    ip: Option<String>,
}

fn check_phrase(state: &AccessState, phrase: &str) -> Result<(), ApiError> {
    let Some(expected) = state.admin_phrase.as_deref() else {
        return Err(ApiError::unavailable("Key creation by secret phrase is not enabled on this site.")
            .with_message("The site's operator can enable it by setting FANHUB_ADMIN_PHRASE."));
    };
    if constant_time_eq(phrase, expected) { Ok(()) } else { Err(ApiError::forbidden("Invalid secret phrase")) }
}

/// Step 1 of the secret-phrase flow: a single-use challenge for this IP, valid 5 minutes.
#[utoipa::path(post, path = "/api/admin/generate-challenge", tag = "admin", operation_id = "generateAdminChallenge", request_body = PhraseBody,
    responses((status = 200, description = "A challenge", body = Challenge), (status = 403, description = "Invalid secret phrase"),
        (status = 429, description = "More than 10 attempts a minute from this IP"), (status = 503, description = "FANHUB_ADMIN_PHRASE is not set")))]
pub(crate) async fn generate_challenge(
    State(state): State<AccessState>,
    Extension(client): Extension<ClientIp>,
    Json(body): Json<PhraseBody>,
) -> Result<JsonOut<Challenge>, ApiError> {
    state.auth_limiter.check(Guarded::Challenge, client.rate_key())?;
    check_phrase(&state, &body.phrase).inspect_err(|_| tracing::warn!("wrong admin phrase from {}", client.ip))?;
    let challenge = state.challenges.issue(client.ip);
    Ok(JsonOut(Challenge { success: true, challenge, ip: client.ip.to_string() }))
}

/// Step 2: the phrase again plus the challenge gives a lifetime key bound to this IP.
#[utoipa::path(post, path = "/api/admin/create-lifetime-key", tag = "admin", operation_id = "createLifetimeAdminKey", request_body = ChallengeAnswer,
    responses((status = 201, description = "A key bound to this IP", body = NewKey), (status = 403, description = "Wrong phrase, or challenge expired, used or from another IP"),
        (status = 429, description = "More than 10 attempts a minute from this IP"), (status = 503, description = "FANHUB_ADMIN_PHRASE is not set")))]
pub(crate) async fn create_lifetime_key(
    State(state): State<AccessState>,
    Extension(client): Extension<ClientIp>,
    Json(body): Json<ChallengeAnswer>,
) -> Result<Response, ApiError> {
    state.auth_limiter.check(Guarded::Challenge, client.rate_key())?;
    check_phrase(&state, &body.phrase)?;
    state.challenges.redeem(&body.challenge, client.ip)?;
    let ip = client.ip;
    let key = state.db.write(move |tx| keys::create(tx, &format!("Lifetime key for {ip}"), "phrase", Some(ip))).await?;
    tracing::info!("lifetime admin key created for {ip}");
    Ok((StatusCode::CREATED, JsonOut(NewKey { success: true, key, ip: Some(ip.to_string()) })).into_response())
}

/// Whether `host` (the `Host` header) names this machine by a loopback name: `127.0.0.1`,
/// `[::1]` or `localhost`, with or without a port. Any other name, even one that resolves to
/// 127.0.0.1, is a page of another site (DNS rebinding) or a proxy in front of the server.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix("[::1]") {
        Some(port) => return port.is_empty() || port.strip_prefix(':').is_some_and(is_port),
        None => match host.rsplit_once(':') {
            Some((name, port)) if is_port(port) => name,
            Some(_) => return false,
            None => host,
        },
    };
    name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost")
}

fn is_port(s: &str) -> bool {
    !s.is_empty() && s.len() <= 5 && s.bytes().all(|b| b.is_ascii_digit())
}

/// A request of this server's own page, opened in a browser on the server itself: the TCP peer
/// is loopback, no proxy forwarded it, the `Host` is a loopback name and the page that sent it
/// is this origin (`Sec-Fetch-Site: same-origin`, or an `Origin` equal to the `Host`).
fn from_a_page_on_the_server(client: &ClientIp, headers: &HeaderMap) -> bool {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    client.peer_is_loopback && !client.forwarded && is_loopback_host(host) && csrf::is_same_origin(headers)
}

/// A key straight away, but only for this site's page in a browser on the server itself
/// (loopback peer and `Host`, same-origin, no proxy).
#[utoipa::path(post, path = "/api/admin/generate-direct-key", tag = "admin", operation_id = "generateDirectAdminKey",
    responses((status = 201, description = "A key (not IP-bound)", body = NewKey),
        (status = 403, description = "Not this site's page on the server itself: a peer or Host that is not loopback, a forwarding header, or a cross-site (or missing) Origin")))]
pub(crate) async fn generate_direct_key(
    State(state): State<AccessState>,
    Extension(client): Extension<ClientIp>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if !from_a_page_on_the_server(&client, &headers) {
        tracing::warn!("direct admin key refused for {}", client.ip);
        return Err(ApiError::forbidden(
            "Direct keys are only given to a browser on the server itself. Run `fanhub admin-key` on the server instead.",
        ));
    }
    let key = state.db.write(|tx| keys::create(tx, "Direct key (generated on the server)", "direct", None)).await?;
    tracing::info!("direct admin key created");
    Ok((StatusCode::CREATED, JsonOut(NewKey { success: true, key, ip: None })).into_response())
}

#[derive(Serialize, ToSchema)]
#[schema(as = AdminKeyList)]
pub struct KeyList {
    keys: Vec<KeyRecord>,
}

/// Every admin key (prefix only, never the key).
#[utoipa::path(get, path = "/api/admin/keys", tag = "admin", operation_id = "listAdminKeys", security(("adminKey" = []), ("adminSession" = []), ("session" = [])),
    responses((status = 200, description = "Every admin key", body = KeyList)))]
pub(crate) async fn list_admin_keys(State(state): State<AccessState>) -> Result<JsonOut<KeyList>, ApiError> {
    Ok(JsonOut(KeyList { keys: state.db.read(keys::list).await? }))
}

/// Revoke a key and end its admin sessions.
#[utoipa::path(delete, path = "/api/admin/keys/{id}", tag = "admin", operation_id = "revokeAdminKey", security(("adminKey" = []), ("adminSession" = []), ("session" = [])), params(("id" = i64, Path)),
    responses((status = 200, description = "Revoked", body = crate::http::Success), (status = 404, description = "No such key")))]
pub(crate) async fn revoke_admin_key(
    State(state): State<AccessState>,
    Path(id): Path<i64>,
) -> Result<JsonOut<crate::http::Success>, ApiError> {
    if !state.db.write(move |tx| keys::revoke(tx, id)).await? {
        return Err(ApiError::not_found("No such admin key."));
    }
    tracing::info!("admin key {id} revoked");
    Ok(JsonOut(crate::http::Success::YES))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for host in ["127.0.0.1", "127.0.0.1:8080", "localhost", "LocalHost:8080", "[::1]", "[::1]:8080"] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "",
            "evil.example",
            "evil.example:8080",
            "127.0.0.1.evil.example",
            "localhost.evil:80",
            "[::1]x",
            "127.0.0.1:",
            "127.0.0.1:x",
            "0.0.0.0:8080",
            "[::2]:8080",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }
}
