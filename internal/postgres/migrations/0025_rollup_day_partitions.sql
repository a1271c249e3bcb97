-- rollup_day partitioned so that the rows the 90-day spend reports read lie
-- together (docs/analytics.md, "Issue 9: where the kernel goes").
--
-- The reports over all agents read the agent and model rows under the
-- empty agent name: at 90 days on the 10 M benchmark 5,815 rows, which lay
-- on 2,804 heap pages, one or two per page, among the 160,000 rows of the
-- other dimensions and of the per-agent model rows (every merge writes a
-- day's rows of every dimension together). /full's statement spent 7 of its
-- 29–30 ms fetching those pages; from a copy sorted by dimension it read
-- 168 pages and took 25–26 ms.
--
-- Partitions: by agent_name, '' (all agents) or any agent (DEFAULT); the
-- '' rows by dim, agent and model together or the rest (DEFAULT). A row's
-- dim and agent_name never change, so no update moves a row between
-- partitions, and both are in the primary key, as ON CONFLICT needs. Every
-- statement names rollup_day, as before; the planner prunes to the
-- partitions a report's dim and agent_name select.
ALTER TABLE rollup_day RENAME TO rollup_day_unpartitioned;
ALTER TABLE rollup_day_unpartitioned RENAME CONSTRAINT rollup_day_pkey TO rollup_day_unpartitioned_pkey;
ALTER INDEX rollup_day_agent_key_idx RENAME TO rollup_day_unpartitioned_agent_key_idx;
ALTER INDEX rollup_day_model_agents_idx RENAME TO rollup_day_unpartitioned_model_agents_idx;
ALTER INDEX rollup_day_session_key_idx RENAME TO rollup_day_unpartitioned_session_key_idx;

CREATE TABLE rollup_day (LIKE rollup_day_unpartitioned INCLUDING DEFAULTS) PARTITION BY LIST (agent_name);
CREATE TABLE rollup_day_all PARTITION OF rollup_day FOR VALUES IN ('') PARTITION BY LIST (dim);
CREATE TABLE rollup_day_all_agent_model PARTITION OF rollup_day_all FOR VALUES IN ('agent', 'model');
CREATE TABLE rollup_day_all_other PARTITION OF rollup_day_all DEFAULT;
CREATE TABLE rollup_day_per_agent PARTITION OF rollup_day DEFAULT;

ALTER TABLE rollup_day ADD PRIMARY KEY (project_id, dim, agent_name, bucket, key);
CREATE INDEX rollup_day_agent_key_idx ON rollup_day (project_id, key, bucket) WHERE dim = 'agent';
CREATE INDEX rollup_day_model_agents_idx ON rollup_day (project_id, bucket) WHERE dim = 'model' AND agent_name <> '';
CREATE INDEX rollup_day_session_key_idx ON rollup_day (project_id, key, bucket)
    WHERE dim = 'session' AND agent_name = '';

-- In partition order, each partition's rows by project and day.
INSERT INTO rollup_day SELECT * FROM rollup_day_unpartitioned
ORDER BY agent_name <> '', dim, project_id, bucket, agent_name, key;
DROP TABLE rollup_day_unpartitioned;
ANALYZE rollup_day;
