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
    /// `[link_cards]`: the head texts of one command, guide or checked player, and how many
    /// player pictures are kept (not served).
    #[serde(default, skip_serializing)]
    pub link_cards: LinkCards,
}

/// `[link_cards]`: what the page sent for `/commands?command=NAME`, `/guides?guide=ID` and
/// `/newgen-detector?username=NAME` says about that one thing (title, description, link card),
/// and how many of the players' card pictures are kept. Placeholders in braces (`LinkCards::PLACEHOLDERS`).
/// The defaults name nothing of a game; the bundled site.toml words them for its own.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LinkCards {
    pub command_title: String,
    pub command_description: String,
    pub guide_title: String,
    pub guide_description: String,
    /// A player checked within `[roblox] profile_ttl_hours`.
    pub player_title: String,
    /// ... whose badge count is known (award dates read, and the site lists ELC badges).
    pub player_description: String,
    /// ... whose badge count is unknown.
    pub player_description_without_badges: String,
    /// The player picture's lines under the name and the classification.
    pub picture_joined: String,
    pub picture_badges: String,
    /// Pictures kept in memory and in the data dir (`card-cache/`); past that the oldest goes.
    pub pictures_in_memory: usize,
    pub pictures_on_disk: usize,
}

impl Default for LinkCards {
    fn default() -> Self {
        Self {
            command_title: "{name}".into(),
            command_description: "{description}".into(),
            guide_title: "{title}".into(),
            guide_description: "{first_sentence}".into(),
            player_title: "{username}: {classification}".into(),
            player_description: "{classification}, {confidence}% confidence: joined Roblox {joined} ({generation}), {count} of {total} badges.".into(),
            player_description_without_badges: "{classification}, {confidence}% confidence: joined Roblox {joined} ({generation}).".into(),
            picture_joined: "Joined Roblox {joined} ({generation})".into(),
            picture_badges: "{count} of {total} badges".into(),
            pictures_in_memory: 64,
            pictures_on_disk: 500,
        }
    }
}

