//! The SQL of accounts: users, their sessions and the sign-in log. Every other feature reads
//! and changes these tables through the functions here.

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::Serialize;
use utoipa::ToSchema;

use super::sessions::USER_SESSION_SECS;
use super::{ROLES, User};
use crate::db::{now_ms, rfc3339};
use crate::error::ApiError;
use crate::tokens::sha256;

const USER_COLUMNS: &str = "id, username, email, roblox_id, role, is_active, created_at, last_login";

fn user_from_row(r: &Row) -> rusqlite::Result<User> {
    Ok(User {
        id: r.get(0)?,
        username: r.get(1)?,
        email: r.get(2)?,
        roblox_id: r.get(3)?,
        role: r.get(4)?,
        is_active: r.get(5)?,
        created_at: rfc3339(r.get(6)?),
        last_login: r.get::<_, Option<i64>>(7)?.map(rfc3339),
    })
}

pub fn find_user(conn: &Connection, id: i64) -> Result<Option<User>, ApiError> {
    Ok(conn.query_row(&format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"), [id], user_from_row).optional()?)
}

/// Which accounts the Users tab lists: a username prefix (any case), a role, an active state.
#[derive(Debug, Default, Clone)]
pub struct UserFilter {
    pub name_prefix: Option<String>,
    pub role: Option<String>,
    pub active: Option<bool>,
}

/// Where a page of accounts starts: after an id (oldest first), or after a username (A to Z,
/// any case) when searching by name.
#[derive(Debug, Clone, PartialEq)]
pub enum UserCursor {
    Id(i64),
    Name(String),
}

/// One page of accounts and where the next starts (none after the last): oldest first, or by
/// username when searching by prefix. Each filter is a range of an index (0021 and the UNIQUE
/// NOCASE index on username), so a page costs the same at 50 or 50,000 accounts.
pub fn users_page(
    conn: &Connection,
    filter: &UserFilter,
    after: Option<&UserCursor>,
    limit: u32,
) -> Result<(Vec<User>, Option<UserCursor>), ApiError> {
    let (sql, mut args) = users_page_sql(filter, after)?;
    args.push((i64::from(limit) + 1).into());
    let mut stmt = conn.prepare_cached(&sql)?;
    let mut users = stmt.query_map(rusqlite::params_from_iter(args), user_from_row)?.collect::<Result<Vec<_>, _>>()?;
    let next = if users.len() > limit as usize {
        users.truncate(limit as usize);
        let by_name = filter.name_prefix.is_some();
        users.last().map(|u| if by_name { UserCursor::Name(u.username.clone()) } else { UserCursor::Id(u.id) })
    } else {
        None
    };
    Ok((users, next))
}

/// The statement of [`users_page`] with its arguments, but the limit's (the last `?`).
fn users_page_sql(
    filter: &UserFilter,
    after: Option<&UserCursor>,
) -> Result<(String, Vec<rusqlite::types::Value>), ApiError> {
    let by_name = filter.name_prefix.is_some();
    let mut clauses: Vec<&str> = Vec::new();
    let mut args: Vec<rusqlite::types::Value> = Vec::new();
    if let Some(prefix) = &filter.name_prefix {
        clauses.push("username LIKE ? ESCAPE '\\'");
        args.push(crate::http::paging::like_prefix(prefix).into());
    }
    // While searching by name the name's index leads; `+` keeps the others out of its way.
    if let Some(role) = &filter.role {
        clauses.push(if by_name { "+role = ?" } else { "role = ?" });
        args.push(role.clone().into());
    }
    if let Some(active) = filter.active {
        clauses.push(if by_name { "+is_active = ?" } else { "is_active = ?" });
        args.push(i64::from(active).into());
    }
    match after {
        Some(UserCursor::Name(name)) if by_name => {
            clauses.push("username > ?");
            args.push(name.clone().into());
        }
        Some(UserCursor::Id(id)) if !by_name => {
            clauses.push("id > ?");
            args.push((*id).into());
        }
        Some(_) => return Err(crate::http::paging::bad_cursor()),
        // The first page is a range too (ids start at 1), so every page reads the same way.
        None if !by_name => {
            clauses.push("id > ?");
            args.push(0_i64.into());
        }
        None => {}
    }
    let where_sql = if clauses.is_empty() { String::new() } else { format!("WHERE {}", clauses.join(" AND ")) };
    let order = if by_name { "username" } else { "id" };
    Ok((format!("SELECT {USER_COLUMNS} FROM users {where_sql} ORDER BY {order} LIMIT ?"), args))
}

/// The Users tab's figures: every account, the active ones, the admins and the admins with a
/// second factor (each counted on an index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserCounts {
    pub total: i64,
    pub active: i64,
    pub admins: i64,
    pub admins_with_second_factor: i64,
}

pub fn user_counts(conn: &Connection) -> Result<UserCounts, ApiError> {
    let count = |sql: &str| -> Result<i64, ApiError> { Ok(conn.query_row(sql, [], |r| r.get(0))?) };
    Ok(UserCounts {
        total: count("SELECT COUNT(*) FROM users")?,
        active: count("SELECT COUNT(*) FROM users WHERE is_active = 1")?,
        admins: count("SELECT COUNT(*) FROM users WHERE role = 'admin'")?,
        admins_with_second_factor: count(
            "SELECT COUNT(*) FROM users WHERE role = 'admin'
               AND (id IN (SELECT user_id FROM passkeys) OR id IN (SELECT user_id FROM totp_factors))",
        )?,
    })
}

pub fn username_taken(conn: &Connection, username: &str) -> Result<bool, ApiError> {
    Ok(conn.query_row("SELECT 1 FROM users WHERE username = ?1", [username], |_| Ok(())).optional()?.is_some())
}

/// Inserts an account and returns its id; `None` when the username is taken.
pub fn insert_user(conn: &Connection, username: &str, password_hash: &str) -> Result<Option<i64>, ApiError> {
    let inserted = conn.execute(
        "INSERT INTO users (username, password_hash, created_at) VALUES (?1, ?2, ?3)",
        params![username, password_hash, now_ms()],
    );
    match inserted {
        Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => Ok(None),
        Err(e) => Err(ApiError::from(e)),
        Ok(_) => Ok(Some(conn.last_insert_rowid())),
    }
}

pub fn count_users(conn: &Connection) -> Result<i64, ApiError> {
    // Kept by triggers (db::table_counts): a count would read every account.
    Ok(crate::db::table_counts::rows_of(conn, "users")?)
}

/// Accounts created at or after `since_ms`.
pub fn count_users_since(conn: &Connection, since_ms: i64) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM users WHERE created_at >= ?1", [since_ms], |r| r.get(0))?)
}

