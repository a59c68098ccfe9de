//! The SQL of developer API keys: creation, the owner's list, revocation, the public default key,
//! and usage written in batches.

use std::collections::HashMap;
use std::net::IpAddr;

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{KEY_PREFIX, Owner, PREFIX_LEN};
use crate::db::{now_ms, rfc3339, settings};
use crate::error::ApiError;
use crate::http::client_ip::anonymize;
use crate::tokens::{random_hex, sha256};

const PUBLIC_KEY_SETTING: &str = "public_api_key";
const IP_SECRET_SETTING: &str = "api_key_ip_secret";
pub const PUBLIC_KEY_NAME: &str = "Public default key";

/// A key as its owner sees it. `key` is the full key only in the answer that created it.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyView {
    pub name: String,
    /// The full key when just created; otherwise its first 12 characters.
    pub key: String,
    #[schema(format = DateTime)]
    pub created: String,
    pub requests: i64,
    #[schema(format = DateTime)]
    pub last_used: Option<String>,
    /// Anonymised (IPv4 /24, IPv6 /48).
    pub created_from_ip: String,
    /// Anonymised (IPv4 /24, IPv6 /48).
    pub last_used_from_ip: Option<String>,
    /// Distinct addresses the key was used from lately: the most recent 20 at most, each for
    /// 30 days after its last call (the site's `[analytics]` may set other bounds).
    pub unique_ips: i64,
}

/// What the request path needs to know about a live key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveKey {
    pub id: i64,
    pub name: String,
    pub is_public: bool,
}

/// A key's usage from its rollups: the days no longer kept (`earlier_*`), the days, the hours.
/// Hours are always newer than days, and days than the earlier ones, so the newest row says
/// where the last call came from. Every subquery is a range of a primary key.
const VIEW_COLUMNS: &str = "k.name, k.prefix, k.created_at, \
    k.earlier_requests \
        + (SELECT COALESCE(SUM(d.requests), 0) FROM api_key_daily d WHERE d.key_id = k.id) \
        + (SELECT COALESCE(SUM(h.requests), 0) FROM api_key_hourly h WHERE h.key_id = k.id), \
    COALESCE((SELECT MAX(h.last_used) FROM api_key_hourly h WHERE h.key_id = k.id), \
             (SELECT MAX(d.last_used) FROM api_key_daily d WHERE d.key_id = k.id), k.earlier_last_used), \
    k.created_from_ip, \
    NULLIF(COALESCE((SELECT h.last_used_from_ip FROM api_key_hourly h WHERE h.key_id = k.id ORDER BY h.hour DESC LIMIT 1), \
                    (SELECT d.last_used_from_ip FROM api_key_daily d WHERE d.key_id = k.id ORDER BY d.day DESC LIMIT 1), \
                    k.earlier_last_used_from_ip), ''), \
    (SELECT COUNT(*) FROM api_key_ips i WHERE i.key_id = k.id)";

fn view_from_row(r: &Row) -> rusqlite::Result<ApiKeyView> {
    Ok(ApiKeyView {
        name: r.get(0)?,
        key: r.get(1)?,
        created: rfc3339(r.get(2)?),
        requests: r.get(3)?,
        last_used: r.get::<_, Option<i64>>(4)?.map(rfc3339),
        created_from_ip: r.get(5)?,
        last_used_from_ip: r.get(6)?,
        unique_ips: r.get(7)?,
    })
}

fn new_key() -> String {
    format!("{KEY_PREFIX}{}", random_hex(20))
}

/// Creates a key for `owner` and returns it in full with its row.
pub fn create(conn: &Connection, name: &str, owner: &Owner, ip: IpAddr) -> Result<(String, LiveKey), ApiError> {
    let (user_id, token_hash) = match owner {
        Owner::User(id) => (Some(*id), None),
        Owner::Anonymous(hash) => (None, Some(hash.clone())),
    };
    insert(conn, name, user_id, token_hash, false, &anonymize(ip))
}

