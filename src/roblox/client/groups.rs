//! Groups: facts, member pages (Open Cloud's memberships or the legacy list) and role names.

use super::*;

/// A group's role names are asked for again after this.
const ROLES_TTL_MS: i64 = 60 * 60 * 1000;

/// A group's role names and ranks, by role id.
pub(super) type GroupRoles = std::collections::HashMap<u64, (String, i64)>;

/// Open Cloud page tokens are kept in a scan's cursor with this mark, so a scan resumed later
/// asks the API that gave it.
const CLOUD_CURSOR: &str = "oc:";

impl Roblox {
    /// Name, member count and owner: Open Cloud's `cloud/v2/groups/{id}` when the key is
    /// accepted, else `groups/v1/groups/{id}`.
    pub async fn group_info(&self, group_id: u64, priority: Priority) -> Result<GroupInfo, RobloxError> {
        if self.http.open_cloud_ready() {
            let answer = self
                .http
                .call(&budgets::CLOUD_GROUP, &format!("cloud/v2/groups/{group_id}"), &[], None, priority)
                .await?;
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
        let answer = self.http.call(&budgets::GROUP, &format!("v1/groups/{group_id}"), &[], None, priority).await?;
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
        let answer = self.http.call(&budgets::GROUP_USERS, &path, &query, None, priority).await?;
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
        let answer = self.http.call(&budgets::CLOUD_MEMBERSHIPS, &path, &query, None, priority).await?;
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
        let roles: GroupRoles = match self.http.call(&budgets::GROUP_ROLES, &path, &[], None, priority).await {
            Ok(a) if a.status.is_success() => parse::<RoleList>(&a)
                .map(|l| l.roles.into_iter().map(|r| (r.id, (r.name, r.rank))).collect())
                .unwrap_or_default(),
            _ => Default::default(),
        };
        let roles = Arc::new(roles);
        self.roles.insert(group_id, roles.clone(), now);
        roles
    }
}
