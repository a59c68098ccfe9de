//! ELC award dates: Open Cloud's inventory (filters split when Roblox refuses them), else the
//! legacy awarded-dates call with the cookie, and the refusals that hold for the whole site.

use super::*;

/// ELC badge ids asked about in one inventory call at first (Roblox does not say how many its
/// filter takes; this keeps the URL short). A filter Roblox refuses (400) is split in halves and
/// the smaller size kept for the next players.
pub(super) const INVENTORY_FILTER_IDS: usize = 50;
/// Pages of one inventory filter followed at most: a filter of 50 ids fits one page of 100, so
/// more means Roblox is not paging as documented.
const MAX_INVENTORY_PAGES: usize = 4;
/// After Roblox refuses award dates for want of a (valid) cookie, which holds for every player,
/// nobody's are asked for this long: a scan would otherwise spend one refused call per member.
const SITE_REFUSAL_TTL_MS: i64 = 10 * 60 * 1000;

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

impl Roblox {
    /// The ELC award dates and where they came from; never an error (the reason is in
    /// `Awards::Unavailable`).
    pub(super) async fn award_dates(
        &self,
        id: u64,
        priority: Priority,
        fresh_since: Option<i64>,
    ) -> ((Awards, Option<Source>), Option<CacheRow>) {
        let now = now_ms();
        if self.config.badges.elc.is_empty() {
            return ((Awards::Known(Vec::new()), None), None);
        }
        let since = fresh_since.map_or(now - self.awards_ttl_ms(), |f| f.max(now - self.awards_ttl_ms()));
        if let Some(a) = self.awards.get(&id, since) {
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
            .call(&budgets::AWARDED_DATES, &path, &[("badgeIds", ids)], None, priority)
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
            let answer = match self.http.call(&budgets::CLOUD_INVENTORY, &path, &query, None, priority).await {
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
}