fn insert(
    conn: &Connection,
    name: &str,
    user_id: Option<i64>,
    token_hash: Option<Vec<u8>>,
    is_public: bool,
    ip: &str,
) -> Result<(String, LiveKey), ApiError> {
    // The display prefix is unique, so a 12-character prefix names exactly one key.
    for _ in 0..8 {
        let key = new_key();
        let inserted = conn.execute(
            "INSERT INTO api_keys (key_hash, prefix, name, owner_user_id, owner_token_hash, is_public, created_at, created_from_ip)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![sha256(&key), &key[..PREFIX_LEN], name, user_id, token_hash, is_public, now_ms(), ip],
        );
        match inserted {
            Ok(_) => {
                let live = LiveKey { id: conn.last_insert_rowid(), name: name.to_string(), is_public };
                return Ok((key, live));
            }
            Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::ConstraintViolation => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::internal("could not find a free key prefix"))
}

/// The owner's live keys, newest first, each with its prefix in `key`.
pub fn list(conn: &Connection, user_id: Option<i64>, token_hash: Option<&[u8]>) -> Result<Vec<ApiKeyView>, ApiError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {VIEW_COLUMNS} FROM api_keys k
         WHERE k.revoked_at IS NULL AND k.is_public = 0
           AND ((?1 IS NOT NULL AND k.owner_user_id = ?1) OR (?2 IS NOT NULL AND k.owner_token_hash = ?2))
         ORDER BY k.id DESC"
    ))?;
    let rows = stmt.query_map(params![user_id, token_hash], view_from_row)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// One key's view by id (after creation).
pub fn view(conn: &Connection, id: i64) -> Result<ApiKeyView, ApiError> {
    Ok(conn.query_row(&format!("SELECT {VIEW_COLUMNS} FROM api_keys k WHERE k.id = ?1"), [id], view_from_row)?)
}

/// Revokes the owner's live key with this prefix; returns its id, or None when the owner has none.
pub fn revoke(
    conn: &Connection,
    prefix: &str,
    user_id: Option<i64>,
    token_hash: Option<&[u8]>,
) -> Result<Option<i64>, ApiError> {
    Ok(conn
        .query_row(
            "UPDATE api_keys SET revoked_at = ?4
             WHERE prefix = ?1 AND revoked_at IS NULL AND is_public = 0
               AND ((?2 IS NOT NULL AND owner_user_id = ?2) OR (?3 IS NOT NULL AND owner_token_hash = ?3))
             RETURNING id",
            params![prefix, user_id, token_hash, now_ms()],
            |r| r.get(0),
        )
        .optional()?)
}

/// Every live key by the SHA-256 of the key, for the in-memory lookup.
pub fn live_keys(conn: &Connection) -> Result<Vec<(Vec<u8>, LiveKey)>, ApiError> {
    let mut stmt = conn.prepare("SELECT key_hash, id, name, is_public FROM api_keys WHERE revoked_at IS NULL")?;
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, LiveKey { id: r.get(1)?, name: r.get(2)?, is_public: r.get(3)? })))?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The public default key, created on first start and the same ever after.
pub fn ensure_public_key(conn: &Connection) -> Result<String, ApiError> {
    if let Some(key) = settings::get::<String>(conn, PUBLIC_KEY_SETTING)? {
        let live: Option<i64> = conn
            .query_row(
                "SELECT id FROM api_keys WHERE key_hash = ?1 AND revoked_at IS NULL AND is_public = 1",
                [sha256(&key)],
                |r| r.get(0),
            )
            .optional()?;
        if live.is_some() {
            return Ok(key);
        }
    }
    let (key, _) = insert(conn, PUBLIC_KEY_NAME, None, None, true, "server")?;
    settings::set(conn, PUBLIC_KEY_SETTING, &key)?;
    Ok(key)
}

/// The per-site secret that unique-IP hashes are keyed with (so a stored hash cannot be tested
/// against the 2^32 IPv4 addresses without it).
pub fn ip_secret(conn: &Connection) -> Result<[u8; 32], ApiError> {
    if let Some(hex_secret) = settings::get::<String>(conn, IP_SECRET_SETTING)?
        && let Some(secret) = hex::decode(hex_secret).ok().and_then(|v| <[u8; 32]>::try_from(v).ok())
    {
        return Ok(secret);
    }
    let secret: [u8; 32] = rand::random();
    settings::set(conn, IP_SECRET_SETTING, &hex::encode(secret))?;
    Ok(secret)
}

