//! The SQL of second factors: authenticator secrets (sealed), passkeys (public keys), recovery
//! codes (hashed).

use rusqlite::{Connection, OptionalExtension, params};

use crate::db::{now_ms, rfc3339};
use crate::error::ApiError;
use crate::tokens::sha256;

/// Recovery codes made at a time.
pub const RECOVERY_CODES: usize = 10;
/// Passkeys one account may hold.
pub const MAX_PASSKEYS: i64 = 10;

/// What an account has enrolled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Enrolled {
    pub totp_since: Option<String>,
    pub passkeys: Vec<PasskeyRow>,
    pub recovery_codes_left: i64,
}

impl Enrolled {
    /// Whether signing in needs a second factor.
    pub fn any(&self) -> bool {
        self.totp_since.is_some() || !self.passkeys.is_empty()
    }

    /// The methods a sign-in may use, in the order the form offers them.
    pub fn methods(&self) -> Vec<&'static str> {
        let mut methods = Vec::new();
        if !self.passkeys.is_empty() {
            methods.push("passkey");
        }
        if self.totp_since.is_some() {
            methods.push("totp");
        }
        if self.any() && self.recovery_codes_left > 0 {
            methods.push("recovery");
        }
        methods
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasskeyRow {
    pub id: i64,
    pub name: String,
    pub created_at: String,
    pub last_used: Option<String>,
    /// webauthn-rs's `Passkey` as JSON.
    pub passkey: String,
}

pub fn enrolled(conn: &Connection, user_id: i64) -> Result<Enrolled, ApiError> {
    let totp_since = conn
        .query_row("SELECT created_at FROM totp_factors WHERE user_id = ?1", [user_id], |r| r.get::<_, i64>(0))
        .optional()?
        .map(rfc3339);
    Ok(Enrolled {
        totp_since,
        passkeys: passkeys(conn, user_id)?,
        recovery_codes_left: recovery_codes_left(conn, user_id)?,
    })
}

/// For each account with a second factor: its methods (`totp`, `passkey`), by user id.
pub fn methods_by_user(conn: &Connection) -> Result<std::collections::BTreeMap<i64, Vec<&'static str>>, ApiError> {
    let mut by_user: std::collections::BTreeMap<i64, Vec<&'static str>> = Default::default();
    let mut stmt = conn.prepare(
        "SELECT user_id, 'passkey' FROM passkeys GROUP BY user_id
         UNION ALL SELECT user_id, 'totp' FROM totp_factors ORDER BY 1, 2",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (user_id, method) = row?;
        by_user.entry(user_id).or_default().push(if method == "totp" { "totp" } else { "passkey" });
    }
    Ok(by_user)
}

// ---- authenticator app ----

