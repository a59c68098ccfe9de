//! A second factor for admin and moderator accounts: an authenticator app (TOTP), security keys
//! and passkeys (WebAuthn), and ten single-use recovery codes.
//!
//! Signing in with the password of an account that has one does not open a session: it answers
//! 202 and sets a short-lived, HttpOnly `fanhub_sign_in` cookie naming a pending sign-in kept in
//! memory (five minutes, five wrong codes), which a code, a recovery code or a passkey then
//! completes. Wrong codes count toward the same limits as wrong passwords. A host can require a
//! second factor for every admin account (`--require-second-factor`): until one is added, the
//! account signs in but `accounts::guard` keeps it out of the admin panel.
//!
//! When a first factor is added, the account's other sessions (opened with the password alone)
//! end, so every session of an account with a second factor was opened with it.

pub mod pending;
pub mod routes;
pub mod store;
pub mod totp;

use std::sync::Arc;
use std::time::Duration;

use webauthn_rs::prelude::{PasskeyAuthentication, PasskeyRegistration, Url, Webauthn, WebauthnBuilder};

use crate::error::ApiError;
use pending::Pending;

/// The pending sign-in's cookie (`__Host-fanhub_sign_in` over https).
pub const SIGN_IN_COOKIE: &str = "fanhub_sign_in";
/// How long a pending sign-in or an enrolment waits for its second step.
pub const PENDING_SECS: u64 = 300;
/// Wrong codes one pending sign-in takes before the password must be entered again.
pub const WRONG_CODES_PER_SIGN_IN: u32 = 5;
/// Sign-ins and enrolments waiting at once; past it new ones are refused until some expire.
const MAX_PENDING: usize = 10_000;

/// A password accepted for an account with a second factor, waiting for it.
#[derive(Clone)]
pub struct PendingSignIn {
    pub user_id: i64,
    pub username: String,
    /// The browser's device cookie nonce when it is one this account signed in from.
    pub device_nonce: Option<String>,
    pub wrong_codes: u32,
    /// The challenge of a passkey sign-in under way.
    pub passkey: Option<PasskeyAuthentication>,
}

/// An authenticator or a passkey being added, waiting for its confirmation.
#[derive(Clone)]
pub enum Enrolment {
    Totp(Vec<u8>),
    Passkey { name: String, state: PasskeyRegistration },
}

/// The second factors' service: the sealing key, the pending steps and the host's policy.
pub struct SecondFactors {
    pub sealer: totp::Sealer,
    /// Admin accounts reach the panel only with a second factor.
    pub required_for_admins: bool,
    /// What authenticator apps and security keys call the site.
    pub site_name: String,
    /// The site's configured public address, if any (`site.toml` `base_url`).
    pub base_url: Option<String>,
    pub sign_ins: Pending<PendingSignIn>,
    pub enrolments: Pending<Enrolment>,
}

impl SecondFactors {
    pub fn new(sealer: totp::Sealer, required_for_admins: bool, site_name: &str, base_url: Option<&str>) -> Arc<Self> {
        let ttl = Duration::from_secs(PENDING_SECS);
        Arc::new(Self {
            sealer,
            required_for_admins,
            site_name: site_name.to_string(),
            base_url: base_url.map(str::to_string),
            sign_ins: Pending::new(ttl, MAX_PENDING),
            enrolments: Pending::new(ttl, MAX_PENDING),
        })
    }

    /// WebAuthn for the site at `origin` (`https://fans.example.org`, `http://localhost:8080`):
    /// the relying party is its host name. Browsers refuse security keys on an IP address, and
    /// so does this.
    pub fn webauthn(&self, origin: Option<&str>) -> Result<Webauthn, ApiError> {
        let unavailable = || {
            ApiError::conflict("Security keys and passkeys need the site at a domain name.").with_message(
                "Open the site by its name (like localhost or fans.example.org), not by an IP address, or use an authenticator app.",
            )
        };
        let url = origin.and_then(|o| Url::parse(o).ok()).ok_or_else(unavailable)?;
        let rp_id = url.domain().ok_or_else(unavailable)?.to_string();
        WebauthnBuilder::new(&rp_id, &url).and_then(|b| b.rp_name(&self.site_name).build()).map_err(|_| unavailable())
    }

    /// Whether security keys can be used at `origin`.
    pub fn webauthn_available(&self, origin: Option<&str>) -> bool {
        self.webauthn(origin).is_ok()
    }

    /// What the admin guard asks: may this admin account reach the panel without a factor?
    pub fn admin_needs_factor(&self) -> bool {
        self.required_for_admins
    }
}

/// The roles that may add a second factor.
pub fn may_enrol(role: &str) -> bool {
    matches!(role, "admin" | "moderator")
}

/// The guard's refusal for an admin account without a second factor on a site that requires one.
pub fn factor_required() -> ApiError {
    ApiError::forbidden("This site requires a second factor for admin accounts.").with_message(
        "Add an authenticator app or a security key on your account page, then open the admin panel again.",
    )
}
