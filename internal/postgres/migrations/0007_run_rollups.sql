-- Daily run rollups (docs/analytics.md "Runs"): the workflow, outcome, step
-- and tool reports read whole days here instead of every run. Rows are
-- keyed by the run's first call: its UTC day, its workflow ('' for none)
-- and its agent, plus agent_name '' rows summing every agent. They are
-- recomputed, not incremented: the refresh of a run recomputes the
-- per-agent rows of its old and new keys from the runs table, then the ''
-- rows from the per-agent rows, so maxima stay exact when a run moves.
CREATE TABLE run_day (
    project_id     uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    agent_name     text NOT NULL,
    bucket         timestamptz NOT NULL,
    workflow       text NOT NULL,
    runs           bigint NOT NULL,
    cost_nano      bigint NOT NULL,
    max_cost_nano  bigint NOT NULL,
    calls          bigint NOT NULL,
    steps          bigint NOT NULL,
    max_depth      bigint NOT NULL,
    success_calls  bigint NOT NULL,
    succeeded      bigint NOT NULL, -- runs whose outcome says success
    failed         bigint NOT NULL,
    success_cost   bigint NOT NULL,
    failure_cost   bigint NOT NULL,
    PRIMARY KEY (project_id, agent_name, bucket, workflow)
);

-- Per step name (step rows) and per tool name (tool rows) of the same keys.
CREATE TABLE run_step_day (
    project_id     uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    agent_name     text NOT NULL,
    bucket         timestamptz NOT NULL,
    workflow       text NOT NULL,
    name           text NOT NULL,
    calls          bigint NOT NULL,
    runs           bigint NOT NULL,
    cost_nano      bigint NOT NULL,
    tokens         bigint NOT NULL,
    latency_sum    bigint NOT NULL,
    latency_count  bigint NOT NULL,
    success_calls  bigint NOT NULL,
    PRIMARY KEY (project_id, agent_name, bucket, workflow, name)
);
CREATE TABLE run_tool_day (LIKE run_step_day INCLUDING ALL);
ALTER TABLE run_tool_day ADD FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE;

-- The run tables are filled by BackfillRuns (Go), which fills these too.
INSERT INTO pending_backfills (name)
SELECT 'runs' WHERE EXISTS (SELECT 1 FROM events WHERE trace_id IS NOT NULL)
ON CONFLICT DO NOTHING;

-- The '' rows are summed from a key's per-agent rows.
CREATE INDEX run_day_key_idx ON run_day (project_id, bucket, workflow);
CREATE INDEX run_step_day_key_idx ON run_step_day (project_id, bucket, workflow);
CREATE INDEX run_tool_day_key_idx ON run_tool_day (project_id, bucket, workflow);
