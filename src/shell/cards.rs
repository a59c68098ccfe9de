//! Link cards of their own: the page sent for `/commands?command=NAME`, `/guides?guide=ID` and
//! `/newgen-detector?username=NAME` names that command, guide or player in its title,
//! description and link card, worded by site.toml's `[link_cards]`.
//!
//! Crawlers and link unfurlers open such links by the thousand, so a card is made only from what
//! the server already holds: the commands and guides of the data files, and a player only when
//! the `players` table has a check of them fresher than `[roblox] profile_ttl_hours` (the
//! lookup cache's own lifetime). Any other value gets the page's own card; nothing here ever
//! calls Roblox. Values are checked before use (a command or guide the data has, a name Roblox
//! could hold) and every text is escaped where the head is written (`head::render`).

use std::sync::Arc;

use axum::extract::Query;
use axum::http::Uri;

use super::picture::PictureText;
use super::pictures::Pictures;
use crate::commands::{Catalog, CommandDef};
use crate::db::Db;
use crate::error::ApiError;
use crate::guides::{Guide, Library};
use crate::roblox::store::PlayerRow;
use crate::site::{LinkCards as Texts, SiteSettings};

/// Link-card descriptions are cut to this many characters (search results show about 160).
const MAX_DESCRIPTION: usize = 300;
/// A query value longer than this names nothing the site has.
const MAX_VALUE: usize = 100;

/// What one page address is about beyond its route, as its head says it.
#[derive(Clone, Debug, PartialEq)]
pub struct Subject {
    /// Tells the rendered variants apart: the path and query, and a player's check time.
    pub key: String,
    /// The canonical path and query (`/commands?command=fly`), percent-encoded.
    pub path: String,
    pub title: String,
    pub description: String,
    /// Its own picture (a same-origin path), else the site's.
    pub image: Option<String>,
    /// Search engines may list it.
    pub index: bool,
}

/// The service the shell asks for subjects and player pictures.
pub struct LinkCards {
    db: Db,
    commands: Arc<Catalog>,
    guides: Arc<Library>,
    pub pictures: Pictures,
}

/// A fresh check of a player, as its card says it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerCard {
    pub username: String,
    pub title: String,
    pub description: String,
    pub picture: PictureText,
}

impl LinkCards {
    pub fn new(db: Db, commands: Arc<Catalog>, guides: Arc<Library>, pictures: Pictures) -> Self {
        Self { db, commands, guides, pictures }
    }

    /// The subject of `route` named in `uri`'s query, when the site holds it; `None` gives the
    /// page's own card.
    pub async fn subject(&self, site: &SiteSettings, route: &str, uri: &Uri) -> Option<Subject> {
        let param = match route {
            "/commands" => "command",
            "/guides" => "guide",
            "/newgen-detector" => "username",
            _ => return None,
        };
        let value = query_value(uri, param)?;
        let texts = &site.link_cards;
        match param {
            "command" => self.commands.by_name(value.trim().trim_start_matches(':')).map(|c| command_subject(texts, c)),
            "guide" => guide_id(&value).and_then(|id| self.guides.by_id(id)).map(|g| guide_subject(texts, g)),
            _ => match self.player(site, &value).await {
                Ok(card) => card.map(player_subject),
                Err(e) => {
                    tracing::warn!("a player's link card was not read: {e}");
                    None
                }
            },
        }
    }

    /// The card of `username` from a check fresher than the lookup cache's lifetime; `None`
    /// for a name Roblox could not hold and for a player not checked recently.
    pub async fn player(&self, site: &SiteSettings, username: &str) -> Result<Option<PlayerCard>, ApiError> {
        if crate::roblox::classify::check_username(username).is_err() {
            return Ok(None);
        }
        let fresh_since = crate::time::now_ms() - site.roblox.profile_ttl_hours as i64 * 3_600_000;
        let name = username.to_string();
        let row = self.db.read(move |c| crate::roblox::store::fresh_player_by_name(c, &name, fresh_since)).await?;
        Ok(row.map(|row| player_card(site, &row)))
    }
}

/// The first value of `name` in the query, percent-decoded, when it is short enough to mean
/// anything.
fn query_value(uri: &Uri, name: &str) -> Option<String> {
    let Query(pairs) = Query::<Vec<(String, String)>>::try_from_uri(uri).ok()?;
    let (_, value) = pairs.into_iter().find(|(k, _)| k == name)?;
    (!value.is_empty() && value.len() <= MAX_VALUE).then_some(value)
}