impl LinkCards {
    /// The placeholders each kind of text may use.
    pub const COMMAND: &'static [&'static str] = &["name", "usage", "description", "category"];
    pub const GUIDE: &'static [&'static str] = &["title", "first_sentence", "category"];
    pub const PLAYER: &'static [&'static str] =
        &["username", "display_name", "classification", "generation", "confidence", "joined", "count", "total"];

    /// Every text with the placeholders it may use.
    fn texts(&self) -> [(&'static str, &str, &'static [&'static str]); 9] {
        [
            ("command_title", &self.command_title, Self::COMMAND),
            ("command_description", &self.command_description, Self::COMMAND),
            ("guide_title", &self.guide_title, Self::GUIDE),
            ("guide_description", &self.guide_description, Self::GUIDE),
            ("player_title", &self.player_title, Self::PLAYER),
            ("player_description", &self.player_description, Self::PLAYER),
            ("player_description_without_badges", &self.player_description_without_badges, Self::PLAYER),
            ("picture_joined", &self.picture_joined, Self::PLAYER),
            ("picture_badges", &self.picture_badges, Self::PLAYER),
        ]
    }

    fn validate(&self) -> Result<(), String> {
        for (key, text, allowed) in self.texts() {
            if text.trim().is_empty() {
                return Err(format!("[link_cards] {key} is empty"));
            }
            let mut rest = text;
            while let Some(open) = rest.find('{') {
                let after = &rest[open + 1..];
                let close = after.find('}').ok_or_else(|| format!("[link_cards] {key}: a {{ is not closed"))?;
                let name = &after[..close];
                if !allowed.contains(&name) {
                    return Err(format!(
                        "[link_cards] {key}: unknown placeholder {{{name}}} (this text may use {})",
                        allowed.iter().map(|a| format!("{{{a}}}")).collect::<Vec<_>>().join(" ")
                    ));
                }
                rest = &after[close + 1..];
            }
        }
        if !(1..=10_000).contains(&self.pictures_in_memory) || !(1..=1_000_000).contains(&self.pictures_on_disk) {
            return Err("[link_cards] pictures_in_memory is 1 to 10000 and pictures_on_disk 1 to 1000000".into());
        }
        Ok(())
    }

    /// `template` with each `{name}` of `values` replaced (placeholders are checked at load).
    pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
        let mut out = String::with_capacity(template.len() + 64);
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            match after.find('}').and_then(|close| Some((close, values.iter().find(|(k, _)| *k == &after[..close])?))) {
                Some((close, (_, value))) => {
                    out.push_str(value);
                    rest = &after[close + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
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
    site.link_cards.validate()?;
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
mod tests {
    use super::*;

    #[test]
    fn bundled_site_file_is_valid() {
        let site = load(None).unwrap();
        let home = site.pages.iter().find(|p| p.path == "/").unwrap();
        assert_eq!(home.document_title, format!("{} | {}", home.title, site.name));
    }

    fn pages(paths: &[&str]) -> Vec<PageText> {
        paths
            .iter()
            .map(|p| PageText {
                path: p.to_string(),
                title: "T".into(),
                description: "D".into(),
                index: true,
                document_title: String::new(),
            })
            .collect()
    }

    #[test]
    fn every_route_needs_texts_and_texts_need_a_route() {
        let all: Vec<&str> = crate::http::spa::ROUTES.iter().map(|r| r.path).collect();
        assert!(validate_pages(&pages(&all)).is_ok());
        let err = validate_pages(&pages(&all[1..])).unwrap_err();
        assert!(err.contains("has no [[pages]] entry") && err.contains(&format!("{:?}", all[0])), "{err}");
        let mut extra = all.clone();
        extra.push("/not-a-route");
        let err = validate_pages(&pages(&extra)).unwrap_err();
        assert!(err.contains("\"/not-a-route\" is not a route"), "{err}");
        let mut twice = all.clone();
        twice.push(all[0]);
        assert!(validate_pages(&pages(&twice)).unwrap_err().contains("twice"));
    }

    #[test]
    fn budgets_above_robloxs_probed_limits_need_the_proxy_switch() {
        let bundled = include_str!("../../data/site.toml");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("site.toml");
        let high = bundled.replacen("[roblox.budgets]\n", "[roblox.budgets]\n\"users/v1/users/{id}\" = 3000\n", 1);
        std::fs::write(&path, &high).unwrap();
        let err = load(Some(&path)).unwrap_err().to_string();
        assert!(err.contains("probed limit of 30") && err.contains("budgets_above_probed_limits"), "{err}");
        let behind_proxy =
            high.replacen("budgets_above_probed_limits = false", "budgets_above_probed_limits = true", 1);
        std::fs::write(&path, behind_proxy).unwrap();
        assert_eq!(load(Some(&path)).unwrap().roblox.budgets["users/v1/users/{id}"], 3000);
    }

    #[test]
    fn every_era_names_one_generation_code() {
        let bundled = include_str!("../../data/site.toml");
        let site = load(None).unwrap();
        let eras: Vec<_> = site.classification.generations.iter().map(|g| (g.name.as_str(), g.code.as_str())).collect();
        assert_eq!(eras, [("OG", "VETERAN"), ("Oldgen", "OLDGEN"), ("Midgen", "MIDGEN"), ("Newgen", "NEWGEN")]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("site.toml");
        for (from, to, problem) in [
            ("code = \"VETERAN\"\n", "", "missing field `code`"),
            ("code = \"VETERAN\"", "code = \"Veteran\"", "unknown variant `Veteran`"),
            ("code = \"MIDGEN\"", "code = \"OLDGEN\"", "code \"OLDGEN\" of \"Midgen\" is already another era's"),
            ("name = \"Midgen\"", "name = \"og\"", "name \"og\" is another era's name or code"),
            ("name = \"Midgen\"", "name = \"Newgen\"", "name \"Newgen\" is another era's name or code"),
        ] {
            assert!(bundled.contains(from), "{from}");
            std::fs::write(&path, bundled.replacen(from, to, 1)).unwrap();
            let err = load(Some(&path)).unwrap_err().to_string();
            assert!(err.contains(problem), "{from} -> {to}: {err}");
        }
    }

    #[test]
    fn showcase_images_are_site_paths_or_web_addresses_in_one_piece() {
        let site = load(None).unwrap();
        assert!(site.showcase.iter().all(|s| s.image.as_deref().is_some_and(|i| i.starts_with("/showcase/"))));
        for good in ["/showcase/castle.svg", "/uploads/a.webp", "https://img.example.org/a.png?x=1"] {
            assert!(validate_image_address(good).is_ok(), "{good}");
        }
        for bad in ["castle.svg", "//evil.example/a.png", "javascript:alert(1)", "/a b.png", "/a\".png", "/a<b"] {
            assert!(validate_image_address(bad).is_err(), "{bad}");
        }
        let bundled = include_str!("../../data/site.toml");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("site.toml");
        std::fs::write(&path, bundled.replacen("image = \"/showcase/", "image = \"data:/showcase/", 1)).unwrap();
        let err = load(Some(&path)).unwrap_err().to_string();
        assert!(err.contains("showcase.image must be a path on this site"), "{err}");
    }

    #[test]
    fn link_card_texts_use_only_their_placeholders_and_fill_them_once() {
        let site = load(None).unwrap();
        assert!(site.link_cards.validate().is_ok());
        assert!(LinkCards::default().validate().is_ok());
        let typo = LinkCards { guide_title: "{titel}".into(), ..LinkCards::default() };
        assert!(typo.validate().unwrap_err().contains("guide_title: unknown placeholder {titel}"));
        let foreign = LinkCards { command_title: "{username}".into(), ..LinkCards::default() };
        assert!(foreign.validate().unwrap_err().contains("{username}"));
        let open = LinkCards { player_title: "{username".into(), ..LinkCards::default() };
        assert!(open.validate().is_err());
        let none = LinkCards { pictures_in_memory: 0, ..LinkCards::default() };
        assert!(none.validate().is_err());
        // A value holding braces is not filled again.
        assert_eq!(
            LinkCards::fill("{name} {name}: {usage} {x", &[("name", "{usage}"), ("usage", ":a <b>")]),
            "{usage} {usage}: :a <b> {x"
        );
    }

    #[test]
    fn base_url_is_an_origin_only() {
        for ok in
            ["https://fans.example.org", "http://127.0.0.1:8080", "https://fans.example.org/", "https://[::1]:8443"]
        {
            assert!(validate_base_url(ok).is_ok(), "{ok}");
        }
        for bad in [
            "fans.example.org",
            "https://fans.example.org/x",
            "https://a\"b",
            "https://",
            "ftp://x",
            "https://u@x",
            "https://x?q",
        ] {
            assert!(validate_base_url(bad).is_err(), "{bad}");
        }
    }
}
