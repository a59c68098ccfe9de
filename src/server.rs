//! Building the state from a data dir and serving it until a shutdown signal.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use crate::config::{Options, Secrets};
use crate::db::Db;
use crate::http::assets::Bundle;
use crate::http::cached::CachedJson;
use crate::http::middleware::RequestIds;
use crate::logging::LogBuffer;
use crate::state::{AppState, Inner};
use crate::{app, banner, commands, guides, health, site, stats};

/// Why the server could not start: a one-line message for the operator.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StartError(pub String);

/// Loads content, opens the database and prepares everything the handlers read.
pub fn build_state(
    options: Options,
    secrets: Secrets,
    data_dir: PathBuf,
    logs: LogBuffer,
) -> Result<AppState, StartError> {
    crate::llm::install_crypto();
    // The data dir lock first: a restore in progress must not see the database opened under it.
    let backups = crate::backup::Backups::open(&data_dir, options.backups.clone()).map_err(StartError)?;
    let heavy_work = crate::heavy::HeavyWork::new();
    let jobs = crate::jobs::Jobs::default();
    let llm =
        secrets.llm.clone().map(|c| crate::llm::LlmClient::new(c, crate::llm::TIMEOUT).reporting_to(jobs.clone()));
    let mut site = site::load(options.site.as_deref()).map_err(|e| StartError(e.to_string()))?;
    let commands = Arc::new(commands::Catalog::load().map_err(|e| StartError(e.to_string()))?);
    let guides = Arc::new(guides::Library::load().map_err(|e| StartError(e.to_string()))?);
    let db = Db::open(&crate::db::database_path(&data_dir))
        .map_err(|e| StartError(format!("{}: {e}", data_dir.display())))?;
    let (scores, banner_now) = db
        .read_blocking(|conn| {
            Ok((
                commands::load_scores(conn)?,
                banner::current(conn, &site.default_banner, crate::ads::store::running_sponsor)?,
            ))
        })
        .map_err(|e| StartError(format!("cannot read the database: {e}")))?;
    let visits = db
        .write_blocking(|tx| {
            crate::events::store::note_version(tx, env!("CARGO_PKG_VERSION"))?;
            crate::roblox::store::recode_generations(tx, &site.classification)?;
            stats::Visits::open(tx)
        })
        .map(Arc::new)
        .map_err(|e| StartError(format!("cannot write the database: {e}")))?;
    commands.apply_scores(&scores);
    let devices = crate::accounts::devices::DeviceCookies::open(&db, &data_dir)
        .map_err(|e| StartError(format!("cannot prepare the device cookies: {e}")))?;
    let sealer = crate::accounts::second_factor::totp::Sealer::open(&data_dir)
        .map_err(|e| StartError(format!("cannot prepare the second factors' key: {e}")))?;
    let second_factors = crate::accounts::second_factor::SecondFactors::new(
        sealer,
        options.require_second_factor,
        &site.name,
        site.base_url.as_deref(),
    );
    let keys = crate::keys::KeyRing::open(&db, options.wrong_api_keys_per_minute, &site.analytics)
        .map_err(|e| StartError(format!("cannot prepare the API keys: {e}")))?;
    site.public_api_key = Some(keys.public_key().to_string());
    let bundle = Bundle::load();
    let shells = crate::shell::Shells::new(&bundle);
    let build_id = bundle.build_id();
    let started_at = jiff::Timestamp::now();
    site.version.build = build_id.clone();
    site.version.started_at = crate::time::timestamp_text(started_at);
    let roblox = crate::roblox::Roblox::new(
        crate::roblox::RobloxConfig {
            api_template: options.roblox_api.clone(),
            cookie: secrets.roblox_cookie.clone(),
            open_cloud: secrets
                .roblox_open_cloud_key
                .clone()
                .map(|key| crate::roblox::OpenCloudAccess { base: options.roblox_open_cloud_api.clone(), key }),
            timeout: Duration::from_millis(options.roblox_timeout_ms.max(100)),
            badges: site.badges.clone(),
            classification: site.classification.clone(),
            poll: site.poll.clone(),
            limits: site.roblox.clone(),
        },
        db.clone(),
        jobs.clone(),
    );
    roblox.load_stored_badges();
    let site_json = CachedJson::new(&site);
    let metrics = std::sync::Arc::new(crate::metrics::Metrics::new(&options.metrics, crate::openapi::paths));
    let discord =
        crate::discord::Discord::open(&site, secrets.discord.clone(), &db, jobs.clone()).map_err(StartError)?;
    discord.set_player_lookup(std::sync::Arc::new(crate::discord::roblox_lookups::RobloxLookups(roblox.clone())));
    let request_context = std::sync::Arc::new(crate::http::middleware::RequestContext {
        ids: RequestIds::new(),
        trusted_proxies: options.trusted_proxies.clone(),
        proxied_requests: crate::http::connections::AddressSlots::new(
            crate::http::connections::Limits::of(&options).per_address,
        ),
        base_url: site.base_url.clone(),
        content_security_policy: shells.content_security_policy().clone(),
    });
    let banner = Arc::new(banner::ServedBanner::new(
        db.clone(),
        site.default_banner.clone(),
        crate::ads::store::running_sponsor,
        &banner_now,
    ));
    let health_json = Arc::new(CachedJson::new(&()));
    let health = Arc::new(health::HealthCheck {
        db: db.clone(),
        data_dir: data_dir.clone(),
        build_id: build_id.clone(),
        started_at,
        health_json: health_json.clone(),
    });
    let link_cards = Arc::new(crate::shell::cards::LinkCards::new(
        db.clone(),
        commands.clone(),
        guides.clone(),
        crate::shell::pictures::Pictures::open(
            data_dir.join(crate::shell::pictures::CACHE_DIR),
            site.link_cards.pictures_in_memory,
            site.link_cards.pictures_on_disk,
        ),
    ));
    let discord_webhooks =
        Arc::new(crate::follows::webhook::DiscordWebhooks::new(secrets.discord.api_base(), jobs.clone()));
    let analytics = Arc::new(crate::stats::AnalyticsAnswers::new(db.clone(), visits.clone()));
    let state = AppState::new(Inner {
        options,
        secrets,
        data_dir,
        db,
        site: Arc::new(site),
        commands,
        guides,
        bundle: Arc::new(bundle),
        shells: Arc::new(shells),
        link_cards,
        analytics,
        visits,
        started_at,
        build_id,
        request_context,
        logs,
        hasher: crate::accounts::password::Hasher::new(heavy_work.clone()),
        heavy_work,
        jobs,
        roblox,
        watch: Default::default(),
        discord_webhooks: discord_webhooks.clone(),
        scans: Default::default(),
        auth_limiter: crate::ratelimit::AuthLimiter::new(),
        login_throttle: crate::ratelimit::LoginThrottle::new(),
        devices,
        device_throttle: crate::ratelimit::LoginThrottle::new(),
        challenges: crate::accounts::admin_keys::Challenges::new(),
        second_factors,
        keys: Arc::new(keys),
        submissions: Arc::new(crate::ads::submission_limit()),
        llm,
        discord: Arc::new(discord),
        banner,
        stats_refresh: Default::default(),
        site_json: Arc::new(site_json),
        stats_json: Arc::new(CachedJson::new(&())),
        health_json,
        health,
        backups: Arc::new(backups),
        metrics,
    });
    let public = state
        .db
        .read_blocking(|conn| crate::state::part::<crate::stats::PublicFigures>(&state).query(conn))
        .map_err(|e| StartError(e.to_string()))?;
    state.stats_json.set(&public);
    state.health_json.set(&state.health.snapshot(true));
    Ok(state)
}

/// Serves until `shutdown` resolves, then finishes in-flight requests, writes pending counts
/// and checkpoints the database.
pub async fn serve(
    state: AppState,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    // Each feature declared its own background work; what it does is not this file's business.
    let tasks = app::background(&state).start();
    let app = app::router(state.clone());
    let listener = crate::http::listener::CountingListener::new(listener, state.metrics.connections.clone());
    crate::http::connections::serve(listener, app, crate::http::connections::Limits::of(&state.options), shutdown)
        .await;
    for task in tasks {
        task.abort();
    }
    if let Err(e) = state.keys.flush_usage().await {
        tracing::warn!("could not write the last API key usage: {e}");
    }
    if let Err(e) = crate::state::part::<crate::stats::PublicFigures>(&state).flush_and_refresh().await {
        tracing::warn!("could not write the last page views: {e}");
    }
    let db = state.db.clone();
    if !state.options.backups.litestream {
        let _ = tokio::task::spawn_blocking(move || db.checkpoint()).await;
    }
    Ok(())
}
