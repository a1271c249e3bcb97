-- The rollups follow their project as the run tables' children follow their
-- run (0023). The merger inserts new rollup rows every second, and each
-- insert's foreign key to projects ran a query of its own and locked the
-- project's row: BenchmarkMergeSteady 0.91–0.95 s → 0.80–0.82 s for 100,000
-- calls without them. Only the merger, re-pricing and rebuilds write these
-- rows, each holding the merger's lock (the rollup_state row) and reading
-- the project's events, which still cascade from projects. A deleted
-- project's rows go by one set-based delete per table, after taking that
-- lock: a merge in flight commits its rows first, so the delete sees them,
-- and the next merge finds the project's events gone.
ALTER TABLE rollup_hour DROP CONSTRAINT rollup_hour_project_id_fkey;
ALTER TABLE rollup_day DROP CONSTRAINT rollup_day_project_id_fkey;
ALTER TABLE rollup_week DROP CONSTRAINT rollup_week_project_id_fkey;
ALTER TABLE rollup_session DROP CONSTRAINT rollup_session_project_id_fkey;
ALTER TABLE rollup_session_span DROP CONSTRAINT rollup_session_span_project_id_fkey;
ALTER TABLE agent_key_hour DROP CONSTRAINT agent_key_hour_project_id_fkey;

CREATE FUNCTION llmcost_delete_project_rollups() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    t text;
BEGIN
    PERFORM 1 FROM rollup_state FOR UPDATE;
    FOREACH t IN ARRAY ARRAY['rollup_hour', 'rollup_day', 'rollup_week', 'rollup_session', 'rollup_session_span',
        'agent_key_hour'] LOOP
        EXECUTE format('DELETE FROM %I x USING gone g WHERE x.project_id = g.id', t);
    END LOOP;
    RETURN NULL;
END
$fn$;

CREATE TRIGGER projects_delete_rollups AFTER DELETE ON projects
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION llmcost_delete_project_rollups();
