//! A year-old fanhub database for `scripts/bench year` (issue 37): the volumes of a popular fan
//! site, seeded (the same seed and scale give the same rows), at schema version 17.
//!
//! `cargo run --profile ci --example year_db -- PATH [--scale F] [--seed N] [--end-days-ago N]`
//! builds PATH from nothing: the schema from the migration files 0001..0017 (pinned: a newer
//! binary started on the file measures its one-time upgrade), then 365 days ending N days ago
//! (default 0: today, UTC), each day's rows written with the statements the stores use.
//! `... PATH --append-days N` adds the N days after the file's last day (a simulated month, for
//! the growth per month). Beside PATH it writes PATH.json: the keys (public, a generated one, an
//! admin key), ids that exist (players, groups, scans, badges, accounts) and the row counts.
//!
//! Scale 1.0 is the site: 20,000 visitors, 200 sign-ins, 137 new accounts (50,000 a
//! year), 100,000 keyed calls of 500 keys, 2,000 player lookups (500,000 players a year) a day,
//! 50 group scans of 5,000 members a year, 10,000 follows, 200 badges polled every minute (35
//! days of snapshots kept, as the poller's pruning leaves them). Counts scale with the factor;
//! what is kept for a window (login logs 180 days, sessions 30, the lookup cache 7, snapshots
//! 35) is written for that window only, as the server's pruning would leave it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rusqlite::{Connection, params};

/// The schema of today's release, file for file (src/db/migrations): never the newest binary's.
const SCHEMA_17: &[(i64, &str, &str)] = &[
    (1, "0001_core", include_str!("../src/db/migrations/0001_core.sql")),
    (2, "0002_accounts", include_str!("../src/db/migrations/0002_accounts.sql")),
    (3, "0003_developer_api", include_str!("../src/db/migrations/0003_developer_api.sql")),
    (4, "0004_advertising", include_str!("../src/db/migrations/0004_advertising.sql")),
    (5, "0005_roblox", include_str!("../src/db/migrations/0005_roblox.sql")),
    (6, "0006_discord", include_str!("../src/db/migrations/0006_discord.sql")),
    (8, "0008_scans", include_str!("../src/db/migrations/0008_scans.sql")),
    (9, "0009_player_ranking", include_str!("../src/db/migrations/0009_player_ranking.sql")),
    (10, "0010_badge_image_fallbacks", include_str!("../src/db/migrations/0010_badge_image_fallbacks.sql")),
    (11, "0011_ranking_version", include_str!("../src/db/migrations/0011_ranking_version.sql")),
    (13, "0013_ad_image_removal", include_str!("../src/db/migrations/0013_ad_image_removal.sql")),
    (14, "0014_badge_days", include_str!("../src/db/migrations/0014_badge_days.sql")),
    (15, "0015_roblox_budget_ledger", include_str!("../src/db/migrations/0015_roblox_budget_ledger.sql")),
    (16, "0016_second_factors", include_str!("../src/db/migrations/0016_second_factors.sql")),
    (17, "0017_follows", include_str!("../src/db/migrations/0017_follows.sql")),
];

/// As src/db/migrations.rs records the applied files.
const BOOKKEEPING: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL,
    adopted    INTEGER NOT NULL DEFAULT 0 CHECK (adopted IN (0, 1))
)";

const DAY_MS: i64 = 86_400_000;
const YEAR: f64 = 365.0;

/// Per day at scale 1 (the site).
const VISITORS: f64 = 20_000.0;
const SIGN_INS: f64 = 200.0;
const ACCOUNTS_A_YEAR: f64 = 50_000.0;
const KEYS: f64 = 500.0;
const KEYED_CALLS: f64 = 100_000.0;
const LOOKUPS: f64 = 2_000.0;
const PLAYERS_A_YEAR: f64 = 500_000.0;
const SCANS_A_YEAR: f64 = 50.0;
const SCAN_MEMBERS: i64 = 5_000;
const FOLLOWS_A_YEAR: f64 = 10_000.0;
const BADGES: f64 = 200.0;
const REPORTS_A_YEAR: f64 = 2_000.0;
const ADS_A_YEAR: f64 = 300.0;
/// The share of a month's visits made by distinct visitors (returning visitors count once).
const MONTHLY_DISTINCT: f64 = 0.46;

/// Kept windows, as today's server prunes them.
const LOGIN_LOG_DAYS: i64 = 180;
const SESSION_DAYS: i64 = 30;
const CACHE_DAYS: i64 = 7;
const SNAPSHOT_DAYS: i64 = 35;

const ROUTES: &[&str] = &[
    "/",
    "/commands",
    "/guides",
    "/badge-monitor",
    "/newgen-check",
    "/leaderboard",
    "/groups",
    "/community",
    "/discord-news",
    "/players/:name",
    "/account",
    "/login",
    "/register",
    "/developers",
    "/advertise",
    "/privacy",
    "/guides/:slug",
    "/commands/:id",
    "/scans",
    "/follows",
];
const FIRST: &[&str] = &[
    "Star", "Block", "Build", "Elect", "Noob", "Pro", "Craft", "Sky", "Night", "Fox", "Wolf", "Blox", "Gamer", "Epic",
    "Cool", "Dark", "Shadow", "Ice", "Fire", "Storm",
];
const SECOND: &[&str] = &["Master", "King", "Lord", "Rider", "Maker", "Hero", "Ninja", "Pilot", "Boss", "Kid"];

