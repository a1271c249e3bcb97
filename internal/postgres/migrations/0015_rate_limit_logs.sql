-- Rolling-window limits shared by every instance on this database (3
-- password-reset requests per address per hour, 3 verification resends per
-- user per hour): one row per key holding the times of the events counted
-- in the last window. UNLOGGED like rate_limit_windows: after a crash the
-- logs start empty. expires_at is set from each limit's own window when an
-- event is counted (two windows after the latest, so skewed instance clocks
-- cannot see a row vanish while one of its events still counts); the sweep
-- deletes by it, never by the request limit's window, so an hour-long log
-- is not swept after a minute.
CREATE UNLOGGED TABLE rate_limit_logs (
    key        text NOT NULL PRIMARY KEY,
    times      timestamptz[] NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX rate_limit_logs_expires_idx ON rate_limit_logs (expires_at);
