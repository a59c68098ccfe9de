//! The Roblox client: one [`Roblox`] for every call the site makes to Roblox, with its caches,
//! coalescing, the choice of source (Open Cloud, cookie, anonymous) and the award dates' rules.
//! This file holds the client itself (its configuration, caches and what every call family
//! shares); each family of calls is an `impl Roblox` of its own under `client/`: players
//! (names, profiles, headshots), award dates, badges, groups, and status (health lines and
//! diagnostics). The HTTP under it (hosts, keys, 429s) is `http.rs`, the budgets `budgets.rs`;
//! what it answers is `types.rs`; Roblox's own shapes are `wire.rs`.

use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::budgets::{self, Budgets, Priority};
use super::http::{self, Answer, CookieState, HttpClient, OpenCloudAccess};
use super::store::{self, CacheRow};
use super::types::*;
use super::wire::{Award, DataList, MemberItem, NameHit, Page, RoleList, StoredAwards, Thumb, cloud};
use super::{cache, classify, monitor, routes, settings};
use crate::config::RobloxCookie;
use crate::db::{Db, now_ms};
use crate::error::ApiError;
use crate::jobs::Jobs;

mod awards;
mod badges;
mod groups;
mod players;
mod status;

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(8);
/// Shown when Roblox has no headshot to give (still rendering, moderated, or unreachable).
pub const PLACEHOLDER_AVATAR: &str = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 150 150'%3E%3Crect width='150' height='150' fill='%23cbd5e1'/%3E%3Ccircle cx='75' cy='58' r='28' fill='%2364748b'/%3E%3Crect x='30' y='96' width='90' height='40' rx='20' fill='%2364748b'/%3E%3C/svg%3E";
/// Award dates Roblox refused (no cookie, cookie rejected, hidden inventory) are asked for again after this.
const REFUSED_AWARDS_TTL_MS: i64 = 60 * 60 * 1000;

/// Start-up configuration of the client (from config.rs and site.toml).
#[derive(Clone, Debug)]
pub struct RobloxConfig {
    pub api_template: String,
    pub cookie: Option<RobloxCookie>,
    pub open_cloud: Option<OpenCloudAccess>,
    pub timeout: Duration,
    pub badges: settings::BadgeSettings,
    pub classification: settings::Classification,
    pub poll: settings::PollSettings,
    pub limits: settings::RobloxSettings,
}

#[derive(Clone)]
pub struct Roblox(Arc<Inner>);

pub struct Inner {
    pub http: HttpClient,
    pub(super) db: Db,
    pub config: RobloxConfig,
    names: cache::Bounded<String, Option<u64>>,
    profiles: cache::Bounded<u64, Profile>,
    awards: cache::Bounded<u64, (Awards, Option<Source>)>,
    /// Usernames waiting for a lookup call: visitors' and background work's apart, so a visitor
    /// never waits behind a call that waits for budget.
    name_batches: [std::sync::Mutex<players::NameQueue>; 2],
    /// ELC ids per inventory call: [`INVENTORY_FILTER_IDS`], less once Roblox refused a filter.
    inventory_filter_ids: std::sync::atomic::AtomicUsize,
    /// Role names and ranks by role id, per group (Open Cloud's memberships give only the id).
    roles: cache::Bounded<u64, Arc<groups::GroupRoles>>,
    thumbs: cache::Bounded<u64, String>,
    badge_meta: cache::Bounded<u64, BadgeMeta>,
    reports: cache::Bounded<String, Arc<PlayerReport>>,
    by_name: cache::Coalescer<String, Result<Arc<PlayerReport>, RobloxError>>,
    by_id: cache::Coalescer<u64, Result<Arc<PlayerReport>, RobloxError>>,
    /// The follows' re-checks, apart from `by_id` so a visitor never joins one that waits for
    /// the background share of the budget.
    rechecks: cache::Coalescer<u64, Result<Arc<PlayerReport>, RobloxError>>,
    pub monitor: monitor::Monitor,
    pub(crate) key_requests: routes::KeyRequests,
    /// Lookups through the bot API (which takes no key) that ask Roblox, per caller.
    pub(crate) bot_lookups: crate::ratelimit::PerIp,
    /// Newgen checks with the shared public key that ask Roblox, per caller.
    pub(crate) public_key_lookups: crate::ratelimit::PerIp,
    /// Award dates refused for the whole site (no cookie, cookie rejected) until this time (ms).
    site_refusal: std::sync::Mutex<Option<(i64, Unavailable)>>,
    /// Woken when a lookup wrote player events (the follows' alerts listen).
    pub player_events: crate::jobs::Wake,
}

