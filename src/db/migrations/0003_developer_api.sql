-- Developer API keys. The database keeps a key's SHA-256 and its 12-character display prefix, never
-- the key. The one exception is the public default key: every visitor receives it from /api/site, so
-- it is stored in full in settings ('public_api_key') to stay the same across restarts.
CREATE TABLE api_keys (
    id                INTEGER PRIMARY KEY,
    key_hash          BLOB NOT NULL UNIQUE,
    prefix            TEXT NOT NULL,
    name              TEXT NOT NULL,
    owner_user_id     INTEGER REFERENCES users (id) ON DELETE CASCADE,
    owner_token_hash  BLOB,                    -- SHA-256 of an anonymous owner's cookie
    is_public         INTEGER NOT NULL DEFAULT 0 CHECK (is_public IN (0, 1)),
    created_at        INTEGER NOT NULL,
    created_from_ip   TEXT NOT NULL,           -- anonymised (/24, /48)
    revoked_at        INTEGER,
    requests          INTEGER NOT NULL DEFAULT 0,
    last_used         INTEGER,
    last_used_from_ip TEXT                     -- anonymised (/24, /48)
);
CREATE UNIQUE INDEX api_keys_prefix ON api_keys (prefix);
CREATE INDEX api_keys_owner_user ON api_keys (owner_user_id) WHERE owner_user_id IS NOT NULL;
CREATE INDEX api_keys_owner_token ON api_keys (owner_token_hash) WHERE owner_token_hash IS NOT NULL;

-- The distinct client IPs of each key, as keyed hashes (a per-site secret and the IP), never the IP.
CREATE TABLE api_key_ips (
    key_id  INTEGER NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    ip_hash BLOB NOT NULL,
    PRIMARY KEY (key_id, ip_hash)
) WITHOUT ROWID;

-- Accepted calls per key and UTC hour: the usage history, and the hour and day windows of the rate
-- limits after a restart.
CREATE TABLE api_key_hourly (
    key_id   INTEGER NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    hour     INTEGER NOT NULL,                 -- Unix seconds at the start of the hour
    requests INTEGER NOT NULL,
    PRIMARY KEY (key_id, hour)
) WITHOUT ROWID;

-- Page views per UTC day and route, and unique visitors per UTC day (hashes made with the month's
-- salt, like monthly_visitors: no IP is stored).
CREATE TABLE route_views (
    day   TEXT NOT NULL,
    route TEXT NOT NULL,
    views INTEGER NOT NULL,
    PRIMARY KEY (day, route)
) WITHOUT ROWID;
CREATE TABLE daily_visitors (
    day  TEXT NOT NULL,
    hash BLOB NOT NULL,
    PRIMARY KEY (day, hash)
) WITHOUT ROWID;

-- Public happenings a community bot can follow through GET /api/v1/events.
CREATE TABLE events (
    id         INTEGER PRIMARY KEY,
    type       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    data       TEXT NOT NULL                  -- JSON object
);
CREATE INDEX events_type ON events (type, id);
