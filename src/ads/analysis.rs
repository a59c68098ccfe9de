//! `aiAnalysis` of an ad without a language model: read from the description, the website's
//! address and the links. The same shape an LLM fills when one is configured.
//!
//! The reading only names a category (and the call to action that goes with it) when the ad's
//! own words point there clearly; otherwise it says it is unsure, keeps its leaning as `guess`,
//! and stays neutral ("Unsure", "Visit site"). `evidence` lists the words that matched, so an
//! admin sees why.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdAnalysis {
    pub summary: String,
    /// What is advertised: the model's words, else the website's address (never guessed).
    pub main_product: String,
    /// One of the categories when the reading is confident, else `Unsure`.
    pub category: String,
    pub price_range: String,
    /// The first 3 are shown in the fullscreen ad.
    pub key_features: Vec<String>,
    /// The category's call to action when confident, else the neutral `Visit site`.
    pub call_to_action: String,
    /// `heuristic` or `llm`.
    #[schema(schema_with = source_values)]
    pub source: String,
    /// `confident` (the category follows from the evidence) or `unsure`. Readings stored before
    /// this field existed read as unsure.
    #[serde(default = "unsure")]
    #[schema(schema_with = certainty_values, required = true)]
    pub certainty: String,
    /// 0-100: how strongly and how clearly the evidence points to one category (50 and more is
    /// confident); for the model's reading, its own high (90) or low (30).
    #[serde(default)]
    #[schema(maximum = 100, required = true)]
    pub confidence: u8,
    /// The category the evidence leans to, also when unsure; null when nothing pointed anywhere.
    #[serde(default)]
    #[schema(required = true)]
    pub guess: Option<String>,
    /// Why: each category the ad's words point to, strongest first, with the words that matched.
    #[serde(default)]
    #[schema(required = true)]
    pub evidence: Vec<Evidence>,
}

/// The words of an ad that point to one category (`AdEvidence` in the OpenAPI document: the newgen
/// verdict has an `Evidence` of its own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AdEvidence)]
pub struct Evidence {
    pub category: String,
    /// The weight of the matches: 2 a word of the description or the address, 4 a telling phrase
    /// ("subscribe"), 6 the website itself (youtube.com), 1 an additional link's site.
    pub points: u32,
    /// What matched, with where it was when not in the description: `server`, `smp (address)`,
    /// `youtube.com (website)`, `twitch.tv (link)`.
    pub matched: Vec<String>,
}

pub const CONFIDENT: &str = "confident";
pub const UNSURE: &str = "unsure";
/// The category of a reading that is not confident.
pub const UNSURE_CATEGORY: &str = "Unsure";
/// The call to action when the reading is not confident: true of every ad.
pub const NEUTRAL_CALL_TO_ACTION: &str = "Visit site";

fn source_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&["heuristic", "llm"])
}

fn certainty_values() -> utoipa::openapi::Object {
    crate::http::schema::string_enum(&[CONFIDENT, UNSURE])
}

fn unsure() -> String {
    UNSURE.into()
}

/// A category: its name, its words (whole words; a plural `s` is allowed), its telling phrases,
/// the sites that are that category, and its call to action.
struct Category {
    name: &'static str,
    words: &'static [&'static str],
    phrases: &'static [&'static str],
    sites: &'static [&'static str],
    action: &'static str,
}

