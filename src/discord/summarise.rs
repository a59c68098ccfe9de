//! Summaries of stored messages: the configured language model in JSON mode (schema-checked,
//! within a token budget and a timeout), else the built-in extractive summariser. Run by the
//! poller, never on a request.

use std::time::Duration;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::store::StoredMessage;
use super::{Summary, SummarySource, extractive};
use crate::llm::{LlmClient, LlmError};

/// The model sees the newest messages that fit in this many tokens (about 4 characters each).
pub const TOKEN_BUDGET: usize = 3_000;
pub const MAX_ANSWER_TOKENS: u32 = 700;
pub const LLM_TIMEOUT: Duration = Duration::from_secs(25);
/// A message is cut to this many characters in the prompt.
const MAX_MESSAGE_CHARS: usize = 600;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Game,
    Community,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Game => "game",
            Kind::Community => "community",
        }
    }

    pub fn max_lines(self) -> usize {
        match self {
            Kind::Game => 6,
            Kind::Community => 5,
        }
    }

    fn instruction(self) -> &'static str {
        match self {
            Kind::Game => {
                "the game's official update channels: list the concrete updates (releases, patches, fixes, events, schedules)"
            }
            Kind::Community => {
                "the community's chat channels: list the highlights people talked about (plans, achievements, events, popular topics), never private details"
            }
        }
    }
}

/// Which messages a summary stands on: their ids, edits and lengths.
pub fn digest(messages: &[StoredMessage]) -> String {
    let mut hash = Sha256::new();
    for m in messages {
        hash.update(m.id.to_le_bytes());
        hash.update(m.edited_at.as_deref().unwrap_or("").as_bytes());
        hash.update((m.content.len() as u64).to_le_bytes());
    }
    hex::encode(&hash.finalize()[..12])
}

#[derive(Deserialize)]
struct Lines {
    lines: Vec<serde_json::Value>,
}

/// The summary of `messages` (newest first) and, when the model was asked and failed, why.
pub async fn summarise(
    llm: Option<&LlmClient>,
    kind: Kind,
    messages: &[StoredMessage],
    now_ms: i64,
) -> (Summary, Option<LlmError>) {
    let input_digest = digest(messages);
    let mut failure = None;
    if let Some(llm) = llm
        && messages.iter().any(|m| !m.content.trim().is_empty() || !m.embeds.is_empty())
    {
        match tokio::time::timeout(LLM_TIMEOUT, ask(llm, kind, messages)).await {
            Ok(Ok(lines)) => {
                let summary = Summary {
                    lines,
                    source: SummarySource::Ai,
                    model: Some(llm.model().to_string()),
                    input_digest,
                    message_count: messages.len(),
                    created_at_ms: now_ms,
                };
                return (summary, None);
            }
            Ok(Err(e)) => failure = Some(e),
            Err(_) => failure = Some(LlmError::Timeout(LLM_TIMEOUT)),
        }
    }
    let summary = Summary {
        lines: extractive::summarise(messages, kind.max_lines()),
        source: SummarySource::Extractive,
        model: None,
        input_digest,
        message_count: messages.len(),
        created_at_ms: now_ms,
    };
    (summary, failure)
}

/// The prompt's message list: the newest messages within the token budget, oldest first.
pub fn prompt_messages(messages: &[StoredMessage]) -> String {
    let mut budget = TOKEN_BUDGET * 4;
    let mut picked = Vec::new();
    for m in messages {
        let mut text = m.content.clone();
        for e in &m.embeds {
            for part in [&e.title, &e.description].into_iter().flatten() {
                text.push_str(" | ");
                text.push_str(part);
            }
        }
        let text: String = text.trim().chars().take(MAX_MESSAGE_CHARS).collect();
        if text.is_empty() {
            continue;
        }
        let line =
            format!("[{}] {}: {}", m.posted_at.get(..16).unwrap_or(&m.posted_at), m.author, text.replace('\n', " / "));
        if line.len() > budget {
            break;
        }
        budget -= line.len();
        picked.push(line);
    }
    picked.reverse();
    picked.join("\n")
}

async fn ask(llm: &LlmClient, kind: Kind, messages: &[StoredMessage]) -> Result<Vec<String>, LlmError> {
    let max = kind.max_lines();
    let system = format!(
        "You summarise Discord messages for a game's fan site. The messages come from {}. \
         Answer in JSON only, exactly {{\"lines\": [\"...\"]}}: at most {max} lines, most important first, \
         each one plain sentence under 150 characters, in English, without mentions, links, emoji or markdown. \
         Use only facts stated in the messages. If nothing is worth reporting, answer {{\"lines\": []}}.",
        kind.instruction()
    );
    let user = format!("Messages, oldest first:\n{}", prompt_messages(messages));
    let answer: Lines = llm.json(&system, &user, MAX_ANSWER_TOKENS).await?;
    check_lines(answer.lines, max)
}

/// The schema check: every entry a non-empty string; at most `max` kept, each cut to length.
fn check_lines(lines: Vec<serde_json::Value>, max: usize) -> Result<Vec<String>, LlmError> {
    let mut out = Vec::new();
    for line in lines {
        let serde_json::Value::String(text) = line else {
            return Err(LlmError::BadAnswer("lines must be strings".into()));
        };
        let text = extractive::clean(&text).replace('\n', " ");
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        out.push(extractive::shorten(&text));
    }
    if out.is_empty() {
        return Err(LlmError::BadAnswer("no lines".into()));
    }
    out.truncate(max);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(id: u64, content: &str) -> StoredMessage {
        crate::discord::store::test_message(id, content)
    }

    #[test]
    fn the_prompt_keeps_the_newest_messages_within_the_budget() {
        let messages: Vec<_> = (0..200).rev().map(|i| msg(i, &format!("message {i} {}", "x".repeat(500)))).collect();
        let prompt = prompt_messages(&messages);
        assert!(prompt.len() <= TOKEN_BUDGET * 4);
        assert!(prompt.contains("message 199 ") && !prompt.contains("message 100 "));
        let last = prompt.lines().last().unwrap();
        assert!(last.contains("message 199 "), "oldest first, newest last: {last}");
    }

    #[test]
    fn the_schema_check_refuses_non_strings_and_empty_answers() {
        use serde_json::json;
        assert!(check_lines(vec![json!(1)], 5).is_err());
        assert!(check_lines(vec![json!("  ")], 5).is_err());
        let ok = check_lines(vec![json!("A"), json!("A"), json!("B"), json!("C")], 2).unwrap();
        assert_eq!(ok, vec!["A", "B"]);
    }

    #[test]
    fn digests_change_with_edits() {
        let a = vec![msg(1, "x")];
        let mut b = a.clone();
        b[0].edited_at = Some("later".into());
        assert_ne!(digest(&a), digest(&b));
        assert_eq!(digest(&a), digest(&a.clone()));
    }
}