/// What sign-in checks a password against.
pub struct PasswordRecord {
    pub id: i64,
    pub password_hash: String,
    pub is_active: bool,
}

pub fn password_record(conn: &Connection, username: &str) -> Result<Option<PasswordRecord>, ApiError> {
    Ok(conn
        .query_row("SELECT id, password_hash, is_active FROM users WHERE username = ?1", [username], |r| {
            Ok(PasswordRecord { id: r.get(0)?, password_hash: r.get(1)?, is_active: r.get(2)? })
        })
        .optional()?)
}

pub fn touch_last_login(conn: &Connection, id: i64) -> Result<(), ApiError> {
    conn.execute("UPDATE users SET last_login = ?1 WHERE id = ?2", params![now_ms(), id])?;
    Ok(())
}

fn other_active_admins(conn: &Connection, id: i64) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM users WHERE role = 'admin' AND is_active = 1 AND id <> ?1", [id], |r| {
        r.get(0)
    })?)
}

const LAST_ADMIN: &str = "The last active admin cannot be demoted, suspended or deleted.";

/// Changes a user's role and/or active state; run it in one transaction, so two concurrent
/// changes cannot both remove "the other" admin. Suspending ends the user's sessions.
pub fn apply_change(conn: &Connection, id: i64, role: Option<&str>, is_active: Option<bool>) -> Result<User, ApiError> {
    if role.is_none() && is_active.is_none() {
        return Err(ApiError::bad_request("Nothing to change: send role and/or isActive."));
    }
    if let Some(role) = role
        && !ROLES.contains(&role)
    {
        return Err(ApiError::field("role", "Role must be user, moderator or admin."));
    }
    let user = find_user(conn, id)?.ok_or_else(|| ApiError::not_found("No such user."))?;
    let stays_admin = role.unwrap_or(&user.role) == "admin" && is_active.unwrap_or(user.is_active);
    if user.role == "admin" && user.is_active && !stays_admin && other_active_admins(conn, id)? == 0 {
        return Err(ApiError::conflict(LAST_ADMIN));
    }
    if let Some(role) = role {
        conn.execute("UPDATE users SET role = ?1 WHERE id = ?2", params![role, id])?;
    }
    if let Some(active) = is_active {
        conn.execute("UPDATE users SET is_active = ?1 WHERE id = ?2", params![active, id])?;
        if !active {
            conn.execute("DELETE FROM sessions WHERE user_id = ?1", [id])?;
        }
    }
    find_user(conn, id)?.ok_or_else(|| ApiError::not_found("No such user."))
}

