//! The Roblox client: one [`Roblox`] for every call the site makes to Roblox, with its caches,
//! coalescing, the choice of source (Open Cloud, cookie, anonymous) and the award dates' rules.
//! The HTTP under it (hosts, keys, budgets, 429s) is `http.rs`; what it answers is `types.rs`;
//! Roblox's own shapes are `wire.rs`.

use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::http::{self, Answer, Budgets, CookieState, HttpClient, OpenCloudAccess, Priority};
use super::store::{self, CacheRow};
use super::types::*;
use super::wire::{Award, DataList, MemberItem, NameHit, Page, RoleList, StoredAwards, Thumb, cloud};
use super::{cache, classify, monitor, routes, settings};
use crate::config::RobloxCookie;
use crate::db::{Db, now_ms};
use crate::error::ApiError;
use crate::jobs::Jobs;

/// ELC badge ids asked about in one inventory call at first (Roblox does not say how many its
/// filter takes; this keeps the URL short). A filter Roblox refuses (400) is split in halves and
/// the smaller size kept for the next players.
const INVENTORY_FILTER_IDS: usize = 50;
/// Pages of one inventory filter followed at most: a filter of 50 ids fits one page of 100, so
/// more means Roblox is not paging as documented.
const MAX_INVENTORY_PAGES: usize = 4;
/// A group's role names are asked for again after this.
const ROLES_TTL_MS: i64 = 60 * 60 * 1000;
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(8);
/// Shown when Roblox has no headshot to give (still rendering, moderated, or unreachable).
pub const PLACEHOLDER_AVATAR: &str = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 150 150'%3E%3Crect width='150' height='150' fill='%23cbd5e1'/%3E%3Ccircle cx='75' cy='58' r='28' fill='%2364748b'/%3E%3Crect x='30' y='96' width='90' height='40' rx='20' fill='%2364748b'/%3E%3C/svg%3E";
/// A Pending headshot is asked for again this many times, this far apart, before the placeholder.
const PENDING_RETRIES: u32 = 2;
const PENDING_PAUSE: Duration = Duration::from_millis(500);
/// Unknown usernames are remembered this long (they cost a call each).
const UNKNOWN_NAME_TTL_MS: i64 = 10 * 60 * 1000;
/// Award dates Roblox refused (no cookie, cookie rejected, hidden inventory) are asked for again after this.
const REFUSED_AWARDS_TTL_MS: i64 = 60 * 60 * 1000;
/// After Roblox refuses award dates for want of a (valid) cookie, which holds for every player,
/// nobody's are asked for this long: a scan would otherwise spend one refused call per member.
const SITE_REFUSAL_TTL_MS: i64 = 10 * 60 * 1000;

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
    name_batches: [std::sync::Mutex<NameQueue>; 2],
    /// ELC ids per inventory call: [`INVENTORY_FILTER_IDS`], less once Roblox refused a filter.
    inventory_filter_ids: std::sync::atomic::AtomicUsize,
    /// Role names and ranks by role id, per group (Open Cloud's memberships give only the id).
    roles: cache::Bounded<u64, Arc<GroupRoles>>,
    thumbs: cache::Bounded<u64, String>,
    badge_meta: cache::Bounded<u64, BadgeMeta>,
    reports: cache::Bounded<String, Arc<PlayerReport>>,
    by_name: cache::Coalescer<String, Result<Arc<PlayerReport>, RobloxError>>,
    by_id: cache::Coalescer<u64, Result<Arc<PlayerReport>, RobloxError>>,
    pub monitor: monitor::Monitor,
    pub(crate) key_requests: routes::KeyRequests,
    /// Lookups through the bot API (which takes no key) that ask Roblox, per caller.
    pub(crate) bot_lookups: crate::ratelimit::PerIp,
    /// Newgen checks with the shared public key that ask Roblox, per caller.
    pub(crate) public_key_lookups: crate::ratelimit::PerIp,
    /// Award dates refused for the whole site (no cookie, cookie rejected) until this time (ms).
    site_refusal: std::sync::Mutex<Option<(i64, Unavailable)>>,
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

/// `thumbnails/v1/users/avatar-headshot`'s query for up to 100 players: 150 px PNG squares.
fn headshot_query(ids: &[u64]) -> [(&'static str, String); 4] {
    [
        ("userIds", ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",")),
        ("size", "150x150".to_string()),
        ("format", "Png".to_string()),
        ("isCircular", "false".to_string()),
    ]
}

fn unexpected(answer: &Answer) -> RobloxError {
    RobloxError::Upstream(answer.status.as_u16())
}

/// What one inventory filter gave.
enum InventoryRead {
    /// `(badge id, award time)` of the badges listed.
    Items(Vec<(u64, String)>),
    KeyRejected,
    /// 400: Roblox did not take the filter (too many ids, it seems).
    FilterRefused,
    Refused(Unavailable),
}

impl InventoryRead {
    /// Why the award dates are unavailable after this read; None when Roblox refused the key
    /// (the caller falls back to the next source) or when the read listed items.
    fn refusal(self) -> Option<Unavailable> {
        match self {
            Self::Items(_) | Self::KeyRejected => None,
            Self::FilterRefused => {
                Some(Unavailable::Temporary("Open Cloud refused the inventory filter (HTTP 400)".into()))
            }
            Self::Refused(why) => Some(why),
        }
    }
}

/// Names one username lookup takes (Roblox's documented batch).
const NAMES_PER_CALL: usize = 100;

/// A group's role names and ranks, by role id.
type GroupRoles = std::collections::HashMap<u64, (String, i64)>;

type NameReply = tokio::sync::oneshot::Sender<Result<Option<u64>, RobloxError>>;

/// The usernames waiting for a lookup call, and whether one is out.
#[derive(Default)]
struct NameQueue {
    in_flight: bool,
    waiting: Vec<(String, NameReply)>,
}

