//! `[link_cards]` of site.toml: the head texts of one command, guide or checked player.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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

    pub(super) fn validate(&self) -> Result<(), String> {
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