/// Deletes a user (with their sessions, ratings and favorites, by the schema's cascades) and
/// returns the username; the last active admin stays.
pub fn delete_user(conn: &Connection, id: i64) -> Result<String, ApiError> {
    let user = find_user(conn, id)?.ok_or_else(|| ApiError::not_found("No such user."))?;
    if user.role == "admin" && user.is_active && other_active_admins(conn, id)? == 0 {
        return Err(ApiError::conflict(LAST_ADMIN));
    }
    conn.execute("DELETE FROM users WHERE id = ?1", [id])?;
    Ok(user.username)
}

pub fn create_session(conn: &Connection, token: &str, user_id: i64) -> Result<(), ApiError> {
    let now = now_ms();
    conn.execute(
        "INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![sha256(token), user_id, now, now + USER_SESSION_SECS * 1000],
    )?;
    Ok(())
}

pub fn delete_session(conn: &Connection, token: &str) -> Result<(), ApiError> {
    conn.execute("DELETE FROM sessions WHERE token_hash = ?1", [sha256(token)])?;
    Ok(())
}

/// Ends every session of the account but `keep` (a session token), when given: after a first
/// second factor, sessions opened with the password alone end.
pub fn end_other_sessions(conn: &Connection, user_id: i64, keep: Option<&str>) -> Result<usize, ApiError> {
    let keep = keep.map(sha256).unwrap_or_default();
    Ok(conn.execute("DELETE FROM sessions WHERE user_id = ?1 AND token_hash != ?2", params![user_id, keep])?)
}

/// The account's random WebAuthn user handle, made on first use.
pub fn webauthn_handle(conn: &Connection, user_id: i64) -> Result<String, ApiError> {
    let existing: Option<String> = conn
        .query_row("SELECT webauthn_handle FROM users WHERE id = ?1", [user_id], |r| r.get(0))
        .optional()?
        .flatten();
    if let Some(handle) = existing {
        return Ok(handle);
    }
    let handle = crate::tokens::random_hex(16);
    conn.execute("UPDATE users SET webauthn_handle = ?2 WHERE id = ?1", params![user_id, handle])?;
    Ok(handle)
}

/// The active user of a live session.
pub fn user_for_token(conn: &Connection, token: &str) -> Result<Option<User>, ApiError> {
    let cols = USER_COLUMNS.split(", ").map(|c| format!("u.{c}")).collect::<Vec<_>>().join(", ");
    Ok(conn
        .query_row(
            &format!(
                "SELECT {cols} FROM sessions s JOIN users u ON u.id = s.user_id
                 WHERE s.token_hash = ?1 AND s.expires_at > ?2 AND u.is_active = 1"
            ),
            params![sha256(token), now_ms()],
            user_from_row,
        )
        .optional()?)
}

/// Deletes the sessions expired at `now`; returns how many.
pub fn prune_expired_sessions(conn: &Connection, now: i64) -> Result<usize, ApiError> {
    Ok(conn.execute("DELETE FROM sessions WHERE expires_at <= ?1", [now])?)
}

