-- Agent detail (docs/agent-view.md): its two slowest reads at 10 M events.
--
-- 1. Steps. The detail's step rows were the agent's runs of the window
-- (runs by agent and first call) joined to run_steps by trace: some 8,000
-- runs and 24,000 step rows at 30 days, each on its own heap page (400–800
-- ms). The step facts (models, tool flag) were read from the agent's calls
-- of the window, another 73,000 heap rows. run_steps now carries its run's
-- agent and first call, each step's tool calls and distinct models, and an
-- index on (project, agent, first call) that holds every column the detail
-- reads, so both come from one index-only range scan.
ALTER TABLE run_steps
    ADD COLUMN agent_name text,
    ADD COLUMN first_ts   timestamptz,
    ADD COLUMN tool_calls bigint NOT NULL DEFAULT 0,
    ADD COLUMN models     text[] NOT NULL DEFAULT '{}';
-- Byte order (COLLATE "C"), as internal/runs sorts them.
UPDATE run_steps s SET agent_name = r.agent_name, first_ts = r.first_ts, tool_calls = f.tool_calls, models = f.models
FROM runs r, (
    SELECT project_id, trace_id, step_name, count(tool_name) AS tool_calls,
        array_agg(DISTINCT model COLLATE "C" ORDER BY model COLLATE "C") AS models
    FROM events WHERE trace_id IS NOT NULL AND step_name IS NOT NULL
    GROUP BY 1, 2, 3) f
WHERE r.project_id = s.project_id AND r.trace_id = s.trace_id
  AND f.project_id = s.project_id AND f.trace_id = s.trace_id AND f.step_name = s.step_name;
ALTER TABLE run_steps ALTER COLUMN agent_name SET NOT NULL, ALTER COLUMN first_ts SET NOT NULL;
CREATE INDEX run_steps_agent_first_idx ON run_steps (project_id, agent_name, first_ts)
    INCLUDE (step_name, calls, cost_nano, success_calls, tool_calls, models);

-- 2. Latencies. The detail's percentiles are exact over the agent's calls
-- of the window (73,000 at 30 days); the index it reads them through now
-- holds latency_ms, so they come from an index-only scan instead of the
-- events' heap. Same key columns as the index it replaces, so every other
-- read by agent keeps its plan.
CREATE INDEX events_project_agent_ts_lat_idx ON events (project_id, agent_name, ts DESC) INCLUDE (latency_ms);
DROP INDEX events_project_agent_ts_idx;
-- Index-only scans skip the heap only for pages the visibility map marks
-- all-visible, which a vacuum sets: vacuum the append-only events table
-- after 1 % new rows instead of the default 20 %.
ALTER TABLE events SET (autovacuum_vacuum_insert_scale_factor = 0.01);
