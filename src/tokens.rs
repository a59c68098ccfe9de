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

/// The 32-byte key kept in `path` (64 hex digits), made on first use readable by the owner only
/// (0600). Keys live in files of the data dir, never in the database, so a backup of the database
/// cannot be used to forge what they sign.
pub fn key_file(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let hex_key = match std::fs::read_to_string(path) {
        Ok(text) => text.trim().to_string(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => create_key_file(path)?,
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    hex::decode(&hex_key)
        .ok()
        .filter(|b| b.len() == 32)
        .ok_or_else(|| format!("{}: not a key (64 hex digits expected)", path.display()))
}

fn create_key_file(path: &std::path::Path) -> Result<String, String> {
    use std::io::Write;
    let key = random_hex(32);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    file.write_all(format!("{key}\n").as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(key)
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
