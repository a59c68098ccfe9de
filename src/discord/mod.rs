//! Discord: the configured channels read by one poller, stored, summarised (language model or the
//! built-in extractive summariser) and served from memory at `/api/discord/{product}-updates`;
//! the community's member count; and the slash-command interactions endpoint.

pub mod client;
pub mod extractive;
pub mod interactions;
pub mod poller;
pub mod roblox_lookups;
pub mod store;
pub mod summarise;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Serialize;
use utoipa::ToSchema;

use crate::db::Db;
use crate::error::ApiError;
use crate::http::cached::{CachedJson, Caching};
use crate::site::SiteSettings;
use client::DiscordClient;
use summarise::Kind;

pub use crate::config::{DISCORD_DEFAULT_API as DEFAULT_API, DiscordConfig};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummarySource {
    Ai,
    Extractive,
}

impl SummarySource {
    pub fn as_str(self) -> &'static str {
        match self {
            SummarySource::Ai => "ai",
            SummarySource::Extractive => "extractive",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub lines: Vec<String>,
    pub source: SummarySource,
    pub model: Option<String>,
    pub input_digest: String,
    pub message_count: usize,
    pub created_at_ms: i64,
}

/// Who produced a list and when.
#[derive(Clone, Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SummaryInfo {
    /// `ai` (the configured language model) or `extractive` (the built-in summariser).
    #[schema(schema_with = source_values)]
    pub source: &'static str,
    /// The language model's name, for `ai`.
    pub model: Option<String>,
    /// RFC 3339.
    #[schema(format = DateTime)]
    pub generated_at: String,
    /// How many stored messages it summarised.
    pub message_count: usize,
}

fn source_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["ai", "extractive"])
}

impl From<&Summary> for SummaryInfo {
    fn from(s: &Summary) -> Self {
        Self {
            source: s.source.as_str(),
            model: s.model.clone(),
            generated_at: crate::db::rfc3339(s.created_at_ms),
            message_count: s.message_count,
        }
    }
}

/// The Updates response of one product: its game updates and community highlights.
#[derive(Clone, Debug, Serialize, ToSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ProductUpdates {
    pub product: String,
    pub title: String,
    /// Whether the host set up a bot token and channels for this product.
    pub configured: bool,
    pub game_updates: Vec<String>,
    pub community_highlights: Vec<String>,
    /// Who produced `gameUpdates` and when; absent before the first summary.
    pub game_updates_source: Option<SummaryInfo>,
    pub community_highlights_source: Option<SummaryInfo>,
}

#[derive(Serialize, ToSchema)]
pub struct AllUpdates {
    success: bool,
    /// Whether any product reads Discord channels (set up by the host).
    configured: bool,
    products: Vec<ProductUpdates>,
}

struct ProductEntry {
    channels: crate::site::UpdateChannels,
    updates: Mutex<ProductUpdates>,
    summaries: Mutex<[Option<Summary>; 2]>,
    json: CachedJson,
}

/// What the health check says about Discord.
#[derive(Default, Clone)]
struct Status {
    /// Channels whose messages came without contents (the message-content intent is off).
    blank_channels: Vec<u64>,
    last_error: Option<String>,
    last_success: Option<String>,
}

pub struct Discord {
    pub config: DiscordConfig,
    pub client: DiscordClient,
    products: BTreeMap<String, ProductEntry>,
    pub all_json: CachedJson,
    status: Mutex<Status>,
    /// The community's approximate member count; -1 while unknown.
    members: AtomicI64,
    pub interactions: interactions::Verifier,
}

fn index(kind: Kind) -> usize {
    match kind {
        Kind::Game => 0,
        Kind::Community => 1,
    }
}

impl Discord {
    /// Builds the served answers from the stored summaries, so a restart shows them at once.
    pub fn open(site: &SiteSettings, config: DiscordConfig, db: &Db, jobs: crate::jobs::Jobs) -> Result<Self, String> {
        let site_url = site.base_url.clone().unwrap_or_else(|| "https://github.com/fanhub".into());
        let client = DiscordClient::new(config.api_base(), config.token.clone(), &site_url, jobs);
        let interactions = interactions::Verifier::new(config.public_key.as_deref(), config.application_id.clone())?;
        let mut products = BTreeMap::new();
        for (name, channels) in &site.updates {
            let (game, community) = db
                .read_blocking(|c| {
                    Ok((store::load_summary(c, name, "game")?, store::load_summary(c, name, "community")?))
                })
                .map_err(|e| format!("cannot read the stored summaries: {}", e.body.error))?;
            let updates = ProductUpdates {
                product: name.clone(),
                title: channels.title.clone().unwrap_or_else(|| name.clone()),
                configured: false,
                game_updates: vec![],
                community_highlights: vec![],
                game_updates_source: None,
                community_highlights_source: None,
            };
            let entry = ProductEntry {
                channels: channels.clone(),
                json: CachedJson::new(&updates),
                updates: Mutex::new(updates),
                summaries: Mutex::new([game, community]),
            };
            products.insert(name.clone(), entry);
        }
        let discord = Self {
            config,
            client,
            products,
            all_json: CachedJson::new(&()),
            status: Mutex::default(),
            members: AtomicI64::new(-1),
            interactions,
        };
        discord.rebuild();
        Ok(discord)
    }

    pub fn has_token(&self) -> bool {
        self.config.token.is_some()
    }

    fn configured(&self, channels: &crate::site::UpdateChannels) -> bool {
        self.has_token() && !(channels.game_channels.is_empty() && channels.community_channels.is_empty())
    }

