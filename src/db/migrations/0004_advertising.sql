-- Advertisement applications. The image is stored in uploads/ under a random name after being
-- checked and re-encoded; the row keeps that name and what the banner needs.
CREATE TABLE advertisements (
    id                        INTEGER PRIMARY KEY,
    website_url               TEXT NOT NULL,
    description               TEXT NOT NULL,
    target_audience           TEXT,
    duration                  TEXT NOT NULL CHECK (duration IN ('1-day', '1-month', '10-fullscreen')),
    links                     TEXT NOT NULL DEFAULT '[]',      -- JSON array of URLs
    image_name                TEXT NOT NULL UNIQUE,            -- file name in uploads/
    image_type                TEXT NOT NULL,
    image_width               INTEGER NOT NULL,
    image_height              INTEGER NOT NULL,
    premium_fullscreen        INTEGER NOT NULL DEFAULT 0 CHECK (premium_fullscreen IN (0, 1)),
    fullscreen_message_type   TEXT,                             -- ai-generated | user-input
    fullscreen_custom_message TEXT,
    analysis                  TEXT NOT NULL,                    -- JSON (aiAnalysis)
    background_color          TEXT NOT NULL,
    text_color                TEXT NOT NULL,
    border_color              TEXT NOT NULL,
    status                    TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
    submitted_from_ip         TEXT NOT NULL,                    -- anonymised
    created_at                INTEGER NOT NULL,
    reviewed_at               INTEGER
);
CREATE INDEX advertisements_status ON advertisements (status, id);

-- The one sponsored banner running now, if any (at most one row). Expiry is counted from
-- activation; past expires_at the default clan banner is back.
CREATE TABLE active_ad (
    slot             INTEGER PRIMARY KEY CHECK (slot = 1),
    ad_id            INTEGER NOT NULL REFERENCES advertisements (id) ON DELETE CASCADE,
    background_color TEXT NOT NULL,
    text_color       TEXT NOT NULL,
    border_color     TEXT NOT NULL,
    activated_at     INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL
);
