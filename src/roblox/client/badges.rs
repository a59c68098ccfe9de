//! Badges: a badge's name and description (cached), its statistics, and a universe's badges.

use super::*;

impl Roblox {
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
        let answer = self.http.call(&budgets::BADGE, &format!("v1/badges/{badge_id}"), &[], None, priority).await?;
        match answer.status.as_u16() {
            200 => parse(&answer),
            400 | 404 => Err(RobloxError::BadAnswer(format!("Roblox has no badge {badge_id}"))),
            _ => Err(unexpected(&answer)),
        }
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
        let answer = self.http.call(&budgets::UNIVERSE_BADGES, &path, &query, None, priority).await?;
        match answer.status.as_u16() {
            200 => {}
            400 | 404 => return Err(RobloxError::BadAnswer(format!("Roblox has no universe {universe_id}"))),
            _ => return Err(unexpected(&answer)),
        }
        let page: Page<monitor::BadgeInfo> = parse(&answer)?;
        Ok(BadgePage { badges: page.data, next_cursor: page.next_page_cursor.filter(|c| !c.is_empty()) })
    }
}
