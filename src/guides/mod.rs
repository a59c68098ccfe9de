//! Guides: `data/guides.toml`, served as one list.

use std::collections::HashSet;

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use serde::{Deserialize, Serialize};

use crate::content::{ContentError, bundled, parse_toml};
use crate::http::cached::{CachedJson, Caching};
use std::sync::Arc;

const FILE: &str = "data/guides.toml";
pub const CATEGORIES: [&str; 4] = ["Beginner", "Building", "Administration", "Community"];
pub const DIFFICULTIES: [&str; 3] = ["easy", "intermediate", "advanced"];

#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Guide {
    pub id: u32,
    pub title: String,
    pub content: String,
    #[schema(schema_with = category_values)]
    pub category: String,
    #[schema(schema_with = difficulty_values)]
    pub difficulty: String,
    /// Optional in a guide's file; always in an answer.
    #[serde(default)]
    #[schema(required = true)]
    pub tags: Vec<String>,
}

fn category_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&CATEGORIES)
}

fn difficulty_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&DIFFICULTIES)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GuidesFile {
    guide: Vec<Guide>,
}

pub struct Library {
    pub guides: Vec<Guide>,
    list: CachedJson,
}

impl Library {
    pub fn load() -> Result<Self, ContentError> {
        Self::from_toml(FILE, bundled("guides.toml"))
    }

    pub fn from_toml(file: &str, text: &str) -> Result<Self, ContentError> {
        let mut parsed: GuidesFile = parse_toml(file, text)?;
        for g in &mut parsed.guide {
            g.content = g.content.trim().to_string();
        }
        validate(&parsed.guide).map_err(|p| ContentError::new(file, p))?;
        let list = CachedJson::new(&parsed.guide);
        Ok(Self { guides: parsed.guide, list })
    }

    pub fn len(&self) -> usize {
        self.guides.len()
    }

    pub fn is_empty(&self) -> bool {
        self.guides.is_empty()
    }

    pub fn by_id(&self, id: u32) -> Option<&Guide> {
        self.guides.iter().find(|g| g.id == id)
    }

    /// The category spelled as in the data, matched case-insensitively.
    pub fn category(&self, name: &str) -> Option<&'static str> {
        CATEGORIES.iter().copied().find(|c| c.eq_ignore_ascii_case(name.trim()))
    }

    /// Guides matching the query's words in title, tags, category or content, best first.
    pub fn search(&self, query: &str) -> Vec<(u32, &Guide)> {
        let terms = crate::search::terms(query);
        let mut hits: Vec<(u32, &Guide)> = self
            .guides
            .iter()
            .filter_map(|g| {
                let tags = g.tags.join(" ");
                let fields =
                    [(g.title.as_str(), 10), (tags.as_str(), 5), (g.category.as_str(), 3), (g.content.as_str(), 2)];
                crate::search::score(&terms, &fields).map(|score| (score, g))
            })
            .collect();
        hits.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.title.cmp(&b.1.title)));
        hits
    }
}

fn validate(guides: &[Guide]) -> Result<(), String> {
    let mut ids = HashSet::new();
    for (i, g) in guides.iter().enumerate() {
        let at = format!("guide #{} (id {}, {:?})", i + 1, g.id, g.title);
        if g.id == 0 || !ids.insert(g.id) {
            return Err(format!("{at}: id must be a unique positive number"));
        }
        if g.title.trim().is_empty() || g.content.is_empty() {
            return Err(format!("{at}: title and content must not be empty"));
        }
        if !CATEGORIES.contains(&g.category.as_str()) {
            return Err(format!("{at}: category must be one of {CATEGORIES:?}, not {:?}", g.category));
        }
        if !DIFFICULTIES.contains(&g.difficulty.as_str()) {
            return Err(format!("{at}: difficulty must be one of {DIFFICULTIES:?}, not {:?}", g.difficulty));
        }
    }
    Ok(())
}

pub fn router<S: Clone + Send + Sync + 'static>(library: Arc<Library>) -> Router<S> {
    Router::new().route("/api/guides", get(list)).with_state(library)
}

/// Every guide.
#[utoipa::path(get, path = "/api/guides", tag = "guides", operation_id = "listGuides",
    responses((status = 200, description = "Every guide", body = Vec<Guide>), (status = 304, description = "Not modified")))]
pub(crate) async fn list(State(library): State<Arc<Library>>, headers: HeaderMap) -> Response {
    library.list.respond(&headers, Caching::CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_guides_are_valid() {
        let lib = Library::load().unwrap();
        assert!(lib.len() >= 12);
        for cat in CATEGORIES {
            assert!(lib.guides.iter().any(|g| g.category == cat), "no {cat} guide");
        }
    }

    #[test]
    fn bad_difficulty_is_named() {
        let text =
            "[[guide]]\nid = 3\ntitle = \"T\"\ncontent = \"c\"\ncategory = \"Beginner\"\ndifficulty = \"hard\"\n";
        let err = Library::from_toml("g.toml", text).err().unwrap().to_string();
        assert!(err.contains("g.toml") && err.contains("guide #1 (id 3") && err.contains("difficulty"), "{err}");
    }
}
