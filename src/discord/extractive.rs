//! The built-in summariser: no model, no network. It cleans each message (mentions, custom and
//! Unicode emoji, bare links, markdown), keeps embeds' titles and descriptions, splits the text
//! into sentences and bullet lines, drops chatter, ranks what is left (announcement words,
//! length, embeds, bots and webhooks, recency) and returns short, deduplicated lines, newest first.

use std::collections::HashSet;

use super::store::StoredMessage;

/// The longest line returned, in characters.
pub const MAX_LINE: usize = 160;

const NEWS_WORDS: &[&str] = &[
    "update",
    "updated",
    "patch",
    "release",
    "released",
    "new",
    "added",
    "adds",
    "fixed",
    "fix",
    "fixes",
    "removed",
    "changed",
    "change",
    "event",
    "season",
    "version",
    "launch",
    "launched",
    "maintenance",
    "now",
    "available",
    "introducing",
    "coming",
    "weekend",
    "bug",
    "bugs",
    "improved",
    "nerf",
    "buff",
    "map",
    "mode",
    "tournament",
    "contest",
    "giveaway",
    "winner",
    "winners",
    "announcement",
    "schedule",
    "server",
    "servers",
];

const CHATTER: &[&str] = &[
    "lol", "lmao", "gg", "ty", "thx", "thanks", "thank", "hi", "hello", "hey", "ok", "okay", "nice", "cool", "yes",
    "no", "yeah", "yep", "nope", "same", "wow", "bruh", "xd", "pog", "w", "l", "haha", "hahaha", "np", "k", "idk",
    "true", "fr", "omg", "+1", "welcome", "bye", "gn", "gm",
];

struct Candidate {
    text: String,
    score: f64,
    /// Position by recency: 0 is the newest message.
    age_rank: usize,
    words: HashSet<String>,
}

/// Up to `max_lines` lines summarising `messages` (any order; the newest weigh more).
pub fn summarise(messages: &[StoredMessage], max_lines: usize) -> Vec<String> {
    let mut ordered: Vec<&StoredMessage> = messages.iter().collect();
    ordered.sort_by_key(|b| std::cmp::Reverse(b.id));
    let total = ordered.len().max(1) as f64;
    let mut candidates = Vec::new();
    for (age_rank, message) in ordered.iter().enumerate() {
        let recency = 1.0 - age_rank as f64 / total * 0.5;
        let author_bonus = if message.from_bot { 1.0 } else { 0.0 };
        for embed in &message.embeds {
            let title = embed.title.as_deref().map(clean).unwrap_or_default();
            let first = embed.description.as_deref().map(clean).and_then(|d| sentences(&d).into_iter().next());
            let text = match (title.is_empty(), first) {
                (false, Some(d)) if !d.eq_ignore_ascii_case(&title) => format!("{}: {d}", title.trim_end_matches(':')),
                (false, _) => title,
                (true, Some(d)) => d,
                (true, None) => continue,
            };
            push(&mut candidates, text, 2.0 + author_bonus, recency, age_rank);
            for field in embed.fields.iter().take(5) {
                let text = format!("{}: {}", clean(&field.name), clean(&field.value));
                push(&mut candidates, text, 0.5 + author_bonus, recency, age_rank);
            }
        }
        for sentence in sentences(&clean(&message.content)) {
            push(&mut candidates, sentence, author_bonus, recency, age_rank);
        }
    }
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.age_rank.cmp(&b.age_rank)));
    let mut chosen: Vec<Candidate> = Vec::new();
    for candidate in candidates {
        if chosen.len() == max_lines {
            break;
        }
        if chosen.iter().any(|c| similar(&c.words, &candidate.words)) {
            continue;
        }
        chosen.push(candidate);
    }
    chosen.sort_by_key(|c| c.age_rank);
    chosen.into_iter().map(|c| c.text).collect()
}

fn push(out: &mut Vec<Candidate>, text: String, bonus: f64, recency: f64, age_rank: usize) {
    let text = shorten(text.trim().trim_start_matches(['-', '*', '•', '>', ' ']).trim());
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '+')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect();
    if is_chatter(&text, &words) {
        return;
    }
    let news = words.iter().filter(|w| NEWS_WORDS.contains(&w.as_str())).count() as f64;
    let has_number = words.iter().any(|w| w.chars().any(|c| c.is_ascii_digit()));
    let length = (words.len() as f64 / 12.0).min(1.5);
    let question = if text.ends_with('?') { -1.0 } else { 0.0 };
    let score = (news.min(3.0) + length + bonus + if has_number { 0.3 } else { 0.0 } + question) * recency;
    let mut text = text;
    if let Some(first) = text.chars().next()
        && first.is_lowercase()
    {
        text = first.to_uppercase().collect::<String>() + &text[first.len_utf8()..];
    }
    out.push(Candidate { text, score, age_rank, words: words.into_iter().filter(|w| w.len() > 2).collect() });
}

fn is_chatter(text: &str, words: &[String]) -> bool {
    if words.len() < 4 || text.chars().filter(|c| c.is_alphabetic()).count() < 15 {
        return true;
    }
    let chatter = words.iter().filter(|w| CHATTER.contains(&w.as_str())).count();
    words.len() <= 6 && chatter * 2 >= words.len()
}

fn similar(a: &HashSet<String>, b: &HashSet<String>) -> bool {
    if a.is_empty() || b.is_empty() {
        return a.is_empty() && b.is_empty();
    }
    let common = a.intersection(b).count() as f64;
    common / a.len().min(b.len()) as f64 >= 0.7
}

