-- Each monitored badge's figures at the last poll of each UTC day, kept 400 days (the snapshots
-- of every poll are kept 35): the badge monitor's 30, 90 and 365-day charts and the history
-- downloads read it. Filled at once from the snapshots a site already holds.
CREATE TABLE badge_days (
  badge_id INTEGER NOT NULL,
  day TEXT NOT NULL,              -- YYYY-MM-DD, UTC
  awarded INTEGER NOT NULL,       -- awarded in the 24 hours before the day's last poll (Roblox's figure)
  total INTEGER NOT NULL,         -- the badge's awarded count at that poll
  taken_at INTEGER NOT NULL,      -- ms since the epoch of that poll
  PRIMARY KEY (badge_id, day)
) WITHOUT ROWID;

INSERT INTO badge_days (badge_id, day, awarded, total, taken_at)
SELECT s.badge_id, strftime('%Y-%m-%d', s.taken_at / 1000, 'unixepoch'), s.past_day, s.awarded_count, s.taken_at
FROM badge_snapshots s
WHERE s.taken_at = (
  SELECT MAX(t.taken_at) FROM badge_snapshots t
  WHERE t.badge_id = s.badge_id AND t.taken_at / 86400000 = s.taken_at / 86400000
);
