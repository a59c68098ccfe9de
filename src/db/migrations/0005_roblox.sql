-- Roblox lookups (issue 9): the persisted lookup cache, the players looked up (read by the
-- leaderboards of group scans), and the badge monitor's latest figures and history.

-- One cached Roblox answer: kind 'name' (lower-case username -> user), 'profile' (user id),
-- 'awards' (user id -> ELC award dates), 'thumb' (user id -> headshot URL), 'badge' (badge id).
-- body is JSON; fetched_at is ms since the epoch (freshness is decided by the reader's TTL).
CREATE TABLE roblox_cache (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  body TEXT NOT NULL,
  fetched_at INTEGER NOT NULL,
  PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE INDEX roblox_cache_age ON roblox_cache (fetched_at);

-- Every player looked up, as last classified.
CREATE TABLE players (
  user_id INTEGER PRIMARY KEY,
  username TEXT NOT NULL,
  display_name TEXT NOT NULL,
  verified INTEGER NOT NULL DEFAULT 0,
  banned INTEGER NOT NULL DEFAULT 0,
  -- Roblox's join date, RFC 3339.
  created TEXT NOT NULL,
  generation TEXT NOT NULL,
  classification TEXT NOT NULL,
  is_newgen INTEGER NOT NULL DEFAULT 0,
  is_veteran INTEGER NOT NULL DEFAULT 0,
  -- ELC badges owned; NULL when Roblox refused or failed to give the award dates.
  elc_count INTEGER,
  -- 0-100.
  confidence INTEGER NOT NULL,
  checked_at INTEGER NOT NULL
);
CREATE INDEX players_username ON players (username COLLATE NOCASE);
CREATE INDEX players_generation ON players (generation, elc_count DESC, created);
CREATE INDEX players_elc ON players (elc_count DESC, created);
CREATE INDEX players_checked ON players (checked_at);

-- The badge monitor: the latest figures of each tracked badge (served at once after a restart)
-- and one row per poll (today and the weekly average, the 7-day chart).
CREATE TABLE badge_info (
  badge_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  image_url TEXT,
  win_rate REAL NOT NULL,
  awarded_count INTEGER NOT NULL,
  past_day INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE badge_snapshots (
  badge_id INTEGER NOT NULL,
  taken_at INTEGER NOT NULL,
  awarded_count INTEGER NOT NULL,
  past_day INTEGER NOT NULL,
  PRIMARY KEY (badge_id, taken_at)
) WITHOUT ROWID;
