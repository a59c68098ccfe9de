//! Public happenings a community bot can follow (`GET /api/v1/events`): new members, banner
//! changes, site upgrades. Features record them in the same transaction as the change itself, so
//! an event exists exactly when its change does. Events name no person and carry no IP.

pub mod store;

pub use store::{Event, record};

/// The event types, documented on /api-docs and in the OpenAPI document.
pub const TYPES: [&str; 3] = [MEMBER_JOINED, BANNER_CHANGED, SITE_UPGRADED];
/// A fan created an account. `{members}`: the number of accounts now.
pub const MEMBER_JOINED: &str = "member.joined";
/// The bottom banner changed. `{banner: "default" | "custom", backgroundColor, textColor, borderColor}`.
pub const BANNER_CHANGED: &str = "banner.changed";
/// The site runs a new version. `{from, to}`.
pub const SITE_UPGRADED: &str = "site.upgraded";
