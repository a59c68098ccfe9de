//! Where the secrets come from: a secret written in the systemd unit (`Environment=`) is printed by
//! `systemctl show` to any local user, and an `EnvironmentFile=` others can read gives it away
//! too. The check reads the installed unit (`/etc/systemd/system/fanhub.service`, or
//! `FANHUB_UNIT_FILE`) and the environment files it names.

use std::path::{Path, PathBuf};

use super::Check;
use crate::config::SECRET_VARS;

const NAME: &str = "secrets";
pub const DEFAULT_UNIT: &str = "/etc/systemd/system/fanhub.service";

/// The unit file this check reads.
pub fn unit_path() -> PathBuf {
    std::env::var_os("FANHUB_UNIT_FILE").map_or_else(|| PathBuf::from(DEFAULT_UNIT), PathBuf::from)
}

/// The secret variables a text sets (`NAME=...` lines, or `Environment=NAME=...` in a unit).
fn secrets_set_in(text: &str) -> Vec<&'static str> {
    let mut found = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.starts_with('#') && !l.starts_with(';')) {
        let assignment = line.strip_prefix("Environment=").unwrap_or(line);
        for name in SECRET_VARS {
            // Environment= may hold several assignments, quoted or not.
            let set = assignment.split_whitespace().any(|part| part.trim_matches('"').starts_with(&format!("{name}=")));
            if set && !found.contains(&name) {
                found.push(name);
            }
        }
    }
    found
}

/// Checks `unit` and the environment files it names.
pub fn check(unit: &Path) -> Check {
    let Ok(text) = std::fs::read_to_string(unit) else {
        return Check::skipped(NAME, format!("no systemd unit at {} (FANHUB_UNIT_FILE names another)", unit.display()));
    };
    let in_unit: Vec<_> =
        text.lines().map(str::trim).filter(|l| l.starts_with("Environment=")).flat_map(secrets_set_in).collect();
    if !in_unit.is_empty() {
        return Check::fail(
            NAME,
            format!(
                "{} sets {} with Environment=, which `systemctl show` prints to any local user",
                unit.display(),
                in_unit.join(", ")
            ),
            "move it to an EnvironmentFile= of mode 0600 (chmod 600 /etc/fanhub/fanhub.env) or to LoadCredential=NAME:/etc/fanhub/NAME (see the README's systemd section)",
        );
    }
    let files: Vec<PathBuf> = text
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("EnvironmentFile="))
        .map(|f| PathBuf::from(f.trim().trim_start_matches('-')))
        .collect();
    let mut named = Vec::new();
    for file in &files {
        let Ok(contents) = std::fs::read_to_string(file) else { continue };
        let secrets = secrets_set_in(&contents);
        if secrets.is_empty() {
            continue;
        }
        let mode = mode_of(file);
        if mode & 0o077 != 0 {
            return Check::fail(
                NAME,
                format!(
                    "{} holds {} and has mode {mode:04o}: other users can read it",
                    file.display(),
                    secrets.join(", ")
                ),
                format!("chmod 600 {} (owned by root: systemd reads it before starting fanhub)", file.display()),
            );
        }
        named.push(format!("{} (mode {mode:04o})", file.display()));
    }
    if named.is_empty() {
        Check::pass(NAME, format!("{} sets no secret itself", unit.display()))
    } else {
        Check::pass(NAME, format!("kept in {}", named.join(", ")))
    }
}

#[cfg(unix)]
fn mode_of(file: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).map(|m| m.permissions().mode() & 0o777).unwrap_or(0)
}

#[cfg(not(unix))]
fn mode_of(_file: &Path) -> u32 {
    0
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_secret_in_the_unit_or_in_a_file_others_read_fails_and_a_0600_file_passes() {
        let dir = tempfile::tempdir().unwrap();
        let unit = dir.path().join("fanhub.service");
        let env = dir.path().join("fanhub.env");
        assert!(check(&unit).ok, "no unit: skipped");

        std::fs::write(&unit, "[Service]\n# Environment=FANHUB_ADMIN_PHRASE=commented-out\nEnvironment=\"FANHUB_ADMIN_PHRASE=a long phrase\" FANHUB_SITE=/x\n").unwrap();
        let found = check(&unit);
        assert!(!found.ok && found.detail.contains("FANHUB_ADMIN_PHRASE"), "{found:?}");

        std::fs::write(&unit, format!("[Service]\nEnvironment=FANHUB_SITE=/x\nEnvironmentFile=-{}\n", env.display()))
            .unwrap();
        std::fs::write(&env, "FANHUB_DISCORD_TOKEN=abc\n").unwrap();
        std::fs::set_permissions(&env, std::fs::Permissions::from_mode(0o644)).unwrap();
        let readable = check(&unit);
        assert!(!readable.ok && readable.detail.contains("mode 0644"), "{readable:?}");
        assert!(readable.fix.as_deref().unwrap().starts_with(&format!("chmod 600 {}", env.display())));

        std::fs::set_permissions(&env, std::fs::Permissions::from_mode(0o600)).unwrap();
        let kept = check(&unit);
        assert!(kept.ok && kept.detail.contains("mode 0600"), "{kept:?}");

        std::fs::write(&env, "FANHUB_SITE=/x\n").unwrap();
        std::fs::set_permissions(&env, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(check(&unit).ok, "a readable file without secrets is fine");
    }
}
