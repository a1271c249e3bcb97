-- An instance may take several requests of a key's window at once (a
-- lease) and admit them from memory: granted is what the last statement
-- added, so the instance knows its share when the window was nearly full.
ALTER TABLE rate_limit_windows ADD COLUMN granted integer NOT NULL DEFAULT 1;
