-- Expiry of rollups (docs/scale.md, "Retention"): the retention job
-- deletes a project's rollup rows older than its rollup cutoff, day by
-- day, a few thousand rows per statement.
--
-- How far it has gone for each project: rows before rollup_expired_before
-- are gone, whatever the setting says now (a retention that grew after an
-- expiry does not bring them back). Each day's deletes commit before the
-- marker moves, so a run cut short resumes where it stopped.
ALTER TABLE projects ADD COLUMN rollup_expired_before timestamptz;

-- The rollups' keys start with the project and the dimension, not the
-- time: finding one project's rows of one day through them reads every
-- row of the project. A BRIN index on the bucket finds the day's pages
-- (rows are written about in time order: the merger folds recent calls)
-- and costs ingest nothing measurable (a summary per 128 pages, kept up
-- by autosummarize). The run tables have (project_id, bucket, …) indexes
-- already; runs has (project_id, first_ts).
CREATE INDEX rollup_hour_bucket_brin ON rollup_hour USING brin (bucket) WITH (autosummarize = on);
CREATE INDEX rollup_day_bucket_brin ON rollup_day USING brin (bucket) WITH (autosummarize = on);
CREATE INDEX rollup_week_bucket_brin ON rollup_week USING brin (bucket) WITH (autosummarize = on);
CREATE INDEX rollup_tag_hour_bucket_brin ON rollup_tag_hour USING brin (bucket) WITH (autosummarize = on);
CREATE INDEX rollup_tag_day_bucket_brin ON rollup_tag_day USING brin (bucket) WITH (autosummarize = on);
CREATE INDEX agent_key_hour_bucket_brin ON agent_key_hour USING brin (bucket) WITH (autosummarize = on);
CREATE INDEX run_tool_all_day_bucket_brin ON run_tool_all_day USING brin (bucket) WITH (autosummarize = on);
