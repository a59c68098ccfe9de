//! The slash commands' player lookups, answered by the site's Roblox client (the same reports,
//! cache and budget as the newgen detector).

use std::sync::Arc;

use super::interactions::{LookupError, LookupFuture, PlayerCard, PlayerLookup};
use crate::roblox::{PLACEHOLDER_AVATAR, PlayerReport, Priority, Roblox, RobloxError};

pub struct RobloxLookups(pub Roblox);

impl PlayerLookup for RobloxLookups {
    fn cached(&self, username: &str) -> Option<PlayerCard> {
        self.0.cached(username).map(|report| card(&report))
    }

    fn lookup(&self, username: &str) -> LookupFuture {
        let roblox = self.0.clone();
        let username = username.to_string();
        Box::pin(async move {
            match roblox.lookup(&username, Priority::Interactive).await {
                Ok(report) => Ok(card(&report)),
                Err(RobloxError::UnknownUser(_)) => Err(LookupError::NotFound),
                Err(e) => Err(LookupError::Unavailable(e.to_string())),
            }
        })
    }
}

fn card(report: &Arc<PlayerReport>) -> PlayerCard {
    let profile = &report.profile;
    PlayerCard {
        username: profile.name.clone(),
        display_name: profile.display_name.clone(),
        user_id: profile.id,
        avatar_url: (report.avatar_url != PLACEHOLDER_AVATAR).then(|| report.avatar_url.clone()),
        profile_url: format!("https://www.roblox.com/users/{}/profile", profile.id),
        account_age_days: report.account_age_days(),
        generation: report.verdict.generation.as_str().to_string(),
        generation_label: report.verdict.generation_label.clone(),
        classification: report.verdict.classification.clone(),
        elc_badges: report.elc_count().map(|n| (n as u32, report.elc_total as u32)),
        note: match &report.awards {
            crate::roblox::Awards::Unavailable(why) => Some(why.sentence()),
            crate::roblox::Awards::Known(_) => None,
        },
    }
}
