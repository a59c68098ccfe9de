-- Watching players over time (issue 30): what changed about each player the site has checked,
-- the fans' follows, their Discord webhooks, the outbox of alerts not yet delivered, and scheduled
-- group scans.

-- What the site noticed about a player, one row per change (nothing is written when nothing
-- changed). Written by the Roblox lookup in the transaction that stores the player.
CREATE TABLE player_events (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL,
  -- first_seen | username | display_name | elc_badge | classification
  kind TEXT NOT NULL CHECK (kind IN ('first_seen', 'username', 'display_name', 'elc_badge', 'classification')),
  before TEXT,                      -- the old name or classification
  after TEXT,                       -- the new name or classification; an ELC badge's name
  badge_id INTEGER,                 -- elc_badge: the badge
  awarded_at TEXT,                  -- elc_badge: Roblox's award date (RFC 3339)
  -- elc_badge: 1 when the badge was already owned the first time the site could read the
  -- player's award dates (history, not news: no alert is sent for it).
  baseline INTEGER NOT NULL DEFAULT 0 CHECK (baseline IN (0, 1)),
  noticed_at INTEGER NOT NULL       -- ms since the epoch
);
CREATE INDEX player_events_user ON player_events (user_id, id);
CREATE UNIQUE INDEX player_events_badge ON player_events (user_id, badge_id) WHERE kind = 'elc_badge';

-- A signed-in fan follows a player (at most [follows] max_per_account each).
CREATE TABLE follows (
  account_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  player_id INTEGER NOT NULL,
  followed_at INTEGER NOT NULL,
  -- The newest of the player's events the fan has seen on the account page.
  seen_event_id INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, player_id)
) WITHOUT ROWID;
CREATE INDEX follows_player ON follows (player_id);

-- A fan's Discord webhook (one per account) and which changes it hears about.
CREATE TABLE alert_webhooks (
  account_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  -- https://discord.com/api/webhooks/{webhook_id}/{token}: the token is what lets anyone post
  -- to the channel, so it is never shown back.
  webhook_id TEXT NOT NULL,
  token TEXT NOT NULL,
  -- Comma-separated: elc_badge, classification, name.
  kinds TEXT NOT NULL,
  -- The site's address as the fan saw it when saving (or base_url): the messages' links.
  link_origin TEXT,
  -- Consecutive 401/404 answers; at [follows] broken_after the webhook is marked broken.
  refusals INTEGER NOT NULL DEFAULT 0,
  broken_at INTEGER,
  created_at INTEGER NOT NULL,
  last_delivered_at INTEGER
);

-- Alerts noticed and not yet delivered: written with the fan-out's progress in one transaction,
-- deleted when Discord accepted the message, so a crash between noticing and sending sends it
-- after the restart.
CREATE TABLE alert_outbox (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES alert_webhooks(account_id) ON DELETE CASCADE,
  event_id INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, event_id)
);
CREATE INDEX alert_outbox_due ON alert_outbox (next_attempt_at);

-- The fan-out's progress: the newest player event already turned into outbox rows. Starts at
-- the newest event there is, so history noticed before alerts existed is not sent.
CREATE TABLE alert_progress (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  event_id INTEGER NOT NULL
);
INSERT INTO alert_progress (id, event_id) VALUES (1, 0);

-- Scheduled group scans ([[scans.schedule]] of site.toml): which scans a schedule started, and
-- when the site's Discord webhook ([scans] webhook) was told about a finished one (NULL: not
-- yet). Set after Discord took the message, so a crash before it sends it after the restart.
ALTER TABLE scans ADD COLUMN scheduled INTEGER NOT NULL DEFAULT 0 CHECK (scheduled IN (0, 1));
ALTER TABLE scans ADD COLUMN announced_at INTEGER;
CREATE INDEX scans_unannounced ON scans (id) WHERE scheduled = 1 AND announced_at IS NULL;