/// splitmix64's finaliser: a well-mixed 64-bit value of any input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A small seeded generator (no dependency on a crate's algorithm: the rows stay the same).
struct Rng(u64);

impl Rng {
    fn new(seed: u64, stream: u64, day: i64) -> Self {
        Self(mix(seed ^ mix(stream) ^ mix(day as u64).rotate_left(17)))
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn hash16(a: u64, b: u64) -> [u8; 16] {
    let (x, y) = (mix(a ^ mix(b)), mix(b ^ mix(a.rotate_left(29))));
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&x.to_le_bytes());
    out[8..].copy_from_slice(&y.to_le_bytes());
    out
}

/// YYYY-MM-DD of a day counted from the Unix epoch (Howard Hinnant's civil_from_days).
fn civil(day: i64) -> (i64, u32, u32) {
    let z = day + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn day_text(day: i64) -> String {
    let (y, m, d) = civil(day);
    format!("{y:04}-{m:02}-{d:02}")
}

fn month_text(day: i64) -> String {
    let (y, m, _) = civil(day);
    format!("{y:04}-{m:02}")
}

/// The 1-based day of the month and the month's number since year 0 (visitor pools are monthly).
fn month_of(day: i64) -> (i64, u32) {
    let (y, m, d) = civil(day);
    (y * 12 + i64::from(m), d)
}

fn rfc3339(ms: i64) -> String {
    let day = ms.div_euclid(DAY_MS);
    let secs = ms.rem_euclid(DAY_MS) / 1000;
    format!("{}T{:02}:{:02}:{:02}Z", day_text(day), secs / 3600, secs / 60 % 60, secs % 60)
}

/// How many of a thing `per_year` makes exist after `days` days (whole, rising by day).
fn cumulative(per_year: f64, scale: f64, days: i64) -> i64 {
    (per_year * scale * days as f64 / YEAR).floor() as i64
}

/// Writes one day's rows of some tables (the day's index from the first day).
type DayWriter = fn(&rusqlite::Transaction, &Plan, i64);

struct Plan {
    path: PathBuf,
    scale: f64,
    seed: u64,
    /// The first day of the site (days since the epoch): day index 0.
    origin: i64,
    /// The last day with rows.
    last: i64,
}

impl Plan {
    fn n(&self, per_day: f64) -> i64 {
        (per_day * self.scale).round().max(1.0) as i64
    }
    fn keys(&self) -> i64 {
        self.n(KEYS)
    }
    fn badges(&self) -> i64 {
        self.n(BADGES).max(4)
    }
    fn scan_every(&self) -> i64 {
        ((YEAR / (SCANS_A_YEAR * self.scale)).round() as i64).clamp(1, 180)
    }
    fn groups(&self) -> i64 {
        ((SCANS_A_YEAR * self.scale / 2.0).round() as i64).max(1)
    }
    /// Players stored by the end of day `i` (day index).
    fn players_by(&self, i: i64) -> i64 {
        cumulative(PLAYERS_A_YEAR, self.scale, i + 1).max(SCAN_MEMBERS.min(self.n(PLAYERS_A_YEAR)))
    }
    fn accounts_by(&self, i: i64) -> i64 {
        cumulative(ACCOUNTS_A_YEAR, self.scale, i + 1).max(10)
    }
    fn key(&self, what: &str, n: u64) -> String {
        let kind = what.bytes().fold(0u64, |h, b| mix(h ^ u64::from(b)));
        let hexed: String = hash16(self.seed ^ mix(n), kind)
            .iter()
            .chain(&hash16(self.seed, n ^ 0x55)[..4])
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("{what}{hexed}")
    }
}

/// The Roblox id of the `i`th player the site stored (distinct for every i).
fn player_id(i: i64) -> i64 {
    1_000_000 + ((i as u64).wrapping_mul(2_654_435_761) % 4_000_000_000) as i64
}

fn player_name(i: i64) -> String {
    let h = mix(i as u64);
    format!("{}{}{}", FIRST[(h % FIRST.len() as u64) as usize], SECOND[(h / 97 % SECOND.len() as u64) as usize], i)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut path = None;
    let (mut scale, mut seed, mut end_days_ago, mut append) = (1.0f64, 37u64, 0i64, None::<i64>);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| fail(&format!("{a} needs a value")));
        match a.as_str() {
            "--scale" => scale = value().parse().unwrap_or_else(|_| fail("--scale takes a number")),
            "--seed" => seed = value().parse().unwrap_or_else(|_| fail("--seed takes a number")),
            "--end-days-ago" => end_days_ago = value().parse().unwrap_or_else(|_| fail("--end-days-ago takes days")),
            "--append-days" => append = Some(value().parse().unwrap_or_else(|_| fail("--append-days takes days"))),
            "-h" | "--help" => {
                println!("year_db PATH [--scale F] [--seed N] [--end-days-ago N] | year_db PATH --append-days N");
                return;
            }
            other if path.is_none() && !other.starts_with('-') => path = Some(PathBuf::from(other)),
            other => fail(&format!("unknown argument {other}")),
        }
    }
    let path = path.unwrap_or_else(|| fail("year_db PATH [--scale F] [--seed N] [--end-days-ago N]"));
    if !(scale > 0.0 && scale <= 10.0) {
        fail("--scale must be above 0 and at most 10");
    }
    let started = Instant::now();
    let today = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64 / 86_400;
    let (plan, first_new) = match append {
        None => {
            let last = today - end_days_ago;
            let plan = Plan { path: path.clone(), scale, seed, origin: last - 364, last };
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
            let conn = Connection::open(&path).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
            create_schema(&conn);
            drop(conn);
            (plan, 0)
        }
        Some(n) => {
            let side: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(sidecar(&path))
                    .unwrap_or_else(|e| fail(&format!("no {}: {e}", sidecar(&path).display()))),
            )
            .unwrap_or_else(|e| fail(&format!("{}: {e}", sidecar(&path).display())));
            let origin = side["originDay"].as_i64().unwrap();
            let last = side["lastDay"].as_i64().unwrap();
            let plan = Plan {
                path: path.clone(),
                scale: side["scale"].as_f64().unwrap(),
                seed: side["seed"].as_u64().unwrap(),
                origin,
                last: last + n,
            };
            (plan, last + 1 - origin)
        }
    };
    let mut conn = Connection::open(&plan.path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144; PRAGMA foreign_keys = OFF;
         PRAGMA temp_store = MEMORY;",
    )
    .unwrap();
    if append.is_none() {
        timed("keys, settings, badges", || entities(&mut conn, &plan));
    }
    let days = first_new..=(plan.last - plan.origin);
    let tables: &[(&str, DayWriter)] = &[
        ("visits (page_views, route_views, daily and monthly visitors)", visits),
        ("accounts, sign-ins, sessions, events", accounts),
        ("keyed calls (api_key_hourly, api_key_ips)", keyed_calls),
        ("player lookups (players, player_events, roblox_cache)", lookups),
        ("badge polls (badge_snapshots, badge_days)", badge_polls),
        ("group scans, follows, reports, ads", community),
    ];
    for (what, f) in tables {
        timed(what, || {
            let tx = conn.transaction().unwrap();
            for i in days.clone() {
                f(&tx, &plan, i);
            }
            tx.commit().unwrap();
        });
    }
    timed("badge_info, visitor salt", || finish(&mut conn, &plan));
    conn.execute_batch("PRAGMA journal_mode = WAL;").unwrap();
    let counts = row_counts(&conn);
    drop(conn);
    write_sidecar(&plan, &counts);
    let size = std::fs::metadata(&plan.path).map(|m| m.len()).unwrap_or(0);
    let rows: i64 = counts.iter().map(|(_, n)| n).sum();
    println!(
        "{}: {} days ending {}, scale {}, {:.1} MB, {rows} rows, {:.1} s",
        plan.path.display(),
        plan.last - plan.origin + 1,
        day_text(plan.last),
        plan.scale,
        size as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
}

