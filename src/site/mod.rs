//! Site settings (`data/site.toml`, or the file given with `--site`): every name, link and text
//! that makes the site this game's. `GET /api/site` hands the public part to the app.

use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::content::{ContentError, bundled, parse_toml};
use crate::http::cached::{CachedJson, Caching};

mod link_cards;
pub use link_cards::LinkCards;

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct SiteSettings {
    pub name: String,
    pub short_name: String,
    pub tagline: String,
    pub description: String,
    pub copyright: String,
    pub version: VersionInfo,
    pub made_by: NamedLink,
    pub links: Links,
    pub hero: Hero,
    pub features: Vec<Feature>,
    pub showcase: Vec<Showcase>,
    pub creator_videos: Vec<CreatorVideo>,
    pub clan: Clan,
    pub default_banner: BannerColors,
    pub getting_started: Vec<TitledText>,
    pub building_tips: Vec<String>,
    pub admin_best_practices: Vec<String>,
    pub server_types: Vec<ServerType>,
    pub official_links: Vec<OfficialLink>,
    pub factions: Vec<Faction>,
    pub fun_facts: Vec<String>,
    pub permissions: Permissions,
    pub selectors: Vec<Selector>,
    pub credits: Vec<Credit>,
    /// Per-route head texts (title, description, indexable); one per route of `http::spa::ROUTES`.
    pub pages: Vec<PageText>,
    /// The public address of the site (`https://fans.example.org`): canonical URLs, link cards
    /// and the sitemap use it. Unset: taken from each request's `Host` (and, through a trusted
    /// proxy, `X-Forwarded-Proto`).
    #[serde(default, skip_serializing)]
    pub base_url: Option<String>,
    /// An absolute URL of the image link cards show instead of the bundled `/social-card.png`.
    #[serde(default, skip_serializing)]
    pub social_image: Option<String>,
    /// The public default API key of the newgen page (filled at start by a later feature).
    /// Set by the server, never by the site file (`validate` refuses it there).
    #[serde(default)]
    pub public_api_key: Option<String>,
    /// `[badges]`: the ELC and the tracked badge ids (Roblox lookups, the badge monitor).
    #[serde(default)]
    pub badges: crate::roblox::settings::BadgeSettings,
    /// `[classification]`: generations by join date, ELC rules, confidences and wording.
    #[serde(default)]
    pub classification: crate::roblox::settings::Classification,
    /// `[poll]`: background poll intervals (badge monitor, Discord channels and member count).
    #[serde(default)]
    pub poll: crate::roblox::settings::PollSettings,
    /// `[roblox]`: per-endpoint budgets, background share, cache lifetimes (not served).
    #[serde(default, skip_serializing)]
    pub roblox: crate::roblox::settings::RobloxSettings,
    /// The Discord channels summarised on /discord-news, per product (`[updates.<product>]`,
    /// served at `/api/discord/<product>-updates`).
    #[serde(default)]
    pub updates: std::collections::BTreeMap<String, UpdateChannels>,
    /// Where the community's member count comes from (`[discord]`).
    #[serde(default, skip_serializing)]
    pub discord: DiscordCommunity,
    /// `[scans]`: how many group scans may be queued per API key and on the whole site.
    #[serde(default, skip_serializing)]
    pub scans: crate::scans::ScanSettings,
    /// `[follows]`: how many players an account may follow, how often they are re-checked, and
    /// when a fan's Discord webhook counts as broken.
    #[serde(default, skip_serializing)]
    pub follows: crate::follows::FollowSettings,
    /// `[link_cards]`: the head texts of one command, guide or checked player, and how many
    /// player pictures are kept (not served).
    #[serde(default, skip_serializing)]
    pub link_cards: LinkCards,
    /// `[analytics]`: how long API key usage is kept per hour, per day, and the addresses a key
    /// was used from (not served).
    #[serde(default, skip_serializing)]
    pub analytics: crate::keys::AnalyticsSettings,
    /// `[retention]`: how long the tables that grow with use keep their rows (not served).
    #[serde(default, skip_serializing)]
    pub retention: crate::db::retention::RetentionSettings,
}

