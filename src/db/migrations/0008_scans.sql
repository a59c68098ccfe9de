-- Group scans (issue 10): one row per scan job, the members each scan counted (so a page done
-- twice after a crash counts nobody twice), the group membership the leaderboards read, and
-- abuse reports.

-- state: queued, running, completed, failed (resumable), cancelled.
-- cursor: Roblox's cursor of the next member page to fetch (NULL: the first page).
CREATE TABLE scans (
  id INTEGER PRIMARY KEY,
  group_id INTEGER NOT NULL,
  group_name TEXT NOT NULL DEFAULT '',
  scanned_by TEXT NOT NULL,
  key_id INTEGER,
  state TEXT NOT NULL,
  total INTEGER NOT NULL DEFAULT 0,
  processed INTEGER NOT NULL DEFAULT 0,
  veterans INTEGER NOT NULL DEFAULT 0,
  newgens INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  pages INTEGER NOT NULL DEFAULT 0,
  -- pages fetched again after a restart (the page in flight when the process stopped)
  pages_redone INTEGER NOT NULL DEFAULT 0,
  cursor TEXT,
  -- said once, e.g. that award dates need a cookie and members are classified by join date
  notice TEXT,
  error TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
);
-- One live scan per group.
CREATE UNIQUE INDEX scans_one_live_per_group ON scans (group_id) WHERE state IN ('queued', 'running');
CREATE INDEX scans_state ON scans (state);
CREATE INDEX scans_group ON scans (group_id, id);

-- Every member a scan counted; outcome: veteran, newgen, other, failed.
CREATE TABLE scan_members (
  scan_id INTEGER NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  PRIMARY KEY (scan_id, user_id)
) WITHOUT ROWID;

-- Group membership as last scanned (players themselves are in `players`).
CREATE TABLE group_members (
  group_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  role_name TEXT NOT NULL,
  role_rank INTEGER NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY (group_id, user_id)
) WITHOUT ROWID;
CREATE INDEX group_members_user ON group_members (user_id);

-- state: open, reviewing, resolved, dismissed.
CREATE TABLE abuse_reports (
  id INTEGER PRIMARY KEY,
  reporter_username TEXT NOT NULL,
  target_username TEXT NOT NULL,
  reason TEXT NOT NULL,
  description TEXT NOT NULL,
  priority TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'open',
  key_id INTEGER,
  created_at INTEGER NOT NULL,
  resolved_at INTEGER,
  resolution_note TEXT
);
CREATE INDEX abuse_reports_state ON abuse_reports (state, id);