fn fail(msg: &str) -> ! {
    eprintln!("year_db: {msg}");
    std::process::exit(2)
}

fn timed(what: &str, f: impl FnOnce()) {
    let t = Instant::now();
    f();
    eprintln!("  {what}: {:.1} s", t.elapsed().as_secs_f64());
}

fn sidecar(path: &Path) -> PathBuf {
    PathBuf::from(format!("{}.json", path.display()))
}

/// The migration files 0001..0017 as the runner applies them: each in a transaction with its
/// bookkeeping row and `user_version`, then the application id.
fn create_schema(conn: &Connection) {
    let now = fanhub::time::now_ms();
    for (version, name, sql) in SCHEMA_17 {
        conn.execute_batch("BEGIN").unwrap();
        conn.execute_batch(BOOKKEEPING).unwrap();
        conn.execute_batch(sql).unwrap_or_else(|e| fail(&format!("{name}: {e}")));
        conn.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?1, ?2, ?3)",
            params![version, name, now],
        )
        .unwrap();
        conn.pragma_update(None, "user_version", version).unwrap();
        conn.execute_batch("COMMIT").unwrap();
    }
    conn.pragma_update(None, "application_id", fanhub::db::APPLICATION_ID).unwrap();
}

fn setting(tx: &rusqlite::Transaction, key: &str, value: &serde_json::Value, at: i64) {
    tx.execute(
        "INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        params![key, value.to_string(), at],
    )
    .unwrap();
}

