//! Who is an admin: a live admin session cookie, an `X-Admin-Key` header, or a signed-in
//! active user whose role is admin. Every protected admin route runs behind `require_admin`.

use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::admin_keys::{ADMIN_COOKIE, KeyRecord, store as keys};
use crate::db::Db;
use crate::error::ApiError;
use crate::http::client_ip::ClientIp;
use crate::http::cookies;

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AdminVia {
    Key,
    Session,
    User,
}

#[derive(Clone, Debug)]
pub struct Admin {
    pub via: AdminVia,
    /// The signed-in admin user, when access came from an account.
    pub user_id: Option<i64>,
}

const KEY_TOUCH_INTERVAL_MS: i64 = 60_000;

/// Wrong `X-Admin-Key` headers a minute from one address, as for the other admin-key checks.
pub const WRONG_ADMIN_KEYS_PER_MINUTE: u32 = 10;

/// The wrong-key limit of the process: every admin route checks the header through `resolve`,
/// which is a middleware over the database handle alone, so the limit lives beside it.
static WRONG_ADMIN_KEYS: std::sync::LazyLock<std::sync::Arc<crate::ratelimit::FailureLimit>> =
    std::sync::LazyLock::new(|| {
        crate::ratelimit::FailureLimit::per_minute(WRONG_ADMIN_KEYS_PER_MINUTE, "wrong admin keys")
    });

fn bound_check(key: &KeyRecord, client: &ClientIp) -> Result<(), ApiError> {
    if key.allows(client.ip) {
        Ok(())
    } else {
        Err(ApiError::forbidden("This admin key is bound to another IP address."))
    }
}

/// What the admin check needs: the database, and whether admin accounts must have a second factor.
#[derive(Clone)]
pub struct AdminGate {
    pub db: Db,
    /// `--require-second-factor`: an admin account without one does not pass.
    pub second_factor_required: bool,
}

pub async fn resolve(gate: &AdminGate, headers: &HeaderMap, client: &ClientIp) -> Result<Option<Admin>, ApiError> {
    let db = &gate.db;
    if let Some(key) = headers.get("x-admin-key").and_then(|v| v.to_str().ok()).map(str::to_string) {
        // The guess holds its place in the address's count while the key is looked up.
        let attempt = WRONG_ADMIN_KEYS.begin(client.rate_key())?;
        let record = db.read(move |c| keys::find(c, &key)).await?;
        let Some(record) = record else {
            attempt.failed();
            return Err(ApiError::unauthorized("Invalid admin key"));
        };
        drop(attempt); // a right key gives its place back at once
        bound_check(&record, client)?;
        let stale = record
            .last_used
            .as_deref()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
            .is_none_or(|t| crate::db::now_ms() - t.as_millisecond() > KEY_TOUCH_INTERVAL_MS);
        if stale {
            let id = record.id;
            // On a full disk the key still opens the panel; only its last-used time waits.
            match db.write(move |tx| keys::touch(tx, id)).await {
                Err(e) if !e.is_out_of_space() => return Err(e),
                _ => {}
            }
        }
        return Ok(Some(Admin { via: AdminVia::Key, user_id: None }));
    }
    if let Some(token) = cookies::get(headers, ADMIN_COOKIE).filter(|t| t.len() == 64)
        && let Some(record) = db.read(move |c| keys::session_key(c, &token)).await?
    {
        bound_check(&record, client)?;
        return Ok(Some(Admin { via: AdminVia::Session, user_id: None }));
    }
    if let Some(user) = crate::accounts::sessions::signed_in(db, headers).await?
        && user.role == "admin"
    {
        if gate.second_factor_required {
            let id = user.id;
            // Every session of an account with a factor was opened with it (adding the first
            // one ends the others), so having one is enough here.
            if !db.read(move |c| super::second_factor::store::enrolled(c, id)).await?.any() {
                return Err(super::second_factor::factor_required());
            }
        }
        return Ok(Some(Admin { via: AdminVia::User, user_id: Some(user.id) }));
    }
    Ok(None)
}

pub async fn require_admin(State(gate): State<AdminGate>, mut req: Request, next: Next) -> Response {
    let Some(client) = req.extensions().get::<ClientIp>().copied() else {
        return ApiError::internal("client ip missing").into_response();
    };
    match resolve(&gate, req.headers(), &client).await {
        Ok(Some(admin)) => {
            req.extensions_mut().insert(admin);
            next.run(req).await
        }
        Ok(None) => ApiError::unauthorized("Admin access required.")
            .with_message("Open /admin and enter an admin key, or send the X-Admin-Key header.")
            .into_response(),
        Err(e) => e.into_response(),
    }
}
