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

const STATS_INTERVAL: Duration = Duration::from_secs(5);
const HEALTH_INTERVAL: Duration = Duration::from_secs(10);
const MAINTENANCE_INTERVAL: Duration = Duration::from_secs(3600);
const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(1);

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
        .map_err(|e| StartError(format!("cannot write the database: {e}")))?;
    commands.apply_scores(&scores);
    let keys = crate::keys::KeyRing::open(&db).map_err(|e| StartError(format!("cannot prepare the API keys: {e}")))?;
    site.public_api_key = Some(keys.public_key().to_string());
    let bundle = Bundle::load();
    let shells = crate::shell::Shells::new(&bundle);
    let build_id = bundle.build_id();
    let started_at = jiff::Timestamp::now();
    site.version.build = build_id.clone();
    site.version.started_at = started_at.to_string();
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
        visits: Arc::new(visits),
        started_at,
        build_id,
        request_context,
        logs,
        hasher: crate::accounts::password::Hasher::new(heavy_work.clone()),
        heavy_work,
        jobs,
        roblox,
        scans: Default::default(),
        auth_limiter: crate::ratelimit::AuthLimiter::new(),
        login_throttle: crate::ratelimit::LoginThrottle::new(),
        challenges: crate::accounts::admin_keys::Challenges::new(),
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
    let public =
        state.db.read_blocking(|conn| state.public_figures().query(conn)).map_err(|e| StartError(e.to_string()))?;
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
    let tasks = spawn_background(state.clone());
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
    if let Err(e) = state.public_figures().flush_and_refresh().await {
        tracing::warn!("could not write the last page views: {e}");
    }
    let db = state.db.clone();
    if !state.options.backups.litestream {
        let _ = tokio::task::spawn_blocking(move || db.checkpoint()).await;
    }
    Ok(())
}

fn spawn_background(state: AppState) -> Vec<tokio::task::JoinHandle<()>> {
    let stats_state = state.clone();
    let figures = state.public_figures();
    let stats_job = state.jobs.register("page-stats");
    let stats_task = tokio::spawn(async move {
        let mut tick = tokio::time::interval(STATS_INTERVAL);
        loop {
            tokio::select! {
                _ = tick.tick() => {},
                _ = stats_state.stats_refresh.woken() => {},
            }
            let s = stats_state.clone();
            let rotated = stats_state.db.write(move |tx| s.visits.rotate_salt(tx)).await;
            match stats_job.report(rotated.and(figures.flush_and_refresh().await)) {
                // A full disk is logged once, by the disk flag.
                Err(e) if !e.is_out_of_space() => tracing::warn!("page view counts not written: {e}"),
                _ => {}
            }
            if let Err(e) = stats_state.banner.refresh().await {
                tracing::warn!("banner not refreshed: {e}");
            }
        }
    });
    let health_state = state.clone();
    let health_task = tokio::spawn(async move {
        let mut tick = tokio::time::interval(HEALTH_INTERVAL);
        loop {
            tokio::select! {
                _ = tick.tick() => {},
                // The disk filling up or getting room back shows in /api/health at once.
                _ = crate::disk::DATA_DISK.changed.notified() => {},
            }
            health_state.health.check().await;
            // Every limiter and per-address table registered itself when it was made.
            crate::ratelimit::forget_idle_everywhere();
        }
    });
    let maintenance_state = state.clone();
    let maintenance_job = state.jobs.register("maintenance");
    let maintenance_task = tokio::spawn(async move {
        let mut tick = tokio::time::interval(MAINTENANCE_INTERVAL);
        loop {
            tick.tick().await;
            let pruned = maintenance_state
                .db
                .write(|tx| {
                    Ok(crate::accounts::admin_keys::store::prune_expired(tx)?
                        + crate::accounts::store::prune_login_logs(tx)?)
                })
                .await;
            match maintenance_job.report(pruned) {
                Ok(0) => {}
                Ok(n) => tracing::info!("maintenance: removed {n} expired sessions and old login log rows"),
                Err(e) if e.is_out_of_space() => {}
                Err(e) => tracing::warn!("maintenance failed: {e}"),
            }
            let uploads = crate::ads::uploads_dir(&maintenance_state.data_dir);
            let swept = maintenance_state
                .db
                .write(move |tx| crate::ads::review::sweep_rejected_images(tx, &uploads, crate::db::now_ms()))
                .await;
            match maintenance_job.report(swept) {
                Ok(0) => {}
                Ok(n) => tracing::info!("maintenance: deleted the images of {n} rejected advertisements"),
                Err(e) => tracing::warn!("maintenance: rejected advertisement images not deleted: {e}"),
            }
        }
    });
    let expiry_task = tokio::spawn(banner::expire_on_time(state.banner.clone()));
    let mut tasks = vec![stats_task, health_task, maintenance_task, expiry_task];
    let badge_monitor = state.jobs.register("badge-monitor");
    tasks.push(tokio::spawn(crate::roblox::monitor::run(state.roblox.clone(), badge_monitor)));
    let scans: crate::scans::ScansState = axum::extract::FromRef::from_ref(&state);
    tasks.push(tokio::spawn(crate::scans::worker::run(scans, state.jobs.register("group-scans"))));
    let discord = crate::discord::poller::PollerState::from(&state);
    if !state.discord.channels().is_empty() {
        let job = state.jobs.register("discord-updates");
        tasks.push(tokio::spawn(crate::discord::poller::run_updates(discord.clone(), job)));
    }
    if crate::discord::poller::members_configured(&discord) {
        let job = state.jobs.register("discord-members");
        let stats_refresh = state.stats_refresh.clone();
        tasks.push(tokio::spawn(crate::discord::poller::run_members(discord, job, stats_refresh)));
    }
    if state.options.backups.backup_every.is_some() {
        let backups = crate::backup::BackupState {
            backups: state.backups.clone(),
            db: state.db.clone(),
            data_dir: state.data_dir.as_path().into(),
            jobs: state.jobs.clone(),
        };
        tasks.push(tokio::spawn(crate::backup::schedule(backups, state.jobs.register(crate::backup::JOB))));
    }
    // With --litestream, Litestream checkpoints the WAL where its replication wants it.
    if state.options.backups.litestream {
        return tasks;
    }
    let db = state.db.clone();
    let checkpoint_job = state.jobs.register("wal-checkpoint");
    let checkpoint_task = tokio::spawn(async move {
        let mut tick = tokio::time::interval(CHECKPOINT_INTERVAL);
        loop {
            tick.tick().await;
            let db = db.clone();
            match tokio::task::spawn_blocking(move || db.checkpoint_passive()).await {
                Ok(Ok(_)) => checkpoint_job.succeeded(),
                Ok(Err(e)) => {
                    if !e.is_out_of_space() {
                        tracing::warn!("background WAL checkpoint failed: {e}");
                    }
                    checkpoint_job.failed(e);
                }
                Err(e) => tracing::warn!("background WAL checkpoint stopped: {e}"),
            }
        }
    });
    tasks.push(checkpoint_task);
    tasks
}
