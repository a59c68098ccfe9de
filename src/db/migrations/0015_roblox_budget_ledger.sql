-- What each Roblox endpoint's budget has reserved in its current 60 s window. A reservation is
-- written before the calls it covers leave, so a restart (a crash, kill -9, an upgrade) resumes the
-- window where it was instead of spending its budget a second time against Roblox's limit.
CREATE TABLE roblox_budget_windows (
  endpoint TEXT PRIMARY KEY,      -- the budget's name, like `cloud/v2/users/{id}`
  started_at INTEGER NOT NULL,    -- the window's start, ms since the epoch
  reserved INTEGER NOT NULL       -- calls the window may have let out (never fewer than it did)
) WITHOUT ROWID;
