//! Ranking text matches for the search endpoints: every word of the query must appear in one of
//! the fields; a match in a heavier field, at a word start, or of the whole query scores more.

/// The query's words, lower-cased (at most 8; searches are short).
pub fn terms(query: &str) -> Vec<String> {
    query.split_whitespace().take(8).map(str::to_lowercase).collect()
}

/// The score of `fields` (text, weight) for `terms`, or None when a term matches nowhere.
pub fn score(terms: &[String], fields: &[(&str, u32)]) -> Option<u32> {
    if terms.is_empty() {
        return None;
    }
    let lowered: Vec<(String, u32)> = fields.iter().map(|(t, w)| (t.to_lowercase(), *w)).collect();
    let mut total = 0;
    for term in terms {
        let best = lowered
            .iter()
            .filter_map(|(text, weight)| {
                let at = text.find(term.as_str())?;
                let word_start = at == 0 || !text[..at].chars().next_back().is_some_and(char::is_alphanumeric);
                let exact = text == term;
                Some(
                    weight
                        * if exact {
                            4
                        } else if word_start {
                            2
                        } else {
                            1
                        },
                )
            })
            .max()?;
        total += best;
    }
    Some(total)
}

/// A short piece of `text` around the first match of a term (for result lists).
pub fn snippet(text: &str, terms: &[String], max_chars: usize) -> String {
    let lower = text.to_lowercase();
    let hit = terms.iter().filter_map(|t| lower.find(t.as_str())).min().unwrap_or(0);
    // Lower-casing can change byte lengths; fall back to the start when the offset is not shared.
    let start_byte = if text.is_char_boundary(hit) && lower.len() == text.len() { hit } else { 0 };
    let before: Vec<char> = text[..start_byte].chars().collect();
    let lead = before.len().saturating_sub(max_chars / 3);
    let start: String = before[lead..].iter().collect();
    let mut out: String = start.chars().chain(text[start_byte..].chars()).take(max_chars).collect();
    if lead > 0 {
        out.insert(0, '…');
    }
    if text.chars().count() > lead + max_chars {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_term_must_match_and_names_rank_first() {
        let q = terms("Fly ");
        let name = score(&q, &[("fly", 10), ("Lets you soar", 1)]).unwrap();
        let word = score(&q, &[("flying", 10), ("", 1)]).unwrap();
        let desc = score(&q, &[("jump", 10), ("Makes a player fly around", 1)]).unwrap();
        let inner = score(&q, &[("butterfly", 10), ("", 1)]).unwrap();
        assert!(name > word && word > inner && inner > desc, "{name} {word} {inner} {desc}");
        assert_eq!(score(&terms("fly fast"), &[("fly", 10), ("slowly", 1)]), None);
        assert_eq!(score(&terms("   "), &[("fly", 10)]), None);
    }

    #[test]
    fn snippets_centre_on_the_match() {
        let text = "The quick brown fox jumps over the lazy dog and keeps running far away";
        let s = snippet(text, &terms("lazy"), 30);
        assert!(s.contains("lazy") && s.starts_with('…') && s.ends_with('…'), "{s}");
        assert_eq!(snippet("short", &terms("x"), 30), "short");
    }
}
