//! Random secrets and their stored form. Secrets (session tokens, admin keys) are random and
//! long, so a SHA-256 of them is what the database keeps.

use sha2::{Digest, Sha256};

/// `bytes` random bytes as lowercase hex.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::fill(&mut buf[..]);
    hex::encode(buf)
}

pub fn sha256(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// Compares two strings in time independent of where they differ (hashes first, so the
/// lengths leak nothing either).
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    let (x, y) = (Sha256::digest(a.as_bytes()), Sha256::digest(b.as_bytes()));
    x.iter().zip(y.iter()).fold(0u8, |acc, (p, q)| acc | (p ^ q)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_compare_safely() {
        let a = random_hex(32);
        assert_eq!(a.len(), 64);
        assert_ne!(a, random_hex(32));
        assert!(constant_time_eq("phrase", "phrase"));
        assert!(!constant_time_eq("phrase", "phrase "));
    }
}
