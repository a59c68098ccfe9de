//! Roblox's answers as the site reads them (the legacy hosts' shapes, then Open Cloud's), and the
//! shape award dates are kept in.

use serde::{Deserialize, Serialize};

use super::{AwardedBadge, Source};

#[derive(Deserialize)]
pub struct DataList<T> {
    pub data: Vec<T>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NameHit {
    pub id: u64,
    /// The name as asked (matching ignores case); the canonical spelling is `name`.
    #[serde(default)]
    pub requested_username: String,
    #[serde(default)]
    pub name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Award {
    pub badge_id: u64,
    pub awarded_date: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Thumb {
    #[serde(default)]
    pub target_id: u64,
    pub state: String,
    pub image_url: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub next_page_cursor: Option<String>,
    pub data: Vec<T>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberItem {
    pub user: MemberUser,
    pub role: MemberRole,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberUser {
    pub user_id: u64,
    pub username: String,
    #[serde(default)]
    pub display_name: String,
    #[serde(default)]
    pub has_verified_badge: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberRole {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub rank: i64,
}

/// The persisted award dates: `{"source": ..., "badges": [...]}` (rows from before sources were
/// recorded are a bare list).
#[derive(Serialize, Deserialize)]
pub struct StoredAwards {
    pub source: Option<Source>,
    pub badges: Vec<AwardedBadge>,
}

impl StoredAwards {
    pub fn render(badges: &[AwardedBadge], source: Source) -> String {
        serde_json::to_string(&serde_json::json!({"source": source, "badges": badges})).expect("awards serialize")
    }

    pub fn parse(body: &str) -> Option<(Vec<AwardedBadge>, Option<Source>)> {
        if let Ok(stored) = serde_json::from_str::<StoredAwards>(body) {
            return Some((stored.badges, stored.source));
        }
        serde_json::from_str::<Vec<AwardedBadge>>(body).ok().map(|list| (list, None))
    }
}

/// Open Cloud's answers, as far as the site reads them. Ids are strings in Open Cloud's JSON;
/// numbers are read too.
pub mod cloud {
    use serde::Deserialize;

    #[derive(Deserialize, Debug, Clone)]
    #[serde(untagged)]
    pub enum Id {
        Number(u64),
        Text(String),
    }

    impl Id {
        pub fn get(&self) -> Option<u64> {
            match self {
                Id::Number(n) => Some(*n),
                Id::Text(t) => t.trim().parse().ok(),
            }
        }
    }

    /// The number at the end of a resource path: `users/123` -> 123 (None for another shape).
    pub fn path_id(path: &str, collection: &str) -> Option<u64> {
        let rest = path.rsplit_once('/').filter(|(head, _)| head.ends_with(collection))?.1;
        (!rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit())).then(|| rest.parse().ok()).flatten()
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct User {
        pub id: Option<Id>,
        pub name: String,
        pub display_name: Option<String>,
        pub about: Option<String>,
        pub create_time: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct InventoryPage {
        #[serde(default)]
        pub inventory_items: Vec<InventoryItem>,
        pub next_page_token: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct InventoryItem {
        pub badge_details: Option<BadgeDetails>,
        pub add_time: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct BadgeDetails {
        pub badge_id: Option<Id>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Group {
        pub id: Option<Id>,
        pub display_name: String,
        #[serde(default)]
        pub description: String,
        #[serde(default)]
        pub member_count: u64,
        pub owner: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct MembershipPage {
        #[serde(default)]
        pub group_memberships: Vec<Membership>,
        pub next_page_token: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Membership {
        pub user: String,
        pub role: Option<String>,
    }
}

/// `groups/v1/groups/{id}/roles`.
#[derive(Deserialize)]
pub struct RoleList {
    pub roles: Vec<RoleItem>,
}

#[derive(Deserialize)]
pub struct RoleItem {
    pub id: u64,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub rank: i64,
}
