//! `aiAnalysis` of an ad without a language model: read from the description, the website's
//! address and the links. The same shape an LLM fills when one is configured.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdAnalysis {
    pub summary: String,
    pub main_product: String,
    pub category: String,
    pub price_range: String,
    /// The first 3 are shown in the fullscreen ad.
    pub key_features: Vec<String>,
    pub call_to_action: String,
    /// `heuristic` or `llm`.
    pub source: String,
}

/// Categories with the words that point to them, most specific first.
const CATEGORIES: &[(&str, &[&str], &str)] = &[
    (
        "Game server",
        &["server", "smp", "survival", "minigame", "realm", "play now", "join our game"],
        "Join the server",
    ),
    ("Clan or community", &["clan", "guild", "community", "discord", "group", "team", "members"], "Join the community"),
    (
        "Video channel",
        &["youtube", "twitch", "stream", "channel", "videos", "subscribe", "tiktok"],
        "Watch and subscribe",
    ),
    ("Shop or merchandise", &["shop", "store", "merch", "buy", "sale", "discount", "shirt"], "Shop now"),
    ("Tool or software", &["tool", "app", "bot", "plugin", "mod", "software", "script"], "Try it now"),
    ("Game", &["game", "play", "obby", "tycoon", "simulator", "rpg"], "Play now"),
];

fn domain(url: &str) -> String {
    let rest = url.split("://").nth(1).unwrap_or(url);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host = host.rsplit('@').next().unwrap_or(host).split(':').next().unwrap_or(host);
    host.trim_start_matches("www.").to_ascii_lowercase()
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

/// Reads the ad the way a reviewer skims it.
pub fn heuristic(website_url: &str, description: &str, links: &[String]) -> AdAnalysis {
    let site = domain(website_url);
    let haystack = format!("{} {} {}", description, website_url, links.join(" ")).to_lowercase();
    let (category, action) = CATEGORIES
        .iter()
        .map(|(name, words, action)| (name, action, words.iter().filter(|w| haystack.contains(*w)).count()))
        .filter(|(_, _, hits)| *hits > 0)
        .max_by_key(|(_, _, hits)| *hits)
        .map(|(name, action, _)| (name.to_string(), action.to_string()))
        .unwrap_or_else(|| ("Website".into(), format!("Visit {site}")));
    let parts = sentences(description);
    let summary = parts.first().map(|s| shorten(s, 160)).unwrap_or_else(|| format!("An advertisement for {site}."));
    let main_product = site
        .split('.')
        .find(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
        })
        .unwrap_or_else(|| "Website".into());
    let key_features = parts.iter().skip(1).chain(parts.first()).take(3).map(|s| shorten(s, 80)).collect();
    AdAnalysis {
        summary,
        main_product,
        category,
        price_range: price(description),
        key_features,
        call_to_action: action,
        source: "heuristic".into(),
    }
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
        assert_eq!(a.category, "Game server");
        assert_eq!(a.main_product, "Blockcraft-smp");
        assert_eq!(a.summary, "The friendliest survival server in town");
        assert_eq!(a.key_features, ["Weekly build contests", "Free ranks for new players", "VIP from $4.99"]);
        assert_eq!(a.price_range, "$4.99");
        assert_eq!(a.call_to_action, "Join the server");
    }

    #[test]
    fn says_what_it_does_not_know() {
        let a = heuristic("https://example.org", "", &[]);
        assert_eq!(a.category, "Website");
        assert_eq!(a.price_range, "Not stated");
        assert_eq!(a.call_to_action, "Visit example.org");
        assert!(a.key_features.is_empty());
        assert_eq!(a.summary, "An advertisement for example.org.");
    }
}