/// One accepted keyed call.
#[derive(Debug, Clone, Copy)]
pub struct Hit {
    pub key_id: i64,
    pub at_ms: i64,
    pub ip: IpAddr,
}

/// The addresses a key is used from: how many it keeps, and the public key, which keeps none.
#[derive(Debug, Clone, Copy)]
pub struct AddressRule {
    /// The most recently used addresses a key keeps (`[analytics] key_addresses`).
    pub keep: usize,
    pub public_key_id: Option<i64>,
}

/// The UTC day of `at_ms`, as Unix seconds at its start.
pub fn day_of(at_ms: i64) -> i64 {
    at_ms.div_euclid(86_400_000) * 86_400
}

/// Writes a batch of accepted calls: per key and hour the request count, the last use and its IP
/// (none for the public key), and `addresses`: (key, IP, day of its latest call) for the pairs
/// the caller has not written for that day yet. A key keeps its `rule.keep` most recent ones.
pub fn record_usage(
    conn: &Connection,
    hits: &[Hit],
    addresses: &[(i64, IpAddr, i64)],
    ip_secret: &[u8; 32],
    rule: AddressRule,
) -> Result<(), ApiError> {
    struct PerHour {
        count: i64,
        last: Hit,
    }
    let mut per_hour: HashMap<(i64, i64), PerHour> = HashMap::new();
    for hit in hits {
        let hour = hit.at_ms.div_euclid(1000).div_euclid(3600) * 3600;
        let entry = per_hour.entry((hit.key_id, hour)).or_insert(PerHour { count: 0, last: *hit });
        entry.count += 1;
        if hit.at_ms >= entry.last.at_ms {
            entry.last = *hit;
        }
    }
    // A key deleted since its calls were answered (its owner's account deleted) is skipped: its
    // rows went with it, and a foreign-key failure would hold back every other key's counts.
    let mut hours = conn.prepare_cached(
        "INSERT INTO api_key_hourly (key_id, hour, requests, last_used, last_used_from_ip)
         SELECT id, ?2, ?3, ?4, CASE WHEN is_public = 1 THEN '' ELSE ?5 END FROM api_keys WHERE id = ?1
         ON CONFLICT(key_id, hour) DO UPDATE SET requests = requests + excluded.requests,
            last_used_from_ip = CASE WHEN excluded.last_used >= last_used THEN excluded.last_used_from_ip ELSE last_used_from_ip END,
            last_used = MAX(last_used, excluded.last_used)",
    )?;
    for ((id, hour), h) in &per_hour {
        hours.execute(params![id, hour, h.count, h.last.at_ms, anonymize(h.last.ip)])?;
    }
    if rule.keep == 0 {
        return Ok(());
    }
    let mut seen = conn.prepare_cached(
        "INSERT INTO api_key_ips (key_id, ip_hash, last_seen)
         SELECT id, ?2, ?3 FROM api_keys WHERE id = ?1 AND is_public = 0
         ON CONFLICT(key_id, ip_hash) DO UPDATE SET last_seen = MAX(last_seen, excluded.last_seen)",
    )?;
    let mut keys = std::collections::BTreeSet::new();
    for (key_id, ip, day) in addresses.iter().filter(|a| Some(a.0) != rule.public_key_id) {
        if seen.execute(params![key_id, ip_hash(ip_secret, *ip), day])? > 0 {
            keys.insert(*key_id);
        }
    }
    let mut trim = conn.prepare_cached(
        "DELETE FROM api_key_ips WHERE key_id = ?1 AND ip_hash IN
            (SELECT ip_hash FROM api_key_ips WHERE key_id = ?1 ORDER BY last_seen DESC, ip_hash LIMIT -1 OFFSET ?2)",
    )?;
    for key_id in keys {
        trim.execute(params![key_id, rule.keep as i64])?;
    }
    Ok(())
}

fn ip_hash(secret: &[u8; 32], ip: IpAddr) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(secret);
    h.update(ip.to_string().as_bytes());
    h.finalize()[..16].to_vec()
}

