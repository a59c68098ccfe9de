-- Accounts, sessions, admin keys, login logs, ratings and favorites.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT NOT NULL,             -- argon2id PHC string
    email         TEXT,
    roblox_id     TEXT,
    role          TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'moderator', 'admin')),
    is_active     INTEGER NOT NULL DEFAULT 1 CHECK (is_active IN (0, 1)),
    created_at    INTEGER NOT NULL,
    last_login    INTEGER
);

-- Session tokens are 256-bit random values; only their SHA-256 is stored.
CREATE TABLE sessions (
    token_hash BLOB PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE login_logs (
    id         INTEGER PRIMARY KEY,
    username   TEXT NOT NULL,
    ip_address TEXT NOT NULL,               -- anonymised unless the visitor allowed IP logging
    user_agent TEXT NOT NULL,
    status     TEXT NOT NULL,               -- success | failure | suspended | rate_limited
    created_at INTEGER NOT NULL
);
CREATE INDEX login_logs_created ON login_logs (created_at DESC);

-- Admin keys: SHA-256 of the key and a 12-character display prefix; never the key itself.
CREATE TABLE admin_keys (
    id         INTEGER PRIMARY KEY,
    key_hash   BLOB NOT NULL UNIQUE,
    prefix     TEXT NOT NULL,
    name       TEXT NOT NULL,
    source     TEXT NOT NULL CHECK (source IN ('cli', 'phrase', 'direct')),
    bound_ip   TEXT,
    created_at INTEGER NOT NULL,
    last_used  INTEGER
);

CREATE TABLE admin_sessions (
    token_hash BLOB PRIMARY KEY,
    key_id     INTEGER NOT NULL REFERENCES admin_keys (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);

CREATE TABLE command_ratings (
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    command_id INTEGER NOT NULL,
    rating     INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, command_id)
) WITHOUT ROWID;

CREATE TABLE favorites (
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    item_type  TEXT NOT NULL CHECK (item_type = 'command'),
    item_id    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, item_type, item_id)
) WITHOUT ROWID;
