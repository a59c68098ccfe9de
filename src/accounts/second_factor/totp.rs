//! Authenticator-app codes (RFC 6238: HMAC-SHA-1, 6 digits, 30 s steps, as every authenticator
//! app expects), and the sealing of their secrets at rest.
//!
//! The secret has to be read back to check a code, so it cannot be hashed: it is sealed with
//! ChaCha20-Poly1305 under a key kept in its own file of the data dir (`second-factor.key`,
//! mode 0600), so a copy of the database or of its backups alone gives nobody the codes. The
//! account's id is the sealed value's associated data: a sealed secret moved to another row
//! does not open.

use std::path::Path;

use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use totp_rs::{Algorithm, TOTP};

use crate::error::ApiError;

/// The key file's name in the data dir.
pub const KEY_FILE: &str = "second-factor.key";
/// Seconds per code.
pub const STEP_SECS: u64 = 30;
const DIGITS: usize = 6;
/// 160 bits, as RFC 4226 recommends and authenticator apps expect.
pub const SECRET_LEN: usize = 20;

/// Seals and opens TOTP secrets with the data dir's key.
#[derive(Clone)]
pub struct Sealer {
    key: std::sync::Arc<LessSafeKey>,
}

impl Sealer {
    /// The data dir's key, made on first start (32 random bytes as hex, readable by the owner only).
    pub fn open(data_dir: &Path) -> Result<Self, String> {
        Ok(Self::with_key(&crate::tokens::key_file(&data_dir.join(KEY_FILE))?))
    }

    fn with_key(bytes: &[u8]) -> Self {
        let key = UnboundKey::new(&CHACHA20_POLY1305, bytes).expect("a 32-byte key");
        Self { key: std::sync::Arc::new(LessSafeKey::new(key)) }
    }

    /// `nonce || sealed secret || tag`, bound to `user_id`.
    pub fn seal(&self, user_id: i64, secret: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::fill(&mut nonce);
        let mut sealed = secret.to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(user_id.to_be_bytes()),
                &mut sealed,
            )
            .expect("a secret far under ChaCha20's limit");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        out
    }

    /// The secret sealed for `user_id`, or None when it was sealed with another key or for
    /// another account.
    pub fn open_secret(&self, user_id: i64, sealed: &[u8]) -> Option<Vec<u8>> {
        if sealed.len() < NONCE_LEN {
            return None;
        }
        let (nonce, body) = sealed.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
        let mut body = body.to_vec();
        let plain = self.key.open_in_place(nonce, Aad::from(user_id.to_be_bytes()), &mut body).ok()?;
        Some(plain.to_vec())
    }
}

/// A new random secret.
pub fn new_secret() -> Vec<u8> {
    let mut secret = vec![0u8; SECRET_LEN];
    rand::fill(&mut secret[..]);
    secret
}

/// The generator for `secret`, labelled `issuer: account` in authenticator apps.
pub fn generator(secret: Vec<u8>, issuer: &str, account: &str) -> Result<TOTP, ApiError> {
    // The otpauth label separates issuer and account with ':', so neither may hold one.
    let issuer = issuer.replace(':', " ");
    TOTP::new(Algorithm::SHA1, DIGITS, 1, STEP_SECS, secret, Some(issuer), account.replace(':', " "))
        .map_err(|e| ApiError::internal(format!("TOTP: {e}")))
}

/// What an authenticator app scans: the `otpauth://` URL, as a PNG data URL.
pub fn qr_data_url(totp: &TOTP) -> Result<String, ApiError> {
    let png = totp.get_qr_base64().map_err(|e| ApiError::internal(format!("QR code: {e}")))?;
    Ok(format!("data:image/png;base64,{png}"))
}

/// The step at `unix_secs`.
pub fn step_at(unix_secs: u64) -> i64 {
    (unix_secs / STEP_SECS) as i64
}