/// How long login log rows are kept.
pub const LOGIN_LOG_DAYS: i64 = 180;

pub fn log_attempt(conn: &Connection, username: &str, ip: &str, ua: &str, status: &str) -> Result<(), ApiError> {
    let username: String = username.chars().take(64).collect();
    let ua: String = ua.chars().take(300).collect();
    conn.execute(
        "INSERT INTO login_logs (username, ip_address, user_agent, status, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![username, ip, ua, status, now_ms()],
    )?;
    Ok(())
}

pub fn prune_login_logs(conn: &Connection) -> Result<usize, ApiError> {
    let cutoff = now_ms() - LOGIN_LOG_DAYS * 24 * 3600 * 1000;
    Ok(conn.execute("DELETE FROM login_logs WHERE created_at < ?1", [cutoff])?)
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginLog {
    id: i64,
    username: String,
    ip_address: String,
    user_agent: String,
    #[schema(format = DateTime)]
    timestamp: String,
    /// success, failure (a wrong password), second_factor_failure (the right password, then a wrong
    /// code or security key), suspended (a suspended account) or rate_limited.
    #[schema(schema_with = login_status_values)]
    login_status: String,
}

fn login_status_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["success", "failure", "second_factor_failure", "suspended", "rate_limited"])
}

pub const LOGIN_STATUSES: [&str; 5] = ["success", "failure", "second_factor_failure", "suspended", "rate_limited"];

/// Sign-in attempts recorded, of one status when given.
pub fn count_login_logs(conn: &Connection, status: Option<&str>) -> Result<i64, ApiError> {
    Ok(match status {
        Some(status) => conn.query_row("SELECT COUNT(*) FROM login_logs WHERE status = ?1", [status], |r| r.get(0))?,
        None => conn.query_row("SELECT COUNT(*) FROM login_logs", [], |r| r.get(0))?,
    })
}

/// The statement of [`login_logs_page`] with the status's argument: two statements rather than
/// `?1 IS NULL OR status = ?1`, which no index answers.
fn login_logs_sql(status: Option<&str>) -> (&'static str, Vec<rusqlite::types::Value>) {
    match status {
        Some(status) => (
            "SELECT id, username, ip_address, user_agent, created_at, status FROM login_logs
             WHERE status = ? AND id < ? ORDER BY id DESC LIMIT ?",
            vec![status.to_string().into()],
        ),
        None => (
            "SELECT id, username, ip_address, user_agent, created_at, status FROM login_logs
             WHERE id < ? ORDER BY id DESC LIMIT ?",
            vec![],
        ),
    }
}

