-- Accounts and teams: refresh-token rotation history, single-use e-mail
-- tokens, social sign-in identities, and the look-ups invitations need.

ALTER TABLE sessions ADD COLUMN refreshed_at timestamptz;

-- Every refresh token that has been rotated away. Presenting one again is
-- reuse (RFC 9700 4.14.2): the session it belonged to is revoked.
CREATE TABLE used_refresh_tokens (
    refresh_hash bytea PRIMARY KEY,
    session_id   uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    used_at      timestamptz NOT NULL
);
CREATE INDEX used_refresh_tokens_session_idx ON used_refresh_tokens (session_id);

-- Tokens mailed to a user: e-mail verification and password reset. Only
-- their SHA-256 hashes are stored; each is single use and expires.
CREATE TABLE account_tokens (
    token_hash bytea PRIMARY KEY,
    purpose    text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
    user_id    uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    email      text NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX account_tokens_user_idx ON account_tokens (user_id, purpose);

-- A user's accounts at identity providers (google, github), by the
-- provider's stable subject id rather than by e-mail.
CREATE TABLE identities (
    provider   text NOT NULL,
    subject    text NOT NULL,
    user_id    uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    email      text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, subject)
);
CREATE INDEX identities_user_idx ON identities (user_id);

-- Pending invitations are found by the invitee's e-mail.
CREATE INDEX memberships_pending_email_idx ON memberships (lower(email)) WHERE accepted_at IS NULL;