const CATEGORIES: &[Category] = &[
    Category {
        name: "Game server",
        words: &["server", "smp", "survival", "minigame", "realm"],
        phrases: &["join our server", "server ip"],
        sites: &[],
        action: "Join the server",
    },
    Category {
        name: "Clan or community",
        words: &["clan", "guild", "community", "discord", "group", "members"],
        phrases: &["join our clan", "join our community", "join our group"],
        sites: &["discord.gg", "discord.com"],
        action: "Join the community",
    },
    Category {
        name: "Video channel",
        words: &["youtube", "youtuber", "twitch", "stream", "streamer", "channel", "video", "tiktok"],
        phrases: &["subscribe", "my channel", "our channel", "new videos", "watch my", "youtube channel"],
        sites: &["youtube.com", "youtu.be", "twitch.tv", "tiktok.com"],
        action: "Watch and subscribe",
    },
    Category {
        name: "Shop or merchandise",
        words: &["shop", "store", "merch", "buy", "sale", "discount", "shirt", "hoodie"],
        phrases: &["shop now", "buy now", "% off"],
        sites: &[],
        action: "Shop now",
    },
    Category {
        name: "Tool or software",
        words: &["tool", "app", "bot", "plugin", "mod", "software", "script", "download"],
        phrases: &["free download", "download now"],
        sites: &[],
        action: "Try it now",
    },
    Category {
        name: "Game",
        words: &["game", "obby", "tycoon", "simulator", "rpg"],
        phrases: &["play now", "play our game"],
        sites: &[],
        action: "Play now",
    },
];

const WORD_POINTS: u32 = 2;
const PHRASE_POINTS: u32 = 4;
const SITE_POINTS: u32 = 6;
const LINK_POINTS: u32 = 1;
/// Points at which the evidence counts as strong: the website itself and a word.
const STRONG_POINTS: u32 = 8;
/// The confidence (percent) from which the reading names the category.
pub const CONFIDENT_FROM: u8 = 50;

fn host(url: &str) -> String {
    let rest = url.split("://").nth(1).unwrap_or(url);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = host.rsplit('@').next().unwrap_or(host).split(':').next().unwrap_or(host);
    host.trim_start_matches("www.").to_ascii_lowercase()
}

/// Whether `host` is `site` or one of its subdomains (`m.youtube.com`).
fn is_site(host: &str, site: &str) -> bool {
    host == site || host.strip_suffix(site).is_some_and(|rest| rest.ends_with('.'))
}

