-- The run rollups partitioned by tag: the rows over every run (tag '') in
-- one partition, the rows per tag value (migration 0040) in another, so
-- that the unnarrowed run reports read the pages they read before 0040.
--
-- With the rows of every value among them, run_day's rows over every run
-- were spread over more pages: the agents summary's run read (every
-- agent's rows of a window) took 74-78 ms at 90 days against 47-51 before
-- 0040 on BenchmarkTagFilteredRunReports (a team declared, four values,
-- each run in one: as many rows per value as over every run), because
-- every page it read also held another value's rows. The narrowed reads
-- gain too: one value's rows lie among the other values' only.
--
-- Partitions: tag '' (<table>_all) or any value (<table>_tagged, DEFAULT).
-- A row's tag never changes, so no update moves it between partitions, and
-- the tag is in every primary key, as ON CONFLICT needs. Every statement
-- names the parent, as before; the planner prunes to the partition of a
-- read's tag (a parameter: at execution, when the plan is generic).
CREATE FUNCTION pg_temp.partition_by_tag(tab text, pkey text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('ALTER TABLE %I RENAME TO %I', tab, tab || '_unpartitioned');
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS) PARTITION BY LIST (tag)', tab,
        tab || '_unpartitioned');
    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES IN (%L)', tab || '_all', tab, '');
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', tab || '_tagged', tab);
    -- Each partition's rows in key order: a window's rows of one agent
    -- (or of '') on as few pages as a copy can give them.
    EXECUTE format('INSERT INTO %I SELECT * FROM %I ORDER BY tag <> %L, %s', tab, tab || '_unpartitioned', '', pkey);
    -- Its indexes and constraints go with it, so their names are free.
    EXECUTE format('DROP TABLE %I', tab || '_unpartitioned');
    -- The key after the rows: one sorted build instead of an insert each.
    EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (%s)', tab, pkey);
    EXECUTE format('ALTER TABLE %I ADD FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE', tab);
END
$$;

-- The key indexes find a (project, day, workflow) key's rows of every
-- agent and tag (the refresh of a key, the expiry of a day); for
-- run_tool_all_day a project's rows of a day (migration 0039).
SELECT pg_temp.partition_by_tag('run_day', 'project_id, tag, agent_name, bucket, workflow');
CREATE INDEX run_day_key_idx ON run_day (project_id, bucket, workflow);
SELECT pg_temp.partition_by_tag('run_step_day', 'project_id, tag, agent_name, bucket, workflow, name');
CREATE INDEX run_step_day_key_idx ON run_step_day (project_id, bucket, workflow);
SELECT pg_temp.partition_by_tag('run_tool_day', 'project_id, tag, agent_name, bucket, workflow, name');
CREATE INDEX run_tool_day_key_idx ON run_tool_day (project_id, bucket, workflow);
SELECT pg_temp.partition_by_tag('run_tool_all_day', 'project_id, tag, agent_name, bucket, name');
CREATE INDEX run_tool_all_day_project_bucket_idx ON run_tool_all_day (project_id, bucket);

-- A temporary function lives as long as the session, which the pool keeps.
DROP FUNCTION pg_temp.partition_by_tag(text, text);
ANALYZE run_day, run_step_day, run_tool_day, run_tool_all_day;