/// What exists from the first day: the public key and the developers' keys, the admin key, the
/// secrets in settings, the monitored badges.
fn entities(conn: &mut Connection, plan: &Plan) {
    let tx = conn.transaction().unwrap();
    let at = plan.origin * DAY_MS + 3_600_000;
    let sha = fanhub::tokens::sha256;
    let public = plan.key("fhk_", 0);
    setting(&tx, "public_api_key", &public.clone().into(), at);
    setting(&tx, "api_key_ip_secret", &hex::encode(hash16(plan.seed, 1)).repeat(2).into(), at);
    let mut key = tx
        .prepare(
            "INSERT INTO api_keys (key_hash, prefix, name, owner_user_id, owner_token_hash, is_public, created_at, created_from_ip)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .unwrap();
    key.execute(params![
        sha(&public),
        &public[..12],
        "Public default key",
        None::<i64>,
        None::<Vec<u8>>,
        true,
        at,
        "server"
    ])
    .unwrap();
    for k in 1..=plan.keys() {
        let full = plan.key("fhk_", k as u64);
        // Half the keys belong to accounts (the first accounts), half to anonymous owners' cookies.
        let (user, token) = if k % 2 == 1 {
            (Some(1 + (k / 2) % plan.accounts_by(0)), None)
        } else {
            (None, Some(sha(&full).to_vec()))
        };
        key.execute(params![
            sha(&full),
            &full[..12],
            format!("bot {k}"),
            user,
            token,
            false,
            at,
            format!("198.51.{}.0", k % 250)
        ])
        .unwrap();
    }
    drop(key);
    let admin = plan.key("fha_", 1);
    tx.execute(
        "INSERT INTO admin_keys (key_hash, prefix, name, source, bound_ip, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![sha(&admin), &admin[..12], "year bench", "cli", None::<String>, at],
    )
    .unwrap();
    tx.commit().unwrap();
}

/// One day of visits, as `stats::store::persist_visits` writes them (its statements, one row
/// per day and route, every visitor's day and month hash).
fn visits(tx: &rusqlite::Transaction, plan: &Plan, i: i64) {
    let day = plan.origin + i;
    let mut rng = Rng::new(plan.seed, 1, day);
    let (text, month) = (day_text(day), month_text(day));
    let visitors = plan.n(VISITORS * (0.85 + 0.3 * (rng.below(1000) as f64 / 1000.0)));
    let views = visitors * 3 + rng.below(visitors as u64) as i64;
    tx.prepare_cached(
        "INSERT INTO page_views (day, views) VALUES (?1, ?2) ON CONFLICT(day) DO UPDATE SET views = views + excluded.views",
    )
    .unwrap()
    .execute(params![text, views])
    .unwrap();
    let mut routes = tx
        .prepare_cached(
            "INSERT INTO route_views (day, route, views) VALUES (?1, ?2, ?3)
             ON CONFLICT(day, route) DO UPDATE SET views = views + excluded.views",
        )
        .unwrap();
    let mut left = views;
    for (r, route) in ROUTES.iter().enumerate() {
        let n = if r + 1 == ROUTES.len() { left } else { (left as f64 * 0.35) as i64 };
        left -= n;
        routes.execute(params![text, route, n.max(1)]).unwrap();
    }
    // Visitors come from the month's pool: a returning visitor has the same hash all month.
    let (month_no, _) = month_of(day);
    let pool = ((VISITORS * plan.scale * 30.0 * MONTHLY_DISTINCT) as u64).max(visitors as u64 + 1);
    let start = rng.below(pool);
    let stride = loop {
        let s = 1 + rng.below(pool - 1);
        if gcd(s, pool) == 1 {
            break s;
        }
    };
    let mut hashes: Vec<[u8; 16]> =
        (0..visitors as u64).map(|k| hash16(plan.seed ^ month_no as u64, (start + k * stride) % pool)).collect();
    hashes.sort_unstable();
    let mut daily = tx.prepare_cached("INSERT OR IGNORE INTO daily_visitors (day, hash) VALUES (?1, ?2)").unwrap();
    let mut monthly =
        tx.prepare_cached("INSERT OR IGNORE INTO monthly_visitors (month, hash) VALUES (?1, ?2)").unwrap();
    for h in &hashes {
        monthly.execute(params![month, &h[..]]).unwrap();
    }
    for h in &hashes {
        daily.execute(params![text, &h[..]]).unwrap();
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// New accounts (with their `member.joined` event), sign-ins (login_logs, kept 180 days) and the
/// sessions still valid at the end (30 days).
fn accounts(tx: &rusqlite::Transaction, plan: &Plan, i: i64) {
    let day = plan.origin + i;
    let mut rng = Rng::new(plan.seed, 2, day);
    let before = if i == 0 { 0 } else { plan.accounts_by(i - 1) };
    let mut user = tx
        .prepare_cached(
            "INSERT INTO users (id, username, password_hash, email, roblox_id, role, created_at, last_login)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .unwrap();
    let mut event = tx.prepare_cached("INSERT INTO events (type, created_at, data) VALUES (?1, ?2, ?3)").unwrap();
    for n in before + 1..=plan.accounts_by(i) {
        let at = day * DAY_MS + rng.below(DAY_MS as u64) as i64;
        let salt = base64_of(&rng.bytes(16));
        let hash = base64_of(&rng.bytes(32));
        let role = if n == 1 {
            "admin"
        } else if n % 5000 == 0 {
            "moderator"
        } else {
            "user"
        };
        user.execute(params![
            n,
            format!("fan{n}"),
            format!("$argon2id$v=19$m=19456,t=2,p=1${salt}${hash}"),
            (n % 3 == 0).then(|| format!("fan{n}@example.org")),
            (n % 4 == 0).then(|| player_id(n).to_string()),
            role,
            at,
            at
        ])
        .unwrap();
        event.execute(params!["member.joined", at, serde_json::json!({ "members": n }).to_string()]).unwrap();
    }
    let accounts = plan.accounts_by(i) as u64;
    let age = plan.last - day;
    let mut log = tx
        .prepare_cached(
            "INSERT INTO login_logs (username, ip_address, user_agent, status, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .unwrap();
    let mut session = tx
        .prepare_cached("INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)")
        .unwrap();
    let mut last_login = tx.prepare_cached("UPDATE users SET last_login = ?2 WHERE id = ?1").unwrap();
    for _ in 0..plan.n(SIGN_INS) {
        let who = 1 + rng.below(accounts) as i64;
        let at = day * DAY_MS + rng.below(DAY_MS as u64) as i64;
        let failed = rng.chance(0.06);
        if age < LOGIN_LOG_DAYS {
            let ip = format!("203.0.{}.0", rng.below(250));
            log.execute(params![
                format!("fan{who}"),
                ip,
                "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0",
                if failed { "failure" } else { "success" },
                at
            ])
            .unwrap();
        }
        if !failed {
            last_login.execute(params![who, at]).unwrap();
            if age < SESSION_DAYS {
                session.execute(params![rng.bytes(32), who, at, at + SESSION_DAYS * DAY_MS]).unwrap();
            }
        }
    }
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD_NO_PAD.encode(bytes)
}

/// Keyed calls as `keys::store::record_usage` writes them: one row per key and hour it was used,
/// and the distinct addresses per key (the public key collects one per visitor who checks a player).
fn keyed_calls(tx: &rusqlite::Transaction, plan: &Plan, i: i64) {
    let day = plan.origin + i;
    let mut rng = Rng::new(plan.seed, 3, day);
    let mut hours = tx
        .prepare_cached(
            "INSERT INTO api_key_hourly (key_id, hour, requests, last_used, last_used_from_ip)
             SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = ?1)
             ON CONFLICT(key_id, hour) DO UPDATE SET requests = requests + excluded.requests,
                last_used_from_ip = CASE WHEN excluded.last_used >= last_used THEN excluded.last_used_from_ip ELSE last_used_from_ip END,
                last_used = MAX(last_used, excluded.last_used)",
        )
        .unwrap();
    let mut ips = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO api_key_ips (key_id, ip_hash)
             SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = ?1)",
        )
        .unwrap();
    let keys = plan.keys();
    // 80 % of the keys are used in a given hour; the public key every hour.
    let per_call = KEYED_CALLS * plan.scale / 24.0 / (keys as f64 * 0.8 + 1.0);
    for h in 0..24 {
        let hour = (day * 86_400) + h * 3600;
        let lookups = plan.n(LOOKUPS / 24.0);
        let at = hour * 1000 + rng.below(3_600_000) as i64;
        hours.execute(params![1, hour, lookups + plan.n(per_call), at, format!("203.0.{}.0", rng.below(250))]).unwrap();
        for k in 2..=keys + 1 {
            if rng.chance(0.8) {
                let n = 1 + rng.below((per_call * 2.0) as u64 + 1) as i64;
                let at = hour * 1000 + rng.below(3_600_000) as i64;
                hours.execute(params![k, hour, n, at, format!("198.51.{}.0", k % 250)]).unwrap();
            }
        }
    }
    // Three quarters of the day's lookups come from addresses the public key had not seen.
    for _ in 0..plan.n(LOOKUPS * 0.75) {
        ips.execute(params![1, &hash16(plan.seed ^ 0xA5, rng.next())[..]]).unwrap();
    }
    for k in 2..=keys + 1 {
        if i == 0 || rng.chance(0.02) {
            ips.execute(params![k, &hash16(plan.seed ^ k as u64, rng.below(5))[..]]).unwrap();
        }
    }
}

/// The day's player lookups as `roblox::store::record_player` writes them: new players with a
/// `first_seen` event (and their ELC badges as history), returning ones updated, a changed name
/// now and then; the last 7 days' answers in the lookup cache.
fn lookups(tx: &rusqlite::Transaction, plan: &Plan, i: i64) {
    let day = plan.origin + i;
    let mut rng = Rng::new(plan.seed, 4, day);
    let before = if i == 0 { 0 } else { plan.players_by(i - 1) };
    let now_count = plan.players_by(i);
    let mut upsert = tx
        .prepare_cached(
            "INSERT INTO players (user_id, username, display_name, verified, banned, created, generation, classification,
                is_newgen, is_veteran, elc_count, confidence, checked_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
             ON CONFLICT (user_id) DO UPDATE SET username = excluded.username, display_name = excluded.display_name,
                verified = excluded.verified, banned = excluded.banned, created = excluded.created,
                generation = excluded.generation, classification = excluded.classification,
                is_newgen = excluded.is_newgen, is_veteran = excluded.is_veteran,
                elc_count = COALESCE(excluded.elc_count, players.elc_count),
                confidence = excluded.confidence, checked_at = excluded.checked_at",
        )
        .unwrap();
    let mut event = tx
        .prepare_cached(
            "INSERT INTO player_events (user_id, kind, before, after, noticed_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .unwrap();
    let mut badge = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO player_events (user_id, kind, after, badge_id, awarded_at, baseline, noticed_at)
             VALUES (?1, 'elc_badge', ?2, ?3, ?4, ?5, ?6)",
        )
        .unwrap();
    let mut cache = tx
        .prepare_cached(
            "INSERT INTO roblox_cache (kind, key, body, fetched_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (kind, key) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at",
        )
        .unwrap();
    let cached = plan.last - day < CACHE_DAYS;
    let returning = (plan.n(LOOKUPS) - (now_count - before)).max(0);
    let who: Vec<(i64, bool)> = (before..now_count)
        .map(|n| (n, true))
        .chain((0..returning).filter(|_| before > 0).map(|_| (rng.below(before as u64) as i64, false)))
        .collect();
    for (n, new) in who {
        let at = day * DAY_MS + rng.below(DAY_MS as u64) as i64;
        let id = player_id(n);
        let h = mix(n as u64 ^ 0x77);
        let join = 13_000 + (h % 6_900) as i64; // 2005-08 .. 2024-06
        let created = format!("{}T{:02}:{:02}:00Z", day_text(join), h % 24, h / 7 % 60);
        let (y, _, _) = civil(join);
        let (generation, era_class, newgen) = match y {
            ..2013 => ("VETERAN", "Veteran", false),
            2013..2017 => ("OLDGEN", "Veteran", false),
            2017..2021 => ("MIDGEN", "Regular", false),
            _ => ("NEWGEN", "Newgen", true),
        };
        let elc: Option<i64> = if h.is_multiple_of(9) {
            None
        } else if y < 2017 && h.is_multiple_of(5) {
            Some(1 + (h % 3) as i64)
        } else {
            Some(0)
        };
        let class = if elc.unwrap_or(0) > 0 { "ELC Veteran" } else { era_class };
        let renamed = !new && rng.chance(0.05);
        let name = if renamed { format!("{}v{}", player_name(n), i) } else { player_name(n) };
        if new {
            event.execute(params![id, "first_seen", None::<String>, name, at]).unwrap();
            for b in 0..elc.unwrap_or(0) {
                let awarded = rfc3339((join + 200 + b * 30) * DAY_MS);
                badge.execute(params![id, format!("ELC {}", b + 1), 2_124_001 + b, awarded, true, at]).unwrap();
            }
        } else if renamed {
            event.execute(params![id, "username", player_name(n), name, at]).unwrap();
        }
        upsert
            .execute(params![
                id,
                name,
                format!("{} {}", FIRST[(h % 7) as usize], n),
                h.is_multiple_of(50),
                h.is_multiple_of(400),
                created,
                generation,
                class,
                newgen,
                !newgen && y < 2017,
                elc,
                if elc.is_some() { 80 } else { 55 },
                at
            ])
            .unwrap();
        if cached {
            let profile = serde_json::json!({"id": id, "name": name, "displayName": name, "description": "",
                "created": created, "isBanned": false, "hasVerifiedBadge": false});
            cache.execute(params!["name", name.to_lowercase(), id.to_string(), at]).unwrap();
            cache.execute(params!["profile", id.to_string(), profile.to_string(), at]).unwrap();
            cache
                .execute(params![
                    "thumb",
                    id.to_string(),
                    format!("https://tr.rbxcdn.com/{id:x}/150/150/AvatarHeadshot/Png"),
                    at
                ])
                .unwrap();
        }
    }
}

/// The badge monitor: every badge's snapshot each minute (the last 35 days) and its day's figures.
fn badge_polls(tx: &rusqlite::Transaction, plan: &Plan, i: i64) {
    let day = plan.origin + i;
    let mut snap = tx
        .prepare_cached(
            "INSERT OR REPLACE INTO badge_snapshots (badge_id, taken_at, awarded_count, past_day) VALUES (?1, ?2, ?3, ?4)",
        )
        .unwrap();
    let mut days = tx
        .prepare_cached(
            "INSERT INTO badge_days (badge_id, day, awarded, total, taken_at) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (badge_id, day) DO UPDATE SET awarded = excluded.awarded, total = excluded.total, taken_at = excluded.taken_at",
        )
        .unwrap();
    let snapshots = plan.last - day < SNAPSHOT_DAYS;
    for b in 0..plan.badges() {
        let rate = 50 + (mix(b as u64) % 5000) as i64;
        let total_at = |minute: i64| 1_000_000 + b * 10_000 + (i * 1440 + minute) * rate / 1440;
        if snapshots {
            for m in 0..1440 {
                snap.execute(params![badge_id(b), (day * 1440 + m) * 60_000 + 1_500, total_at(m), rate]).unwrap();
            }
        }
        days.execute(params![badge_id(b), day_text(day), rate, total_at(1439), (day * 1440 + 1439) * 60_000 + 1_500])
            .unwrap();
    }
}

fn badge_id(b: i64) -> i64 {
    2_125_001 + b
}

/// Group scans (one every week or so, each group scanned again later: every rescan counts every
/// member again), follows, abuse reports, advertisement applications.
fn community(tx: &rusqlite::Transaction, plan: &Plan, i: i64) {
    let day = plan.origin + i;
    let mut rng = Rng::new(plan.seed, 6, day);
    let players = plan.players_by(i);
    if i % plan.scan_every() == plan.scan_every() - 1 {
        let number = i / plan.scan_every();
        let group = number % plan.groups();
        let at = day * DAY_MS + 3 * 3_600_000;
        tx.execute(
            "INSERT INTO scans (group_id, group_name, scanned_by, key_id, state, total, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?6, ?6)",
            params![group_id(group), format!("Build Group {group}"), "admin", None::<i64>, SCAN_MEMBERS, at],
        )
        .unwrap();
        let scan = tx.last_insert_rowid();
        let mut counted = tx
            .prepare_cached("INSERT OR IGNORE INTO scan_members (scan_id, user_id, outcome) VALUES (?1, ?2, ?3)")
            .unwrap();
        let mut member = tx
            .prepare_cached(
                "INSERT INTO group_members (group_id, user_id, role_name, role_rank, seen_at) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (group_id, user_id) DO UPDATE SET role_name = excluded.role_name, role_rank = excluded.role_rank,
                    seen_at = excluded.seen_at",
            )
            .unwrap();
        let (mut vets, mut newgens) = (0, 0);
        for m in 0..SCAN_MEMBERS {
            let n = (group * SCAN_MEMBERS + m) % players;
            let outcome = match mix(n as u64 ^ 0x77) % 4 {
                0 | 1 => "veteran",
                2 => "newgen",
                _ => "other",
            };
            vets += i64::from(outcome == "veteran");
            newgens += i64::from(outcome == "newgen");
            counted.execute(params![scan, player_id(n), outcome]).unwrap();
            let (role, rank) = if m == 0 {
                ("Owner", 255)
            } else if m < 20 {
                ("Admin", 200)
            } else {
                ("Member", 1)
            };
            member.execute(params![group_id(group), player_id(n), role, rank, at]).unwrap();
        }
        tx.execute(
            "UPDATE scans SET state = 'completed', started_at = ?2, processed = ?3, veterans = ?4, newgens = ?5,
                pages = ?6, updated_at = ?7, finished_at = ?7 WHERE id = ?1",
            params![scan, at, SCAN_MEMBERS, vets, newgens, SCAN_MEMBERS / 100, at + 600_000],
        )
        .unwrap();
    }
    let accounts = plan.accounts_by(i) as u64;
    let mut follow = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO follows (account_id, player_id, followed_at, seen_event_id)
             VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(id), 0) FROM player_events WHERE user_id = ?2))",
        )
        .unwrap();
    for _ in 0..per_day(&mut rng, FOLLOWS_A_YEAR * plan.scale) {
        let at = day * DAY_MS + rng.below(DAY_MS as u64) as i64;
        follow
            .execute(params![1 + rng.below(accounts) as i64, player_id(rng.below(players as u64) as i64), at])
            .unwrap();
    }
    let mut report = tx
        .prepare_cached(
            "INSERT INTO abuse_reports (reporter_username, target_username, reason, description, priority, key_id, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .unwrap();
    for _ in 0..per_day(&mut rng, REPORTS_A_YEAR * plan.scale) {
        let at = day * DAY_MS + rng.below(DAY_MS as u64) as i64;
        let target = player_name(rng.below(players as u64) as i64);
        report
            .execute(params![
                format!("fan{}", 1 + rng.below(accounts)),
                target,
                "exploiting",
                "Seen flying through walls in the main server.",
                "medium",
                None::<i64>,
                at
            ])
            .unwrap();
    }
    if plan.last - day > 2 {
        tx.execute("UPDATE abuse_reports SET state = 'resolved', resolved_at = created_at + 86400000 WHERE id = (SELECT MAX(id) FROM abuse_reports) AND state = 'open'", [])
            .unwrap();
    }
    let mut ad = tx
        .prepare_cached(
            "INSERT INTO advertisements (website_url, description, target_audience, duration, links, image_name, image_type,
                image_width, image_height, premium_fullscreen, fullscreen_message_type, fullscreen_custom_message, analysis,
                background_color, text_color, border_color, submitted_from_ip, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
        )
        .unwrap();
    for _ in 0..per_day(&mut rng, ADS_A_YEAR * plan.scale) {
        let at = day * DAY_MS + rng.below(DAY_MS as u64) as i64;
        let n = rng.next();
        let analysis = serde_json::json!({"summary": "A building server for fans.", "mainProduct": "example.org",
            "category": "Unsure", "priceRange": "Free", "keyFeatures": [], "callToAction": "Visit site",
            "source": "heuristic", "certainty": "unsure", "confidence": 30, "guess": null});
        ad.execute(params![
            format!("https://ads{}.example.org/", n % 1000),
            "Join our building server: weekly contests and friendly staff.",
            None::<String>,
            "1-month",
            "[]",
            format!("year-{n:016x}.webp"),
            "image/webp",
            728,
            90,
            false,
            None::<String>,
            None::<String>,
            analysis.to_string(),
            "#1e293b",
            "#f8fafc",
            "#7c3aed",
            "203.0.113.0",
            at
        ])
        .unwrap();
        if plan.last - day > 3 {
            let state = if n.is_multiple_of(3) { "rejected" } else { "approved" };
            tx.execute(
                "UPDATE advertisements SET status = ?2, reviewed_at = ?3 WHERE id = ?1",
                params![tx.last_insert_rowid(), state, at + DAY_MS],
            )
            .unwrap();
        }
    }
}

