-- The session read (queries/session_top.sql) takes the most expensive
-- sessions lying wholly inside its whole days by walking
-- rollup_session_cost_idx from the top, skipping those outside the days.
-- The skipped entries grow with the history outside the window (every
-- slice of history has its own sessions): over 3,400 of them for a 7-day
-- window of 270 days of history, each a heap fetch to read first_hour and
-- last_hour. With both in the index, the walk reads index pages only (an
-- index-only scan, where the visibility map allows it). Same key, so the
-- same writes: a row's cost changes with every merge that adds to it.
CREATE INDEX rollup_session_cost_window_idx ON rollup_session (project_id, cost_nano DESC, session_id COLLATE "C")
    INCLUDE (first_hour, last_hour);
DROP INDEX rollup_session_cost_idx;
ALTER INDEX rollup_session_cost_window_idx RENAME TO rollup_session_cost_idx;