/// The sealed secret and the last accepted step.
pub fn totp(conn: &Connection, user_id: i64) -> Result<Option<(Vec<u8>, i64)>, ApiError> {
    Ok(conn
        .query_row("SELECT sealed, last_step FROM totp_factors WHERE user_id = ?1", [user_id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?)
}

/// Stores (or replaces) the account's authenticator, with the step its confirming code used.
pub fn set_totp(conn: &Connection, user_id: i64, sealed: &[u8], step: i64) -> Result<(), ApiError> {
    conn.execute(
        "INSERT INTO totp_factors (user_id, sealed, last_step, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (user_id) DO UPDATE SET sealed = excluded.sealed, last_step = excluded.last_step,
             created_at = excluded.created_at, last_used = NULL",
        params![user_id, sealed, step, now_ms()],
    )?;
    Ok(())
}

/// Records `step` as used, unless a code of it or a later one was used already (two requests
/// racing with the same code: one wins). True when this call recorded it.
pub fn use_totp_step(conn: &Connection, user_id: i64, step: i64) -> Result<bool, ApiError> {
    let changed = conn.execute(
        "UPDATE totp_factors SET last_step = ?2, last_used = ?3 WHERE user_id = ?1 AND last_step < ?2",
        params![user_id, step, now_ms()],
    )?;
    Ok(changed == 1)
}

pub fn remove_totp(conn: &Connection, user_id: i64) -> Result<bool, ApiError> {
    Ok(conn.execute("DELETE FROM totp_factors WHERE user_id = ?1", [user_id])? == 1)
}

// ---- passkeys ----

pub fn passkeys(conn: &Connection, user_id: i64) -> Result<Vec<PasskeyRow>, ApiError> {
    let mut stmt =
        conn.prepare("SELECT id, name, created_at, last_used, passkey FROM passkeys WHERE user_id = ?1 ORDER BY id")?;
    let rows = stmt.query_map([user_id], |r| {
        Ok(PasskeyRow {
            id: r.get(0)?,
            name: r.get(1)?,
            created_at: rfc3339(r.get(2)?),
            last_used: r.get::<_, Option<i64>>(3)?.map(rfc3339),
            passkey: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Adds a passkey; `None` when its credential is registered already (to any account) or the
/// account holds `MAX_PASSKEYS`.
pub fn add_passkey(
    conn: &Connection,
    user_id: i64,
    credential_id: &[u8],
    name: &str,
    passkey: &str,
) -> Result<Option<i64>, ApiError> {
    let held: i64 = conn.query_row("SELECT COUNT(*) FROM passkeys WHERE user_id = ?1", [user_id], |r| r.get(0))?;
    if held >= MAX_PASSKEYS {
        return Ok(None);
    }
    let inserted = conn.execute(
        "INSERT INTO passkeys (user_id, credential_id, name, passkey, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (credential_id) DO NOTHING",
        params![user_id, credential_id, name, passkey, now_ms()],
    )?;
    Ok((inserted == 1).then(|| conn.last_insert_rowid()))
}

/// Keeps a passkey's new counter after a sign-in with it.
pub fn passkey_used(conn: &Connection, user_id: i64, id: i64, passkey: &str) -> Result<(), ApiError> {
    conn.execute(
        "UPDATE passkeys SET passkey = ?3, last_used = ?4 WHERE id = ?2 AND user_id = ?1",
        params![user_id, id, passkey, now_ms()],
    )?;
    Ok(())
}

pub fn remove_passkey(conn: &Connection, user_id: i64, id: i64) -> Result<bool, ApiError> {
    Ok(conn.execute("DELETE FROM passkeys WHERE id = ?2 AND user_id = ?1", params![user_id, id])? == 1)
}

// ---- recovery codes ----

/// Ten new codes in place of any the account had; they are returned once and kept hashed.
/// 80 random bits each, written `xxxx-xxxx-xxxx-xxxx` in lowercase base32 (no 0/1/8/9 to
/// mistake for letters).
pub fn replace_recovery_codes(conn: &Connection, user_id: i64) -> Result<Vec<String>, ApiError> {
    conn.execute("DELETE FROM recovery_codes WHERE user_id = ?1", [user_id])?;
    let now = now_ms();
    let mut codes = Vec::with_capacity(RECOVERY_CODES);
    while codes.len() < RECOVERY_CODES {
        let code = new_recovery_code();
        let inserted = conn.execute(
            "INSERT OR IGNORE INTO recovery_codes (user_id, code_hash, created_at) VALUES (?1, ?2, ?3)",
            params![user_id, sha256(&code), now],
        )?;
        if inserted == 1 {
            codes.push(code);
        }
    }
    Ok(codes)
}

fn new_recovery_code() -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut bytes = [0u8; 10];
    rand::fill(&mut bytes);
    // 80 bits as sixteen 5-bit symbols.
    let bits = bytes.iter().fold(0u128, |acc, b| (acc << 8) | u128::from(*b));
    let symbols: String = (0..16).rev().map(|i| ALPHABET[((bits >> (i * 5)) & 31) as usize] as char).collect();
    format!("{}-{}-{}-{}", &symbols[0..4], &symbols[4..8], &symbols[8..12], &symbols[12..16])
}

/// A code as typed (any case, with or without dashes and spaces) in the form it was issued. The
/// codes have no 0 or 1, so those are read as the o and l they were mistaken for.
pub fn normalize_recovery_code(typed: &str) -> Option<String> {
    let symbols: String = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| match c.to_ascii_lowercase() {
            '0' => 'o',
            '1' => 'l',
            c => c,
        })
        .collect();
    if symbols.len() != 16 || !symbols.bytes().all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b)) {
        return None;
    }
    Some(format!("{}-{}-{}-{}", &symbols[0..4], &symbols[4..8], &symbols[8..12], &symbols[12..16]))
}

/// Spends a recovery code: true when it was one of the account's unused codes (now deleted).
pub fn use_recovery_code(conn: &Connection, user_id: i64, code: &str) -> Result<bool, ApiError> {
    Ok(conn
        .execute("DELETE FROM recovery_codes WHERE user_id = ?1 AND code_hash = ?2", params![user_id, sha256(code)])?
        == 1)
}

pub fn recovery_codes_left(conn: &Connection, user_id: i64) -> Result<i64, ApiError> {
    Ok(conn.query_row("SELECT COUNT(*) FROM recovery_codes WHERE user_id = ?1", [user_id], |r| r.get(0))?)
}

/// Removes every second factor of an account (an admin's reset, or the last one removed).
pub fn remove_all(conn: &Connection, user_id: i64) -> Result<(), ApiError> {
    conn.execute("DELETE FROM totp_factors WHERE user_id = ?1", [user_id])?;
    conn.execute("DELETE FROM passkeys WHERE user_id = ?1", [user_id])?;
    conn.execute("DELETE FROM recovery_codes WHERE user_id = ?1", [user_id])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_user() -> (tempfile::TempDir, Connection, i64) {
        let (dir, conn) = crate::db::open_for_tests();
        let id = crate::accounts::store::insert_user(&conn, "staff", "hash").unwrap().unwrap();
        (dir, conn, id)
    }

    #[test]
    fn recovery_codes_are_single_use_and_replaced_together() {
        let (_dir, conn, id) = with_user();
        let codes = replace_recovery_codes(&conn, id).unwrap();
        assert_eq!(codes.len(), RECOVERY_CODES);
        assert_eq!(codes.iter().collect::<std::collections::HashSet<_>>().len(), RECOVERY_CODES);
        for code in &codes {
            assert_eq!(normalize_recovery_code(code).as_deref(), Some(code.as_str()));
        }
        let typed = codes[0].to_uppercase().replace('-', " ");
        let code = normalize_recovery_code(&typed).unwrap();
        assert!(use_recovery_code(&conn, id, &code).unwrap());
        assert!(!use_recovery_code(&conn, id, &code).unwrap(), "spent");
        assert_eq!(recovery_codes_left(&conn, id).unwrap(), 9);
        let stored: Vec<u8> = conn.query_row("SELECT code_hash FROM recovery_codes LIMIT 1", [], |r| r.get(0)).unwrap();
        assert!(codes.iter().all(|c| c.as_bytes() != stored.as_slice()), "hashed, never the code");
        let fresh = replace_recovery_codes(&conn, id).unwrap();
        assert!(!use_recovery_code(&conn, id, &codes[1]).unwrap(), "the old set is gone");
        assert!(use_recovery_code(&conn, id, &fresh[1]).unwrap());
        assert_eq!(
            normalize_recovery_code("1abc-0def-ghij-klmn").as_deref(),
            Some("labc-odef-ghij-klmn"),
            "1 and 0 read as l and o"
        );
        for junk in ["", "abcd-efgh", "abcd-efgh-ijkl-mno9", "abcd-efgh-ijkl-mnop-q", "abcd-efgh-ijkl-mnó"] {
            assert_eq!(normalize_recovery_code(junk), None, "{junk:?}");
        }
    }

    #[test]
    fn a_totp_step_is_used_once_even_by_racing_requests() {
        let (_dir, conn, id) = with_user();
        set_totp(&conn, id, b"sealed", 100).unwrap();
        assert!(use_totp_step(&conn, id, 101).unwrap());
        assert!(!use_totp_step(&conn, id, 101).unwrap(), "the same step again");
        assert!(!use_totp_step(&conn, id, 100).unwrap(), "an older step");
        assert_eq!(totp(&conn, id).unwrap(), Some((b"sealed".to_vec(), 101)));
        assert_eq!(enrolled(&conn, id).unwrap().methods(), ["totp"], "no recovery codes yet");
    }

    #[test]
    fn passkeys_are_unique_capped_and_counted_in_the_methods() {
        let (_dir, conn, id) = with_user();
        let other = crate::accounts::store::insert_user(&conn, "other", "hash").unwrap().unwrap();
        let first = add_passkey(&conn, id, b"cred-1", "Laptop", "{}").unwrap().unwrap();
        assert_eq!(add_passkey(&conn, other, b"cred-1", "Stolen", "{}").unwrap(), None, "one credential, one account");
        for n in 2..=MAX_PASSKEYS {
            assert!(add_passkey(&conn, id, format!("cred-{n}").as_bytes(), "Key", "{}").unwrap().is_some());
        }
        assert_eq!(add_passkey(&conn, id, b"cred-x", "One too many", "{}").unwrap(), None);
        replace_recovery_codes(&conn, id).unwrap();
        assert_eq!(enrolled(&conn, id).unwrap().methods(), ["passkey", "recovery"]);
        assert!(!remove_passkey(&conn, other, first).unwrap(), "only its owner removes it");
        assert!(remove_passkey(&conn, id, first).unwrap());
        assert_eq!(methods_by_user(&conn).unwrap().get(&id).map(Vec::as_slice), Some(&["passkey"][..]));
        remove_all(&conn, id).unwrap();
        assert!(!enrolled(&conn, id).unwrap().any());
        assert!(enrolled(&conn, id).unwrap().methods().is_empty(), "recovery codes alone are no factor");
        let handle = crate::accounts::store::webauthn_handle(&conn, id).unwrap();
        assert_eq!(crate::accounts::store::webauthn_handle(&conn, id).unwrap(), handle, "kept");
        assert_ne!(crate::accounts::store::webauthn_handle(&conn, other).unwrap(), handle);
    }

    #[test]
    fn a_first_factor_ends_the_other_sessions_only() {
        let (_dir, conn, id) = with_user();
        crate::accounts::store::create_session(&conn, "a", id).unwrap();
        crate::accounts::store::create_session(&conn, "b", id).unwrap();
        assert_eq!(crate::accounts::store::end_other_sessions(&conn, id, Some("a")).unwrap(), 1);
        assert!(crate::accounts::store::user_for_token(&conn, "a").unwrap().is_some());
        assert!(crate::accounts::store::user_for_token(&conn, "b").unwrap().is_none());
    }
}
