//! The stored messages and summaries (migration 0006): plain functions over a connection.

use rusqlite::{Connection, OptionalExtension, params};

use super::client::RawEmbed;
use super::{Summary, SummarySource};
use crate::error::ApiError;

/// Messages kept per channel: the summaries read the newest ones only.
pub const KEEP_PER_CHANNEL: usize = 300;

#[derive(Debug, Clone, PartialEq)]
pub struct StoredMessage {
    pub channel_id: u64,
    pub id: u64,
    pub author: String,
    /// Posted by a bot or a webhook (announcements usually are).
    pub from_bot: bool,
    pub content: String,
    pub embeds: Vec<RawEmbed>,
    pub posted_at: String,
    pub edited_at: Option<String>,
}

/// A message of channel 1 by a person, for the tests of this module's neighbours.
#[cfg(test)]
pub fn test_message(id: u64, content: &str) -> StoredMessage {
    StoredMessage {
        channel_id: 1,
        id,
        author: "someone".into(),
        from_bot: false,
        content: content.into(),
        embeds: vec![],
        posted_at: "2026-11-23T06:00:00.000Z".into(),
        edited_at: None,
    }
}

pub fn newest_id(conn: &Connection, channel_id: u64) -> Result<Option<u64>, ApiError> {
    let id: Option<i64> =
        conn.query_row("SELECT MAX(id) FROM discord_messages WHERE channel_id = ?1", [channel_id as i64], |r| {
            r.get(0)
        })?;
    Ok(id.map(|i| i as u64))
}

/// Stores (or updates) messages, then keeps only the newest `KEEP_PER_CHANNEL` of the channel.
pub fn insert_messages(conn: &Connection, messages: &[StoredMessage]) -> Result<usize, ApiError> {
    let mut insert = conn.prepare_cached(
        "INSERT INTO discord_messages (channel_id, id, author, from_bot, content, embeds, posted_at, edited_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (channel_id, id) DO UPDATE SET content = excluded.content, embeds = excluded.embeds,
             edited_at = excluded.edited_at",
    )?;
    let mut channels = Vec::new();
    for m in messages {
        let embeds = serde_json::to_string(&m.embeds).expect("embeds serialize");
        insert.execute(params![
            m.channel_id as i64,
            m.id as i64,
            m.author,
            m.from_bot,
            m.content,
            embeds,
            m.posted_at,
            m.edited_at
        ])?;
        if !channels.contains(&m.channel_id) {
            channels.push(m.channel_id);
        }
    }
    for channel in channels {
        conn.execute(
            "DELETE FROM discord_messages WHERE channel_id = ?1 AND id < (
                 SELECT MIN(id) FROM (SELECT id FROM discord_messages WHERE channel_id = ?1 ORDER BY id DESC LIMIT ?2))",
            params![channel as i64, KEEP_PER_CHANNEL as i64],
        )?;
    }
    Ok(messages.len())
}

