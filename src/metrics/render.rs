//! The Prometheus text exposition of everything [`super::Metrics`] and the state hold.

use std::fmt::Write;
use std::sync::atomic::Ordering;

use super::{BUCKETS_US, METHODS, MetricsState, STATUSES};

/// A label value with `\`, `"` and newlines escaped.
fn esc(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn head(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// Resident memory from /proc/self/status (VmRSS, in kB whatever the page size).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
}

fn rfc3339_seconds(text: &Option<String>) -> Option<f64> {
    text.as_deref()?.parse::<jiff::Timestamp>().ok().map(|t| t.as_millisecond() as f64 / 1000.0)
}

pub fn render(state: &MetricsState) -> String {
    let m = &state.metrics;
    let mut out = String::with_capacity(16 * 1024);

    head(
        &mut out,
        "fanhub_http_requests_total",
        "counter",
        "HTTP requests answered, by route template, method and status.",
    );
    for (slot, route) in m.routes.iter().enumerate() {
        for (mi, per_status) in route.requests.iter().enumerate() {
            let method = METHODS.get(mi).map(|m| m.as_str()).unwrap_or("other");
            for (si, n) in per_status.iter().enumerate() {
                let n = n.load(Ordering::Relaxed);
                if n == 0 {
                    continue;
                }
                let status = STATUSES.get(si).map(|s| s.to_string()).unwrap_or_else(|| "other".into());
                let _ = writeln!(
                    out,
                    "fanhub_http_requests_total{{route=\"{}\",method=\"{method}\",status=\"{status}\"}} {n}",
                    esc(&m.names[slot])
                );
            }
        }
    }

    head(
        &mut out,
        "fanhub_http_request_duration_seconds",
        "histogram",
        "Time from routing to the response head, by route template.",
    );
    for (slot, route) in m.routes.iter().enumerate() {
        let buckets: Vec<u64> = route.buckets.iter().map(|b| b.load(Ordering::Relaxed)).collect();
        let count = route.count().max(buckets.iter().sum());
        if count == 0 {
            continue;
        }
        let name = esc(&m.names[slot]);
        let mut cumulative = 0;
        for (b, bound) in BUCKETS_US.iter().enumerate() {
            cumulative += buckets[b];
            let _ = writeln!(
                out,
                "fanhub_http_request_duration_seconds_bucket{{route=\"{name}\",le=\"{}\"}} {cumulative}",
                *bound as f64 / 1e6
            );
        }
        let _ = writeln!(out, "fanhub_http_request_duration_seconds_bucket{{route=\"{name}\",le=\"+Inf\"}} {count}");
        let _ = writeln!(
            out,
            "fanhub_http_request_duration_seconds_sum{{route=\"{name}\"}} {}",
            route.sum_us.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(out, "fanhub_http_request_duration_seconds_count{{route=\"{name}\"}} {count}");
    }

    head(&mut out, "fanhub_http_open_connections", "gauge", "TCP connections open now.");
    let _ = writeln!(out, "fanhub_http_open_connections {}", m.connections.open.load(Ordering::Relaxed).max(0));
    head(&mut out, "fanhub_http_connections_total", "counter", "TCP connections accepted since start.");
    let _ = writeln!(out, "fanhub_http_connections_total {}", m.connections.total.load(Ordering::Relaxed));

    let pool = state.db.pool_stats();
    head(&mut out, "fanhub_db_readers_busy", "gauge", "Read-only SQLite connections in use now.");
    let _ = writeln!(out, "fanhub_db_readers_busy {}", pool.readers_busy);
    head(&mut out, "fanhub_db_readers_idle", "gauge", "Read-only SQLite connections open and idle.");
    let _ = writeln!(out, "fanhub_db_readers_idle {}", pool.readers_idle);
    head(&mut out, "fanhub_db_writer_busy", "gauge", "1 while the writer connection runs a transaction.");
    let _ = writeln!(out, "fanhub_db_writer_busy {}", pool.writer_busy);
    head(&mut out, "fanhub_db_writes_waiting", "gauge", "Write transactions waiting for the writer.");
    let _ = writeln!(out, "fanhub_db_writes_waiting {}", pool.writes_waiting);

    let jobs = state.jobs.snapshot();
    head(&mut out, "fanhub_job_running", "gauge", "1 while a background job runs.");
    for j in &jobs {
        let _ = writeln!(out, "fanhub_job_running{{job=\"{}\"}} {}", esc(&j.name), u8::from(j.running));
    }
    head(&mut out, "fanhub_job_runs_total", "counter", "Runs of each background job.");
    for j in &jobs {
        let _ = writeln!(out, "fanhub_job_runs_total{{job=\"{}\"}} {}", esc(&j.name), j.runs);
    }
    head(&mut out, "fanhub_job_failures_total", "counter", "Failed runs of each background job.");
    for j in &jobs {
        let _ = writeln!(out, "fanhub_job_failures_total{{job=\"{}\"}} {}", esc(&j.name), j.failures);
    }
    head(
        &mut out,
        "fanhub_job_last_success_timestamp_seconds",
        "gauge",
        "Unix time of each job's last successful run.",
    );
    for j in &jobs {
        if let Some(t) = rfc3339_seconds(&j.last_success) {
            let _ = writeln!(out, "fanhub_job_last_success_timestamp_seconds{{job=\"{}\"}} {t}", esc(&j.name));
        }
    }

    let upstream = state.jobs.upstream_snapshot();
    for (name, help, pick) in [
        ("fanhub_upstream_calls_total", "Calls to other services, by service and endpoint template.", 0),
        ("fanhub_upstream_failures_total", "Calls to other services that failed.", 1),
        ("fanhub_upstream_throttled_total", "Calls to other services answered with 429 (or their own slow-down).", 2),
    ] {
        head(&mut out, name, "counter", help);
        for (service, endpoint, c) in &upstream {
            let n = [c.calls, c.failures, c.throttled][pick];
            let _ = writeln!(out, "{name}{{service=\"{}\",endpoint=\"{}\"}} {n}", esc(service), esc(endpoint));
        }
    }

    let budgets = state.roblox.http.budgets.usage();
    type Pick = fn(&crate::roblox::budgets::BudgetUse) -> Option<u32>;
    let roblox: [(&str, &str, Pick); 4] = [
        ("fanhub_roblox_budget_limit", "The site's budget of calls per minute for each Roblox endpoint.", |u| {
            Some(u.limit)
        }),
        ("fanhub_roblox_budget_used", "Calls let out to each Roblox endpoint in the current minute.", |u| Some(u.used)),
        (
            "fanhub_roblox_quota_remaining",
            "Calls Roblox says are left in its current window (x-ratelimit-remaining), for endpoints whose answers carried it.",
            |u| u.quota_remaining,
        ),
        (
            "fanhub_roblox_quota_limit",
            "Roblox's own limit per window (x-ratelimit-limit), where its answers carried it.",
            |u| u.quota_limit,
        ),
    ];
    for (name, help, pick) in roblox {
        head(&mut out, name, "gauge", help);
        for u in &budgets {
            if let Some(n) = pick(u) {
                let _ = writeln!(out, "{name}{{endpoint=\"{}\"}} {n}", esc(&u.endpoint.name()));
            }
        }
    }

    let watch = state.watch.counts();
    let follows: [(&str, &str, &str, u64); 5] = [
        ("fanhub_followed_players", "gauge", "Players followed by at least one account.", watch.followed_players),
        ("fanhub_following_accounts", "gauge", "Accounts following at least one player.", watch.following_accounts),
        (
            "fanhub_follow_checks_due",
            "gauge",
            "Followed players whose last check is older than [follows] recheck_hours.",
            watch.due,
        ),
        (
            "fanhub_followed_players_checked_last_hour",
            "gauge",
            "Followed players checked (by a re-check or a visitor) in the last hour.",
            watch.checked_last_hour,
        ),
        (
            "fanhub_follow_rechecks_total",
            "counter",
            "Background re-checks of followed players since start.",
            state.watch.checks.load(std::sync::atomic::Ordering::Relaxed),
        ),
    ];
    for (name, kind, help, n) in follows {
        head(&mut out, name, kind, help);
        let _ = writeln!(out, "{name} {n}");
    }

    if let Some(rss) = resident_bytes() {
        head(&mut out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
        let _ = writeln!(out, "process_resident_memory_bytes {rss}");
    }
    head(&mut out, "process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch in seconds.");
    let _ = writeln!(out, "process_start_time_seconds {}", state.started_at.as_millisecond() as f64 / 1000.0);
    out
}
