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
    pub unique_ips: i64,
}

/// What the request path needs to know about a live key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveKey {
    pub id: i64,
    pub name: String,
    pub is_public: bool,
}

const VIEW_COLUMNS: &str = "k.name, k.prefix, k.created_at, \
    (SELECT COALESCE(SUM(h.requests), 0) FROM api_key_hourly h WHERE h.key_id = k.id), \
    (SELECT MAX(h.last_used) FROM api_key_hourly h WHERE h.key_id = k.id), k.created_from_ip, \
    (SELECT h.last_used_from_ip FROM api_key_hourly h WHERE h.key_id = k.id ORDER BY h.hour DESC LIMIT 1), \
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

/// Writes a batch of accepted calls: per key the request count, the last use and its IP, the
/// hourly counts, and the distinct IPs among `new_ips` (pairs the caller has not written before).
pub fn record_usage(
    conn: &Connection,
    hits: &[Hit],
    new_ips: &[(i64, IpAddr)],
    ip_secret: &[u8; 32],
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
         SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = ?1)
         ON CONFLICT(key_id, hour) DO UPDATE SET requests = requests + excluded.requests,
            last_used_from_ip = CASE WHEN excluded.last_used >= last_used THEN excluded.last_used_from_ip ELSE last_used_from_ip END,
            last_used = MAX(last_used, excluded.last_used)",
    )?;
    for ((id, hour), h) in &per_hour {
        hours.execute(params![id, hour, h.count, h.last.at_ms, anonymize(h.last.ip)])?;
    }
    let mut ips = conn.prepare_cached(
        "INSERT OR IGNORE INTO api_key_ips (key_id, ip_hash)
         SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = ?1)",
    )?;
    for (key_id, ip) in new_ips {
        ips.execute(params![key_id, ip_hash(ip_secret, *ip)])?;
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
        .prepare_cached("SELECT COALESCE(SUM(requests), 0) FROM api_key_hourly WHERE key_id = ?1")?
        .query_row([key_id], |r| r.get(0))?)
}

/// Accepted calls per key since `since_secs` (Unix seconds, an hour boundary), for the hour and
/// day windows of the rate limits after a restart.
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
        let ips = |list: &[&str]| list.iter().map(|ip| (live.id, ip.parse().unwrap())).collect::<Vec<_>>();
        let batch = [hit(0, "192.0.2.1"), hit(5, "192.0.2.2"), hit(2, "192.0.2.1")];
        record_usage(&conn, &batch, &ips(&["192.0.2.1", "192.0.2.2"]), &secret).unwrap();
        record_usage(&conn, &[hit(3_600_000, "2001:db8::1")], &ips(&["2001:db8::1", "192.0.2.1"]), &secret).unwrap();
        let v = view(&conn, live.id).unwrap();
        assert_eq!(v.requests, 4);
        assert_eq!(v.unique_ips, 3);
        assert_eq!(v.last_used_from_ip.as_deref(), Some("2001:db8:0::"));
        let since = requests_since(&conn, 0).unwrap();
        let mut hours = since[&live.id].clone();
        hours.sort();
        assert_eq!(hours.iter().map(|h| h.1).collect::<Vec<_>>(), vec![3, 1]);

        let gone = Hit { key_id: live.id + 1000, at_ms: t, ip: IP.parse().unwrap() };
        record_usage(&conn, &[gone, hit(1, "192.0.2.1")], &[(gone.key_id, gone.ip)], &secret)
            .expect("a deleted key's calls are skipped, the others counted");
        assert_eq!(view(&conn, live.id).unwrap().requests, 5);
    }
}
