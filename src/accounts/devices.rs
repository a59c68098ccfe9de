//! Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a browser
//! where an account signed in gets a signed cookie naming that account, and its sign-ins skip the
//! per-username throttle, so wrong passwords sent for the name from elsewhere cannot lock its owner
//! out. A device cookie that fails sign-ins is itself throttled (then the browser is treated as a
//! new one), and a browser without one meets the username throttle as before.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::db::Db;
use crate::error::ApiError;

/// The cookie's name (`__Host-fanhub_device` over https).
pub const DEVICE_COOKIE: &str = "fanhub_device";
/// How long a browser stays known: a year from its last successful sign-in.
pub const DEVICE_COOKIE_SECS: i64 = 365 * 24 * 3600;
/// The signing key's file in the data dir (0600, made on first start). Like `second-factor.key` it
/// is never in the database, so a backup cannot be used to mint device cookies, and `fanhub
/// restore` removes it so a restored site signs with a new one.
pub const KEY_FILE: &str = "device-cookie.key";
/// Where the secret was kept before it moved to [`KEY_FILE`]: removed at start, so new backups
/// no longer carry it.
const OLD_SECRET_SETTING: &str = "device_cookie_secret";

/// A browser an account signed in from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    pub user_id: i64,
    /// Random per cookie: what the device's own failures are counted under.
    pub nonce: String,
}

/// Issues and checks device cookies with the site's secret.
#[derive(Clone)]
pub struct DeviceCookies {
    secret: std::sync::Arc<[u8]>,
}

impl DeviceCookies {
    /// The site's signing key from `data_dir` (made on first start); the secret an older fanhub
    /// kept in the database is deleted.
    pub fn open(db: &Db, data_dir: &std::path::Path) -> Result<Self, ApiError> {
        let key = crate::tokens::key_file(&data_dir.join(KEY_FILE)).map_err(ApiError::internal)?;
        db.write_blocking(|tx| crate::db::settings::delete(tx, OLD_SECRET_SETTING))?;
        Ok(Self::with_secret(&key))
    }

    fn with_secret(secret: &[u8]) -> Self {
        Self { secret: secret.into() }
    }

    fn mac(&self, user_id: i64, nonce: &str) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC takes a key of any length");
        mac.update(format!("fanhub device cookie\n{user_id}\n{nonce}").as_bytes());
        mac
    }

    /// A new cookie value for `user_id`: `id.nonce.signature`.
    pub fn issue(&self, user_id: i64) -> String {
        let nonce = crate::tokens::random_hex(16);
        let signature = hex::encode(self.mac(user_id, &nonce).finalize().into_bytes());
        format!("{user_id}.{nonce}.{signature}")
    }

    /// The device a cookie value names, if this site signed it (compared in constant time).
    pub fn verify(&self, value: &str) -> Option<Device> {
        let mut parts = value.split('.');
        let (id, nonce, signature) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || nonce.len() != 32 || !nonce.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let user_id: i64 = id.parse().ok()?;
        let signature = hex::decode(signature).ok()?;
        self.mac(user_id, nonce).verify_slice(&signature).ok()?;
        Some(Device { user_id, nonce: nonce.to_string() })
    }
}

/// Removes the signing key of `data_dir` (a restore): the next start makes a new one. Whether
/// there was one.
pub fn forget_key(data_dir: &std::path::Path) -> bool {
    std::fs::remove_file(data_dir.join(KEY_FILE)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_names_its_account_and_nothing_altered_or_foreign_passes() {
        let site = DeviceCookies::with_secret(b"site secret");
        let value = site.issue(42);
        let device = site.verify(&value).expect("its own cookie");
        assert_eq!(device.user_id, 42);
        assert_ne!(site.issue(42), value, "each cookie has its own nonce");
        let (_, rest) = value.split_once('.').unwrap();
        assert_eq!(site.verify(&format!("43.{rest}")), None, "another account's id");
        assert_eq!(DeviceCookies::with_secret(b"other secret").verify(&value), None, "another site's secret");
        let mut flipped = value.clone();
        let last = flipped.pop().unwrap();
        flipped.push(if last == '0' { '1' } else { '0' });
        assert_eq!(site.verify(&flipped), None, "an altered signature");
        for junk in ["", "42", "42.abc.def", "x.y.z", &format!("{value}.more")] {
            assert_eq!(site.verify(junk), None, "{junk:?}");
        }
    }

    #[test]
    fn the_key_is_a_file_of_the_data_dir_never_the_database_and_a_restore_makes_a_new_one() {
        let (dir, _conn) = crate::db::open_for_tests();
        let db = crate::db::Db::open(&crate::db::database_path(dir.path())).unwrap();
        db.write_blocking(|tx| crate::db::settings::set(tx, OLD_SECRET_SETTING, &"secret a backup carried")).unwrap();
        let site = DeviceCookies::open(&db, dir.path()).unwrap();
        let value = site.issue(7);
        let stored: Option<String> = db.read_blocking(|c| crate::db::settings::get(c, OLD_SECRET_SETTING)).unwrap();
        assert_eq!(stored, None, "the old secret left the database");
        assert_eq!(DeviceCookies::with_secret(b"secret a backup carried").verify(&value), None);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(KEY_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(DeviceCookies::open(&db, dir.path()).unwrap().verify(&value).is_some(), "the same key next start");
        assert!(forget_key(dir.path()));
        assert!(DeviceCookies::open(&db, dir.path()).unwrap().verify(&value).is_none(), "a new key after a restore");
    }
}