/// The lowercase words of a text, split at everything that is not a letter or a digit (`%` is
/// kept as a word of its own, for "50% off").
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        } else {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            if c == '%' {
                out.push("%".into());
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Whether the word is `keyword`, or its plural.
fn is_word(word: &str, keyword: &str) -> bool {
    word == keyword || word.strip_suffix('s') == Some(keyword)
}

/// Whether the words hold the phrase (its words in a row, the last one perhaps plural).
fn has_phrase(text: &[String], phrase: &str) -> bool {
    let wanted = words(phrase);
    !wanted.is_empty()
        && text.windows(wanted.len()).any(|w| {
            let last = wanted.len() - 1;
            w[..last] == wanted[..last] && is_word(&w[last], &wanted[last])
        })
}

/// Each category's evidence in the ad, strongest first (ties in the list's order).
fn evidence(website_url: &str, description: &str, links: &[String]) -> Vec<Evidence> {
    let text = words(description);
    let site = host(website_url);
    // The address's own words ("blockcraft-smp.example"), without its last label (the TLD).
    let labels: Vec<&str> = site.split('.').collect();
    let address: Vec<String> = labels[..labels.len().saturating_sub(1)].iter().flat_map(|label| words(label)).collect();
    let link_hosts: Vec<String> = links.iter().map(|l| host(l)).collect();
    let mut found: Vec<Evidence> = CATEGORIES
        .iter()
        .filter_map(|c| {
            let mut points = 0;
            let mut matched = Vec::new();
            for s in c.sites {
                if is_site(&site, s) {
                    points += SITE_POINTS;
                    matched.push(format!("{s} (website)"));
                } else if link_hosts.iter().any(|h| is_site(h, s)) {
                    points += LINK_POINTS;
                    matched.push(format!("{s} (link)"));
                }
            }
            for p in c.phrases {
                if has_phrase(&text, p) {
                    points += PHRASE_POINTS;
                    matched.push((*p).to_string());
                }
            }
            for w in c.words {
                if text.iter().any(|t| is_word(t, w)) {
                    points += WORD_POINTS;
                    matched.push((*w).to_string());
                } else if address.iter().any(|t| is_word(t, w)) {
                    points += WORD_POINTS;
                    matched.push(format!("{w} (address)"));
                }
            }
            (points > 0).then(|| Evidence { category: c.name.to_string(), points, matched })
        })
        .collect();
    found.sort_by_key(|e| std::cmp::Reverse(e.points));
    found
}

/// How strongly (the points, up to STRONG_POINTS) and how clearly (the lead over the runner-up)
/// the evidence points to its first category, 0-100.
fn confidence(found: &[Evidence]) -> u8 {
    let top = found.first().map_or(0, |e| e.points);
    if top == 0 {
        return 0;
    }
    let second = found.get(1).map_or(0, |e| e.points);
    let strength = f64::from(top.min(STRONG_POINTS)) / f64::from(STRONG_POINTS);
    let clarity = f64::from(top - second) / f64::from(top);
    (strength * clarity * 100.0).round() as u8
}

fn sentences(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        // A full stop ends a sentence only before a space or the end ("$4.99" stays whole).
        let next_is_space = chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        let ends = matches!(c, '!' | '?' | '\n' | ';') || (c == '.' && next_is_space);
        if ends {
            out.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    out.push(current);
    out.iter()
        .map(|s| s.trim().trim_start_matches(['-', '*', '•']).trim())
        .filter(|s| s.chars().count() >= 3)
        .map(str::to_string)
        .collect()
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max - 1).collect();
    format!("{}…", cut.trim_end())
}

fn price(text: &str) -> String {
    let lower = text.to_lowercase();
    let amounts: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
        .filter(|w| {
            (w.starts_with('$') || w.starts_with('€') || w.starts_with('£'))
                && w.chars().nth(1).is_some_and(|c| c.is_ascii_digit())
        })
        .collect();
    match (amounts.first(), amounts.last(), lower.contains("free")) {
        (Some(a), Some(b), _) if a != b => format!("{a} to {b}"),
        (Some(a), _, _) => a.trim_end_matches(['.', '!']).to_string(),
        (None, _, true) => "Free".into(),
        _ => "Not stated".into(),
    }
}

/// Reads the ad the way a reviewer skims it: a category only when the evidence is confident.
pub fn heuristic(website_url: &str, description: &str, links: &[String]) -> AdAnalysis {
    let site = host(website_url);
    let found = evidence(website_url, description, links);
    let confidence = confidence(&found);
    let guess = found.first().map(|e| e.category.clone());
    let chosen = guess
        .as_deref()
        .filter(|_| confidence >= CONFIDENT_FROM)
        .and_then(|name| CATEGORIES.iter().find(|c| c.name == name));
    let parts = sentences(description);
    let summary = parts.first().map(|s| shorten(s, 160)).unwrap_or_else(|| format!("An advertisement for {site}."));
    // The other sentences, each once: the first is the summary already.
    let key_features = parts.iter().skip(1).take(5).map(|s| shorten(s, 80)).collect();
    AdAnalysis {
        summary,
        main_product: if site.is_empty() { "Not stated".into() } else { site },
        category: chosen.map_or(UNSURE_CATEGORY, |c| c.name).to_string(),
        price_range: price(description),
        key_features,
        call_to_action: chosen.map_or(NEUTRAL_CALL_TO_ACTION, |c| c.action).to_string(),
        source: "heuristic".into(),
        certainty: if chosen.is_some() { CONFIDENT } else { UNSURE }.into(),
        confidence,
        guess,
        evidence: found,
    }
}

const LLM_SYSTEM: &str = "You review banner advertisements submitted to a fan website of an online block-building game. \
Read the advertisement and answer with one JSON object and nothing else, with these keys: \
\"summary\" (one sentence, at most 160 characters), \"mainProduct\" (what is advertised, a few words, only as the ad states it), \
\"category\" (one of: Game server, Clan or community, Video channel, Shop or merchandise, Tool or software, Game, Website), \
\"confidence\" (\"high\" only when the ad's own words clearly say what it is, else \"low\"), \
\"evidence\" (an array of up to 5 words or short phrases quoted from the ad that point to the category), \
\"priceRange\" (the prices stated, \"Free\", or \"Not stated\"), \"keyFeatures\" (an array of up to 5 short phrases taken from the ad), \
\"callToAction\" (a short imperative, at most 40 characters). Never invent prices, features or a category the ad does not state.";

/// The categories the model may answer.
const LLM_CATEGORIES: [&str; 7] =
    ["Game server", "Clan or community", "Video channel", "Shop or merchandise", "Tool or software", "Game", "Website"];

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LlmAnswer {
    summary: String,
    main_product: String,
    category: String,
    price_range: String,
    key_features: Vec<String>,
    call_to_action: String,
    /// `high` or `low`; a model that leaves it out is taken at its word when its category is one
    /// of the list.
    #[serde(default)]
    confidence: Option<String>,
    #[serde(default)]
    evidence: Vec<String>,
}

fn clip(text: &str, max: usize) -> Option<String> {
    let t = text.trim();
    (!t.is_empty() && !t.chars().any(char::is_control)).then(|| shorten(t, max))
}

/// The language model's reading of the ad, checked field by field (empty, control characters
/// and overlong texts are refused; lists are capped). A category off the list, or one the model
/// says it is unsure of, becomes `Unsure` with the neutral call to action.
pub async fn with_llm(
    llm: &crate::llm::LlmClient,
    website_url: &str,
    description: &str,
    links: &[String],
) -> Result<AdAnalysis, crate::llm::LlmError> {
    let ad = serde_json::json!({ "websiteUrl": website_url, "description": description, "links": links });
    let answer: LlmAnswer = llm.json(LLM_SYSTEM, &format!("The advertisement as JSON: {ad}"), 400).await?;
    let bad = |what: &str| crate::llm::LlmError::BadAnswer(format!("{what} is empty or not plain text"));
    let key_features: Vec<String> = answer.key_features.iter().filter_map(|f| clip(f, 80)).take(5).collect();
    let category = clip(&answer.category, 40).ok_or_else(|| bad("category"))?;
    let listed = LLM_CATEGORIES.iter().find(|c| c.eq_ignore_ascii_case(&category));
    let high = !answer.confidence.as_deref().is_some_and(|c| c.trim().eq_ignore_ascii_case("low"));
    let confident = listed.is_some() && high;
    let matched: Vec<String> = answer.evidence.iter().filter_map(|w| clip(w, 60)).take(5).collect();
    let guess = listed.map_or(category.clone(), |c| c.to_string());
    Ok(AdAnalysis {
        summary: clip(&answer.summary, 160).ok_or_else(|| bad("summary"))?,
        main_product: clip(&answer.main_product, 60).ok_or_else(|| bad("mainProduct"))?,
        category: if confident { guess.clone() } else { UNSURE_CATEGORY.into() },
        price_range: clip(&answer.price_range, 40).ok_or_else(|| bad("priceRange"))?,
        key_features,
        call_to_action: match clip(&answer.call_to_action, 40).ok_or_else(|| bad("callToAction"))? {
            action if confident => action,
            _ => NEUTRAL_CALL_TO_ACTION.into(),
        },
        source: "llm".into(),
        certainty: if confident { CONFIDENT } else { UNSURE }.into(),
        confidence: if confident { 90 } else { 30 },
        evidence: if matched.is_empty() {
            Vec::new()
        } else {
            vec![Evidence { category: guess.clone(), points: 0, matched }]
        },
        guess: Some(guess),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_server_ad() {
        let a = heuristic(
            "https://www.blockcraft-smp.example/join?ref=x",
            "The friendliest survival server in town! Weekly build contests. Free ranks for new players; VIP from $4.99.",
            &["https://discord.example/invite".into()],
        );
        assert_eq!((a.category.as_str(), a.certainty.as_str()), ("Game server", CONFIDENT), "{a:?}");
        assert_eq!(a.main_product, "blockcraft-smp.example");
        assert_eq!(a.summary, "The friendliest survival server in town");
        assert_eq!(a.key_features, ["Weekly build contests", "Free ranks for new players", "VIP from $4.99"]);
        assert_eq!(a.price_range, "$4.99");
        assert_eq!(a.call_to_action, "Join the server");
        assert_eq!(a.evidence[0].matched, ["server", "smp (address)", "survival"]);
        assert_eq!(a.confidence, 75);
    }

    #[test]
    fn says_what_it_does_not_know() {
        let a = heuristic("https://example.org", "", &[]);
        assert_eq!((a.category.as_str(), a.certainty.as_str(), a.guess.as_deref()), ("Unsure", UNSURE, None));
        assert_eq!((a.confidence, a.evidence.len()), (0, 0));
        assert_eq!(a.price_range, "Not stated");
        assert_eq!(a.call_to_action, "Visit site");
        assert_eq!(a.main_product, "example.org");
        assert!(a.key_features.is_empty());
        assert_eq!(a.summary, "An advertisement for example.org.");
    }

    #[test]
    fn a_build_contest_is_not_a_video_channel() {
        let a = heuristic(
            "https://th-events.example/contest",
            "TH BUILD CONTEST: build the best castle and win 1,000 coins! Entries close Friday; the winners are shown live on stream.",
            &["https://www.youtube.com/watch?v=trailer".into()],
        );
        assert_eq!((a.category.as_str(), a.certainty.as_str()), ("Unsure", UNSURE), "{a:?}");
        assert_eq!(a.call_to_action, "Visit site");
        assert!(a.confidence < CONFIDENT_FROM);
        // What it leaned to, and why, is kept for the admin.
        assert_eq!(a.guess.as_deref(), Some("Video channel"));
        assert_eq!(a.evidence[0].matched, ["youtube.com (link)", "stream"]);
        assert_eq!(a.main_product, "th-events.example", "the site, not an invented product");
    }

    #[test]
    fn words_match_whole_not_inside_other_words() {
        // "happy" holds "app", "display" "play", "steam" "team", "modern" "mod", "upstream" "stream".
        let a =
            heuristic("https://a.example", "A happy display of modern upstream art by our steam-powered team.", &[]);
        assert!(a.evidence.is_empty(), "{:?}", a.evidence);
        assert_eq!(a.category, "Unsure");
    }

    #[test]
    fn a_clear_channel_ad_is_recognised() {
        let a = heuristic(
            "https://www.youtube.com/@BuilderBob",
            "New building tutorials every week on my YouTube channel. Subscribe so you never miss one!",
            &[],
        );
        assert_eq!((a.category.as_str(), a.certainty.as_str()), ("Video channel", CONFIDENT), "{a:?}");
        assert_eq!(a.call_to_action, "Watch and subscribe");
        assert_eq!(a.confidence, 100);
        assert!(a.evidence[0].matched.contains(&"youtube.com (website)".to_string()));
    }

    #[test]
    fn evidence_split_between_categories_is_unsure() {
        // A hosting company: "servers", "game" and "clan" each point somewhere else.
        let a =
            heuristic("https://server-host.example.org/", "Fast game servers for your clan, set up in a minute.", &[]);
        assert_eq!(a.category, "Unsure", "{a:?}");
        assert!(a.evidence.len() >= 3);
    }

    #[test]
    fn readings_stored_before_the_certainty_fields_read_as_unsure() {
        let old = r#"{"summary":"s","mainProduct":"m","category":"Video channel","priceRange":"Free","keyFeatures":[],
            "callToAction":"Watch and subscribe","source":"heuristic"}"#;
        let a: AdAnalysis = serde_json::from_str(old).unwrap();
        assert_eq!((a.certainty.as_str(), a.confidence, a.guess, a.evidence.len()), (UNSURE, 0, None, 0));
    }
}
