//! Players: username to id (batched), the profile (Open Cloud or the legacy host), the
//! headshot, and the report put together from them with the award dates.

use super::*;

/// A Pending headshot is asked for again this many times, this far apart, before the placeholder.
const PENDING_RETRIES: u32 = 2;
const PENDING_PAUSE: Duration = Duration::from_millis(500);
/// Unknown usernames are remembered this long (they cost a call each).
const UNKNOWN_NAME_TTL_MS: i64 = 10 * 60 * 1000;

/// `thumbnails/v1/users/avatar-headshot`'s query for up to 100 players: 150 px PNG squares.
fn headshot_query(ids: &[u64]) -> [(&'static str, String); 4] {
    [
        ("userIds", ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",")),
        ("size", "150x150".to_string()),
        ("format", "Png".to_string()),
        ("isCircular", "false".to_string()),
    ]
}

/// Names one username lookup takes (Roblox's documented batch).
const NAMES_PER_CALL: usize = 100;

type NameReply = tokio::sync::oneshot::Sender<Result<Option<u64>, RobloxError>>;

/// The usernames waiting for a lookup call, and whether one is out.
#[derive(Default)]
pub(super) struct NameQueue {
    in_flight: bool,
    waiting: Vec<(String, NameReply)>,
}

impl Roblox {
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
        self.by_id.run(user_id, || self.report_for(user_id, priority, None)).await
    }

    async fn fetch_by_name(
        &self,
        username: String,
        key: String,
        priority: Priority,
    ) -> Result<Arc<PlayerReport>, RobloxError> {
        let id = self.resolve(&username, &key, priority).await?;
        let report = self.by_id.run(id, || self.report_for(id, priority, None)).await?;
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
            let found =
                match self.http.call(&budgets::USERNAMES, "v1/usernames/users", &[], Some(&body), priority).await {
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

    /// A fresh report of a followed player for the background re-checks: the profile and the
    /// award dates are asked of Roblox again unless a lookup read them at or after
    /// `fresh_since` (ms; a visitor's check just before counts), so a new ELC badge or a new
    /// name is noticed; the headshot may come from the cache. Waits for the background share of
    /// the budget; a visitor's lookup of the same player meanwhile does not wait for it.
    pub async fn recheck(&self, user_id: u64, fresh_since: i64) -> Result<Arc<PlayerReport>, RobloxError> {
        let report =
            self.rechecks.run(user_id, || self.report_for(user_id, Priority::Background, Some(fresh_since))).await?;
        self.remember(report.profile.name.to_ascii_lowercase(), &report);
        Ok(report)
    }

    /// `fresh_since` (ms): parts fetched before it are asked for again, whatever their lifetime.
    async fn report_for(
        &self,
        id: u64,
        priority: Priority,
        fresh_since: Option<i64>,
    ) -> Result<Arc<PlayerReport>, RobloxError> {
        let now = now_ms();
        if self.profiles.get(&id, now - self.profile_ttl_ms()).is_none() {
            self.warm_from_db(id).await;
        }
        let mut rows = Vec::new();
        let profile = self.profile(id, priority, fresh_since, &mut rows).await?;
        let (((awards, award_source), award_row), (avatar_url, thumb_row)) =
            tokio::join!(self.award_dates(id, priority, fresh_since), self.headshot(id, priority));
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
        let badges = report.awards.owned().map(|owned| {
            owned
                .iter()
                .map(|b| store::OwnedBadge {
                    badge_id: b.badge_id,
                    name: b.name.clone(),
                    awarded_date: b.awarded_date.clone(),
                })
                .collect()
        });
        self.persist(rows, Some((player, badges))).await;
        self.remember(report.profile.name.to_ascii_lowercase(), &report);
        Ok(report)
    }

    async fn profile(
        &self,
        id: u64,
        priority: Priority,
        fresh_since: Option<i64>,
        rows: &mut Vec<CacheRow>,
    ) -> Result<Profile, RobloxError> {
        let now = now_ms();
        let since = fresh_since.map_or(now - self.profile_ttl_ms(), |f| f.max(now - self.profile_ttl_ms()));
        if let Some(p) = self.profiles.get(&id, since) {
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

    /// `users/v1/users/{id}`.
    async fn legacy_profile(&self, id: u64, priority: Priority) -> Result<Profile, RobloxError> {
        let answer = self.http.call(&budgets::USER, &format!("v1/users/{id}"), &[], None, priority).await?;
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
        let answer = self.http.call(&budgets::CLOUD_USER, &format!("cloud/v2/users/{id}"), &[], None, priority).await?;
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
            let urls = self
                .thumbnails(&budgets::HEADSHOTS, "v1/users/avatar-headshot", &headshot_query(chunk), priority)
                .await;
            let mut rows = Vec::with_capacity(urls.len());
            for (id, url) in urls.into_iter().filter(|(id, _)| chunk.contains(id)) {
                self.thumbs.insert(id, url.clone(), now);
                rows.push(CacheRow { kind: "thumb", key: id.to_string(), body: url, fetched_at: now });
            }
            self.persist(rows, None).await;
        }
    }

    /// The headshot URL; the placeholder when Roblox has none (Pending after retries, blocked, failed).
    async fn headshot(&self, id: u64, priority: Priority) -> (String, Option<CacheRow>) {
        let now = now_ms();
        if let Some(url) = self.thumbs.get(&id, now - self.thumb_ttl_ms()) {
            return (url, None);
        }
        match self
            .thumbnails(&budgets::HEADSHOTS, "v1/users/avatar-headshot", &headshot_query(&[id]), priority)
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
        endpoint: &budgets::Endpoint,
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
}
