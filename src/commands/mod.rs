//! The admin-command database: `data/commands.toml`, with ratings and favorites from SQLite.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use serde::{Deserialize, Serialize};

use crate::content::{ContentError, bundled, parse_toml};
use crate::db::Db;
use crate::error::ApiError;
use crate::http::cached::{CachedJson, Caching};

pub mod ratings;
pub mod store;

pub use store::load_scores;

const FILE: &str = "data/commands.toml";
pub const PERMISSIONS: [&str; 4] = ["OA", "OR", "UP", "NE"];
pub const MAX_EXAMPLES: usize = 3;
const POPULAR_LIMIT: usize = 6;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandDef {
    pub id: u32,
    pub name: String,
    pub description: String,
    pub usage: String,
    #[serde(default)]
    pub examples: Vec<String>,
    pub category: String,
    pub permission: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandsFile {
    command: Vec<CommandDef>,
}

/// Community signals for one command.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Score {
    pub avg_rating: f64,
    pub rating_count: u32,
    pub favorite_count: u32,
}

/// A command as the API serves it: the data file's fields and the community's signals.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Command)]
pub struct CommandItem {
    pub id: u32,
    pub name: String,
    pub description: String,
    pub usage: String,
    #[schema(max_items = 3)]
    pub examples: Vec<String>,
    pub category: String,
    #[schema(schema_with = permission_values)]
    pub permission: String,
    #[schema(minimum = 0, maximum = 5)]
    pub avg_rating: f64,
    pub rating_count: u32,
    pub favorite_count: u32,
}

fn permission_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&PERMISSIONS)
}

pub struct Catalog {
    commands: Vec<CommandDef>,
    ids: HashSet<u32>,
    categories: Vec<String>,
    items: RwLock<Arc<Vec<CommandItem>>>,
    popular_items: RwLock<Arc<Vec<CommandItem>>>,
    list: CachedJson,
    popular: CachedJson,
}

impl Catalog {
    pub fn load() -> Result<Self, ContentError> {
        Self::from_toml(FILE, bundled("commands.toml"))
    }

    pub fn from_toml(file: &str, text: &str) -> Result<Self, ContentError> {
        let parsed: CommandsFile = parse_toml(file, text)?;
        validate(&parsed.command).map_err(|p| ContentError::new(file, p))?;
        let ids = parsed.command.iter().map(|c| c.id).collect();
        let mut categories: Vec<String> = parsed.command.iter().map(|c| c.category.clone()).collect();
        categories.sort();
        categories.dedup();
        let catalog = Self {
            commands: parsed.command,
            ids,
            categories,
            items: RwLock::default(),
            popular_items: RwLock::default(),
            list: CachedJson::new(&Vec::<()>::new()),
            popular: CachedJson::new(&Vec::<()>::new()),
        };
        catalog.apply_scores(&HashMap::new());
        Ok(catalog)
    }

    pub fn len(&self) -> usize {
        self.commands.len()
    }

    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    pub fn contains(&self, id: u32) -> bool {
        self.ids.contains(&id)
    }

    /// The command with this name, in any case (names are unique regardless of case).
    pub fn by_name(&self, name: &str) -> Option<&CommandDef> {
        self.commands.iter().find(|c| c.name.eq_ignore_ascii_case(name))
    }

    /// Rebuilds the served lists from fresh scores.
    pub fn apply_scores(&self, scores: &HashMap<u32, Score>) {
        let items: Vec<CommandItem> = self
            .commands
            .iter()
            .map(|c| {
                let s = scores.get(&c.id).copied().unwrap_or_default();
                CommandItem {
                    id: c.id,
                    name: c.name.clone(),
                    description: c.description.clone(),
                    usage: c.usage.clone(),
                    examples: c.examples.clone(),
                    category: c.category.clone(),
                    permission: c.permission.clone(),
                    avg_rating: (s.avg_rating * 100.0).round() / 100.0,
                    rating_count: s.rating_count,
                    favorite_count: s.favorite_count,
                }
            })
            .collect();
        self.list.set(&items);
        let mut popular: Vec<CommandItem> =
            items.iter().filter(|v| v.rating_count + v.favorite_count > 0).cloned().collect();
        popular.sort_by(|a, b| {
            (b.favorite_count + b.rating_count)
                .cmp(&(a.favorite_count + a.rating_count))
                .then(b.avg_rating.total_cmp(&a.avg_rating))
                .then(a.name.cmp(&b.name))
        });
        popular.truncate(POPULAR_LIMIT);
        self.popular.set(&popular);
        *self.items.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(items);
        *self.popular_items.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(popular);
    }