/// The step `code` belongs to: the current one, the one before or the one after (a phone's clock
/// a little off, a code typed as it changed), and only one later than `last_step`, so a code
/// already used, or an older one, is refused. Compared in constant time.
pub fn matching_step(totp: &TOTP, code: &str, unix_secs: u64, last_step: i64) -> Option<i64> {
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    if code.len() != DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let now = step_at(unix_secs);
    let mut found = None;
    for step in [now - 1, now, now + 1] {
        if step <= last_step || step < 0 {
            continue;
        }
        let expected = totp.generate(step as u64 * STEP_SECS);
        if crate::tokens::constant_time_eq(&expected, &code) && found.is_none() {
            found = Some(step);
        }
    }
    found
}

/// Whether `code` looks like an authenticator code (six digits, spaces allowed) rather than a
/// recovery code.
pub fn looks_like_code(code: &str) -> bool {
    let digits: Vec<char> = code.chars().filter(|c| !c.is_whitespace()).collect();
    digits.len() == DIGITS && digits.iter().all(char::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rfc_generator() -> TOTP {
        // RFC 6238 appendix B's SHA-1 secret, 8 digits there; the 6 digits are its last six.
        generator(b"12345678901234567890".to_vec(), "Site", "alice").unwrap()
    }

    #[test]
    fn codes_match_rfc_6238s_test_vectors() {
        let totp = rfc_generator();
        // 94287082, 07081804, 14050471 at 59, 1111111109 and 1111111111 seconds.
        assert_eq!(totp.generate(59), "287082");
        assert_eq!(totp.generate(1_111_111_109), "081804");
        assert_eq!(totp.generate(1_111_111_111), "050471");
    }

    #[test]
    fn the_previous_and_next_step_pass_and_a_used_or_older_step_does_not() {
        let totp = rfc_generator();
        let now = 1_700_000_015;
        let step = step_at(now);
        let code_of = |s: i64| totp.generate(s as u64 * STEP_SECS);
        assert_eq!(matching_step(&totp, &code_of(step), now, 0), Some(step));
        assert_eq!(matching_step(&totp, &code_of(step - 1), now, 0), Some(step - 1));
        assert_eq!(matching_step(&totp, &code_of(step + 1), now, 0), Some(step + 1));
        assert_eq!(matching_step(&totp, &code_of(step - 2), now, 0), None, "a minute old");
        assert_eq!(matching_step(&totp, &code_of(step + 2), now, 0), None, "a minute ahead");
        assert_eq!(matching_step(&totp, &code_of(step), now, step), None, "replayed");
        assert_eq!(matching_step(&totp, &code_of(step - 1), now, step), None, "older than the last used");
        let spaced = format!("{} {}", &code_of(step)[..3], &code_of(step)[3..]);
        assert_eq!(matching_step(&totp, &spaced, now, 0), Some(step), "typed as the app shows it");
        for junk in ["", "12345", "1234567", "abcdef", "１２３４５６"] {
            assert_eq!(matching_step(&totp, junk, now, 0), None, "{junk:?}");
        }
    }

    #[test]
    fn a_sealed_secret_opens_only_for_its_account_and_key() {
        let sealer = Sealer::with_key(&[7u8; 32]);
        let sealed = sealer.seal(5, b"secret bytes");
        assert_ne!(sealer.seal(5, b"secret bytes"), sealed, "a fresh nonce each time");
        assert_eq!(sealer.open_secret(5, &sealed).as_deref(), Some(&b"secret bytes"[..]));
        assert_eq!(sealer.open_secret(6, &sealed), None, "another account's row");
        assert_eq!(Sealer::with_key(&[8u8; 32]).open_secret(5, &sealed), None, "another key");
        let mut altered = sealed.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert_eq!(sealer.open_secret(5, &altered), None);
        assert_eq!(sealer.open_secret(5, &[1, 2, 3]), None);
    }

    #[test]
    fn the_key_file_is_made_once_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let first = Sealer::open(dir.path()).unwrap();
        let sealed = first.seal(1, b"x");
        let again = Sealer::open(dir.path()).unwrap();
        assert_eq!(again.open_secret(1, &sealed).as_deref(), Some(&b"x"[..]), "the same key after a restart");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(KEY_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "readable by the owner only");
        }
        std::fs::write(dir.path().join(KEY_FILE), "not hex").unwrap();
        assert!(Sealer::open(dir.path()).err().unwrap().contains("not a key"));
    }
}
