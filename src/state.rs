//! The services, built once at the start (`server::build_state`). Only the assembly reads this:
//! `app.rs` hands each feature's router the part it uses, `server.rs` the background tasks; no
//! feature imports it.

use std::ops::Deref;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::FromRef;

use crate::accounts::admin_keys::Challenges;
use crate::accounts::password::Hasher;
use crate::commands::Catalog;
use crate::config::{Options, Secrets};
use crate::db::Db;
use crate::guides::Library;
use crate::http::assets::Bundle;
use crate::http::cached::CachedJson;
use crate::http::middleware::RequestContext;
use crate::keys::KeyRing;
use crate::logging::LogBuffer;
use crate::ratelimit::{AuthLimiter, LoginThrottle};
use crate::shell::Shells;
use crate::site::SiteSettings;
use crate::stats::Visits;

pub struct Inner {
    pub options: Options,
    pub secrets: Secrets,
    pub data_dir: PathBuf,
    pub db: Db,
    pub site: Arc<SiteSettings>,
    pub commands: Arc<Catalog>,
    pub guides: Arc<Library>,
    pub bundle: Arc<Bundle>,
    pub shells: Arc<Shells>,
    /// The head texts and pictures of one command, guide or checked player.
    pub link_cards: Arc<crate::shell::cards::LinkCards>,
    pub visits: Arc<Visits>,
    /// The analytics answers, made once per write of the visits.
    pub analytics: Arc<crate::stats::AnalyticsAnswers>,
    pub started_at: jiff::Timestamp,
    pub build_id: String,
    pub request_context: Arc<RequestContext>,
    pub logs: LogBuffer,
    pub hasher: Hasher,
    /// The gate for CPU-heavy jobs (hashing, images).
    pub heavy_work: crate::heavy::HeavyWork,
    /// Background jobs' and upstream calls' status, for the health check and metrics.
    pub jobs: crate::jobs::Jobs,
    pub auth_limiter: Arc<AuthLimiter>,
    pub login_throttle: Arc<LoginThrottle>,
    /// Device cookies (accounts::devices) and the failures of each device.
    pub devices: crate::accounts::devices::DeviceCookies,
    pub device_throttle: Arc<LoginThrottle>,
    pub challenges: Arc<Challenges>,
    /// Second factors of staff accounts and the sign-ins waiting for them.
    pub second_factors: Arc<crate::accounts::second_factor::SecondFactors>,
    pub keys: Arc<KeyRing>,
    pub submissions: Arc<crate::ratelimit::PerIp>,
    /// Roblox lookups, the newgen classification and the badge monitor.
    pub roblox: crate::roblox::Roblox,
    /// The follows' re-checks (what they are doing) and the Discord webhook client.
    pub watch: Arc<crate::follows::rechecks::Watch>,
    pub discord_webhooks: Arc<crate::follows::webhook::DiscordWebhooks>,
    /// Group scans: the runner's cancel flags and rates, the abuse report limiter.
    pub scans: Arc<crate::scans::Scans>,
    /// The configured language model, if any.
    pub llm: Option<crate::llm::LlmClient>,
    /// The update channels' summaries, the member count and the interactions endpoint.
    pub discord: Arc<crate::discord::Discord>,
    /// The bottom banner as served, refreshed after changes and at a sponsor's expiry.
    pub banner: Arc<crate::banner::ServedBanner>,
    /// Wakes the stats task to rebuild the public figures now.
    pub stats_refresh: crate::stats::StatsRefresh,
    /// Bodies served from memory.
    pub site_json: Arc<CachedJson>,
    pub stats_json: Arc<CachedJson>,
    pub health_json: Arc<CachedJson>,
    /// Re-checks the database and the disk and rebuilds `health_json`.
    pub health: Arc<crate::health::HealthCheck>,
    /// Scheduled and on-demand backups, and the data dir lock a restore respects.
    pub backups: Arc<crate::backup::Backups>,
    pub metrics: std::sync::Arc<crate::metrics::Metrics>,
}

#[derive(Clone)]
pub struct AppState(Arc<Inner>);

