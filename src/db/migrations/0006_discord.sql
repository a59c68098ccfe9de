-- Messages read from the configured Discord channels (the newest few hundred per channel), so a
-- restart shows the last summaries at once and polling resumes after the newest id seen.
CREATE TABLE discord_messages (
    channel_id  INTEGER NOT NULL,
    id          INTEGER NOT NULL,                  -- snowflake: ordered by time
    author      TEXT NOT NULL,
    from_bot    INTEGER NOT NULL DEFAULT 0 CHECK (from_bot IN (0, 1)),  -- a bot or a webhook
    content     TEXT NOT NULL,
    embeds      TEXT NOT NULL DEFAULT '[]',        -- JSON [{title, description, fields:[{name, value}]}]
    posted_at   TEXT NOT NULL,                     -- RFC 3339, as Discord sent it
    edited_at   TEXT,
    PRIMARY KEY (channel_id, id)
) WITHOUT ROWID;

-- The last summary of each product's game updates and community highlights.
CREATE TABLE discord_summaries (
    product      TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('game', 'community')),
    lines        TEXT NOT NULL,                    -- JSON array of strings
    source       TEXT NOT NULL CHECK (source IN ('ai', 'extractive')),
    model        TEXT,
    input_digest TEXT NOT NULL,                    -- which messages it summarised
    message_count INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,                 -- ms since the epoch
    PRIMARY KEY (product, kind)
) WITHOUT ROWID;