/// The newest `limit` messages of these channels together, newest first.
pub fn recent(conn: &Connection, channels: &[u64], limit: usize) -> Result<Vec<StoredMessage>, ApiError> {
    if channels.is_empty() {
        return Ok(Vec::new());
    }
    let ids = channels.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",");
    let mut stmt = conn.prepare(&format!(
        "SELECT channel_id, id, author, from_bot, content, embeds, posted_at, edited_at FROM discord_messages
         WHERE channel_id IN ({ids}) ORDER BY id DESC LIMIT ?1"
    ))?;
    let rows = stmt.query_map([limit as i64], |r| {
        let embeds: String = r.get(5)?;
        Ok(StoredMessage {
            channel_id: r.get::<_, i64>(0)? as u64,
            id: r.get::<_, i64>(1)? as u64,
            author: r.get(2)?,
            from_bot: r.get(3)?,
            content: r.get(4)?,
            embeds: serde_json::from_str(&embeds).unwrap_or_default(),
            posted_at: r.get(6)?,
            edited_at: r.get(7)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn message_count(conn: &Connection, channel_id: u64) -> Result<i64, ApiError> {
    Ok(conn
        .query_row("SELECT COUNT(*) FROM discord_messages WHERE channel_id = ?1", [channel_id as i64], |r| r.get(0))?)
}

pub fn save_summary(conn: &Connection, product: &str, kind: &str, summary: &Summary) -> Result<(), ApiError> {
    conn.execute(
        "INSERT INTO discord_summaries (product, kind, lines, source, model, input_digest, message_count, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (product, kind) DO UPDATE SET lines = excluded.lines, source = excluded.source,
             model = excluded.model, input_digest = excluded.input_digest,
             message_count = excluded.message_count, created_at = excluded.created_at",
        params![
            product,
            kind,
            serde_json::to_string(&summary.lines).expect("lines serialize"),
            summary.source.as_str(),
            summary.model,
            summary.input_digest,
            summary.message_count as i64,
            summary.created_at_ms
        ],
    )?;
    Ok(())
}

pub fn load_summary(conn: &Connection, product: &str, kind: &str) -> Result<Option<Summary>, ApiError> {
    Ok(conn
        .query_row(
            "SELECT lines, source, model, input_digest, message_count, created_at FROM discord_summaries
             WHERE product = ?1 AND kind = ?2",
            params![product, kind],
            |r| {
                let lines: String = r.get(0)?;
                let source: String = r.get(1)?;
                Ok(Summary {
                    lines: serde_json::from_str(&lines).unwrap_or_default(),
                    source: if source == "ai" { SummarySource::Ai } else { SummarySource::Extractive },
                    model: r.get(2)?,
                    input_digest: r.get(3)?,
                    message_count: r.get::<_, i64>(4)? as usize,
                    created_at_ms: r.get(5)?,
                })
            },
        )
        .optional()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(channel_id: u64, id: u64, content: &str) -> StoredMessage {
        StoredMessage {
            channel_id,
            id,
            author: "mod".into(),
            from_bot: false,
            content: content.into(),
            embeds: vec![RawEmbed { title: Some("Patch".into()), ..Default::default() }],
            posted_at: "2026-11-23T06:00:00Z".into(),
            edited_at: None,
        }
    }

    #[test]
    fn history_is_bounded_per_channel_and_resumes_from_the_newest_id() {
        let (_dir, conn) = crate::db::open_for_tests();
        let many: Vec<_> = (1..=(KEEP_PER_CHANNEL as u64 + 50)).map(|i| message(7, i, "x")).collect();
        insert_messages(&conn, &many).unwrap();
        insert_messages(&conn, &[message(8, 3, "other channel")]).unwrap();
        assert_eq!(message_count(&conn, 7).unwrap(), KEEP_PER_CHANNEL as i64);
        assert_eq!(newest_id(&conn, 7).unwrap(), Some(KEEP_PER_CHANNEL as u64 + 50));
        assert_eq!(newest_id(&conn, 9).unwrap(), None);
        let recent = recent(&conn, &[7, 8], 3).unwrap();
        assert_eq!(recent.iter().map(|m| m.id).collect::<Vec<_>>(), vec![350, 349, 348]);
        assert_eq!(recent[0].embeds[0].title.as_deref(), Some("Patch"));
        // An edit replaces the text.
        insert_messages(&conn, &[message(7, 350, "edited")]).unwrap();
        assert_eq!(super::recent(&conn, &[7], 1).unwrap()[0].content, "edited");
    }

    #[test]
    fn a_summary_round_trips() {
        let (_dir, conn) = crate::db::open_for_tests();
        let summary = Summary {
            lines: vec!["One".into(), "Two".into()],
            source: SummarySource::Ai,
            model: Some("m".into()),
            input_digest: "d".into(),
            message_count: 2,
            created_at_ms: 5,
        };
        save_summary(&conn, "game", "game", &summary).unwrap();
        assert_eq!(load_summary(&conn, "game", "game").unwrap(), Some(summary));
        assert_eq!(load_summary(&conn, "game", "community").unwrap(), None);
    }
}
