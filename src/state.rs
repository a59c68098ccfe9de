//! The services, built once at the start (`server::build_state`). Only the assembly reads this:
//! `app.rs` hands each feature's router the part it uses, `server.rs` the background tasks; no
//! feature imports it.

use std::ops::Deref;
use std::path::PathBuf;
use std::sync::Arc;

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
    pub challenges: Arc<Challenges>,
    pub keys: Arc<KeyRing>,
    pub submissions: Arc<crate::ratelimit::PerIp>,
    /// Roblox lookups, the newgen classification and the badge monitor.
    pub roblox: crate::roblox::Roblox,
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

    pub fn public_figures(&self) -> crate::stats::PublicFigures {
        crate::stats::PublicFigures {
            db: self.db.clone(),
            visits: self.visits.clone(),
            json: self.stats_json.clone(),
            commands: self.commands.clone(),
            guides: self.guides.clone(),
            discord: self.discord.clone(),
            started_at: self.started_at,
        }
    }
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

/// The scans' share of the state: the scan runner, the calls under /api/v1 and the admin routes.
impl axum::extract::FromRef<AppState> for crate::scans::ScansState {
    fn from_ref(state: &AppState) -> Self {
        Self {
            db: state.db.clone(),
            roblox: state.roblox.clone(),
            scans: state.scans.clone(),
            settings: state.site.scans.clone(),
        }
    }
}

/// Advertising's share of the state: the advertise form and the admin's review.
impl axum::extract::FromRef<AppState> for crate::ads::AdsState {
    fn from_ref(state: &AppState) -> Self {
        Self {
            db: state.db.clone(),
            data_dir: state.data_dir.as_path().into(),
            heavy_work: state.heavy_work.clone(),
            submissions: state.submissions.clone(),
            llm: state.llm.clone(),
            banner: state.banner.clone(),
        }
    }
}

/// The Discord pollers' share of the state (the server's tasks, and tests that poll by hand).
impl From<&AppState> for crate::discord::poller::PollerState {
    fn from(state: &AppState) -> Self {
        Self { discord: state.discord.clone(), db: state.db.clone(), llm: state.llm.clone(), site: state.site.clone() }
    }
}
