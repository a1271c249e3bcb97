-- Rollups that keep the slowest reports' reads small (docs/analytics.md,
-- "Storage for the slow reports"). Self-contained: new tables and
-- functions only, nothing of 0005, 0010 or 0011 is altered.

-- Tool rows per (project, agent, UTC day of the run's first call, tool),
-- over every workflow, and agent_name '' rows over every agent: the tool
-- report without a workflow filter reads one row per tool and day instead
-- of one per workflow, tool and day (30 times fewer on the benchmark). They
-- are sums of run_tool_day rows, recomputed with them (RefreshRuns,
-- RebuildRuns). A run has one workflow, so runs add up across workflows.
CREATE TABLE run_tool_all_day (
    project_id     uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    agent_name     text NOT NULL,
    bucket         timestamptz NOT NULL,
    name           text NOT NULL,
    calls          bigint NOT NULL,
    runs           bigint NOT NULL,
    cost_nano      bigint NOT NULL,
    tokens         bigint NOT NULL,
    latency_sum    bigint NOT NULL,
    latency_count  bigint NOT NULL,
    success_calls  bigint NOT NULL,
    PRIMARY KEY (project_id, agent_name, bucket, name)
);
INSERT INTO run_tool_all_day
SELECT project_id, agent_name, bucket, name, sum(calls), sum(runs), sum(cost_nano), sum(tokens), sum(latency_sum),
    sum(latency_count), sum(success_calls)
FROM run_tool_day
GROUP BY project_id, agent_name, bucket, name;