/// Every accepted call of one key so far (as committed from the usage journal).
pub fn requests_of(conn: &Connection, key_id: i64) -> Result<i64, ApiError> {
    Ok(conn
        .prepare_cached(
            "SELECT k.earlier_requests
                 + (SELECT COALESCE(SUM(requests), 0) FROM api_key_daily WHERE key_id = k.id)
                 + (SELECT COALESCE(SUM(requests), 0) FROM api_key_hourly WHERE key_id = k.id)
             FROM api_keys k WHERE k.id = ?1",
        )?
        .query_row([key_id], |r| r.get(0))
        .optional()?
        .unwrap_or(0))
}

/// Accepted calls per key since `since_secs` (Unix seconds, an hour boundary), for the hour and
/// day windows of the rate limits after a restart (today's hours, on the index of `hour`).
pub fn requests_since(conn: &Connection, since_secs: i64) -> Result<HashMap<i64, Vec<(i64, i64)>>, ApiError> {
    let mut stmt = conn.prepare("SELECT key_id, hour, requests FROM api_key_hourly WHERE hour >= ?1")?;
    let mut out: HashMap<i64, Vec<(i64, i64)>> = HashMap::new();
    let rows = stmt.query_map([since_secs], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)))?;
    for row in rows {
        let (id, hour, n) = row?;
        out.entry(id).or_default().push((hour, n));
    }
    Ok(out)
}

