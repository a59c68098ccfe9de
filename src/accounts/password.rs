//! Password hashing with argon2id at OWASP's parameters (19 MiB, 2 passes, 1 lane). Hashing
//! runs through `heavy::HeavyWork`, so a burst of logins never takes the async workers or every
//! core away from the rest of the site.

use std::sync::LazyLock;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

use crate::error::ApiError;

pub const MEMORY_KIB: u32 = 19 * 1024;
pub const PASSES: u32 = 2;
pub const LANES: u32 = 1;

fn argon2() -> Argon2<'static> {
    Argon2::new(
        Algorithm::Argon2id,
        Version::V0x13,
        Params::new(MEMORY_KIB, PASSES, LANES, None).expect("valid params"),
    )
}

/// A hash to verify against when the username does not exist, so that both cases take as long.
static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| hash_blocking("not-a-real-password").unwrap());

pub fn hash_blocking(password: &str) -> Result<String, ApiError> {
    let salt = SaltString::generate(&mut OsRng);
    argon2().hash_password(password.as_bytes(), &salt).map(|h| h.to_string()).map_err(ApiError::internal)
}

pub fn verify_blocking(password: &str, phc: Option<&str>) -> bool {
    let phc = phc.unwrap_or(DUMMY_HASH.as_str());
    let Ok(parsed) = PasswordHash::new(phc) else { return false };
    // Verify with the parameters stored in the PHC string, so older hashes keep working.
    Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok() && phc != DUMMY_HASH.as_str()
}

/// Hashing and verifying through the site's gate for heavy work.
#[derive(Clone, Default)]
pub struct Hasher {
    work: crate::heavy::HeavyWork,
}

impl Hasher {
    pub fn new(work: crate::heavy::HeavyWork) -> Self {
        Self { work }
    }

    pub async fn hash(&self, password: String) -> Result<String, ApiError> {
        self.work.run(crate::heavy::HeavyKind::Passwords, move || hash_blocking(&password)).await?
    }

    pub async fn verify(&self, password: String, phc: Option<String>) -> Result<bool, ApiError> {
        self.work.run(crate::heavy::HeavyKind::Passwords, move || verify_blocking(&password, phc.as_deref())).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_argon2id_phc_and_verify() {
        let h = hash_blocking("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(verify_blocking("correct horse", Some(&h)));
        assert!(!verify_blocking("wrong", Some(&h)));
        assert!(!verify_blocking("not-a-real-password", None));
    }
}
