//! Roblox lookups: one client for every Roblox call the site makes, the newgen classification,
//! the bot API and the badge monitor.
//!
//! # For other features (group scans, the Discord commands)
//!
//! A feature that needs Roblox is handed a [`Roblox`] (cheap to clone). Everything it returns is
//! already cached, coalesced, budgeted and reported to [`Jobs`]:
//!
//! - [`Roblox::lookup`]`(username, Priority) -> Result<Arc<PlayerReport>, RobloxError>`: the full
//!   report of one player (profile, headshot, ELC award dates, classification). Also stores the
//!   player in the `players` table.
//! - [`Roblox::lookup_user_id`]`(user_id, Priority)`: the same by user id (group members).
//! - [`Roblox::cached`]`(username) -> Option<Arc<PlayerReport>>`: memory only, never waits (for
//!   Discord's 3 s deadline: answer from here, else defer and call `lookup`).
//! - [`Roblox::group_info`]`(group_id, Priority) -> Result<GroupInfo, RobloxError>`.
//! - [`Roblox::group_members_page`]`(group_id, cursor, Priority) -> Result<MembersPage, RobloxError>`:
//!   100 members per page; pass `next_cursor` back until it is `None`.
//!
//! [`Priority::Interactive`] is for a person waiting (fails fast with `Throttled{retry_after_secs}`
//! when the budget is spent); [`Priority::Background`] waits for budget and may use only
//! `[roblox] background_share` of each endpoint's budget, so visitors still get answers during
//! a scan. [`RobloxError`] converts into the API's error (`?` in a handler): 400 bad username,
//! 404 unknown user or group, 503 throttled (with Retry-After), 504 timeout, 502 otherwise.
//!
//! Configuration: `FANHUB_ROBLOX_API` (host template, default `https://{service}.roblox.com`),
//! `FANHUB_ROBLOX_COOKIE` (optional `.ROBLOSECURITY`, sent only to those hosts, never logged),
//! `FANHUB_ROBLOX_OPEN_CLOUD_KEY` (optional Open Cloud API key, sent only to
//! `FANHUB_ROBLOX_OPEN_CLOUD_API`, default `https://apis.roblox.com`, never logged),
//! `FANHUB_ROBLOX_TIMEOUT_MS`; budgets, cache lifetimes and the background share in site.toml
//! `[roblox]`; ELC and tracked badge ids in `[badges]`; rules in `[classification]`.
//!
//! # Which source answers
//!
//! Join dates, ELC award dates, group facts and member lists come from Open Cloud when a key is
//! set and Roblox accepts it; otherwise (and for ten minutes after Roblox refuses the key) from
//! the legacy hosts, with the cookie when one is set. Usernames and headshots always come from
//! the legacy hosts (Open Cloud has no such calls). Each report says which source gave what.

pub mod budgets;
pub mod cache;
pub mod classify;
mod client;
pub mod history;
pub mod http;
pub mod monitor;
pub mod routes;
pub mod settings;
pub mod store;
mod sweep;
mod types;
mod wire;

pub use budgets::Priority;
pub use classify::{Evidence, Verdict};
pub use client::{DEFAULT_TIMEOUT, PLACEHOLDER_AVATAR, Roblox, RobloxConfig};
pub use http::{CookieState, OpenCloudAccess};
pub use types::*;

pub use crate::config::{
    OpenCloudKey, ROBLOX_DEFAULT_API_TEMPLATE as DEFAULT_API_TEMPLATE,
    ROBLOX_DEFAULT_OPEN_CLOUD_API as DEFAULT_OPEN_CLOUD_API, RobloxCookie,
};

/// The Roblox feature's background work: the badge monitor's polls and the sweep of its tables.
pub fn background(
    background: &mut crate::jobs::Background,
    roblox: Roblox,
    retention: crate::db::retention::RetentionSettings,
) {
    background.job("badge-monitor", |job| monitor::run(roblox.clone(), job));
    background.job("roblox-sweep", |job| sweep::run(roblox, retention, job));
}