/// A guide id as the data writes them: digits only.
fn guide_id(value: &str) -> Option<u32> {
    (value.len() <= 9 && value.bytes().all(|b| b.is_ascii_digit())).then(|| value.parse().ok()).flatten()
}

fn command_subject(texts: &Texts, c: &CommandDef) -> Subject {
    let values = [
        ("name", c.name.as_str()),
        ("usage", c.usage.as_str()),
        ("description", c.description.as_str()),
        ("category", c.category.as_str()),
    ];
    let path = format!("/commands?command={}", percent_encode(&c.name));
    Subject {
        key: path.clone(),
        path,
        title: Texts::fill(&texts.command_title, &values),
        description: clip(&Texts::fill(&texts.command_description, &values)),
        image: None,
        index: true,
    }
}

fn guide_subject(texts: &Texts, g: &Guide) -> Subject {
    let first = first_sentence(&g.content);
    let values = [("title", g.title.as_str()), ("first_sentence", first), ("category", g.category.as_str())];
    let path = format!("/guides?guide={}", g.id);
    Subject {
        key: path.clone(),
        path,
        title: Texts::fill(&texts.guide_title, &values),
        description: clip(&Texts::fill(&texts.guide_description, &values)),
        image: None,
        index: true,
    }
}

fn player_subject(card: PlayerCard) -> Subject {
    let path = format!("/newgen-detector?username={}", card.username);
    let version = super::pictures::key_of(&card.picture);
    Subject {
        // The picture's key covers every text the card shows.
        key: format!("{path}#{version}"),
        image: Some(format!("/api/players/{}/card.png?v={version}", card.username)),
        path,
        title: card.title,
        description: card.description,
        // The address always shows that player: the page runs the check when opened (a fresh
        // stored one costs Roblox nothing; any other is held to the public key's limits and the
        // budgets), so search engines may list it like the commands and guides.
        index: true,
    }
}

/// The texts of a stored check: `[link_cards]` filled with the classification the newgen check
/// answered, the era's name, the join month and the ELC badge count.
pub fn player_card(site: &SiteSettings, row: &PlayerRow) -> PlayerCard {
    let texts = &site.link_cards;
    let generation = site.classification.label(&row.generation);
    let joined = joined_month(&row.created);
    let total = site.badges.elc.len();
    let count = row.elc_count.map(|n| n.to_string()).unwrap_or_default();
    let confidence = row.confidence.to_string();
    let total_text = total.to_string();
    let values = [
        ("username", row.username.as_str()),
        ("display_name", row.display_name.as_str()),
        ("classification", row.classification.as_str()),
        ("generation", generation.as_str()),
        ("confidence", confidence.as_str()),
        ("joined", joined.as_str()),
        ("count", count.as_str()),
        ("total", total_text.as_str()),
    ];
    let badges_known = row.elc_count.is_some() && total > 0;
    let description = if badges_known { &texts.player_description } else { &texts.player_description_without_badges };
    let mut lines = vec![Texts::fill(&texts.picture_joined, &values)];
    if badges_known {
        lines.push(Texts::fill(&texts.picture_badges, &values));
    }
    PlayerCard {
        username: row.username.clone(),
        title: Texts::fill(&texts.player_title, &values),
        description: clip(&Texts::fill(description, &values)),
        picture: PictureText {
            site_name: site.name.clone(),
            username: row.username.clone(),
            classification: row.classification.clone(),
            lines,
            accent: site.default_banner.background_color.clone(),
            on_accent: site.default_banner.text_color.clone(),
        },
    }
}

/// "May 2009" from Roblox's RFC 3339 join time (the date as written when it does not parse).
fn joined_month(created: &str) -> String {
    created
        .parse::<jiff::Timestamp>()
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).strftime("%B %Y").to_string())
        .unwrap_or_else(|_| created.chars().take(10).collect())
}

/// The first sentence of a guide's first paragraph (up to its `.`, `!` or `?`).
fn first_sentence(content: &str) -> &str {
    let paragraph = content.split("\n\n").next().unwrap_or(content).trim();
    let end = paragraph
        .char_indices()
        .find(|&(i, c)| {
            matches!(c, '.' | '!' | '?') && paragraph[i + 1..].chars().next().is_none_or(char::is_whitespace)
        })
        .map_or(paragraph.len(), |(i, _)| i + 1);
    &paragraph[..end]
}