/// Open Cloud page tokens are kept in a scan's cursor with this mark, so a scan resumed later
/// asks the API that gave it.
const CLOUD_CURSOR: &str = "oc:";

impl Roblox {
    pub fn new(config: RobloxConfig, db: Db, jobs: Jobs) -> Self {
        let budgets = Budgets::new(&config.limits.budgets, config.limits.background_share);
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
            inventory_filter_ids: std::sync::atomic::AtomicUsize::new(INVENTORY_FILTER_IDS),
            name_batches: Default::default(),
            thumbs: cache::Bounded::new(n),
            badge_meta: cache::Bounded::new(1000),
            reports: cache::Bounded::new(n),
            by_name: Default::default(),
            by_id: Default::default(),
            monitor: monitor::Monitor::new(config.badges.tracked.len()),
            key_requests: Default::default(),
            bot_lookups: routes::bot_lookup_limit(),
            public_key_lookups: routes::public_key_lookup_limit(&config.limits.budgets),
            site_refusal: Default::default(),
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

    /// The full report of `username` (Roblox's username rules are checked first: 400).
    pub async fn lookup(&self, username: &str, priority: Priority) -> Result<Arc<PlayerReport>, RobloxError> {
        let username = username.trim();
        classify::check_username(username).map_err(RobloxError::BadUsername)?;
        let key = username.to_ascii_lowercase();
        if let Some(report) = self.cached(&key) {
            return Ok(report);
        }
        self.by_name.run(key.clone(), || self.fetch_by_name(username.to_string(), key, priority)).await
    }

    /// True when a lookup of `username` now would not ask Roblox: it is cached or already running.
    pub fn answered_without_asking(&self, username: &str) -> bool {
        let key = username.trim().to_ascii_lowercase();
        self.cached(&key).is_some() || self.by_name.in_flight(&key)
    }

    /// The report of a cached lookup of `username`, still fresh; never calls Roblox.
    pub fn cached(&self, username: &str) -> Option<Arc<PlayerReport>> {
        self.reports.get(&username.trim().to_ascii_lowercase(), now_ms() - self.profile_ttl_ms())
    }

    /// The full report of the user with this id.
    pub async fn lookup_user_id(&self, user_id: u64, priority: Priority) -> Result<Arc<PlayerReport>, RobloxError> {
        self.by_id.run(user_id, || self.report_for(user_id, priority)).await
    }

    async fn fetch_by_name(
        &self,
        username: String,
        key: String,
        priority: Priority,
    ) -> Result<Arc<PlayerReport>, RobloxError> {
        let id = self.resolve(&username, &key, priority).await?;
        let report = self.by_id.run(id, || self.report_for(id, priority)).await?;
        self.remember(key, &report);
        Ok(report)
    }

    /// Keeps a report for cached lookups as long as its shortest-lived part: the profile's hours
    /// when the award dates were read, the hour of a refusal (a cookie may be set meanwhile), and
    /// not at all after a temporary failure or without a headshot (the placeholder), so the next
    /// lookup asks for what is missing again (only that: the rest stays cached).
    fn remember(&self, key: String, report: &Arc<PlayerReport>) {
        if report.avatar_url == PLACEHOLDER_AVATAR {
            return;
        }
        let stamp = match &report.awards {
            Awards::Known(_) => report.checked_at_ms,
            Awards::Unavailable(Unavailable::Temporary(_)) => return,
            Awards::Unavailable(_) => {
                report.checked_at_ms - self.profile_ttl_ms() + REFUSED_AWARDS_TTL_MS.min(self.profile_ttl_ms())
            }
        };
        self.reports.insert(key, report.clone(), stamp);
    }

    /// Username -> user id: memory, then SQLite, then `POST users/v1/usernames/users`.
    async fn resolve(&self, username: &str, key: &str, priority: Priority) -> Result<u64, RobloxError> {
        let now = now_ms();
        if let Some(hit) = self.names.get(&key.to_string(), now - self.profile_ttl_ms()) {
            return hit.ok_or_else(|| RobloxError::UnknownUser(username.to_string()));
        }
        if let Some(id) = self.persisted_name(key, now - self.profile_ttl_ms()).await {
            self.names.insert(key.to_string(), Some(id), now);
            return Ok(id);
        }
        let Some(id) = self.look_up_name(username, priority).await? else {
            // Remembered briefly so a repeated typo does not cost a call each time.
            self.names.insert(key.to_string(), None, now - self.profile_ttl_ms() + UNKNOWN_NAME_TTL_MS);
            return Err(RobloxError::UnknownUser(username.to_string()));
        };
        self.names.insert(key.to_string(), Some(id), now);
        let row = CacheRow { kind: "name", key: key.to_string(), body: id.to_string(), fetched_at: now };
        self.persist(vec![row], None).await;
        Ok(id)
    }

    /// `POST users/v1/usernames/users` for `username`, together with the other names asked for
    /// meanwhile: while one call is out, the names that arrive wait for the next, which takes up
    /// to 100 at once. A lone lookup leaves at once; under load the calls stay few.
    async fn look_up_name(&self, username: &str, priority: Priority) -> Result<Option<u64>, RobloxError> {
        let batch = self.name_queue(priority);
        let (tx, rx) = tokio::sync::oneshot::channel();
        let lead = {
            let mut queue = batch.lock().unwrap_or_else(|p| p.into_inner());
            queue.waiting.push((username.to_string(), tx));
            !std::mem::replace(&mut queue.in_flight, true)
        };
        if lead {
            // A task of its own, so the calls go on when the visitor who started them leaves.
            let this = self.clone();
            tokio::spawn(async move { this.send_name_batches(priority).await });
        }
        rx.await.unwrap_or_else(|_| Err(RobloxError::Unreachable("the username lookup stopped".into())))
    }

    fn name_queue(&self, priority: Priority) -> &std::sync::Mutex<NameQueue> {
        match priority {
            Priority::Interactive => &self.name_batches[0],
            Priority::Background => &self.name_batches[1],
        }
    }

    /// Sends the waiting names, up to 100 a call, until none is left.
    async fn send_name_batches(&self, priority: Priority) {
        let batch = self.name_queue(priority);
        loop {
            let names: Vec<(String, NameReply)> = {
                let mut queue = batch.lock().unwrap_or_else(|p| p.into_inner());
                if queue.waiting.is_empty() {
                    queue.in_flight = false;
                    return;
                }
                let n = queue.waiting.len().min(NAMES_PER_CALL);
                queue.waiting.drain(..n).collect()
            };
            let mut asked: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
            asked.sort_unstable_by_key(|n| n.to_ascii_lowercase());
            asked.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
            let body = serde_json::json!({"usernames": asked, "excludeBannedUsers": false});
            let found = match self.http.call(&http::USERNAMES, "v1/usernames/users", &[], Some(&body), priority).await {
                Ok(answer) if answer.status.is_success() => parse::<DataList<NameHit>>(&answer).map(|l| l.data),
                Ok(answer) => Err(unexpected(&answer)),
                Err(e) => Err(e),
            };
            for (name, reply) in names {
                let _ = reply.send(found.as_ref().map_err(Clone::clone).map(|hits| {
                    let asked_as = |h: &&NameHit| h.requested_username.eq_ignore_ascii_case(&name);
                    let named = |h: &&NameHit| h.name.eq_ignore_ascii_case(&name);
                    hits.iter().find(asked_as).or_else(|| hits.iter().find(named)).map(|h| h.id)
                }));
            }
        }
    }

    async fn persisted_name(&self, key: &str, fresh_since: i64) -> Option<u64> {
        let key = key.to_string();
        let rows = self.db.read(move |c| store::cache_rows(c, &key, &["name"])).await.ok()?;
        rows.into_iter().find(|(_, _, at)| *at >= fresh_since).and_then(|(_, body, _)| body.parse().ok())
    }

    /// Loads the persisted profile, award dates and headshot of `id` into memory (fresh ones only).
    async fn warm_from_db(&self, id: u64) {
        let key = id.to_string();
        let Ok(rows) = self.db.read(move |c| store::cache_rows(c, &key, &["profile", "awards", "thumb"])).await else {
            return;
        };
        let now = now_ms();
        for (kind, body, at) in rows {
            match kind.as_str() {
                "profile" if at >= now - self.profile_ttl_ms() => {
                    if let Ok(p) = serde_json::from_str::<Profile>(&body) {
                        self.profiles.insert(id, p, at);
                    }
                }
                "awards" if at >= now - self.awards_ttl_ms() => {
                    if let Some((list, source)) = StoredAwards::parse(&body) {
                        self.awards.insert(id, (Awards::Known(list), source), at);
                    }
                }
                "thumb" if at >= now - self.thumb_ttl_ms() => self.thumbs.insert(id, body, at),
                _ => {}
            }
        }
    }

    async fn report_for(&self, id: u64, priority: Priority) -> Result<Arc<PlayerReport>, RobloxError> {
        let now = now_ms();
        if self.profiles.get(&id, now - self.profile_ttl_ms()).is_none() {
            self.warm_from_db(id).await;
        }
        let mut rows = Vec::new();
        let profile = self.profile(id, priority, &mut rows).await?;
        let (((awards, award_source), award_row), (avatar_url, thumb_row)) =
            tokio::join!(self.award_dates(id, priority), self.headshot(id, priority));
        rows.extend(award_row);
        rows.extend(thumb_row);
        let elc_total = self.config.badges.elc.len();
        let verdict = classify::classify(&self.config.classification, &profile, &awards, elc_total);
        let sources = Sources { profile: profile.source, award_dates: award_source };
        let report = Arc::new(PlayerReport {
            profile,
            avatar_url,
            awards,
            elc_total,
            verdict,
            sources,
            checked_at_ms: now_ms(),
            rendered: Default::default(),
        });
        let player = store::PlayerRow {
            user_id: report.profile.id,
            username: report.profile.name.clone(),
            display_name: report.profile.display_name.clone(),
            verified: report.profile.verified,
            banned: report.profile.is_banned,
            created: report.profile.created.clone(),
            generation: report.verdict.generation.as_str().to_string(),
            classification: report.verdict.classification.clone(),
            is_newgen: report.verdict.is_newgen,
            is_veteran: report.verdict.is_veteran,
            elc_count: report.elc_count().map(|n| n as u32),
            confidence: report.verdict.confidence,
            checked_at: report.checked_at_ms,
        };
        self.persist(rows, Some(player)).await;
        self.remember(report.profile.name.to_ascii_lowercase(), &report);
        Ok(report)
    }

    /// Writes cache rows and the player; a failed write is logged, never fails the lookup.
    async fn persist(&self, rows: Vec<CacheRow>, player: Option<store::PlayerRow>) {
        if rows.is_empty() && player.is_none() {
            return;
        }
        let written = self
            .db
            .write(move |tx| {
                store::put_cache(tx, &rows)?;
                if let Some(p) = &player {
                    store::upsert_player(tx, p)?;
                }
                Ok(())
            })
            .await;
        if let Err(e) = written {
            tracing::warn!("Roblox lookup not saved: {e}");
        }
    }

    async fn profile(&self, id: u64, priority: Priority, rows: &mut Vec<CacheRow>) -> Result<Profile, RobloxError> {
        let now = now_ms();
        if let Some(p) = self.profiles.get(&id, now - self.profile_ttl_ms()) {
            return Ok(p);
        }
        let from_cloud = if self.http.open_cloud_ready() { self.cloud_profile(id, priority).await? } else { None };
        let profile = match from_cloud {
            Some(p) => p,
            None => self.legacy_profile(id, priority).await?,
        };
        if profile.created.parse::<jiff::Timestamp>().is_err() {
            return Err(RobloxError::BadAnswer(format!("join date {:?}", profile.created)));
        }
        self.profiles.insert(id, profile.clone(), now);
        rows.push(CacheRow {
            kind: "profile",
            key: id.to_string(),
            body: serde_json::to_string(&profile).expect("a profile serializes"),
            fetched_at: now,
        });
        Ok(profile)
    }

    /// The source of a legacy call: the cookie goes to every legacy host when one is set.
    fn legacy_source(&self) -> Source {
        if self.http.has_cookie() { Source::Cookie } else { Source::Anonymous }
    }

    /// `users/v1/users/{id}`.
    async fn legacy_profile(&self, id: u64, priority: Priority) -> Result<Profile, RobloxError> {
        let answer = self.http.call(&http::USER, &format!("v1/users/{id}"), &[], None, priority).await?;
        match answer.status.as_u16() {
            200 => {}
            400 | 404 => return Err(RobloxError::UnknownUser(format!("with id {id}"))),
            _ => return Err(unexpected(&answer)),
        }
        let mut profile: Profile = parse(&answer)?;
        profile.source = Some(self.legacy_source());
        Ok(profile)
    }

    /// Open Cloud's `cloud/v2/users/{id}`; None when Roblox refused the key (the caller falls back).
    async fn cloud_profile(&self, id: u64, priority: Priority) -> Result<Option<Profile>, RobloxError> {
        let answer = self.http.call(&http::CLOUD_USER, &format!("cloud/v2/users/{id}"), &[], None, priority).await?;
        if answer.key_rejected {
            return Ok(None);
        }
        match answer.status.as_u16() {
            200 => {}
            400 | 404 => return Err(RobloxError::UnknownUser(format!("with id {id}"))),
            _ => return Err(unexpected(&answer)),
        }
        let user: cloud::User = parse(&answer)?;
        let created =
            user.create_time.ok_or_else(|| RobloxError::BadAnswer("a user without a join date (createTime)".into()))?;
        Ok(Some(Profile {
            id: user.id.and_then(|i| i.get()).unwrap_or(id),
            display_name: user.display_name.filter(|d| !d.is_empty()).unwrap_or_else(|| user.name.clone()),
            name: user.name,
            description: user.about.unwrap_or_default(),
            created,
            // Open Cloud says nothing of bans or the verified badge.
            is_banned: false,
            verified: false,
            source: Some(Source::OpenCloud),
        }))
    }

    /// The ELC award dates and where they came from; never an error (the reason is in
    /// `Awards::Unavailable`).
    async fn award_dates(&self, id: u64, priority: Priority) -> ((Awards, Option<Source>), Option<CacheRow>) {
        let now = now_ms();
        if self.config.badges.elc.is_empty() {
            return ((Awards::Known(Vec::new()), None), None);
        }
        if let Some(a) = self.awards.get(&id, now - self.awards_ttl_ms()) {
            return (a, None);
        }
        let read = if self.http.open_cloud_ready() { self.cloud_award_dates(id, priority).await } else { None };
        let (found, source) = match read {
            Some(found) => (found, Source::OpenCloud),
            None => (self.legacy_award_dates(id, priority).await, self.legacy_source()),
        };
        let awarded = match found {
            Ok(list) => list,
            Err(why @ Unavailable::Temporary(_)) => return ((Awards::Unavailable(why), None), None),
            Err(why) => {
                // Kept an hour, in memory only: the cached entry's age makes it expire early.
                let at = now - self.awards_ttl_ms() + REFUSED_AWARDS_TTL_MS;
                self.awards.insert(id, (Awards::Unavailable(why.clone()), None), at);
                return ((Awards::Unavailable(why), None), None);
            }
        };
        let mut owned = Vec::new();
        for (badge_id, awarded_date) in awarded {
            let meta = self.badge_meta(badge_id, priority).await;
            owned.push(AwardedBadge {
                badge_id,
                name: meta.as_ref().map_or_else(|| format!("Badge {badge_id}"), |m| m.name.clone()),
                description: meta.map(|m| m.description).unwrap_or_default(),
                awarded_date,
            });
        }
        owned.sort_by(|a, b| a.awarded_date.cmp(&b.awarded_date));
        self.awards.insert(id, (Awards::Known(owned.clone()), Some(source)), now);
        let row = CacheRow {
            kind: "awards",
            key: id.to_string(),
            body: StoredAwards::render(&owned, source),
            fetched_at: now,
        };
        ((Awards::Known(owned), Some(source)), Some(row))
    }

    /// `badges/v1/users/{id}/badges/awarded-dates`: the owned ELC badges with their dates.
    async fn legacy_award_dates(&self, id: u64, priority: Priority) -> Result<Vec<(u64, String)>, Unavailable> {
        if let Some(why) = self.award_dates_refused() {
            return Err(why);
        }
        let now = now_ms();
        let elc = &self.config.badges.elc;
        let ids = elc.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
        let path = format!("v1/users/{id}/badges/awarded-dates");
        let answer = self
            .http
            .call(&http::AWARDED_DATES, &path, &[("badgeIds", ids)], None, priority)
            .await
            .map_err(|e| Unavailable::Temporary(e.to_string()))?;
        match answer.status.as_u16() {
            200 => {}
            401 | 403 if self.http.has_cookie() => {
                self.http.note_cookie(false);
                self.note_site_refusal(Unavailable::CookieRejected, now);
                return Err(Unavailable::CookieRejected);
            }
            401 | 403 => {
                self.note_site_refusal(Unavailable::NeedsCookie, now);
                return Err(Unavailable::NeedsCookie);
            }
            400 | 404 | 500 => return Err(Unavailable::Hidden),
            s => return Err(Unavailable::Temporary(format!("HTTP {s}"))),
        }
        self.http.note_cookie(true);
        let list: DataList<Award> = parse(&answer).map_err(|e| Unavailable::Temporary(e.to_string()))?;
        Ok(list.data.into_iter().filter(|a| elc.contains(&a.badge_id)).map(|a| (a.badge_id, a.awarded_date)).collect())
    }

    /// Open Cloud's inventory: the owned ELC badges with the time each was added (the award
    /// time). None when Roblox refused the key (the caller falls back to the legacy call).
    ///
    /// An empty answer is only "owns none" when the inventory shows some badge: one more call
    /// asks for any badge at all, and when that is empty too the answer says it is unknown.
    async fn cloud_award_dates(&self, id: u64, priority: Priority) -> Option<Result<Vec<(u64, String)>, Unavailable>> {
        use std::sync::atomic::Ordering::Relaxed;
        let elc = &self.config.badges.elc;
        let mut owned = Vec::new();
        let size = self.inventory_filter_ids.load(Relaxed).max(1);
        let mut chunks: Vec<&[u64]> = elc.chunks(size).rev().collect();
        while let Some(chunk) = chunks.pop() {
            let filter = format!("badgeIds={}", chunk.iter().map(u64::to_string).collect::<Vec<_>>().join(","));
            match self.cloud_inventory(id, &filter, 100, MAX_INVENTORY_PAGES, priority).await {
                InventoryRead::Items(items) => owned.extend(items.into_iter().filter(|(b, _)| chunk.contains(b))),
                InventoryRead::FilterRefused if chunk.len() > 1 => {
                    let half = chunk.len().div_ceil(2);
                    if self.inventory_filter_ids.fetch_min(half, Relaxed) > half {
                        tracing::info!(
                            "Roblox refused an inventory filter of {} badge ids; asking {half} at a time",
                            chunk.len()
                        );
                    }
                    let (first, second) = chunk.split_at(half);
                    chunks.push(second);
                    chunks.push(first);
                }
                other => return other.refusal().map(Err),
            }
        }
        owned.sort();
        owned.dedup_by_key(|(b, _)| *b);
        if !owned.is_empty() {
            return Some(Ok(owned));
        }
        match self.cloud_inventory(id, "badges=true", 1, 1, priority).await {
            InventoryRead::Items(any) if any.is_empty() => Some(Err(Unavailable::NothingVisible)),
            InventoryRead::Items(_) => Some(Ok(Vec::new())),
            other => other.refusal().map(Err),
        }
    }

    /// The badges of one inventory filter, following at most `max_pages` pages.
    async fn cloud_inventory(
        &self,
        id: u64,
        filter: &str,
        page_size: usize,
        max_pages: usize,
        priority: Priority,
    ) -> InventoryRead {
        let path = format!("cloud/v2/users/{id}/inventory-items");
        let mut items = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..max_pages {
            let mut query = vec![("filter", filter.to_string()), ("maxPageSize", page_size.to_string())];
            if let Some(t) = &token {
                query.push(("pageToken", t.clone()));
            }
            let answer = match self.http.call(&http::CLOUD_INVENTORY, &path, &query, None, priority).await {
                Ok(a) => a,
                Err(e) => return InventoryRead::Refused(Unavailable::Temporary(e.to_string())),
            };
            if answer.key_rejected {
                return InventoryRead::KeyRejected;
            }
            match answer.status.as_u16() {
                200 => {}
                400 => return InventoryRead::FilterRefused,
                403 => return InventoryRead::Refused(Unavailable::Private),
                404 => return InventoryRead::Refused(Unavailable::Hidden),
                s => return InventoryRead::Refused(Unavailable::Temporary(format!("Open Cloud answered HTTP {s}"))),
            }
            let page: cloud::InventoryPage = match parse(&answer) {
                Ok(p) => p,
                Err(e) => return InventoryRead::Refused(Unavailable::Temporary(e.to_string())),
            };
            for item in page.inventory_items {
                let Some(badge_id) = item.badge_details.and_then(|d| d.badge_id).and_then(|b| b.get()) else {
                    continue;
                };
                match item.add_time {
                    Some(t) if t.parse::<jiff::Timestamp>().is_ok() => items.push((badge_id, t)),
                    other => {
                        return InventoryRead::Refused(Unavailable::Temporary(format!(
                            "Roblox sent an award date this site cannot read ({other:?})"
                        )));
                    }
                }
            }
            match page.next_page_token.filter(|t| !t.is_empty()) {
                None => return InventoryRead::Items(items),
                Some(next) if token.as_deref() == Some(next.as_str()) => {
                    return InventoryRead::Refused(Unavailable::Temporary(
                        "Roblox sent the same page token again".into(),
                    ));
                }
                Some(next) => token = Some(next),
            }
        }
        if max_pages == 1 {
            // A probe reads one page whatever follows.
            return InventoryRead::Items(items);
        }
        InventoryRead::Refused(Unavailable::Temporary(format!("Roblox sent more than {max_pages} pages of inventory")))
    }

    /// Why Roblox refuses everyone's award dates at the moment, if it does (no cookie, cookie
    /// rejected): remembered for 10 minutes after a refusal, then asked again.
    pub fn award_dates_refused(&self) -> Option<Unavailable> {
        let refusal = self.site_refusal.lock().unwrap_or_else(|p| p.into_inner());
        refusal.as_ref().filter(|(until, _)| now_ms() < *until).map(|(_, why)| why.clone())
    }

    fn note_site_refusal(&self, why: Unavailable, now: i64) {
        *self.site_refusal.lock().unwrap_or_else(|p| p.into_inner()) = Some((now + SITE_REFUSAL_TTL_MS, why));
    }

    /// Asks for the headshots of up to 100 players in one call and keeps them, so their lookups
    /// (a scan's page of members) find them cached instead of asking one by one.
    pub async fn prefetch_headshots(&self, ids: &[u64], priority: Priority) {
        let now = now_ms();
        let missing: Vec<u64> = ids
            .iter()
            .copied()
            .filter(|id| self.thumbs.get(id, now - self.thumb_ttl_ms()).is_none())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        for chunk in missing.chunks(100) {
            let urls =
                self.thumbnails(&http::HEADSHOTS, "v1/users/avatar-headshot", &headshot_query(chunk), priority).await;
            let mut rows = Vec::with_capacity(urls.len());
            for (id, url) in urls.into_iter().filter(|(id, _)| chunk.contains(id)) {
                self.thumbs.insert(id, url.clone(), now);
                rows.push(CacheRow { kind: "thumb", key: id.to_string(), body: url, fetched_at: now });
            }
            self.persist(rows, None).await;
        }
    }

    /// Name and description of a badge: memory, SQLite, then `badges/v1/badges/{id}`. None on failure.
    pub async fn badge_meta(&self, badge_id: u64, priority: Priority) -> Option<BadgeMeta> {
        let now = now_ms();
        let fresh_since = now - self.awards_ttl_ms();
        if let Some(m) = self.badge_meta.get(&badge_id, fresh_since) {
            return Some(m);
        }
        let key = badge_id.to_string();
        if let Ok(rows) = self.db.read(move |c| store::cache_rows(c, &key, &["badge"])).await
            && let Some((_, body, at)) = rows.into_iter().find(|(_, _, at)| *at >= fresh_since)
            && let Ok(meta) = serde_json::from_str::<BadgeMeta>(&body)
        {
            self.badge_meta.insert(badge_id, meta.clone(), at);
            return Some(meta);
        }
        let info = self.badge(badge_id, priority).await.ok()?;
        let meta = BadgeMeta { name: info.name, description: info.description.unwrap_or_default() };
        self.badge_meta.insert(badge_id, meta.clone(), now);
        let row = CacheRow {
            kind: "badge",
            key: badge_id.to_string(),
            body: serde_json::to_string(&meta).expect("meta serializes"),
            fetched_at: now,
        };
        self.persist(vec![row], None).await;
        Some(meta)
    }

    /// `badges/v1/badges/{id}`, uncached (the badge monitor wants fresh statistics).
    pub async fn badge(&self, badge_id: u64, priority: Priority) -> Result<monitor::BadgeInfo, RobloxError> {
        let answer = self.http.call(&http::BADGE, &format!("v1/badges/{badge_id}"), &[], None, priority).await?;
        match answer.status.as_u16() {
            200 => parse(&answer),
            400 | 404 => Err(RobloxError::BadAnswer(format!("Roblox has no badge {badge_id}"))),
            _ => Err(unexpected(&answer)),
        }
    }

    /// The headshot URL; the placeholder when Roblox has none (Pending after retries, blocked, failed).
    async fn headshot(&self, id: u64, priority: Priority) -> (String, Option<CacheRow>) {
        let now = now_ms();
        if let Some(url) = self.thumbs.get(&id, now - self.thumb_ttl_ms()) {
            return (url, None);
        }
        match self
            .thumbnails(&http::HEADSHOTS, "v1/users/avatar-headshot", &headshot_query(&[id]), priority)
            .await
            .get(&id)
        {
            Some(url) => {
                self.thumbs.insert(id, url.clone(), now);
                let row = CacheRow { kind: "thumb", key: id.to_string(), body: url.clone(), fetched_at: now };
                (url.clone(), Some(row))
            }
            None => (PLACEHOLDER_AVATAR.to_string(), None),
        }
    }

    /// Completed image URLs by target id; asks again (twice, 500 ms apart) while any is Pending.
    pub(crate) async fn thumbnails(
        &self,
        endpoint: &http::Endpoint,
        path: &str,
        query: &[(&str, String)],
        priority: Priority,
    ) -> std::collections::HashMap<u64, String> {
        let mut done = std::collections::HashMap::new();
        for attempt in 0..=PENDING_RETRIES {
            if attempt > 0 {
                tokio::time::sleep(PENDING_PAUSE).await;
            }
            let Ok(answer) = self.http.call(endpoint, path, query, None, priority).await else { break };
            if !answer.status.is_success() {
                break;
            }
            let Ok(list) = parse::<DataList<Thumb>>(&answer) else { break };
            let mut pending = false;
            for t in list.data {
                match (t.state.as_str(), t.image_url) {
                    ("Completed", Some(url)) if url.starts_with("https://") || url.starts_with("http://") => {
                        done.insert(t.target_id, url);
                    }
                    ("Pending", _) => pending = true,
                    _ => {}
                }
            }
            if !pending {
                break;
            }
        }
        done
    }

    /// One page (up to 100) of a universe's badges with their statistics.
    pub async fn universe_badges_page(
        &self,
        universe_id: u64,
        cursor: Option<&str>,
        priority: Priority,
    ) -> Result<BadgePage, RobloxError> {
        let query = page_query(cursor);
        let path = format!("v1/universes/{universe_id}/badges");
        let answer = self.http.call(&http::UNIVERSE_BADGES, &path, &query, None, priority).await?;
        match answer.status.as_u16() {
            200 => {}
            400 | 404 => return Err(RobloxError::BadAnswer(format!("Roblox has no universe {universe_id}"))),
            _ => return Err(unexpected(&answer)),
        }
        let page: Page<monitor::BadgeInfo> = parse(&answer)?;
        Ok(BadgePage { badges: page.data, next_cursor: page.next_page_cursor.filter(|c| !c.is_empty()) })
    }

    /// Name, member count and owner: Open Cloud's `cloud/v2/groups/{id}` when the key is
    /// accepted, else `groups/v1/groups/{id}`.
    pub async fn group_info(&self, group_id: u64, priority: Priority) -> Result<GroupInfo, RobloxError> {
        if self.http.open_cloud_ready() {
            let answer =
                self.http.call(&http::CLOUD_GROUP, &format!("cloud/v2/groups/{group_id}"), &[], None, priority).await?;
            if !answer.key_rejected {
                match answer.status.as_u16() {
                    200 => {}
                    400 | 404 => return Err(RobloxError::UnknownGroup(group_id)),
                    _ => return Err(unexpected(&answer)),
                }
                let group: cloud::Group = parse(&answer)?;
                let owner = group.owner.as_deref().and_then(|o| cloud::path_id(o, "users"));
                return Ok(GroupInfo {
                    id: group.id.and_then(|i| i.get()).unwrap_or(group_id),
                    name: group.display_name,
                    description: group.description,
                    member_count: group.member_count,
                    owner: owner.map(|user_id| GroupOwner { user_id, username: String::new() }),
                });
            }
        }
        let answer = self.http.call(&http::GROUP, &format!("v1/groups/{group_id}"), &[], None, priority).await?;
        match answer.status.as_u16() {
            200 => parse(&answer),
            400 | 404 => Err(RobloxError::UnknownGroup(group_id)),
            _ => Err(unexpected(&answer)),
        }
    }

    /// One page of up to 100 members, oldest membership first. `cursor` is the previous page's
    /// `next_cursor`. Open Cloud's memberships when the key is accepted (and always for a cursor
    /// it gave), else `groups/v1/groups/{id}/users`.
    pub async fn group_members_page(
        &self,
        group_id: u64,
        cursor: Option<&str>,
        priority: Priority,
    ) -> Result<MembersPage, RobloxError> {
        let cloud_token = cursor.and_then(|c| c.strip_prefix(CLOUD_CURSOR));
        if cloud_token.is_some() || (cursor.is_none() && self.http.open_cloud_ready()) {
            if let Some(page) = self.cloud_members_page(group_id, cloud_token, priority).await? {
                return Ok(page);
            }
            if cloud_token.is_some() {
                return Err(RobloxError::Unreachable(
                    "Roblox refused the Open Cloud key that this scan's next page needs; it can go on once the key is accepted again".into(),
                ));
            }
        }
        let query = page_query(cursor);
        let path = format!("v1/groups/{group_id}/users");
        let answer = self.http.call(&http::GROUP_USERS, &path, &query, None, priority).await?;
        match answer.status.as_u16() {
            200 => {}
            400 | 404 => return Err(RobloxError::UnknownGroup(group_id)),
            _ => return Err(unexpected(&answer)),
        }
        let page: Page<MemberItem> = parse(&answer)?;
        Ok(MembersPage {
            members: page
                .data
                .into_iter()
                .map(|m| GroupMember {
                    user_id: m.user.user_id,
                    username: m.user.username,
                    display_name: m.user.display_name,
                    verified: m.user.has_verified_badge,
                    role_name: m.role.name,
                    role_rank: m.role.rank,
                })
                .collect(),
            next_cursor: page.next_page_cursor.filter(|c| !c.is_empty()),
        })
    }

    /// Open Cloud's `cloud/v2/groups/{id}/memberships`; None when Roblox refused the key.
    /// Members arrive as ids (their names come with their lookups); a membership whose `user` is
    /// not `users/<digits>` is skipped and logged.
    async fn cloud_members_page(
        &self,
        group_id: u64,
        token: Option<&str>,
        priority: Priority,
    ) -> Result<Option<MembersPage>, RobloxError> {
        let mut query = vec![("maxPageSize", "100".to_string())];
        if let Some(t) = token.filter(|t| !t.is_empty()) {
            query.push(("pageToken", t.to_string()));
        }
        let path = format!("cloud/v2/groups/{group_id}/memberships");
        let answer = self.http.call(&http::CLOUD_MEMBERSHIPS, &path, &query, None, priority).await?;
        if answer.key_rejected {
            return Ok(None);
        }
        match answer.status.as_u16() {
            200 => {}
            400 | 404 => return Err(RobloxError::UnknownGroup(group_id)),
            _ => return Err(unexpected(&answer)),
        }
        let page: cloud::MembershipPage = parse(&answer)?;
        let roles = self.group_roles(group_id, priority).await;
        let mut members = Vec::with_capacity(page.group_memberships.len());
        let mut skipped = 0;
        for m in page.group_memberships {
            let Some(user_id) = cloud::path_id(&m.user, "users") else {
                skipped += 1;
                continue;
            };
            let role = m.role.as_deref().and_then(|r| cloud::path_id(r, "roles")).and_then(|r| roles.get(&r).cloned());
            let (role_name, role_rank) = role.unwrap_or_default();
            members.push(GroupMember {
                user_id,
                username: String::new(),
                display_name: String::new(),
                verified: false,
                role_name,
                role_rank,
            });
        }
        if skipped > 0 {
            tracing::warn!("group {group_id}: skipped {skipped} memberships whose user is not users/<id>");
        }
        let next_cursor = page.next_page_token.filter(|t| !t.is_empty()).map(|t| format!("{CLOUD_CURSOR}{t}"));
        Ok(Some(MembersPage { members, next_cursor }))
    }

    /// Role names and ranks by id (`groups/v1/groups/{id}/roles`), kept an hour; empty when
    /// Roblox does not give them (members then have no role name).
    async fn group_roles(&self, group_id: u64, priority: Priority) -> Arc<GroupRoles> {
        let now = now_ms();
        if let Some(roles) = self.roles.get(&group_id, now - ROLES_TTL_MS) {
            return roles;
        }
        let path = format!("v1/groups/{group_id}/roles");
        let roles: GroupRoles = match self.http.call(&http::GROUP_ROLES, &path, &[], None, priority).await {
            Ok(a) if a.status.is_success() => parse::<RoleList>(&a)
                .map(|l| l.roles.into_iter().map(|r| (r.id, (r.name, r.rank))).collect())
                .unwrap_or_default(),
            _ => Default::default(),
        };
        let roles = Arc::new(roles);
        self.roles.insert(group_id, roles.clone(), now);
        roles
    }

    /// The most members a minute a group scan can classify within the configured background
    /// share of the budgets: each new member costs one profile call, one award-dates call
    /// (unless the site has no ELC badges or Roblox refuses award dates to everyone at the
    /// moment), a hundredth of a headshots call (a page's headshots are asked for at once) and a
    /// hundredth of a member-list call; on the endpoints of the path in use (Open Cloud with an
    /// accepted key, else the legacy hosts).
    pub fn scan_members_per_minute(&self) -> f64 {
        let share = self.config.limits.background_share;
        let limits = self.http.budgets.limits();
        let cloud = self.http.open_cloud_ready();
        let (profile, awards, members) = match cloud {
            true => (http::CLOUD_USER, http::CLOUD_INVENTORY, http::CLOUD_MEMBERSHIPS),
            false => (http::USER, http::AWARDED_DATES, http::GROUP_USERS),
        };
        let mut members_per_call =
            vec![(profile.name(), 1.0), (http::HEADSHOTS.name(), 100.0), (members.name(), 100.0)];
        if !self.config.badges.elc.is_empty() && (cloud || self.award_dates_refused().is_none()) {
            members_per_call.push((awards.name(), 1.0));
        }
        let window_minutes = http::WINDOW.as_secs_f64() / 60.0;
        limits
            .iter()
            .filter_map(|(name, limit)| {
                let (_, members) = members_per_call.iter().find(|(n, _)| n == name)?;
                Some(((*limit as f64 * share).floor().max(1.0)) * members / window_minutes)
            })
            .fold(f64::INFINITY, f64::min)
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

    /// The admin health line: reachable, rate-limited, cookie accepted or not.
    pub fn health(&self) -> (bool, String) {
        let http = &self.http;
        let answered = http.last_answer_ms.load(std::sync::atomic::Ordering::Relaxed);
        let failed = http.last_unreachable_ms.load(std::sync::atomic::Ordering::Relaxed);
        let reach = match (answered, failed) {
            (0, 0) => "not called yet".to_string(),
            (a, f) if a >= f => format!("reachable (last answer {})", crate::db::rfc3339(a)),
            (_, f) => format!("unreachable since {}", crate::db::rfc3339(f)),
        };
        let limited = if http.budgets.any_blocked() { "rate-limited by Roblox now" } else { "not rate-limited" };
        let cookie = match http.cookie_state() {
            CookieState::NotConfigured if http.has_open_cloud_key() => "no cookie (not needed with the Open Cloud key)",
            CookieState::NotConfigured => {
                "no cookie (award dates need FANHUB_ROBLOX_OPEN_CLOUD_KEY or FANHUB_ROBLOX_COOKIE)"
            }
            CookieState::Untested => "cookie configured, not used yet",
            CookieState::Accepted => "cookie accepted",
            CookieState::Rejected => "cookie rejected by Roblox",
        };
        let ok = answered >= failed && http.cookie_state() != CookieState::Rejected;
        (ok, format!("{reach}; {limited}; {cookie}"))
    }

    /// The Open Cloud key's line for System Health: `None` status when no key is set.
    pub fn open_cloud_health(&self) -> (Option<bool>, String) {
        let (state, problem) = self.http.key_state();
        match state {
            CookieState::NotConfigured => (
                None,
                "no key: join dates, award dates and member lists come from the legacy hosts (set FANHUB_ROBLOX_OPEN_CLOUD_KEY)".into(),
            ),
            CookieState::Untested => (Some(true), "key set, not used yet".into()),
            CookieState::Accepted => (Some(true), "key accepted by Roblox".into()),
            CookieState::Rejected => (
                Some(false),
                format!(
                    "Roblox refused the key ({}); lookups use the {} meanwhile and try the key again every {} minutes",
                    problem.unwrap_or_default(),
                    if self.http.has_cookie() { "cookie" } else { "anonymous legacy calls" },
                    http::KEY_RETRY_AFTER_MS / 60_000
                ),
            ),
        }
    }

    /// Which Roblox path each kind of call takes now.
    pub fn paths(&self) -> String {
        let legacy = match self.legacy_source() {
            Source::Cookie => "legacy hosts with the cookie",
            _ => "legacy hosts, anonymous",
        };
        let cloud = self.http.open_cloud_ready();
        let award_dates = if self.config.badges.elc.is_empty() {
            "not read (no ELC badges in site.toml)"
        } else if cloud {
            "Open Cloud (inventory)"
        } else if self.award_dates_refused().is_some() {
            "legacy hosts, refused by Roblox now"
        } else {
            legacy
        };
        let either = if cloud { "Open Cloud" } else { legacy };
        format!(
            "join dates: {either}; award dates: {award_dates}; group facts and members: {either}; usernames, headshots and badge figures: {legacy} (Open Cloud has no such calls)"
        )
    }

    /// Each budget's use this minute and Roblox's quota, for the endpoints in use.
    pub fn budget_use(&self) -> String {
        let cloud = self.http.open_cloud_ready();
        let usage = self.http.budgets.usage();
        let lines: Vec<String> = usage
            .iter()
            .filter(|u| u.used > 0 || u.quota_remaining.is_some() || (u.endpoint.api == http::Api::OpenCloud) == cloud)
            .map(|u| {
                let quota = match (u.quota_remaining, u.quota_limit) {
                    (Some(left), Some(limit)) => format!(", Roblox: {left} of {limit} left"),
                    (Some(left), None) => format!(", Roblox: {left} left"),
                    _ => String::new(),
                };
                format!("{} {}/{}{quota}", u.endpoint.name(), u.used, u.limit)
            })
            .collect();
        format!("calls this minute of each budget: {}", lines.join("; "))
    }
}
