-- The step and tool reports (queries/run_group_rows.sql) read whole days
-- from the daily rollups and the runs of the partial days at the window's
-- edges from their per-run rows: every window has about a day of edge
-- runs (all of a 24-hour window's), some 12,000 at 10 M calls, each
-- looking up its step or tool rows by key, four or five index pages a run.
-- That was most of the reports' time at every window (200-270 ms on a slow
-- host, against a 150 ms target). With the run's first call, agent and
-- workflow on its step and tool rows (run_steps has the first two since
-- migration 0021), and an index on (project, first call), the edges are
-- one range scan of the rows themselves, which the run merger writes in
-- the order the runs arrive. A tag filter still reads the edge runs first
-- (the tags are the run's only).
ALTER TABLE run_steps ADD COLUMN workflow text;
ALTER TABLE run_tools
    ADD COLUMN agent_name text,
    ADD COLUMN first_ts   timestamptz,
    ADD COLUMN workflow   text;

-- Existing rows take their run's values; the merger writes them from now on.
UPDATE run_steps s SET workflow = r.workflow
FROM runs r
WHERE r.project_id = s.project_id AND r.trace_id = s.trace_id AND r.workflow IS NOT NULL;
UPDATE run_tools t SET agent_name = r.agent_name, first_ts = r.first_ts, workflow = r.workflow
FROM runs r
WHERE r.project_id = t.project_id AND r.trace_id = t.trace_id;
-- A tool row without its run cannot exist (the runs' delete trigger of
-- migration 0023 removes the children), but a NOT NULL must not fail an
-- upgrade over one: such a row is dropped, as the trigger would have.
DELETE FROM run_tools WHERE first_ts IS NULL;
ALTER TABLE run_tools ALTER COLUMN agent_name SET NOT NULL, ALTER COLUMN first_ts SET NOT NULL;

CREATE INDEX run_steps_project_first_idx ON run_steps (project_id, first_ts);
CREATE INDEX run_tools_project_first_idx ON run_tools (project_id, first_ts);