    /// Every command with its current signals, in data-file order.
    pub fn items(&self) -> Arc<Vec<CommandItem>> {
        self.items.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Up to 6 commands ranked by favorites and ratings.
    pub fn popular_items(&self) -> Arc<Vec<CommandItem>> {
        self.popular_items.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The distinct categories, sorted.
    pub fn categories(&self) -> &[String] {
        &self.categories
    }

    /// The category spelled as in the data, matched case-insensitively.
    pub fn category(&self, name: &str) -> Option<&str> {
        self.categories.iter().find(|c| c.eq_ignore_ascii_case(name.trim())).map(String::as_str)
    }

    /// Commands matching the query's words in name, usage, category or description, best first.
    pub fn search(&self, query: &str) -> Vec<(u32, CommandItem)> {
        let terms = crate::search::terms(query);
        let mut hits: Vec<(u32, CommandItem)> = self
            .items()
            .iter()
            .filter_map(|c| {
                let fields = [
                    (c.name.as_str(), 10),
                    (c.usage.as_str(), 4),
                    (c.category.as_str(), 3),
                    (c.description.as_str(), 2),
                ];
                crate::search::score(&terms, &fields).map(|score| (score, c.clone()))
            })
            .collect();
        hits.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
        hits
    }
}

fn validate(commands: &[CommandDef]) -> Result<(), String> {
    let mut ids = HashSet::new();
    let mut names = HashSet::new();
    for (i, c) in commands.iter().enumerate() {
        let at = format!("command #{} (id {}, {:?})", i + 1, c.id, c.name);
        if c.id == 0 || !ids.insert(c.id) {
            return Err(format!("{at}: id must be a unique positive number"));
        }
        if c.name.trim().is_empty() || !names.insert(c.name.to_lowercase()) {
            return Err(format!("{at}: name must be unique and not empty"));
        }
        for (field, value) in [("description", &c.description), ("usage", &c.usage), ("category", &c.category)] {
            if value.trim().is_empty() {
                return Err(format!("{at}: {field} is empty"));
            }
        }
        if !PERMISSIONS.contains(&c.permission.as_str()) {
            return Err(format!("{at}: permission must be one of OA, OR, UP, NE, not {:?}", c.permission));
        }
        if c.examples.len() > MAX_EXAMPLES {
            return Err(format!("{at}: {} examples, at most {MAX_EXAMPLES}", c.examples.len()));
        }
    }
    Ok(())
}

/// Re-reads the scores and rebuilds the served lists (after a rating or favorite changes).
pub async fn refresh_scores(db: &Db, commands: &Catalog) -> Result<(), ApiError> {
    let scores = db.read(store::load_scores).await?;
    commands.apply_scores(&scores);
    Ok(())
}

/// What the command routes use: the catalog and, for favorites and ratings, the database.
#[derive(Clone)]
pub struct CommandsState {
    pub db: Db,
    pub commands: Arc<Catalog>,
}

impl CommandsState {
    async fn refresh_scores(&self) -> Result<(), ApiError> {
        refresh_scores(&self.db, &self.commands).await
    }
}

pub fn router<S: Clone + Send + Sync + 'static>(state: CommandsState) -> Router<S> {
    Router::new()
        .route("/api/commands", get(list))
        .route("/api/commands/popular", get(popular))
        .route("/api/commands/{id}/rating", axum::routing::post(ratings::rate))
        .route("/api/favorites", get(ratings::list).post(ratings::add))
        .route("/api/favorites/{user_id}", get(ratings::list_for))
        .route("/api/favorites/{user_id}/command/{command_id}", axum::routing::delete(ratings::remove))
        .with_state(Arc::new(state))
}

/// Every command with its community rating and favorite count.
#[utoipa::path(get, path = "/api/commands", tag = "commands", operation_id = "listCommands",
    responses((status = 200, description = "Every command", body = Vec<CommandItem>), (status = 304, description = "Not modified")))]
pub(crate) async fn list(State(state): State<Arc<CommandsState>>, headers: HeaderMap) -> Response {
    state.commands.list.respond(&headers, Caching::CONTENT)
}

/// Up to 6 commands ranked by favorites and ratings.
#[utoipa::path(get, path = "/api/commands/popular", tag = "commands", operation_id = "listPopularCommands",
    responses((status = 200, description = "Up to 6 commands", body = Vec<CommandItem>), (status = 304, description = "Not modified")))]
pub(crate) async fn popular(State(state): State<Arc<CommandsState>>, headers: HeaderMap) -> Response {
    state.commands.popular.respond(&headers, Caching::CONTENT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_commands_are_valid_and_over_100() {
        let c = Catalog::load().unwrap();
        assert!(c.len() >= 100, "only {} commands", c.len());
    }

    #[test]
    fn errors_name_the_entry() {
        let text = r#"
[[command]]
id = 1
name = "fly"
description = "Fly."
usage = ":fly <player>"
examples = ["a", "b", "c", "d"]
category = "Movement"
permission = "OA"
"#;
        let err = Catalog::from_toml("x.toml", text).err().unwrap().to_string();
        assert!(err.contains("x.toml") && err.contains("\"fly\"") && err.contains("at most 3"), "{err}");
        let err = Catalog::from_toml("x.toml", "[[command]]\nid = \"one\"").err().unwrap().to_string();
        assert!(err.contains("x.toml: line"), "{err}");
    }

    #[test]
    fn popular_ranks_by_signals() {
        let c = Catalog::load().unwrap();
        let first = c.commands[0].id;
        let second = c.commands[1].id;
        let scores = HashMap::from([
            (first, Score { avg_rating: 3.0, rating_count: 1, favorite_count: 0 }),
            (second, Score { avg_rating: 5.0, rating_count: 2, favorite_count: 1 }),
        ]);
        c.apply_scores(&scores);
        let popular: serde_json::Value = serde_json::from_slice(&c.popular.get().bytes).unwrap();
        assert_eq!(popular.as_array().unwrap().len(), 2);
        assert_eq!(popular[0]["id"], second);
    }
}