/// One product's channels. Only the title is public.
#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateChannels {
    /// The heading of the product's section on /discord-news (default: the product name).
    #[serde(default)]
    pub title: Option<String>,
    /// Channel ids (snowflakes, as strings) whose posts are the game's updates.
    #[serde(default, skip_serializing)]
    pub game_channels: Vec<String>,
    /// Channel ids whose talk gives the community highlights.
    #[serde(default, skip_serializing)]
    pub community_channels: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscordCommunity {
    /// An invite code of the community's server (the part after discord.gg/): its counts need no token.
    #[serde(default)]
    pub invite_code: Option<String>,
    /// The server's id: counts read with the bot token (the bot must be a member).
    #[serde(default)]
    pub guild_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct VersionInfo {
    pub label: String,
    pub status: String,
    /// Set by the server at start, never by the site file (`validate` refuses them there).
    #[serde(default)]
    pub build: String,
    #[serde(default)]
    #[schema(format = DateTime)]
    pub started_at: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NamedLink {
    pub name: String,
    pub url: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct Links {
    pub game: String,
    pub wiki: String,
    pub community: String,
    pub video_search: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct Hero {
    pub title: String,
    pub subtitle: String,
    pub building_tools: u32,
    pub large_server_players: u32,
    pub public_server_players: u32,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Feature {
    pub title: String,
    pub description: String,
    pub icon: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Faction {
    pub name: String,
    pub description: String,
    pub icon: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Showcase {
    pub title: String,
    pub builder: String,
    pub description: String,
    /// The card's picture: a path on this site (`/showcase/castle.svg`, a file bundled from
    /// `assets/`, or an `/uploads/...` file) or an http(s) URL. Unset: the card has no picture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// What the picture shows, for screen readers; unset, the picture counts as decoration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatorVideo {
    pub creator: String,
    pub title: String,
    pub description: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct Clan {
    pub name: String,
    pub message: String,
    pub invite_url: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct BannerColors {
    #[serde(alias = "backgroundColor")]
    #[schema(pattern = "^#[0-9a-fA-F]{6}$")]
    pub background_color: String,
    #[serde(alias = "textColor")]
    #[schema(pattern = "^#[0-9a-fA-F]{6}$")]
    pub text_color: String,
    #[serde(alias = "borderColor")]
    #[schema(pattern = "^#[0-9a-fA-F]{6}$")]
    pub border_color: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TitledText {
    pub title: String,
    pub description: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct ServerType {
    pub name: String,
    pub max_players: u32,
    pub description: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OfficialLink {
    pub label: String,
    pub url: String,
    pub description: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct Permissions {
    pub OA: String,
    pub OR: String,
    pub UP: String,
    pub NE: String,
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Selector {
    pub selector: String,
    pub description: String,
}

/// The head texts of one route: `<title>`, meta description, link-card texts.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all(serialize = "camelCase"))]
#[schema(rename_all = "camelCase")]
pub struct PageText {
    pub path: String,
    /// The page's own title; the document title adds the site name (`document_title`).
    pub title: String,
    pub description: String,
    /// Listed in the sitemap and open to search engines; `false` marks the page `noindex`.
    #[serde(default = "indexable_by_default")]
    pub index: bool,
    /// `title | site name`, what the browser tab shows (filled at load).
    #[serde(default)]
    #[schema(required = true)]
    pub document_title: String,
}

fn indexable_by_default() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Credit {
    pub name: String,
    pub role: String,
}

impl BannerColors {
    pub fn validate(&self) -> Result<(), String> {
        for (name, value) in [
            ("background_color", &self.background_color),
            ("text_color", &self.text_color),
            ("border_color", &self.border_color),
        ] {
            if !is_hex_color(value) {
                return Err(format!("{name} must be a colour like #7c3aed, not {value:?}"));
            }
        }
        Ok(())
    }
}

/// `#rrggbb` as a number (Discord's embed colours); 0 for anything else.
pub fn color_number(value: &str) -> u32 {
    if is_hex_color(value) { u32::from_str_radix(&value[1..], 16).unwrap_or(0) } else { 0 }
}

pub fn is_hex_color(value: &str) -> bool {
    value.len() == 7 && value.starts_with('#') && value[1..].chars().all(|c| c.is_ascii_hexdigit())
}

/// Loads and checks the site file: the bundled one, or `path` when given.
pub fn load(path: Option<&Path>) -> Result<SiteSettings, ContentError> {
    let (name, text) = match path {
        Some(p) => {
            let name = p.display().to_string();
            let text = std::fs::read_to_string(p).map_err(|e| ContentError::new(&name, format!("cannot read: {e}")))?;
            (name, text)
        }
        None => ("data/site.toml".to_string(), bundled("site.toml").to_string()),
    };
    let mut site: SiteSettings = parse_toml(&name, &text)?;
    validate(&site).map_err(|problem| ContentError::new(&name, problem))?;
    site.base_url = site.base_url.map(|u| u.trim_end_matches('/').to_string());
    for page in &mut site.pages {
        page.document_title = document_title(&page.title, &site.name);
    }
    Ok(site)
}

fn validate(site: &SiteSettings) -> Result<(), String> {
    // Filled by the server. Not `skip_deserializing`: utoipa would leave them out of the API schema.
    for (key, set) in [
        ("version.build", !site.version.build.is_empty()),
        ("version.started_at", !site.version.started_at.is_empty()),
        ("public_api_key", site.public_api_key.is_some()),
        ("pages.document_title", site.pages.iter().any(|p| !p.document_title.is_empty())),
    ] {
        if set {
            return Err(format!("{key} is set by the server, not by the site file"));
        }
    }
    site.default_banner.validate().map_err(|e| format!("[default_banner] {e}"))?;
    let urls = [
        ("links.game", &site.links.game),
        ("links.wiki", &site.links.wiki),
        ("links.community", &site.links.community),
        ("links.video_search", &site.links.video_search),
        ("made_by.url", &site.made_by.url),
        ("clan.invite_url", &site.clan.invite_url),
    ];
    for (key, url) in urls.into_iter().chain(site.official_links.iter().map(|l| ("official_links.url", &l.url))) {
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Err(format!("{key} must be an http(s) URL, not {url:?}"));
        }
    }
    for (key, len, want) in [
        ("features", site.features.len(), 6),
        ("getting_started", site.getting_started.len(), 4),
        ("factions", site.factions.len(), 4),
        ("selectors", site.selectors.len(), 5),
    ] {
        if len != want {
            return Err(format!("[[{key}]] needs exactly {want} entries, found {len}"));
        }
    }
    if let Some(base) = &site.base_url {
        validate_base_url(base).map_err(|e| format!("base_url {e}"))?;
    }
    if let Some(image) = &site.social_image
        && !(image.starts_with("https://") || image.starts_with("http://"))
    {
        return Err(format!("social_image must be an absolute http(s) URL, not {image:?}"));
    }
    for image in site.showcase.iter().filter_map(|s| s.image.as_deref()) {
        validate_image_address(image).map_err(|e| format!("showcase.image {e}, not {image:?}"))?;
    }
    crate::roblox::settings::validate(&site.badges, &site.classification, &site.poll, &site.roblox)?;
    validate_discord(site)?;
    site.scans.validate()?;
    site.follows.validate()?;
    site.link_cards.validate()?;
    site.analytics.validate()?;
    site.retention.validate()?;
    validate_pages(&site.pages)
}

/// A picture the pages may show: a path on this site or an http(s) URL, in one piece (no quotes,
/// spaces or control characters that could break out of an attribute or a CSS value).
fn validate_image_address(image: &str) -> Result<(), &'static str> {
    let local = image.starts_with('/') && !image.starts_with("//");
    if !(local || image.starts_with("https://") || image.starts_with("http://")) {
        return Err("must be a path on this site (starting with /) or an http(s) URL");
    }
    if image.len() > 2048 || image.chars().any(|c| c.is_whitespace() || c.is_control() || "\"'<>\\`".contains(c)) {
        return Err("must be at most 2048 characters without spaces, quotes or angle brackets");
    }
    Ok(())
}

fn is_snowflake(id: &str) -> bool {
    (1..=20).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_digit()) && id.parse::<u64>().is_ok()
}

fn validate_discord(site: &SiteSettings) -> Result<(), String> {
    for (product, channels) in &site.updates {
        if product.is_empty()
            || product.len() > 40
            || !product.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(format!("[updates.{product}]: a product name is 1-40 of a-z, 0-9 and -"));
        }
        for id in channels.game_channels.iter().chain(&channels.community_channels) {
            if !is_snowflake(id) {
                return Err(format!("[updates.{product}] channel ids are Discord ids (digits only), not {id:?}"));
            }
        }
    }
    if site.poll.updates_secs < 15 {
        return Err("[poll] updates_secs must be 15 or more".into());
    }
    if site.poll.members_secs < 60 {
        return Err("[poll] members_secs must be 60 or more".into());
    }
    if let Some(code) = &site.discord.invite_code
        && (code.is_empty() || code.len() > 40 || !code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    {
        return Err(format!("[discord] invite_code is the code after discord.gg/, not {code:?}"));
    }
    if let Some(id) = &site.discord.guild_id
        && !is_snowflake(id)
    {
        return Err(format!("[discord] guild_id is a Discord id (digits only), not {id:?}"));
    }
    Ok(())
}

/// The document title of a page: its title, then the site name.
pub fn document_title(title: &str, site_name: &str) -> String {
    format!("{title} | {site_name}")
}

/// `https://host[:port]` and nothing else: no path, query, fragment or credentials.
fn validate_base_url(base: &str) -> Result<(), String> {
    let rest = base
        .strip_prefix("https://")
        .or_else(|| base.strip_prefix("http://"))
        .ok_or_else(|| format!("must start with https:// or http://, not {base:?}"))?;
    let host = rest.trim_end_matches('/');
    if crate::http::origin::valid_host(host).is_none() {
        return Err(format!("must be only a scheme and a host name (like https://fans.example.org), not {base:?}"));
    }
    Ok(())
}

/// Every route has texts, and no texts name a route the server does not have.
fn validate_pages(pages: &[PageText]) -> Result<(), String> {
    use crate::http::spa::ROUTES;
    for (i, page) in pages.iter().enumerate() {
        if !ROUTES.iter().any(|r| r.path == page.path) {
            let known = ROUTES.iter().map(|r| r.path).collect::<Vec<_>>().join(" ");
            return Err(format!(
                "[[pages]] path {:?} is not a route of this server (routes: {known}); remove the entry or add the route to src/http/spa.rs",
                page.path
            ));
        }
        if pages[..i].iter().any(|p| p.path == page.path) {
            return Err(format!("[[pages]] lists {:?} twice", page.path));
        }
        if page.title.trim().is_empty() || page.description.trim().is_empty() {
            return Err(format!("[[pages]] {:?} needs a title and a description", page.path));
        }
        if page.description.chars().count() > 300 {
            return Err(format!("[[pages]] {:?}: keep the description under 300 characters", page.path));
        }
    }
    if let Some(missing) = ROUTES.iter().find(|r| !pages.iter().any(|p| p.path == r.path)) {
        return Err(format!(
            "the route {:?} has no [[pages]] entry: add one with its path, title and description (see data/README.md)",
            missing.path
        ));
    }
    Ok(())
}

pub fn router<S: Clone + Send + Sync + 'static>(site_json: Arc<CachedJson>) -> Router<S> {
    Router::new().route("/api/site", get(get_site)).with_state(site_json)
}

/// The public site settings: names, links and texts the app renders.
#[utoipa::path(get, path = "/api/site", tag = "site", operation_id = "getSite",
    responses((status = 200, description = "The public site settings", body = SiteSettings), (status = 304, description = "Not modified")))]
pub(crate) async fn get_site(State(site_json): State<Arc<CachedJson>>, headers: HeaderMap) -> Response {
    site_json.respond(&headers, Caching::CONTENT)
}

#[cfg(test)]
mod tests;
