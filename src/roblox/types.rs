//! What the Roblox client answers other features: errors, profiles, award dates, where each came
//! from, player reports and group pages.

use std::time::Duration;

use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use super::classify::{self, Verdict};
use super::{monitor, routes};
use crate::error::ApiError;

/// Why a lookup failed. Converts into the API's error shape.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RobloxError {
    #[error("{0}")]
    BadUsername(String),
    #[error("No Roblox account has the username {0}.")]
    UnknownUser(String),
    #[error("Roblox has no group {0}.")]
    UnknownGroup(u64),
    #[error("Roblox is rate-limiting these lookups; try again in {retry_after_secs} s.")]
    Throttled { retry_after_secs: u64 },
    #[error("Roblox did not answer within {} s.", .0.as_secs_f32())]
    Timeout(Duration),
    #[error("Roblox could not be reached ({0}).")]
    Unreachable(String),
    #[error("Roblox sent an answer this site cannot read ({0}).")]
    BadAnswer(String),
    #[error("Roblox answered with HTTP {0}.")]
    Upstream(u16),
}

impl RobloxError {
    pub fn status(&self) -> StatusCode {
        match self {
            Self::BadUsername(_) => StatusCode::BAD_REQUEST,
            Self::UnknownUser(_) | Self::UnknownGroup(_) => StatusCode::NOT_FOUND,
            Self::Throttled { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
            Self::Unreachable(_) | Self::BadAnswer(_) | Self::Upstream(_) => StatusCode::BAD_GATEWAY,
        }
    }

    /// The short sentence of the error shape (`error`); the detail goes in `message`.
    pub fn headline(&self) -> &'static str {
        match self {
            Self::BadUsername(_) => "Invalid username",
            Self::UnknownUser(_) => "Player not found",
            Self::UnknownGroup(_) => "Group not found",
            Self::Throttled { .. } => "Roblox is busy",
            Self::Timeout(_) => "Roblox did not answer in time",
            Self::Unreachable(_) | Self::BadAnswer(_) | Self::Upstream(_) => "Roblox lookup failed",
        }
    }
}

impl From<RobloxError> for ApiError {
    fn from(e: RobloxError) -> Self {
        let mut api = ApiError::new(e.status(), e.headline()).with_message(e.to_string());
        if let RobloxError::Throttled { retry_after_secs } = e {
            api.retry_after_secs = Some(retry_after_secs.max(1));
        }
        api
    }
}

/// A Roblox user's public profile (`users/v1/users/{id}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub id: u64,
    pub name: String,
    pub display_name: String,
    #[serde(default)]
    pub description: String,
    /// RFC 3339, the join date.
    pub created: String,
    #[serde(default)]
    pub is_banned: bool,
    #[serde(default, rename = "hasVerifiedBadge")]
    pub verified: bool,
    /// Where it was read (kept with the cached profile).
    #[serde(default, rename = "fanhubSource", skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
}

/// An ELC badge the player owns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AwardedBadge {
    pub badge_id: u64,
    pub name: String,
    pub description: String,
    /// RFC 3339 as Roblox gave it.
    pub awarded_date: String,
}

/// Why the award dates are missing.
#[derive(Clone, Debug, PartialEq)]
pub enum Unavailable {
    /// Roblox answered 401/403 and the site has no cookie (the 2026 policy change).
    NeedsCookie,
    /// Roblox answered 401/403 to the configured cookie.
    CookieRejected,
    /// Roblox answered with an error for this player only (hidden inventory, it seems).
    Hidden,
    /// Open Cloud answered 403 for this player's inventory: it is not visible to everyone.
    Private,
    /// Open Cloud listed no badges at all for this player: a private inventory and an
    /// inventory without badges look the same, so ownership of the ELC badges is unknown.
    NothingVisible,
    /// Rate-limited, timed out or unreachable: try later.
    Temporary(String),
}

impl Unavailable {
    pub fn code(&self) -> &'static str {
        match self {
            Self::NeedsCookie => "needsCookie",
            Self::CookieRejected => "cookieRejected",
            Self::Hidden => "hidden",
            Self::Private => "private",
            Self::NothingVisible => "nothingVisible",
            Self::Temporary(_) => "temporary",
        }
    }

    pub fn sentence(&self) -> String {
        match self {
            Self::NeedsCookie => "Roblox now refuses badge award dates to visitors who are not signed in, and this site has no Roblox cookie configured.".into(),
            Self::CookieRejected => "Roblox refused the site's Roblox cookie when asked for badge award dates (it may have expired).".into(),
            Self::Hidden => "Roblox returned an error for this player's badges; their inventory may be hidden.".into(),
            Self::Private => "This player's Roblox inventory is private, so their ELC badges cannot be seen. They can show it in Roblox under Settings > Privacy > \"Who can see my inventory?\" > Everyone.".into(),
            Self::NothingVisible => "Roblox listed no badges at all for this player: their inventory is private or holds no badges, so whether they own an ELC badge is unknown.".into(),
            Self::Temporary(why) => format!("Roblox's badge award dates could not be read right now: {why}"),
        }
    }
}

