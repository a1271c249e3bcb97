-- A run's steps, tools and repeats follow their run (docs/analytics.md,
-- "Storage"). Their foreign keys to runs checked every inserted row with a
-- query of its own and locked the run's row: 60 % of the time the run
-- merger spent inserting run_steps (36,000 rows for 100,000 calls), the
-- largest of its statements. The run merger inserts a run and its children
-- in one transaction, after deleting the run, so the rows cannot disagree;
-- what the keys still gave is the cascade, kept here by one set-based
-- delete per statement that deletes runs (the merger's refresh, a rebuild,
-- a deleted project's cascade).
ALTER TABLE run_steps DROP CONSTRAINT run_steps_project_id_trace_id_fkey;
ALTER TABLE run_tools DROP CONSTRAINT run_tools_project_id_trace_id_fkey;
ALTER TABLE run_repeats DROP CONSTRAINT run_repeats_project_id_trace_id_fkey;

-- EXECUTE plans each delete for the number of runs deleted this time: a
-- refresh deletes a few thousand (index probes), a project's deletion
-- may delete millions (a hash join), and a cached plan would fit only one.
CREATE FUNCTION llmcost_delete_run_children() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['run_steps', 'run_tools', 'run_repeats'] LOOP
        EXECUTE format('DELETE FROM %I c USING gone g WHERE c.project_id = g.project_id AND c.trace_id = g.trace_id', t);
    END LOOP;
    RETURN NULL;
END
$fn$;

CREATE TRIGGER runs_delete_children AFTER DELETE ON runs
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION llmcost_delete_run_children();