/// One page of sign-in attempts, newest first (ids rise with time), of one status when given,
/// older than the id `before` when given; with the id the next page starts before (none after the last).
pub fn login_logs_page(
    conn: &Connection,
    status: Option<&str>,
    before: Option<i64>,
    limit: u32,
) -> Result<(Vec<LoginLog>, Option<i64>), ApiError> {
    let (sql, args) = login_logs_sql(status);
    let args = args.into_iter().chain([before.unwrap_or(i64::MAX).into(), (i64::from(limit) + 1).into()]);
    let mut stmt = conn.prepare_cached(sql)?;
    let mut logs = stmt
        .query_map(rusqlite::params_from_iter(args), |r| {
            Ok(LoginLog {
                id: r.get(0)?,
                username: r.get(1)?,
                ip_address: r.get(2)?,
                user_agent: r.get(3)?,
                timestamp: rfc3339(r.get(4)?),
                login_status: r.get(5)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let next = (logs.len() > limit as usize).then(|| {
        logs.truncate(limit as usize);
        logs.last().map(|l| l.id)
    });
    Ok((logs, next.flatten()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add(conn: &Connection, name: &str) -> i64 {
        insert_user(conn, name, "x").unwrap().unwrap()
    }

    /// Every page of `filter` from the first, with `between` run after each page.
    fn walk(conn: &Connection, filter: &UserFilter, limit: u32, mut between: impl FnMut(usize)) -> Vec<User> {
        let (mut all, mut after) = (Vec::new(), None);
        for page in 0.. {
            let (users, next) = users_page(conn, filter, after.as_ref(), limit).unwrap();
            assert!(users.len() <= limit as usize);
            all.extend(users);
            between(page);
            match next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        all
    }

    #[test]
    fn accounts_are_paged_by_key_with_none_skipped_or_repeated_while_others_sign_up() {
        let (_dir, conn) = crate::db::open_for_tests();
        let before: Vec<i64> = (0..23).map(|i| add(&conn, &format!("member{i:02}"))).collect();
        let mut joined = Vec::new();
        let seen = walk(&conn, &UserFilter::default(), 5, |page| {
            if page < 3 {
                joined.push(add(&conn, &format!("late{page}")));
            }
        });
        let ids: Vec<i64> = seen.iter().map(|u| u.id).collect();
        let mut expected = before.clone();
        expected.extend(&joined);
        assert_eq!(ids, expected, "oldest first, each once, the new ones at the end");
        // A page that ends the list exactly says so.
        let (all, next) = users_page(&conn, &UserFilter::default(), None, ids.len() as u32).unwrap();
        assert_eq!((all.len(), next), (ids.len(), None));
    }

    #[test]
    fn a_name_search_is_a_prefix_in_any_case_from_a_to_z_and_pages_by_name() {
        let (_dir, conn) = crate::db::open_for_tests();
        for name in ["Starlight", "star_fan", "STARBOARD", "stardust", "Stable", "rockstar", "st_ar", "Star"] {
            add(&conn, name);
        }
        let names = |filter: &UserFilter, limit, between: &mut dyn FnMut(usize)| {
            walk(&conn, filter, limit, between).into_iter().map(|u| u.username).collect::<Vec<_>>()
        };
        let search = |q: &str| UserFilter { name_prefix: Some(q.into()), ..Default::default() };
        assert_eq!(
            names(&search("sTaR"), 2, &mut |_| {}),
            ["Star", "star_fan", "STARBOARD", "stardust", "Starlight"],
            "the names that begin with it, A to Z in any case; not rockstar"
        );
        assert_eq!(names(&search("st_"), 10, &mut |_| {}), ["st_ar"], "_ is a letter of names, not a wildcard");
        assert_eq!(names(&search("st%"), 10, &mut |_| {}), Vec::<String>::new(), "% too");
        // Names added between pages: one after the cursor (star_fan) is found, one before it is
        // left for a new search (the pages already shown are not repeated), one that does not match is not.
        let mut added = 0;
        let found = names(&search("star"), 2, &mut |page| {
            if page == 0 {
                add(&conn, "StarZ");
                add(&conn, "Star_a");
                add(&conn, "Sta");
                added = 3;
            }
        });
        assert_eq!(added, 3);
        assert_eq!(found, ["Star", "star_fan", "STARBOARD", "stardust", "Starlight", "StarZ"]);
        // The cursor of one order is refused by the other.
        let (_, next) = users_page(&conn, &search("star"), None, 1).unwrap();
        assert_eq!(users_page(&conn, &UserFilter::default(), next.as_ref(), 1).unwrap_err().status.as_u16(), 400);
        assert_eq!(users_page(&conn, &search("star"), Some(&UserCursor::Id(1)), 1).unwrap_err().status.as_u16(), 400);
    }

    #[test]
    fn role_and_state_filters_with_the_figures_of_all() {
        let (_dir, conn) = crate::db::open_for_tests();
        let ids: Vec<i64> = (0..12).map(|i| add(&conn, &format!("user{i:02}"))).collect();
        for &id in &ids[..3] {
            apply_change(&conn, id, Some("admin"), None).unwrap();
        }
        apply_change(&conn, ids[4], Some("moderator"), Some(false)).unwrap();
        apply_change(&conn, ids[2], None, Some(false)).unwrap();
        apply_change(&conn, ids[7], None, Some(false)).unwrap();
        let of = |role: Option<&str>, active: Option<bool>, q: Option<&str>| {
            let filter = UserFilter { name_prefix: q.map(Into::into), role: role.map(Into::into), active };
            walk(&conn, &filter, 2, |_| {}).iter().map(|u| u.id).collect::<Vec<_>>()
        };
        assert_eq!(of(Some("admin"), None, None), ids[..3]);
        assert_eq!(of(Some("admin"), Some(true), None), ids[..2]);
        assert_eq!(of(None, Some(false), None), [ids[2], ids[4], ids[7]]);
        assert_eq!(of(Some("moderator"), Some(false), None), [ids[4]]);
        assert_eq!(of(Some("user"), Some(true), Some("USER1")), [ids[10], ids[11]]);
        assert_eq!(of(None, Some(false), Some("user0")), [ids[2], ids[4], ids[7]]);
        let counts = user_counts(&conn).unwrap();
        assert_eq!(counts, UserCounts { total: 12, active: 9, admins: 3, admins_with_second_factor: 0 });
        crate::accounts::second_factor::store::set_totp(&conn, ids[1], b"sealed", 0).unwrap();
        assert_eq!(user_counts(&conn).unwrap().admins_with_second_factor, 1);
    }

    #[test]
    fn sign_ins_are_paged_by_key_newest_first_of_one_status_while_new_ones_are_logged() {
        let (_dir, conn) = crate::db::open_for_tests();
        let statuses = ["success", "failure", "failure", "rate_limited", "success", "failure", "suspended"];
        for (i, status) in statuses.iter().enumerate() {
            log_attempt(&conn, &format!("who{i}"), "192.0.2.0", "ua", status).unwrap();
        }
        let walk = |status: Option<&str>, limit: u32, between: &dyn Fn()| {
            let (mut names, mut before) = (Vec::new(), None);
            loop {
                let (logs, next) = login_logs_page(&conn, status, before, limit).unwrap();
                names.extend(logs.into_iter().map(|l| l.username));
                between();
                match next {
                    Some(next) => before = Some(next),
                    None => return names,
                }
            }
        };
        let late = || log_attempt(&conn, "late", "192.0.2.0", "ua", "failure").unwrap();
        assert_eq!(walk(None, 3, &late), ["who6", "who5", "who4", "who3", "who2", "who1", "who0"]);
        assert_eq!(walk(Some("failure"), 2, &|| {}), ["late", "late", "late", "who5", "who2", "who1"]);
        assert_eq!(count_login_logs(&conn, Some("failure")).unwrap(), 6);
        assert_eq!(count_login_logs(&conn, None).unwrap(), 10);
    }

    #[test]
    fn every_page_of_accounts_and_sign_ins_is_a_range_of_an_index() {
        let (_dir, conn) = crate::db::open_for_tests();
        let plan = |sql: &str, args: Vec<rusqlite::types::Value>| -> String {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows = stmt.query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(3)).unwrap();
            rows.map(Result::unwrap).collect::<Vec<_>>().join("; ")
        };
        let mut statements = Vec::new();
        for q in [None, Some("ab")] {
            for role in [None, Some("admin")] {
                for active in [None, Some(false)] {
                    let filter = UserFilter { name_prefix: q.map(Into::into), role: role.map(Into::into), active };
                    let later = if q.is_some() { UserCursor::Name("ab".into()) } else { UserCursor::Id(5) };
                    for after in [None, Some(later)] {
                        let (sql, mut args) = users_page_sql(&filter, after.as_ref()).unwrap();
                        args.push(21_i64.into());
                        statements.push((sql, args));
                    }
                }
            }
        }
        for status in [None, Some("failure")] {
            let (sql, args) = login_logs_sql(status);
            let args = args.into_iter().chain([i64::MAX.into(), 21_i64.into()]).collect();
            statements.push((sql.to_string(), args));
        }
        for (sql, args) in statements {
            let plan = plan(&sql, args);
            assert!(
                plan.starts_with("SEARCH ") && !plan.contains("SCAN ") && !plan.contains("TEMP B-TREE"),
                "{sql}: {plan}"
            );
        }
    }
}