/// Sentences and bullet lines of cleaned text.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.split('\n') {
        let mut start = 0;
        let bytes: Vec<(usize, char)> = line.char_indices().collect();
        for (i, &(at, c)) in bytes.iter().enumerate() {
            let next_is_space = bytes.get(i + 1).is_none_or(|(_, n)| n.is_whitespace());
            if matches!(c, '.' | '!' | '?') && next_is_space {
                // Not after a single capital or a digit ("v1.2", "A. Smith").
                let prev_word = line[start..at].split_whitespace().last().unwrap_or("");
                if prev_word.chars().count() <= 1
                    && prev_word.chars().all(|c| c.is_uppercase())
                    && !prev_word.is_empty()
                {
                    continue;
                }
                let end = at + c.len_utf8();
                let s = line[start..end].trim();
                if !s.is_empty() {
                    out.push(s.to_string());
                }
                start = end;
            }
        }
        let rest = line[start..].trim();
        if !rest.is_empty() {
            out.push(rest.to_string());
        }
    }
    out
}

/// Removes mentions, custom emoji, `:shortcodes:`, bare links, markdown marks and pictographs;
/// keeps line breaks (they separate bullet points).
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        // <@123>, <@!123>, <@&123>, <#123>, <:name:123>, <a:name:123>, <t:123:R>, <https://...>
        if c == '<'
            && let Some(end) = rest.find('>')
            && end < 100
        {
            let inner = &rest[1..end];
            if inner.starts_with('@') || inner.starts_with('#') || inner.starts_with(':') || inner.starts_with("a:") {
                rest = &rest[end + 1..];
                continue;
            }
            if inner.starts_with("http") {
                rest = &rest[end + 1..];
                continue;
            }
        }
        if rest.starts_with("http://") || rest.starts_with("https://") {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            rest = &rest[end..];
            continue;
        }
        // Markdown link [text](url): keep the text.
        if c == ']'
            && rest[1..].starts_with('(')
            && let Some(end) = rest.find(')')
        {
            rest = &rest[end + 1..];
            continue;
        }
        if c == ':' {
            let tail = &rest[1..];
            if let Some(end) = tail.find(':')
                && end > 1
                && end <= 32
                && tail[..end].chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                rest = &tail[end + 1..];
                continue;
            }
        }
        rest = &rest[c.len_utf8()..];
        if matches!(c, '*' | '_' | '~' | '`' | '|' | '[' | ']' | '#') || is_pictograph(c) {
            if c == '_' && out.chars().last().is_some_and(char::is_alphanumeric) {
                out.push(c);
            }
            continue;
        }
        if c == '\n' {
            out.push('\n');
        } else if c.is_whitespace() {
            if !out.ends_with(' ') && !out.ends_with('\n') && !out.is_empty() {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    out.lines()
        .map(|l| l.trim().trim_start_matches('>').trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_pictograph(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B00..=0x2BFF | 0xFE0F | 0x200D | 0xE0020..=0xE007F)
}

/// At most `MAX_LINE` characters, cut at a word with an ellipsis.
pub fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_LINE {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_LINE - 1).collect();
    let at = cut.rfind(' ').filter(|&i| i > MAX_LINE / 2).unwrap_or(cut.len());
    format!("{}…", cut[..at].trim_end_matches([',', ';', ':', ' ']))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discord::client::RawEmbed;

    fn msg(id: u64, content: &str) -> StoredMessage {
        crate::discord::store::test_message(id, content)
    }

    #[test]
    fn cleaning_drops_mentions_emoji_links_and_markdown() {
        let text = "**New map** <@123> <:pog:456> :fire: 🎉 is out! See https://x.example/y <#99> and [the wiki](https://w.example)";
        assert_eq!(clean(text), "New map is out! See and the wiki");
        assert_eq!(clean("snake_case stays"), "snake_case stays");
        assert_eq!(clean("> quoted line\n- bullet"), "quoted line\n- bullet");
    }

    #[test]
    fn chatter_and_bare_links_go_announcements_and_embeds_stay() {
        let mut embed_msg = msg(5, "");
        embed_msg.from_bot = true;
        embed_msg.embeds = vec![RawEmbed {
            title: Some("Update 2.4".into()),
            description: Some("Added the desert map and fixed the voting timer. More soon.".into()),
            fields: vec![],
        }];
        let messages = vec![
            msg(1, "lol"),
            msg(2, "gg everyone"),
            msg(3, "https://cdn.example/clip.mp4"),
            msg(4, "<@1> <@2> 😂😂😂"),
            embed_msg,
            msg(6, "The weekend building contest starts Saturday at 18:00 UTC, theme is castles."),
            msg(7, "The weekend building contest starts Saturday at 18:00 UTC, theme is castles!"),
        ];
        let lines = summarise(&messages, 5);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("The weekend building contest"), "{lines:?}");
        assert_eq!(lines[1], "Update 2.4: Added the desert map and fixed the voting timer.");
    }

    #[test]
    fn bullets_become_lines_and_long_lines_are_cut() {
        let long = "word ".repeat(60);
        let messages = vec![msg(
            1,
            &format!(
                "Patch notes:\n- Fixed the election timer freezing on large servers\n- Added two new paint colours for builders\n{long}"
            ),
        )];
        let lines = summarise(&messages, 10);
        assert!(lines.contains(&"Fixed the election timer freezing on large servers".to_string()), "{lines:?}");
        assert!(lines.iter().all(|l| l.chars().count() <= MAX_LINE), "{lines:?}");
        assert!(lines.iter().any(|l| l.ends_with('…')));
    }

    #[test]
    fn nothing_worth_saying_gives_no_lines() {
        assert!(summarise(&[msg(1, "ok"), msg(2, "ty!")], 5).is_empty());
        assert!(summarise(&[], 5).is_empty());
    }
}
