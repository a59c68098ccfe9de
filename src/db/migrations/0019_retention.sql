-- Retention (issue 37): every table that grows with use has a rule, pruned in small batches on
-- an index by its feature's sweep (windows in site.toml [retention]).

-- The badge monitor's weekly average now comes from badge_days (one row per badge per day, whose
-- taken_at and total are the day's last poll): nothing reads a poll's snapshot any more, and a
-- year of them was 10 million rows re-read inside every poll's write.
DROP TABLE badge_snapshots;

-- badge_days is pruned by day across every badge.
CREATE INDEX badge_days_day ON badge_days (day);

-- Resolved and dismissed reports are pruned by when they were closed.
CREATE INDEX abuse_reports_closed ON abuse_reports (resolved_at) WHERE resolved_at IS NOT NULL;