impl std::ops::Deref for Roblox {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

fn parse<T: DeserializeOwned>(answer: &Answer) -> Result<T, RobloxError> {
    serde_json::from_slice(&answer.body).map_err(|e| RobloxError::BadAnswer(format!("{e}")))
}

/// `limit=100&sortOrder=Asc` and the cursor, for Roblox's cursor-paged lists.
fn page_query(cursor: Option<&str>) -> Vec<(&'static str, String)> {
    let mut query = vec![("limit", "100".to_string()), ("sortOrder", "Asc".to_string())];
    if let Some(c) = cursor.filter(|c| !c.is_empty()) {
        query.push(("cursor", c.to_string()));
    }
    query
}

fn unexpected(answer: &Answer) -> RobloxError {
    RobloxError::Upstream(answer.status.as_u16())
}

impl Roblox {
    pub fn new(config: RobloxConfig, db: Db, jobs: Jobs) -> Self {
        let budgets = Budgets::new(&config.limits.budgets, config.limits.background_share)
            .with_ledger(db.clone(), crate::time::now_ms());
        let http = HttpClient::new(
            &config.api_template,
            config.cookie.clone(),
            config.open_cloud.clone(),
            config.timeout,
            budgets,
            jobs,
        );
        let n = config.limits.cache_entries;
        Self(Arc::new(Inner {
            http,
            db,
            names: cache::Bounded::new(n),
            profiles: cache::Bounded::new(n),
            awards: cache::Bounded::new(n),
            roles: cache::Bounded::new(64),
            inventory_filter_ids: std::sync::atomic::AtomicUsize::new(awards::INVENTORY_FILTER_IDS),
            name_batches: Default::default(),
            thumbs: cache::Bounded::new(n),
            badge_meta: cache::Bounded::new(1000),
            reports: cache::Bounded::new(n),
            by_name: Default::default(),
            by_id: Default::default(),
            rechecks: Default::default(),
            monitor: monitor::Monitor::new(config.badges.tracked.len()),
            key_requests: Default::default(),
            bot_lookups: routes::bot_lookup_limit(),
            public_key_lookups: routes::public_key_lookup_limit(&config.limits.budgets),
            site_refusal: Default::default(),
            player_events: Default::default(),
            config,
        }))
    }

    fn profile_ttl_ms(&self) -> i64 {
        self.config.limits.profile_ttl_hours as i64 * 3_600_000
    }

    pub(super) fn awards_ttl_ms(&self) -> i64 {
        self.config.limits.awards_ttl_days as i64 * 86_400_000
    }

    fn thumb_ttl_ms(&self) -> i64 {
        self.config.limits.thumbnail_ttl_hours.max(1) as i64 * 3_600_000
    }

    /// Writes cache rows and the player; a failed write is logged, never fails the lookup.
    /// The player is stored with what changed since its stored row (`player_events`); the
    /// badges are the ELC badges the lookup found (None: award dates unavailable).
    async fn persist(&self, rows: Vec<CacheRow>, player: Option<(store::PlayerRow, Option<Vec<store::OwnedBadge>>)>) {
        if rows.is_empty() && player.is_none() {
            return;
        }
        let written = self
            .db
            .write(move |tx| {
                store::put_cache(tx, &rows)?;
                match &player {
                    Some((p, badges)) => store::record_player(tx, p, badges.as_deref()),
                    None => Ok(0),
                }
            })
            .await;
        match written {
            Ok(0) => {}
            Ok(_) => self.player_events.wake(),
            Err(e) => tracing::warn!("Roblox lookup not saved: {e}"),
        }
    }

    /// The source of a legacy call: the cookie goes to every legacy host when one is set.
    fn legacy_source(&self) -> Source {
        if self.http.has_cookie() { Source::Cookie } else { Source::Anonymous }
    }

    /// Empties the in-memory caches and the persisted lookup cache (admin "Clear System Cache").
    pub async fn clear_caches(&self) -> Result<usize, ApiError> {
        let n = self.names.len() + self.profiles.len() + self.awards.len() + self.thumbs.len() + self.reports.len();
        self.names.clear();
        self.profiles.clear();
        self.awards.clear();
        self.thumbs.clear();
        self.badge_meta.clear();
        self.reports.clear();
        Ok(n + self.db.write(store::clear_cache).await?)
    }
}
