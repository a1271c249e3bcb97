-- Expiry of rollups (docs/scale.md, "Retention"): the retention job
-- deletes a project's rollup rows older than its rollup cutoff, day by
-- day, a few thousand rows per statement.
--
-- How far it has gone for each project: rows before rollup_expired_before
-- are gone, whatever the setting says now (a retention that grew after an
-- expiry does not bring them back). Each day's deletes commit before the
-- marker moves, so a run cut short resumes where it stopped.
ALTER TABLE projects ADD COLUMN rollup_expired_before timestamptz;

-- The rollups' keys start with the project and the dimension (and the
-- agent), not the time: finding one project's rows of one day through them
-- reads every index entry of the project, at each chunk. An index on
-- (project_id, bucket) reads the day's entries only. (A BRIN index on the
-- bucket was the cheaper thought, but the planner preferred the key, and
-- BRIN ranges only widen: pages freed by the expiry fill with new rows, so
-- each range would come to cover old and new days alike.) The run tables
-- have (project_id, bucket, ...) indexes already, runs (project_id,
-- first_ts), rollup_session (project_id, first_hour). An update of a
-- rollup row changes neither column, so it stays a HOT update where it
-- was one.
CREATE INDEX rollup_hour_project_bucket_idx ON rollup_hour (project_id, bucket);
CREATE INDEX rollup_day_project_bucket_idx ON rollup_day (project_id, bucket);
CREATE INDEX rollup_week_project_bucket_idx ON rollup_week (project_id, bucket);
CREATE INDEX rollup_tag_hour_project_bucket_idx ON rollup_tag_hour (project_id, bucket);
CREATE INDEX rollup_tag_day_project_bucket_idx ON rollup_tag_day (project_id, bucket);
CREATE INDEX agent_key_hour_project_bucket_idx ON agent_key_hour (project_id, bucket);
CREATE INDEX run_tool_all_day_project_bucket_idx ON run_tool_all_day (project_id, bucket);
