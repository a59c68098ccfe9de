-- Visitors and keyed calls kept as numbers (issue 37): what only grew is rolled up, and the raw
-- visitor hashes live only for the month they belong to.

-- Visitors per UTC day. `visitors`: distinct visitors that day. `last_visits`: the visitors (one
-- per month: each month's hashes use that month's salt) whose latest visit of their month was
-- that day, so far. A visitor-month counts once, on its last day: the distinct visitors of any
-- window ending today are SUM(last_visits) over its days, a month's are the sum over its days.
CREATE TABLE visitor_days (
    day         TEXT PRIMARY KEY,   -- YYYY-MM-DD (UTC)
    visitors    INTEGER NOT NULL,
    last_visits INTEGER NOT NULL
) WITHOUT ROWID;

-- The current month's visitor hashes with the day of each one's latest visit: what a new visit
-- is checked against. The previous month's rows are deleted once the new month has begun.
CREATE TABLE month_visitors (
    month    TEXT NOT NULL,         -- YYYY-MM
    hash     BLOB NOT NULL,
    last_day TEXT NOT NULL,         -- YYYY-MM-DD
    PRIMARY KEY (month, hash)
) WITHOUT ROWID;

-- Each day's distinct visitors: daily_visitors is in (day, hash) order, so this is one pass.
INSERT INTO visitor_days (day, visitors, last_visits)
SELECT day, COUNT(*), 0 FROM daily_visitors GROUP BY day;

-- Each visitor-month's last day, counted per day: exactly for the months a window of the
-- analytics can reach (they go 90 days back; sorting every hash of a year would take many
-- seconds). An older month never holds the start of a window, so only its total is ever read:
-- that is the count of monthly_visitors (the figure shown for it so far), put on its last day.
CREATE TEMP TABLE last_days (day TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO last_days (day, n)
SELECT last_day, COUNT(*)
FROM (SELECT MAX(day) AS last_day FROM daily_visitors
      WHERE day >= strftime('%Y-%m-01', 'now', '-89 days')
      GROUP BY substr(day, 1, 7), hash)
GROUP BY last_day;
INSERT INTO last_days (day, n)
SELECT last_day, n
FROM (SELECT (SELECT MAX(d.day) FROM visitor_days d WHERE d.day BETWEEN m.month || '-01' AND m.month || '-31') AS last_day, m.n
      FROM (SELECT month, COUNT(*) AS n FROM monthly_visitors
            WHERE month < strftime('%Y-%m', 'now', '-89 days') GROUP BY month) m)
WHERE last_day IS NOT NULL;
UPDATE visitor_days SET last_visits = l.n FROM last_days l WHERE l.day = visitor_days.day;

-- The current month's hashes, for the visits still to come this month.
INSERT INTO month_visitors (month, hash, last_day)
SELECT substr(day, 1, 7), hash, MAX(day) FROM daily_visitors
WHERE day >= strftime('%Y-%m-01', 'now')
GROUP BY hash;

DROP TABLE last_days;
DROP TABLE daily_visitors;
DROP TABLE monthly_visitors;

-- Keyed calls per key and UTC day: the hours of api_key_hourly once they are `[analytics]
-- key_hourly_days` old, kept `key_daily_days`; the days older than that are added to the key's
-- earlier_* columns below.
CREATE TABLE api_key_daily (
    key_id            INTEGER NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    day               INTEGER NOT NULL,  -- Unix seconds at the start of the UTC day
    requests          INTEGER NOT NULL,
    last_used         INTEGER NOT NULL,  -- ms since the epoch
    last_used_from_ip TEXT NOT NULL,     -- anonymised (/24, /48); empty for the public key
    PRIMARY KEY (key_id, day)
) WITHOUT ROWID;
CREATE INDEX api_key_daily_day ON api_key_daily (day);

-- What a key's days no longer kept add up to: its calls, its latest use and where from.
ALTER TABLE api_keys ADD COLUMN earlier_requests INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN earlier_last_used INTEGER;
ALTER TABLE api_keys ADD COLUMN earlier_last_used_from_ip TEXT;

-- The hours older than the default 7 days are rolled up here, once, instead of by thousands of
-- background batches: the kept hours are copied to a new table (the old one is dropped whole),
-- which then gets the index on `hour` the rate limits read at start and the sweep walks.
INSERT INTO api_key_daily (key_id, day, requests, last_used, last_used_from_ip)
SELECT key_id, hour - hour % 86400, SUM(requests), MAX(last_used), last_used_from_ip
FROM api_key_hourly
WHERE hour < CAST(strftime('%s', 'now', 'start of day', '-7 days') AS INTEGER)
GROUP BY key_id, hour - hour % 86400;

CREATE TABLE api_key_hourly_kept (
    key_id            INTEGER NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    hour              INTEGER NOT NULL,  -- Unix seconds at the start of the hour
    requests          INTEGER NOT NULL,
    last_used         INTEGER NOT NULL,  -- ms since the epoch
    last_used_from_ip TEXT NOT NULL,     -- anonymised (/24, /48); empty for the public key
    PRIMARY KEY (key_id, hour)
) WITHOUT ROWID;
INSERT INTO api_key_hourly_kept (key_id, hour, requests, last_used, last_used_from_ip)
SELECT key_id, hour, requests, last_used, last_used_from_ip FROM api_key_hourly
WHERE hour >= CAST(strftime('%s', 'now', 'start of day', '-7 days') AS INTEGER);
DROP TABLE api_key_hourly;
ALTER TABLE api_key_hourly_kept RENAME TO api_key_hourly;
CREATE INDEX api_key_hourly_hour ON api_key_hourly (hour);

-- The public key is everyone's: where it was used from says nothing about a key's owner.
UPDATE api_key_hourly SET last_used_from_ip = '' WHERE key_id IN (SELECT id FROM api_keys WHERE is_public = 1);
UPDATE api_key_daily SET last_used_from_ip = '' WHERE key_id IN (SELECT id FROM api_keys WHERE is_public = 1);

-- The addresses a key was used from, with the day of the latest call from each: a key keeps its
-- `[analytics] key_addresses` newest, for `key_address_days`; the public key keeps none. Rows of
-- before this file get the day of the key's last use.
CREATE TABLE api_key_addresses (
    key_id    INTEGER NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    ip_hash   BLOB NOT NULL,         -- keyed hash (per-site secret, IP), never the IP
    last_seen INTEGER NOT NULL,      -- Unix seconds at the start of the UTC day
    PRIMARY KEY (key_id, ip_hash)
) WITHOUT ROWID;
CREATE TEMP TABLE key_last_use (key_id INTEGER PRIMARY KEY, last_used INTEGER NOT NULL);
INSERT INTO key_last_use (key_id, last_used)
SELECT key_id, MAX(last_used) FROM
    (SELECT key_id, last_used FROM api_key_hourly UNION ALL SELECT key_id, last_used FROM api_key_daily)
GROUP BY key_id;
INSERT INTO api_key_addresses (key_id, ip_hash, last_seen)
SELECT i.key_id, i.ip_hash, COALESCE(u.last_used, k.created_at) / 86400000 * 86400
FROM api_keys k JOIN api_key_ips i ON i.key_id = k.id LEFT JOIN key_last_use u ON u.key_id = k.id
WHERE k.is_public = 0;
DROP TABLE key_last_use;
DROP TABLE api_key_ips;
ALTER TABLE api_key_addresses RENAME TO api_key_ips;
CREATE INDEX api_key_ips_last_seen ON api_key_ips (last_seen);
