-- Request counters shared by every instance on this database, one row per
-- key (API key hash, user, client IP) and fixed window. UNLOGGED: counters
-- need no crash safety (after a crash the current window starts afresh)
-- and skip the WAL, which halves the cost of a request's increment. Rows
-- of finished windows are deleted by the periodic sweep job.
CREATE UNLOGGED TABLE rate_limit_windows (
    key          text NOT NULL,
    window_start timestamptz NOT NULL,
    count        integer NOT NULL,
    PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limit_windows_start_idx ON rate_limit_windows (window_start);

-- The sweep deletes expired sessions and spent account tokens by time.
CREATE INDEX sessions_expires_idx ON sessions (expires_at);
CREATE INDEX account_tokens_expires_idx ON account_tokens (expires_at);
