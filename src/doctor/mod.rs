//! `fanhub doctor`: checks a setup before it goes live and prints one line per check, `✓` or `✗`
//! with how to fix it; exit code 1 when anything failed. Safe next to a running server: the
//! database is opened read-only, the only file written is a probe removed at once, and the
//! listen address is only bound when it is free. Every check has a deadline, so the whole run
//! ends within [`TOTAL_BUDGET`] even when a disk or an upstream hangs, and none of them reads the
//! whole database: that is `--full`'s, which has no deadline (it takes about 4 s a GB).

mod local;
pub mod replication;
mod secrets;
pub mod upstream;

use std::process::ExitCode;
use std::time::Duration;

use crate::config::{DoctorOptions, Options, Secrets};

/// Local checks (site file, data dir, database) share this deadline.
const LOCAL_DEADLINE: Duration = Duration::from_secs(10);
/// The listen address check: a bind, and a health request when a program holds the address.
const LISTEN_DEADLINE: Duration = Duration::from_secs(4);
/// The longest the whole run can take (the checks run at the same time).
pub const TOTAL_BUDGET: Duration = Duration::from_secs(15);

/// One line of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    /// What was found.
    pub detail: String,
    /// How to fix it (failures only).
    pub fix: Option<String>,
}

impl Check {
    pub fn pass(name: &'static str, detail: impl Into<String>) -> Self {
        Self { name, ok: true, detail: detail.into(), fix: None }
    }

    pub fn fail(name: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self { name, ok: false, detail: detail.into(), fix: Some(fix.into()) }
    }

    /// A check that does not apply to this setup (passes, with a note saying why).
    pub fn skipped(name: &'static str, why: impl Into<String>) -> Self {
        Self::pass(name, format!("skipped: {}", why.into()))
    }

    pub fn line(&self) -> String {
        match &self.fix {
            Some(fix) if !self.ok => format!("✗ {}: {} → {}", self.name, self.detail, fix),
            _ => format!("{} {}: {}", if self.ok { "✓" } else { "✗" }, self.name, self.detail),
        }
    }
}

/// Runs every check and prints the report; the exit code of `fanhub doctor`.
pub fn run(options: &Options, doctor: &DoctorOptions, secrets: Secrets) -> ExitCode {
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("fanhub: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let checks = rt.block_on(run_checks(options.clone(), doctor.clone(), secrets));
    // A check stuck in the kernel (a hung network mount) must not keep the process alive.
    rt.shutdown_background();
    for check in &checks {
        println!("{}", check.line());
    }
    let failed = checks.iter().filter(|c| !c.ok).count();
    if failed == 0 {
        println!("All {} checks passed.", checks.len());
        ExitCode::SUCCESS
    } else {
        println!("{failed} of {} checks failed.", checks.len());
        ExitCode::from(1)
    }
}

/// All checks at the same time, each under its deadline; the report in a fixed order.
pub async fn run_checks(options: Options, doctor: DoctorOptions, secrets: Secrets) -> Vec<Check> {
    crate::llm::install_crypto();
    let local_options = options.clone();
    // `--full` reads the whole database: as long as that takes.
    let deadline = if doctor.full { Duration::MAX } else { LOCAL_DEADLINE };
    let local = async move {
        let task = tokio::task::spawn_blocking(move || local::checks(&local_options, &doctor));
        match tokio::time::timeout(deadline, task).await {
            Ok(Ok(checks)) => checks,
            Ok(Err(e)) => vec![Check::fail("local checks", format!("stopped: {e}"), "report this as a bug")],
            Err(_) => vec![Check::fail(
                "data dir",
                format!(
                    "checking {} took longer than {}s (a hung network mount or a very slow disk?)",
                    options.data_dir.display(),
                    LOCAL_DEADLINE.as_secs()
                ),
                "put the data dir on a local disk that answers",
            )],
        }
    };
    let listen = async {
        match tokio::time::timeout(LISTEN_DEADLINE, local::check_listen(options.addr)).await {
            Ok(check) => check,
            Err(_) => Check::fail(
                "listen address",
                format!("{} is in use and the program holding it did not answer in time", options.addr),
                "stop that program or choose another --addr",
            ),
        }
    };
    let upstreams = upstream::UpstreamSettings::from_secrets(&secrets);
    let (mut checks, listen, upstream_checks) = tokio::join!(local, listen, upstream::check_all(&upstreams));
    checks.push(listen);
    checks.extend(upstream_checks);
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_name_the_fix_and_passes_do_not() {
        let bad = Check::fail("data dir", "/x is not writable", "chown it");
        assert_eq!(bad.line(), "✗ data dir: /x is not writable → chown it");
        assert_eq!(Check::pass("site file", "valid").line(), "✓ site file: valid");
        assert_eq!(Check::skipped("LLM", "not configured").line(), "✓ LLM: skipped: not configured");
    }
}
