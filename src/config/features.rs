//! Command-line settings of the backups and the metrics endpoint (flattened into `Options`).

use std::time::Duration;

use ipnet::IpNet;

/// The backup settings (flattened into `Options`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BackupOptions {
    /// Write a backup (database and uploads) into DATA_DIR/backups/ this often, e.g. 24h, 6h, 30m, 1d12h. Default: off.
    #[arg(long = "backup-every", env = "FANHUB_BACKUP_EVERY", value_parser = parse_every, global = true)]
    pub backup_every: Option<Duration>,
    /// How many scheduled and Backup Now archives to keep (the oldest are removed).
    #[arg(long = "backup-keep", env = "FANHUB_BACKUP_KEEP", default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=10_000), global = true)]
    pub backup_keep: u32,
    /// Leave WAL checkpoints to Litestream: no background checkpoints and none at shutdown.
    #[arg(long = "litestream", env = "FANHUB_LITESTREAM", global = true)]
    pub litestream: bool,
}

/// Parses `24h`, `30m`, `90s`, `7d`, `1h30m` (units s, m, h, d, w; at least one second).
pub fn parse_every(text: &str) -> Result<Duration, String> {
    let bad = || format!("{text:?} is not a duration like 24h, 30m or 1d12h");
    let mut total: u64 = 0;
    let mut digits = String::new();
    let mut parts = 0;
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return Err(bad()),
        };
        let n: u64 = digits.parse().map_err(|_| bad())?;
        total = n.checked_mul(unit).and_then(|v| total.checked_add(v)).ok_or_else(bad)?;
        digits.clear();
        parts += 1;
    }
    if parts == 0 || !digits.is_empty() {
        return Err(bad());
    }
    if total == 0 || total > 366 * 86_400 {
        return Err(format!("{text:?}: the backup interval must be between 1s and 366d"));
    }
    Ok(Duration::from_secs(total))
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct MetricsOptions {
    /// Serve Prometheus metrics at /metrics (to an admin key, or to --metrics-allow addresses).
    #[arg(long = "metrics", env = "FANHUB_METRICS", global = true)]
    pub metrics: bool,
    /// CIDRs that may read /metrics without a key (comma-separated), e.g. 127.0.0.1/32,10.0.0.0/8.
    #[arg(long = "metrics-allow", env = "FANHUB_METRICS_ALLOW", value_delimiter = ',', global = true)]
    pub metrics_allow: Vec<IpNet>,
}
