//! Bundled content (`data/`), baked into the binary. Each feature parses its own file.

use include_dir::{Dir, include_dir};

static DATA: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/data");

/// The text of a bundled data file, e.g. `bundled("commands.toml")`.
pub fn bundled(name: &str) -> &'static str {
    DATA.get_file(name)
        .and_then(|f| f.contents_utf8())
        .unwrap_or_else(|| panic!("data/{name} is missing from the build"))
}

/// A content file that failed to load; its message names the file and the entry.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {problem}")]
pub struct ContentError {
    pub file: String,
    pub problem: String,
}

impl ContentError {
    pub fn new(file: impl Into<String>, problem: impl Into<String>) -> Self {
        Self { file: file.into(), problem: problem.into() }
    }
}

/// Parses TOML, turning a syntax or shape error into a one-line message with the line number.
pub fn parse_toml<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, ContentError> {
    toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1));
        let what = e.message().replace('\n', " ");
        match line {
            Some(l) => ContentError::new(file, format!("line {l}: {what}")),
            None => ContentError::new(file, what),
        }
    })
}