impl AppState {
    pub fn new(inner: Inner) -> Self {
        Self(Arc::new(inner))
    }
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// Hands a feature its part of the state: `part::<commands::CommandsState>(&state)`. Every
/// feature's state is made here, once, by its `FromRef` impl below; `app.rs` (routes) and
/// `app::background` (tasks) both call this, so no state is built twice.
pub fn part<T: FromRef<AppState>>(state: &AppState) -> T {
    T::from_ref(state)
}

/// `impl FromRef<AppState> for $ty`, the state's fields read from the services above.
macro_rules! made_from_app_state {
    ($($(#[$doc:meta])* $ty:ty => |$s:ident| $body:expr;)+) => {
        $(
            $(#[$doc])*
            impl FromRef<AppState> for $ty {
                fn from_ref($s: &AppState) -> Self {
                    $body
                }
            }
        )+
    };
}

made_from_app_state! {
    crate::commands::CommandsState => |s| Self { db: s.db.clone(), commands: s.commands.clone() };
    crate::roblox::routes::RobloxState => |s| Self { db: s.db.clone(), roblox: s.roblox.clone(), keys: s.keys.clone() };
    crate::keys::KeysState => |s| Self { db: s.db.clone(), keys: s.keys.clone() };
    crate::accounts::AccountsState => |s| Self {
        db: s.db.clone(),
        hasher: s.hasher.clone(),
        auth_limiter: s.auth_limiter.clone(),
        login_throttle: s.login_throttle.clone(),
        devices: s.devices.clone(),
        device_throttle: s.device_throttle.clone(),
        stats_refresh: s.stats_refresh.clone(),
        second_factors: s.second_factors.clone(),
    };
    /// The admin check every admin route runs.
    crate::accounts::guard::AdminGate => |s| Self {
        db: s.db.clone(),
        second_factor_required: s.second_factors.required_for_admins,
    };
    crate::v1::V1State => |s| Self {
        db: s.db.clone(),
        commands: s.commands.clone(),
        guides: s.guides.clone(),
        stats_json: s.stats_json.clone(),
        health_json: s.health_json.clone(),
        discord: s.discord.clone(),
        keys: s.keys.clone(),
        analytics: s.analytics.clone(),
    };
    crate::backup::BackupState => |s| Self {
        backups: s.backups.clone(),
        db: s.db.clone(),
        data_dir: s.data_dir.as_path().into(),
        jobs: s.jobs.clone(),
        admin_gate: part(s),
        download_idle: std::time::Duration::from_secs(s.options.read_timeout_secs),
    };
    crate::metrics::MetricsState => |s| Self {
        admin_gate: part(s),
        metrics: s.metrics.clone(),
        db: s.db.clone(),
        jobs: s.jobs.clone(),
        roblox: s.roblox.clone(),
        watch: s.watch.clone(),
        started_at: s.started_at,
    };
    crate::shell::pictures::PicturesState => |s| Self {
        site: s.site.clone(),
        cards: s.link_cards.clone(),
        heavy: s.heavy_work.clone(),
    };
    /// The public figures: the stats routes, the stats task, the admin dashboard.
    crate::stats::PublicFigures => |s| Self {
        db: s.db.clone(),
        visits: s.visits.clone(),
        json: s.stats_json.clone(),
        commands: s.commands.clone(),
        guides: s.guides.clone(),
        discord: s.discord.clone(),
        started_at: s.started_at,
    };
    /// The scans' share: the scan runner, the calls under /api/v1 and the admin routes.
    crate::scans::ScansState => |s| Self {
        db: s.db.clone(),
        roblox: s.roblox.clone(),
        scans: s.scans.clone(),
        settings: s.site.scans.clone(),
        admin_gate: part(s),
        discord: s.discord_webhooks.clone(),
        site_name: s.site.name.clone(),
        base_url: s.site.base_url.clone(),
        color: crate::site::color_number(&s.site.default_banner.background_color),
    };
    /// Advertising's share: the advertise form, the admin's review and the image sweep.
    crate::ads::AdsState => |s| Self {
        db: s.db.clone(),
        data_dir: s.data_dir.as_path().into(),
        heavy_work: s.heavy_work.clone(),
        submissions: s.submissions.clone(),
        llm: s.llm.clone(),
        banner: s.banner.clone(),
        admin_gate: part(s),
    };
    /// The Discord pollers' share (the server's tasks, and tests that poll by hand).
    crate::discord::poller::PollerState => |s| Self {
        discord: s.discord.clone(),
        db: s.db.clone(),
        llm: s.llm.clone(),
        site: s.site.clone(),
    };
    crate::admin::AdminAreas => |s| Self {
        access: part(s),
        stats: part(s),
        db: s.db.clone(),
        admin_gate: part(s),
        users: part(s),
        logs: part(s),
        health: part(s),
        settings: part(s),
    };
    crate::admin::access::AccessState => |s| Self {
        db: s.db.clone(),
        admin_phrase: s.secrets.admin_phrase.as_deref().map(Into::into),
        auth_limiter: s.auth_limiter.clone(),
        challenges: s.challenges.clone(),
    };
    crate::admin::stats::AdminStatsState => |s| Self { db: s.db.clone(), figures: part(s), started_at: s.started_at };
    crate::admin::users::UsersState => |s| Self {
        db: s.db.clone(),
        login_throttle: s.login_throttle.clone(),
        commands: s.commands.clone(),
        stats_refresh: s.stats_refresh.clone(),
        second_factor_required: s.second_factors.required_for_admins,
    };
    crate::admin::logs::LogsState => |s| Self { db: s.db.clone(), logs: s.logs.clone(), jobs: s.jobs.clone() };
    /// Follows' share: the account page's follows and alerts, the re-checks and the outbox.
    crate::follows::FollowsState => |s| Self {
        db: s.db.clone(),
        roblox: s.roblox.clone(),
        settings: s.site.follows.clone(),
        watch: s.watch.clone(),
        discord: s.discord_webhooks.clone(),
        site_name: s.site.name.clone(),
        base_url: s.site.base_url.clone(),
        color: crate::site::color_number(&s.site.default_banner.background_color),
    };
    crate::admin::health::SystemHealthState => |s| Self {
        follows: part(s),
        db: s.db.clone(),
        data_dir: s.data_dir.as_path().into(),
        jobs: s.jobs.clone(),
        roblox: s.roblox.clone(),
        discord: s.discord.clone(),
        llm: s.llm.clone(),
    };
    crate::admin::settings::SettingsState => |s| Self {
        db: s.db.clone(),
        site: s.site.clone(),
        banner: s.banner.clone(),
        challenges: s.challenges.clone(),
        commands: s.commands.clone(),
        figures: part(s),
        health: s.health.clone(),
        roblox: s.roblox.clone(),
    };
}
