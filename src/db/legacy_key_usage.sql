-- Not a numbered migration: run once by migrations.rs when it first records a database from the
-- positional era whose 0003_developer_api is the file's first layout. 0003 was edited after
-- fanhub had shipped it (its first hour on main, two schema versions): a database made then keeps
-- a key's usage on api_keys (requests, last_used, last_used_from_ip) and its api_key_hourly has no
-- last use, which every later fanhub writes. This moves such a database to the edited layout.
-- The last use of an hour is the key's last use when it fell in that hour, else the hour's start;
-- the key's requests were the sum of its hours, which is how they are read now.
CREATE TABLE api_key_hourly_edited (
    key_id            INTEGER NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    hour              INTEGER NOT NULL,        -- Unix seconds at the start of the hour
    requests          INTEGER NOT NULL,
    last_used         INTEGER NOT NULL,        -- ms since the epoch
    last_used_from_ip TEXT NOT NULL,           -- anonymised (/24, /48)
    PRIMARY KEY (key_id, hour)
) WITHOUT ROWID;
INSERT INTO api_key_hourly_edited (key_id, hour, requests, last_used, last_used_from_ip)
SELECT h.key_id, h.hour, h.requests,
       CASE WHEN k.last_used >= h.hour * 1000 AND k.last_used < (h.hour + 3600) * 1000
            THEN k.last_used ELSE h.hour * 1000 END,
       COALESCE(k.last_used_from_ip, '')
FROM api_key_hourly h JOIN api_keys k ON k.id = h.key_id;
DROP TABLE api_key_hourly;
ALTER TABLE api_key_hourly_edited RENAME TO api_key_hourly;
ALTER TABLE api_keys DROP COLUMN requests;
ALTER TABLE api_keys DROP COLUMN last_used;
ALTER TABLE api_keys DROP COLUMN last_used_from_ip;
