-- Runs (docs/analytics.md "Runs"): the calls of a project that share a
-- trace_id, summed per run as calls arrive, in the ingest transaction, so
-- the workflow reports and the guardrails' per-run limits read one row per
-- run instead of its calls. Every table here is derived from events by
-- internal/runs (a pure function of a run's stored calls) and can be
-- rebuilt from them (RebuildRuns).

-- A hash of the request the client made: two calls of one run with the
-- same workflow, step, tool, model, input tokens and request_hash (none
-- matches none) are repeated work.
ALTER TABLE events ADD COLUMN request_hash text;

-- One row per run that has at least one stored call. agent_name is the
-- agent of the first call (the agent_name filter of the run reports);
-- workflow the first non-empty one by (ts, event_id); last_end the latest
-- ts + latency_ms. outcome is the run's outcome as of the last refresh
-- (NULL: none declared); the reports read the outcomes table itself.
CREATE TABLE runs (
    project_id      uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    trace_id        text NOT NULL,
    agent_name      text NOT NULL,
    workflow        text,
    first_ts        timestamptz NOT NULL,
    first_event_id  text NOT NULL,
    last_end        timestamptz NOT NULL,
    calls           bigint NOT NULL,
    cost_nano       bigint NOT NULL,
    tool_calls      bigint NOT NULL,
    failed_calls    bigint NOT NULL,
    success_calls   bigint NOT NULL,
    tokens          bigint NOT NULL,
    max_depth       bigint NOT NULL,
    steps           bigint NOT NULL, -- distinct non-empty step names
    PRIMARY KEY (project_id, trace_id)
);
CREATE INDEX runs_project_first_idx ON runs (project_id, first_ts);
CREATE INDEX runs_project_agent_first_idx ON runs (project_id, agent_name, first_ts);
-- The distribution and the reports narrowed to one workflow.
CREATE INDEX runs_project_workflow_first_idx ON runs (project_id, workflow, first_ts);
-- The most expensive runs first (traces).
CREATE INDEX runs_project_cost_idx ON runs (project_id, cost_nano DESC, trace_id);

-- Per run and step name / tool name: the sums the step and tool reports
-- group (calls without a step or tool name add nothing).
CREATE TABLE run_steps (
    project_id     uuid NOT NULL,
    trace_id       text NOT NULL,
    step_name      text NOT NULL,
    calls          bigint NOT NULL,
    cost_nano      bigint NOT NULL,
    tokens         bigint NOT NULL,
    latency_sum    bigint NOT NULL,
    latency_count  bigint NOT NULL,
    success_calls  bigint NOT NULL,
    PRIMARY KEY (project_id, trace_id, step_name),
    FOREIGN KEY (project_id, trace_id) REFERENCES runs (project_id, trace_id) ON DELETE CASCADE
);
CREATE TABLE run_tools (LIKE run_steps INCLUDING ALL);
ALTER TABLE run_tools RENAME COLUMN step_name TO tool_name;
ALTER TABLE run_tools ADD FOREIGN KEY (project_id, trace_id) REFERENCES runs (project_id, trace_id) ON DELETE CASCADE;

-- Groups of two or more identical calls inside one run.
CREATE TABLE run_repeats (
    project_id    uuid NOT NULL,
    trace_id      text NOT NULL,
    seq           int NOT NULL, -- order of first occurrence in the run
    workflow      text,
    step_name     text,
    tool_name     text,
    model         text NOT NULL,
    input_tokens  bigint NOT NULL,
    request_hash  text,
    occurrences   bigint NOT NULL,
    spend_nano    bigint NOT NULL,
    wasted_nano   bigint NOT NULL,
    first_seen    timestamptz NOT NULL,
    PRIMARY KEY (project_id, trace_id, seq),
    FOREIGN KEY (project_id, trace_id) REFERENCES runs (project_id, trace_id) ON DELETE CASCADE
);

-- A database that already holds traced events fills the run tables once at
-- start (BackfillRuns, Go: the run computation is internal/runs).
INSERT INTO pending_backfills (name)
SELECT 'runs' WHERE EXISTS (SELECT 1 FROM events WHERE trace_id IS NOT NULL);
