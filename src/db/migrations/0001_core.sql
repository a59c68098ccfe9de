-- Site-wide settings edited at run time (JSON values).
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

-- Page views per UTC day, counted on the server without cookies.
CREATE TABLE page_views (
    day   TEXT PRIMARY KEY,   -- YYYY-MM-DD (UTC)
    views INTEGER NOT NULL DEFAULT 0
);

-- Unique visitors per UTC month: a hash of (monthly random salt, IP, user agent). The salt lives
-- in visitor_salts only for its month and is deleted afterwards, so no IP can be recovered.
CREATE TABLE visitor_salts (
    month TEXT PRIMARY KEY,   -- YYYY-MM
    salt  BLOB NOT NULL
);
CREATE TABLE monthly_visitors (
    month TEXT NOT NULL,
    hash  BLOB NOT NULL,
    PRIMARY KEY (month, hash)
) WITHOUT ROWID;
