//! Site settings (`data/site.toml`, or the file given with `--site`): every name, link and text
//! that makes the site this game's. `GET /api/site` hands the public part to the app.

use std::path::Path;

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::content::{ContentError, bundled, parse_toml};
use crate::state::AppState;

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
    /// The public default API key of the newgen page (filled at start by a later feature).
    /// Set by the server, never by the site file (`validate` refuses it there).
    #[serde(default)]
    pub public_api_key: Option<String>,
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
    let site: SiteSettings = parse_toml(&name, &text)?;
    validate(&site).map_err(|problem| ContentError::new(&name, problem))?;
    Ok(site)
}

fn validate(site: &SiteSettings) -> Result<(), String> {
    // Filled by the server. Not `skip_deserializing`: utoipa would leave them out of the API schema.
    for (key, set) in [
        ("version.build", !site.version.build.is_empty()),
        ("version.started_at", !site.version.started_at.is_empty()),
        ("public_api_key", site.public_api_key.is_some()),
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
    Ok(())
}

pub fn router() -> Router<AppState> {
    Router::new().route("/api/site", get(get_site))
}

/// The public site settings: names, links and texts the app renders.
#[utoipa::path(get, path = "/api/site", tag = "site", operation_id = "getSite",
    responses((status = 200, description = "The public site settings", body = SiteSettings), (status = 304, description = "Not modified")))]
pub(crate) async fn get_site(State(state): State<AppState>, headers: HeaderMap) -> Response {
    state.site_json.respond(&headers)
}

#[cfg(test)]
mod tests {
    #[test]
    fn bundled_site_file_is_valid() {
        super::load(None).unwrap();
    }
}