/// Rolls up to `limit` hourly rows of before `before` (Unix seconds at a day's start), oldest
/// first, into their keys' days; returns how many.
pub fn roll_up_hours(conn: &Connection, before: i64, limit: usize) -> Result<usize, ApiError> {
    let rows: Vec<(i64, i64, i64, i64, String)> = conn
        .prepare_cached(
            "SELECT key_id, hour, requests, last_used, last_used_from_ip FROM api_key_hourly
             WHERE hour < ?1 ORDER BY hour LIMIT ?2",
        )?
        .query_map(params![before, limit as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
        .collect::<Result<_, _>>()?;
    let mut day = conn.prepare_cached(
        "INSERT INTO api_key_daily (key_id, day, requests, last_used, last_used_from_ip) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(key_id, day) DO UPDATE SET requests = requests + excluded.requests,
            last_used_from_ip = CASE WHEN excluded.last_used >= last_used THEN excluded.last_used_from_ip ELSE last_used_from_ip END,
            last_used = MAX(last_used, excluded.last_used)",
    )?;
    let mut gone = conn.prepare_cached("DELETE FROM api_key_hourly WHERE key_id = ?1 AND hour = ?2")?;
    for (key_id, hour, requests, last_used, ip) in &rows {
        day.execute(params![key_id, hour - hour.rem_euclid(86_400), requests, last_used, ip])?;
        gone.execute(params![key_id, hour])?;
    }
    Ok(rows.len())
}

/// Adds up to `limit` daily rows of before `before` (Unix seconds at a day's start), oldest first,
/// to their keys' earlier_* totals and deletes them; returns how many.
pub fn fold_days(conn: &Connection, before: i64, limit: usize) -> Result<usize, ApiError> {
    let rows: Vec<(i64, i64, i64, i64, String)> = conn
        .prepare_cached(
            "SELECT key_id, day, requests, last_used, last_used_from_ip FROM api_key_daily
             WHERE day < ?1 ORDER BY day LIMIT ?2",
        )?
        .query_map(params![before, limit as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?
        .collect::<Result<_, _>>()?;
    let mut fold = conn.prepare_cached(
        "UPDATE api_keys SET earlier_requests = earlier_requests + ?2,
            earlier_last_used_from_ip = CASE WHEN ?3 >= COALESCE(earlier_last_used, 0) THEN ?4 ELSE earlier_last_used_from_ip END,
            earlier_last_used = MAX(COALESCE(earlier_last_used, 0), ?3)
         WHERE id = ?1",
    )?;
    let mut gone = conn.prepare_cached("DELETE FROM api_key_daily WHERE key_id = ?1 AND day = ?2")?;
    for (key_id, day, requests, last_used, ip) in &rows {
        fold.execute(params![key_id, requests, last_used, ip])?;
        gone.execute(params![key_id, day])?;
    }
    Ok(rows.len())
}

/// Deletes up to `limit` addresses whose last call was on a day before `before` (Unix seconds
/// at a day's start); returns how many.
pub fn prune_addresses(conn: &Connection, before: i64, limit: usize) -> Result<usize, ApiError> {
    Ok(conn
        .prepare_cached(
            "DELETE FROM api_key_ips WHERE (key_id, ip_hash) IN
                (SELECT key_id, ip_hash FROM api_key_ips WHERE last_seen < ?1 LIMIT ?2)",
        )?
        .execute(params![before, limit as i64])?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const IP: &str = "198.51.100.23";

    #[test]
    fn keys_are_hashed_listed_per_owner_and_revoked_by_prefix() {
        let (_dir, conn) = crate::db::open_for_tests();
        let alice = Owner::Anonymous(sha256("alice-cookie"));
        let bob = Owner::Anonymous(sha256("bob-cookie"));
        let (key, live) = create(&conn, "bot", &alice, IP.parse().unwrap()).unwrap();
        assert!(key.starts_with(KEY_PREFIX) && key.len() == KEY_PREFIX.len() + 40);
        let stored: Vec<u8> = conn.query_row("SELECT key_hash FROM api_keys", [], |r| r.get(0)).unwrap();
        assert_eq!(stored, sha256(&key));
        let all: String = conn
            .query_row("SELECT group_concat(name || prefix || created_from_ip) FROM api_keys", [], |r| r.get(0))
            .unwrap();
        assert!(!all.contains(&key) && !all.contains(IP), "{all}");

        let (a_hash, b_hash) = (alice.token_hash(), bob.token_hash());
        let listed = list(&conn, None, a_hash).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].key, &key[..PREFIX_LEN]);
        assert_eq!(listed[0].created_from_ip, "198.51.100.0");
        assert!(list(&conn, None, b_hash).unwrap().is_empty());
        assert!(list(&conn, None, None).unwrap().is_empty());

        assert_eq!(revoke(&conn, &key[..PREFIX_LEN], None, b_hash).unwrap(), None, "not bob's key");
        assert_eq!(revoke(&conn, &key[..PREFIX_LEN], None, a_hash).unwrap(), Some(live.id));
        assert_eq!(revoke(&conn, &key[..PREFIX_LEN], None, a_hash).unwrap(), None, "already revoked");
        assert!(list(&conn, None, a_hash).unwrap().is_empty());
        assert!(live_keys(&conn).unwrap().iter().all(|(_, k)| k.id != live.id));
    }

    #[test]
    fn public_key_is_stable_and_not_listed() {
        let (_dir, conn) = crate::db::open_for_tests();
        let first = ensure_public_key(&conn).unwrap();
        assert_eq!(ensure_public_key(&conn).unwrap(), first);
        let live = live_keys(&conn).unwrap();
        assert_eq!(live.len(), 1);
        assert!(live[0].1.is_public);
        assert_eq!(live[0].0, sha256(&first));
    }

    const RULE: AddressRule = AddressRule { keep: 20, public_key_id: None };

    fn address(key_id: i64, ip: &str, at_ms: i64) -> (i64, IpAddr, i64) {
        (key_id, ip.parse().unwrap(), day_of(at_ms))
    }

    #[test]
    fn usage_batches_add_up() {
        let (_dir, conn) = crate::db::open_for_tests();
        conn.execute("INSERT INTO users (id, username, password_hash, created_at) VALUES (1, 'u', 'x', 0)", [])
            .unwrap();
        let owner = Owner::User(1);
        let (_key, live) = create(&conn, "k", &owner, IP.parse().unwrap()).unwrap();
        let secret = ip_secret(&conn).unwrap();
        assert_eq!(ip_secret(&conn).unwrap(), secret);
        let t = 1_700_000_000_000i64;
        let hit = |dt: i64, ip: &str| Hit { key_id: live.id, at_ms: t + dt, ip: ip.parse().unwrap() };
        let ips = |list: &[&str]| list.iter().map(|ip| address(live.id, ip, t)).collect::<Vec<_>>();
        let batch = [hit(0, "192.0.2.1"), hit(5, "192.0.2.2"), hit(2, "192.0.2.1")];
        record_usage(&conn, &batch, &ips(&["192.0.2.1", "192.0.2.2"]), &secret, RULE).unwrap();
        record_usage(&conn, &[hit(3_600_000, "2001:db8::1")], &ips(&["2001:db8::1", "192.0.2.1"]), &secret, RULE)
            .unwrap();
        let v = view(&conn, live.id).unwrap();
        assert_eq!(v.requests, 4);
        assert_eq!(v.unique_ips, 3);
        assert_eq!(v.last_used_from_ip.as_deref(), Some("2001:db8:0::"));
        let since = requests_since(&conn, 0).unwrap();
        let mut hours = since[&live.id].clone();
        hours.sort();
        assert_eq!(hours.iter().map(|h| h.1).collect::<Vec<_>>(), vec![3, 1]);

        let gone = Hit { key_id: live.id + 1000, at_ms: t, ip: IP.parse().unwrap() };
        record_usage(&conn, &[gone, hit(1, "192.0.2.1")], &[address(gone.key_id, IP, t)], &secret, RULE)
            .expect("a deleted key's calls are skipped, the others counted");
        assert_eq!(view(&conn, live.id).unwrap().requests, 5);
        assert_eq!(requests_of(&conn, live.id).unwrap(), 5);
    }

    #[test]
    fn a_key_keeps_its_newest_addresses_and_the_public_key_none() {
        let (_dir, conn) = crate::db::open_for_tests();
        let public = ensure_public_key(&conn).unwrap();
        let public_id: i64 =
            conn.query_row("SELECT id FROM api_keys WHERE key_hash = ?1", [sha256(&public)], |r| r.get(0)).unwrap();
        let (_key, live) = create(&conn, "k", &Owner::Anonymous(sha256("o")), IP.parse().unwrap()).unwrap();
        let secret = ip_secret(&conn).unwrap();
        let rule = AddressRule { keep: 3, public_key_id: Some(public_id) };
        let day = 86_400_000i64;
        let t = 1_700_000_000_000i64;
        // Five addresses on five days, then the first again on the sixth.
        for (n, ip) in ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4", "192.0.2.5", "192.0.2.1"].iter().enumerate()
        {
            let at = t + n as i64 * day;
            let hit = Hit { key_id: live.id, at_ms: at, ip: ip.parse().unwrap() };
            record_usage(&conn, &[hit], &[address(live.id, ip, at)], &secret, rule).unwrap();
        }
        let kept: Vec<Vec<u8>> = conn
            .prepare("SELECT ip_hash FROM api_key_ips WHERE key_id = ?1 ORDER BY last_seen")
            .unwrap()
            .query_map([live.id], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let hash = |ip: &str| ip_hash(&secret, ip.parse().unwrap());
        assert_eq!(kept, [hash("192.0.2.4"), hash("192.0.2.5"), hash("192.0.2.1")], "the 3 used last");
        assert_eq!(view(&conn, live.id).unwrap().unique_ips, 3);

        // The public key: counted, but neither its callers' addresses nor its last caller's kept,
        // even when the writer was not told which key it is (a replay at start).
        let call = Hit { key_id: public_id, at_ms: t, ip: IP.parse().unwrap() };
        record_usage(&conn, &[call], &[address(public_id, IP, t)], &secret, RULE).unwrap();
        let (addresses, last_from): (i64, String) = conn
            .query_row(
                "SELECT (SELECT COUNT(*) FROM api_key_ips WHERE key_id = ?1),
                        (SELECT last_used_from_ip FROM api_key_hourly WHERE key_id = ?1)",
                [public_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((addresses, last_from.as_str()), (0, ""));
        assert_eq!(requests_of(&conn, public_id).unwrap(), 1);
        assert_eq!(view(&conn, public_id).unwrap().last_used_from_ip, None);

        // Addresses last seen before a day go in batches.
        assert_eq!(prune_addresses(&conn, day_of(t + 5 * day), 1).unwrap(), 1);
        assert_eq!(prune_addresses(&conn, day_of(t + 5 * day), 10).unwrap(), 1);
        assert_eq!(prune_addresses(&conn, day_of(t + 5 * day), 10).unwrap(), 0);
        assert_eq!(view(&conn, live.id).unwrap().unique_ips, 1);
    }

    #[test]
    fn hours_roll_up_into_days_and_days_into_the_keys_totals() {
        let (_dir, conn) = crate::db::open_for_tests();
        let (_key, live) = create(&conn, "k", &Owner::Anonymous(sha256("o")), IP.parse().unwrap()).unwrap();
        let secret = ip_secret(&conn).unwrap();
        let day0 = 1_699_920_000i64; // a UTC midnight
        let at = |day: i64, hour: i64, ip: &str| Hit {
            key_id: live.id,
            at_ms: (day0 + day * 86_400 + hour * 3600) * 1000 + 7,
            ip: ip.parse().unwrap(),
        };
        let calls = [
            at(0, 1, "192.0.2.1"),
            at(0, 1, "192.0.2.1"),
            at(0, 5, "192.0.2.2"),
            at(1, 0, "192.0.2.3"),
            at(2, 23, "198.51.100.4"),
        ];
        record_usage(&conn, &calls, &[], &secret, RULE).unwrap();
        let before = view(&conn, live.id).unwrap();
        assert_eq!(before.requests, 5);
        let rows = |table: &str| -> i64 {
            conn.query_row(&format!("SELECT COUNT(*) FROM {table} WHERE key_id = ?1"), [live.id], |r| r.get(0)).unwrap()
        };

        // Days 0 and 1 become days, two hours at a time; day 2 stays in hours.
        let mut batches = 0;
        while roll_up_hours(&conn, day0 + 2 * 86_400, 2).unwrap() > 0 {
            batches += 1;
        }
        assert_eq!((batches, rows("api_key_hourly"), rows("api_key_daily")), (2, 1, 2));
        let daily: Vec<(i64, i64, String)> = conn
            .prepare("SELECT day, requests, last_used_from_ip FROM api_key_daily ORDER BY day")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(daily, [(day0, 3, "192.0.2.0".into()), (day0 + 86_400, 1, "192.0.2.0".into())]);
        let rolled = view(&conn, live.id).unwrap();
        assert_eq!(
            (rolled.requests, &rolled.last_used, &rolled.last_used_from_ip),
            (5, &before.last_used, &before.last_used_from_ip)
        );

        // Everything into the totals: the figures stay.
        roll_up_hours(&conn, day0 + 3 * 86_400, 100).unwrap();
        assert_eq!(fold_days(&conn, day0 + 3 * 86_400, 2).unwrap(), 2);
        assert_eq!(fold_days(&conn, day0 + 3 * 86_400, 2).unwrap(), 1);
        assert_eq!((rows("api_key_hourly"), rows("api_key_daily")), (0, 0));
        let folded = view(&conn, live.id).unwrap();
        assert_eq!(
            (folded.requests, &folded.last_used, &folded.last_used_from_ip),
            (5, &before.last_used, &before.last_used_from_ip)
        );
        assert_eq!(folded.last_used_from_ip.as_deref(), Some("198.51.100.0"));
        assert_eq!(requests_of(&conn, live.id).unwrap(), 5);

        // The batches walk the indexes on hour and day.
        for (sql, index) in [
            ("SELECT key_id FROM api_key_hourly WHERE hour < 5 ORDER BY hour LIMIT 9", "api_key_hourly_hour"),
            ("SELECT key_id FROM api_key_daily WHERE day < 5 ORDER BY day LIMIT 9", "api_key_daily_day"),
            ("SELECT key_id FROM api_key_ips WHERE last_seen < 5 LIMIT 9", "api_key_ips_last_seen"),
            ("SELECT key_id, hour, requests FROM api_key_hourly WHERE hour >= 5", "api_key_hourly_hour"),
        ] {
            let plan: String = conn.query_row(&format!("EXPLAIN QUERY PLAN {sql}"), [], |r| r.get(3)).unwrap();
            assert!(plan.contains(index), "{sql}: {plan}");
        }
    }
}