/// How many of something made `per_year` a year happen today (whole, the fraction by chance).
fn per_day(rng: &mut Rng, per_year: f64) -> i64 {
    let mean = per_year / YEAR;
    mean.floor() as i64 + i64::from(rng.chance(mean.fract()))
}

fn group_id(g: i64) -> i64 {
    7_000_000 + g * 1_337
}

/// The figures of the last poll (badge_info) and the visitor salt of the last day's month.
fn finish(conn: &mut Connection, plan: &Plan) {
    let tx = conn.transaction().unwrap();
    let at = (plan.last * 1440 + 1439) * 60_000 + 1_500;
    let i = plan.last - plan.origin;
    for b in 0..plan.badges() {
        let rate = 50 + (mix(b as u64) % 5000) as i64;
        let total = 1_000_000 + b * 10_000 + (i * 1440 + 1439) * rate / 1440;
        tx.execute(
            "INSERT INTO badge_info (badge_id, name, description, image_url, win_rate, awarded_count, past_day, updated_at,
                image_fallbacks)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
             ON CONFLICT (badge_id) DO UPDATE SET awarded_count = excluded.awarded_count, past_day = excluded.past_day,
                updated_at = excluded.updated_at",
            params![
                badge_id(b),
                format!("Badge {}", b + 1),
                "Awarded for building something the server voted for.",
                format!("https://tr.rbxcdn.com/badge-{b}/150/150/Image/Png"),
                (mix(b as u64) % 1000) as f64 / 1000.0,
                total,
                rate,
                at,
                None::<String>
            ],
        )
        .unwrap();
    }
    tx.execute("DELETE FROM visitor_salts", []).unwrap();
    tx.execute(
        "INSERT INTO visitor_salts (month, salt) VALUES (?1, ?2)",
        params![month_text(plan.last), Rng::new(plan.seed, 9, plan.last).bytes(32)],
    )
    .unwrap();
    tx.commit().unwrap();
}