/// At most `MAX_DESCRIPTION` characters, cut after a word with an ellipsis.
fn clip(text: &str) -> String {
    if text.chars().count() <= MAX_DESCRIPTION {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_DESCRIPTION - 1).collect();
    let at_word = cut.rfind(' ').map_or(cut.as_str(), |i| &cut[..i]);
    format!("{}\u{2026}", at_word.trim_end_matches([',', ';', ':', ' ']))
}

/// `value` for a URL's query: unreserved characters as they are, everything else `%XX`.
fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        s.parse().unwrap()
    }

    #[test]
    fn query_values_are_decoded_and_bounded() {
        assert_eq!(query_value(&uri("/commands?command=fly"), "command").as_deref(), Some("fly"));
        assert_eq!(query_value(&uri("/commands?x=1&command=a%20b&command=c"), "command").as_deref(), Some("a b"));
        assert_eq!(query_value(&uri("/commands?command=%3Cb%3E%22%26"), "command").as_deref(), Some("<b>\"&"));
        assert_eq!(query_value(&uri("/commands?command="), "command"), None);
        assert_eq!(query_value(&uri("/commands"), "command"), None);
        assert_eq!(query_value(&uri(&format!("/commands?command={}", "a".repeat(101))), "command"), None);
        assert_eq!(query_value(&uri("/commands?command=%FF%FE"), "command").as_deref(), Some("\u{fffd}\u{fffd}"));
    }

    #[test]
    fn guide_ids_are_digits() {
        assert_eq!(guide_id("12"), Some(12));
        for bad in ["", "-1", "1.0", " 1", "1e3", "0x1", "9999999999", "１"] {
            assert_eq!(guide_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn first_sentences_clips_and_encoding() {
        assert_eq!(first_sentence("Press Play. Then build.\n\nMore."), "Press Play.");
        assert_eq!(first_sentence("Version 1.6 is out! Yes."), "Version 1.6 is out!");
        assert_eq!(first_sentence("No end"), "No end");
        let long = "word ".repeat(100);
        let clipped = clip(&long);
        assert!(clipped.chars().count() <= MAX_DESCRIPTION && clipped.ends_with("word\u{2026}"), "{clipped}");
        assert_eq!(clip("short"), "short");
        assert_eq!(percent_encode("a b&c/é"), "a%20b%26c%2F%C3%A9");
    }

    #[test]
    fn a_players_card_says_their_verdict_from_the_site_file() {
        let site = crate::site::load(None).unwrap();
        let mut site = site;
        site.badges.elc = vec![1, 2, 3, 4, 5, 6];
        let row = PlayerRow {
            user_id: 7,
            username: "OldBuilder2009".into(),
            display_name: "Old".into(),
            verified: false,
            banned: false,
            created: "2009-05-04T10:20:30.4567891Z".into(),
            generation: "VETERAN".into(),
            classification: "Veteran".into(),
            is_newgen: false,
            is_veteran: true,
            elc_count: Some(4),
            confidence: 95,
            checked_at: 1,
        };
        let card = player_card(&site, &row);
        assert_eq!(card.title, "OldBuilder2009: Veteran");
        assert!(card.description.contains("joined Roblox May 2009 (OG era), owns 4 of 6 ELC badges"), "{card:?}");
        assert_eq!(card.picture.lines, ["Joined Roblox May 2009 \u{b7} OG era", "4 of 6 ELC badges"]);
        assert_eq!(card.picture.accent, site.default_banner.background_color);
        let unknown = player_card(&site, &PlayerRow { elc_count: None, ..row.clone() });
        assert!(!unknown.description.contains("ELC") && unknown.picture.lines.len() == 1, "{unknown:?}");
        site.badges.elc.clear();
        assert!(!player_card(&site, &row).description.contains("of 0"), "no ELC badges listed: no count");
        let subject = player_subject(card);
        assert_eq!(subject.path, "/newgen-detector?username=OldBuilder2009");
        assert!(subject.image.unwrap().starts_with("/api/players/OldBuilder2009/card.png?v="));
        assert!(subject.index, "a player's page may be listed");
    }
}