    /// Every channel id the poller reads.
    pub fn channels(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self
            .products
            .values()
            .filter(|p| self.configured(&p.channels))
            .flat_map(|p| p.channels.game_channels.iter().chain(&p.channels.community_channels))
            .filter_map(|id| id.parse().ok())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// `(product, kind, channels)` for every list to summarise.
    pub fn lists(&self) -> Vec<(String, Kind, Vec<u64>)> {
        let parse = |ids: &[String]| ids.iter().filter_map(|id| id.parse().ok()).collect::<Vec<u64>>();
        self.products
            .iter()
            .filter(|(_, p)| self.configured(&p.channels))
            .flat_map(|(name, p)| {
                [
                    (name.clone(), Kind::Game, parse(&p.channels.game_channels)),
                    (name.clone(), Kind::Community, parse(&p.channels.community_channels)),
                ]
            })
            .filter(|(_, _, channels)| !channels.is_empty())
            .collect()
    }

    /// The digest of the current summary of a list, if any.
    pub fn summary_digest(&self, product: &str, kind: Kind) -> Option<String> {
        let entry = self.products.get(product)?;
        let summaries = entry.summaries.lock().expect("summaries lock");
        summaries[index(kind)].as_ref().map(|s| s.input_digest.clone())
    }

    pub fn set_summary(&self, product: &str, kind: Kind, summary: Summary) {
        if let Some(entry) = self.products.get(product) {
            entry.summaries.lock().expect("summaries lock")[index(kind)] = Some(summary);
        }
        self.rebuild();
    }

    /// Rebuilds the served bodies from the summaries in memory.
    fn rebuild(&self) {
        let mut all = Vec::new();
        for entry in self.products.values() {
            let configured = self.configured(&entry.channels);
            let summaries = entry.summaries.lock().expect("summaries lock").clone();
            let mut updates = entry.updates.lock().expect("updates lock");
            updates.configured = configured;
            let lines = |s: &Option<Summary>| if configured { s.as_ref().map(|s| s.lines.clone()) } else { None };
            let info = |s: &Option<Summary>| if configured { s.as_ref().map(SummaryInfo::from) } else { None };
            updates.game_updates = lines(&summaries[0]).unwrap_or_default();
            updates.community_highlights = lines(&summaries[1]).unwrap_or_default();
            updates.game_updates_source = info(&summaries[0]);
            updates.community_highlights_source = info(&summaries[1]);
            entry.json.set(&*updates);
            all.push(updates.clone());
        }
        let configured = all.iter().any(|p| p.configured);
        self.all_json.set(&AllUpdates { success: true, configured, products: all });
    }

    pub fn members(&self) -> Option<i64> {
        let n = self.members.load(Ordering::Relaxed);
        (n >= 0).then_some(n)
    }

    pub fn set_members(&self, count: Option<i64>) {
        self.members.store(count.unwrap_or(-1).max(-1), Ordering::Relaxed);
    }

    pub fn note_poll(&self, blank_channels: Vec<u64>, error: Option<String>) {
        let mut status = self.status.lock().expect("status lock");
        status.blank_channels = blank_channels;
        match error {
            Some(e) => status.last_error = Some(e),
            None => {
                status.last_error = None;
                status.last_success = Some(crate::time::now_text());
            }
        }
    }

    /// The admin health check's line: (status, detail).
    pub fn health(&self) -> (&'static str, String) {
        if !self.has_token() {
            return ("not_configured", "set FANHUB_DISCORD_TOKEN to read the update channels".into());
        }
        let channels = self.channels();
        if channels.is_empty() {
            return (
                "not_configured",
                "the bot token is set, but no [updates.<product>] channels are listed in the site file".into(),
            );
        }
        let status = self.status.lock().expect("status lock").clone();
        if !status.blank_channels.is_empty() {
            let ids = status.blank_channels.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ");
            return (
                "error",
                format!(
                    "messages of channel {ids} arrive with empty contents: the bot lacks the Message Content intent. \
                     Turn on Developer Portal → your application → Bot → Privileged Gateway Intents → Message Content Intent, \
                     then wait for the next poll"
                ),
            );
        }
        match (status.last_error, status.last_success) {
            (Some(e), _) => ("error", format!("the last read failed: {e}")),
            (None, Some(at)) => ("ok", format!("reading {} channel(s); last read at {at}", channels.len())),
            (None, None) => ("ok", format!("reading {} channel(s); first read pending", channels.len())),
        }
    }
}

pub fn router<S: Clone + Send + Sync + 'static>(discord: Arc<Discord>) -> Router<S> {
    Router::new().route("/api/discord/{productUpdates}", get(product_updates)).with_state(discord)
}

/// One product's summarised game updates and community highlights: `/api/discord/PRODUCT-updates`
/// for each `[updates.PRODUCT]` of the site file (listed in `/api/site` as `updates`). Served from
/// memory with an ETag; empty lists with `configured: false` until the host sets up Discord.
#[utoipa::path(get, path = "/api/discord/{productUpdates}", tag = "site", operation_id = "getDiscordUpdates",
    params(("productUpdates" = String, Path, description = "The product name followed by -updates, e.g. game-updates")),
    responses((status = 200, description = "The product's updates", body = ProductUpdates), (status = 304, description = "Not modified"),
        (status = 404, description = "No such product")))]
pub(crate) async fn product_updates(
    State(discord): State<Arc<Discord>>,
    Path(slug): Path<String>,
    headers: HeaderMap,
) -> Response {
    let entry = slug.strip_suffix("-updates").and_then(|product| discord.products.get(product));
    match entry {
        Some(entry) => entry.json.respond(&headers, Caching::UPDATES),
        None => {
            ApiError::not_found("No such product: the products are the keys of `updates` in /api/site.").into_response()
        }
    }
}