fn row_counts(conn: &Connection) -> Vec<(String, i64)> {
    let names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    names
        .into_iter()
        .map(|n| {
            let c = conn.query_row(&format!("SELECT COUNT(*) FROM \"{n}\""), [], |r| r.get(0)).unwrap();
            (n, c)
        })
        .collect()
}

/// PATH.json: what a benchmark needs to address the rows (keys, ids that exist) and the counts.
fn write_sidecar(plan: &Plan, counts: &[(String, i64)]) {
    let i = plan.last - plan.origin;
    let players = plan.players_by(i);
    let sample: Vec<i64> = (0..50).map(|k| k * players / 50).collect();
    let scans = (i + 1) / plan.scan_every();
    let side = serde_json::json!({
        "scale": plan.scale,
        "seed": plan.seed,
        "originDay": plan.origin,
        "lastDay": plan.last,
        "firstDate": day_text(plan.origin),
        "lastDate": day_text(plan.last),
        "publicKey": plan.key("fhk_", 0),
        "generatedKeys": (1..=plan.keys().min(20)).map(|k| plan.key("fhk_", k as u64)).collect::<Vec<_>>(),
        "adminKey": plan.key("fha_", 1),
        "badgeIds": (0..plan.badges()).map(badge_id).collect::<Vec<_>>(),
        "playerIds": sample.iter().map(|&n| player_id(n)).collect::<Vec<_>>(),
        "playerNames": sample.iter().map(|&n| player_name(n)).collect::<Vec<_>>(),
        "groupIds": (0..plan.groups().min(scans.max(1))).map(group_id).collect::<Vec<_>>(),
        "scans": scans,
        "accounts": plan.accounts_by(i),
        "rows": counts.iter().map(|(n, c)| (n.clone(), serde_json::json!(c))).collect::<serde_json::Map<_, _>>(),
    });
    std::fs::write(sidecar(&plan.path), serde_json::to_string_pretty(&side).unwrap()).unwrap();
}
