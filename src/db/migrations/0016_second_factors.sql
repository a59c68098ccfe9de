-- Second factors of staff accounts: an authenticator app (TOTP), security keys or passkeys
-- (WebAuthn), and single-use recovery codes. A row here means signing in needs it.

-- The TOTP secret must be read back to check codes, so it is sealed (ChaCha20-Poly1305) with the
-- key in DATA_DIR/second-factor.key, which is not in this database nor in its backups.
CREATE TABLE totp_factors (
    user_id    INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    sealed     BLOB NOT NULL,          -- 12-byte nonce, then the sealed 20-byte secret and its tag
    last_step  INTEGER NOT NULL,       -- the 30 s step of the last accepted code: replays refused
    created_at INTEGER NOT NULL,
    last_used  INTEGER
);

-- Public keys only: nothing here lets anyone sign in.
CREATE TABLE passkeys (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    credential_id BLOB NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    passkey       TEXT NOT NULL,       -- webauthn-rs's Passkey as JSON (public key, counter)
    created_at    INTEGER NOT NULL,
    last_used     INTEGER
);
CREATE INDEX passkeys_user ON passkeys (user_id);

-- Ten 80-bit codes per account, kept as their SHA-256; a used code is deleted.
CREATE TABLE recovery_codes (
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash  BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, code_hash)
) WITHOUT ROWID;

-- The WebAuthn user handle: random, so an authenticator never holds the account's id or name.
ALTER TABLE users ADD COLUMN webauthn_handle TEXT;
