//! Status and diagnostics: the health lines of System Health, the paths in use, the budgets'
//! use, and how fast a scan can go within them.

use super::*;

impl Roblox {
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
            true => (budgets::CLOUD_USER, budgets::CLOUD_INVENTORY, budgets::CLOUD_MEMBERSHIPS),
            false => (budgets::USER, budgets::AWARDED_DATES, budgets::GROUP_USERS),
        };
        let mut members_per_call =
            vec![(profile.name(), 1.0), (budgets::HEADSHOTS.name(), 100.0), (members.name(), 100.0)];
        if !self.config.badges.elc.is_empty() && (cloud || self.award_dates_refused().is_none()) {
            members_per_call.push((awards.name(), 1.0));
        }
        let window_minutes = budgets::WINDOW.as_secs_f64() / 60.0;
        limits
            .iter()
            .filter_map(|(name, limit)| {
                let (_, members) = members_per_call.iter().find(|(n, _)| n == name)?;
                Some(((*limit as f64 * share).floor().max(1.0)) * members / window_minutes)
            })
            .fold(f64::INFINITY, f64::min)
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
            .filter(|u| {
                u.used > 0 || u.quota_remaining.is_some() || (u.endpoint.api == budgets::Api::OpenCloud) == cloud
            })
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
