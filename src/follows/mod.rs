//! Follows: a signed-in fan follows players (at most `[follows] max_per_account`), the server
//! re-checks followed players in the background within the background share of the Roblox
//! budgets, and each change it notices is sent to the fan's own Discord webhook.
//!
//! - `store`: the SQL of `follows`, `alert_webhooks`, `alert_outbox` and `alert_progress`.
//! - `routes`: the account page's calls (follows, the webhook).
//! - `rechecks`: the background re-checks (one per player however many fans follow it).
//! - `webhook`: which Discord webhook URLs are taken, and the one client that posts to them.
//! - `alerts`: the outbox: player events turned into messages (fan-out) and delivered.
//!
//! What the changes are (`player_events`) is the Roblox feature's: it writes them when it stores
//! a player and wakes [`crate::roblox::Roblox::player_events`]; this feature reads them.

pub mod alerts;
pub mod rechecks;
pub mod routes;
pub mod store;
pub mod webhook;

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `[follows]` of site.toml.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FollowSettings {
    /// Players one account may follow.
    #[serde(default = "fifty")]
    pub max_per_account: u32,
    /// A followed player is re-checked at most this often (hours, fractions allowed); less
    /// often when the Roblox budgets are busy (the checks wait for `[roblox] background_share`
    /// of them).
    #[serde(default = "six")]
    pub recheck_hours: f64,
    /// Consecutive 401 or 404 answers from Discord after which a fan's webhook is marked broken.
    #[serde(default = "three")]
    pub broken_after: u32,
}

fn fifty() -> u32 {
    50
}
fn six() -> f64 {
    6.0
}
fn three() -> u32 {
    3
}

impl Default for FollowSettings {
    fn default() -> Self {
        Self { max_per_account: fifty(), recheck_hours: six(), broken_after: three() }
    }
}

impl FollowSettings {
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=1000).contains(&self.max_per_account) {
            return Err("[follows] max_per_account must be 1 to 1000".into());
        }
        // Under an hour is for tests and small sites: the checks still wait for the budget.
        if !(self.recheck_hours.is_finite() && self.recheck_hours > 0.0 && self.recheck_hours <= 720.0) {
            return Err("[follows] recheck_hours must be more than 0 and at most 720".into());
        }
        if !(1..=100).contains(&self.broken_after) {
            return Err("[follows] broken_after must be 1 to 100".into());
        }
        Ok(())
    }

    pub fn recheck_ms(&self) -> i64 {
        ((self.recheck_hours * 3_600_000.0) as i64).max(1)
    }
}

/// The follows' share of the app: its routes, the re-checks and the alerts.
#[derive(Clone)]
pub struct FollowsState {
    pub db: crate::db::Db,
    pub roblox: crate::roblox::Roblox,
    pub settings: FollowSettings,
    pub watch: Arc<rechecks::Watch>,
    pub discord: Arc<webhook::DiscordWebhooks>,
    /// The site's name, address and colour, for the messages.
    pub site_name: String,
    pub base_url: Option<String>,
    pub color: u32,
}

/// The follows' background work: the re-checks and the alerts' outbox.
pub fn background(background: &mut crate::jobs::Background, state: FollowsState) {
    let rechecking = state.clone();
    background.job("follow-rechecks", |job| rechecks::run(rechecking, job));
    background.job("discord-alerts", |job| alerts::run(state, job));
}