/// The ELC award dates of one player.
#[derive(Clone, Debug, PartialEq)]
pub enum Awards {
    /// Owned ELC badges, earliest award first (empty: none owned).
    Known(Vec<AwardedBadge>),
    Unavailable(Unavailable),
}

impl Awards {
    pub fn owned(&self) -> Option<&[AwardedBadge]> {
        match self {
            Awards::Known(b) => Some(b),
            Awards::Unavailable(_) => None,
        }
    }
}

/// Where a part of a report came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// Roblox Open Cloud with the site's API key.
    OpenCloud,
    /// The legacy hosts with the site's `.ROBLOSECURITY` cookie.
    Cookie,
    /// The legacy hosts without credentials.
    Anonymous,
}

/// Which source gave a report's profile (join date) and its ELC award dates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(rename_all = "camelCase")]
pub struct Sources {
    /// Null for a profile read before sources were recorded.
    pub profile: Option<Source>,
    /// Null when the award dates were not read (none configured, or unavailable) or were read
    /// before sources were recorded.
    pub award_dates: Option<Source>,
}

/// Everything known about one player, classified.
#[derive(Clone, Debug)]
pub struct PlayerReport {
    pub profile: Profile,
    /// A Roblox CDN URL, or [`PLACEHOLDER_AVATAR`].
    pub avatar_url: String,
    pub awards: Awards,
    /// How many ELC badges the site knows (`[badges] elc`).
    pub elc_total: usize,
    pub verdict: Verdict,
    pub sources: Sources,
    /// When this report was put together (ms since the epoch).
    pub checked_at_ms: i64,
    /// Its newgen-check answer, serialized once (see `routes::newgen_check`).
    pub rendered: routes::Rendered,
}

impl PlayerReport {
    pub fn account_age_days(&self) -> i64 {
        classify::age_days(&self.profile.created, jiff::Timestamp::now())
    }

    pub fn checked_at(&self) -> String {
        crate::db::rfc3339(self.checked_at_ms)
    }

    pub fn elc_count(&self) -> Option<usize> {
        self.awards.owned().map(<[_]>::len)
    }
}

/// `groups/v1/groups/{id}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupInfo {
    pub id: u64,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub member_count: u64,
    #[serde(default)]
    pub owner: Option<GroupOwner>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupOwner {
    pub user_id: u64,
    pub username: String,
}

/// One member from `groups/v1/groups/{id}/users`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupMember {
    pub user_id: u64,
    pub username: String,
    pub display_name: String,
    pub verified: bool,
    pub role_name: String,
    pub role_rank: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MembersPage {
    pub members: Vec<GroupMember>,
    /// Pass back to get the next page; None after the last.
    pub next_cursor: Option<String>,
}

/// One page of `badges/v1/universes/{id}/badges`.
#[derive(Clone, Debug)]
pub struct BadgePage {
    pub badges: Vec<monitor::BadgeInfo>,
    pub next_cursor: Option<String>,
}

/// Badge name and description (`badges/v1/badges/{id}`), cached for the ELC lists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BadgeMeta {
    pub name: String,
    pub description: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_map_to_the_api_statuses() {
        let cases = [
            (RobloxError::BadUsername("x".into()), 400),
            (RobloxError::UnknownUser("x".into()), 404),
            (RobloxError::Throttled { retry_after_secs: 9 }, 503),
            (RobloxError::Timeout(Duration::from_secs(1)), 504),
            (RobloxError::BadAnswer("x".into()), 502),
            (RobloxError::Unreachable("x".into()), 502),
            (RobloxError::Upstream(500), 502),
        ];
        for (e, status) in cases {
            let api: ApiError = e.clone().into();
            assert_eq!(api.status.as_u16(), status, "{e:?}");
            assert!(api.body.message.is_some());
        }
        let api: ApiError = RobloxError::Throttled { retry_after_secs: 9 }.into();
        assert_eq!(api.retry_after_secs, Some(9));
    }
}
