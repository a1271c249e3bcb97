-- Daily run rollups per tag value (docs/tags.md "Runs"): besides the rows
-- over every run (tag ''), run_day, run_step_day, run_tool_day and
-- run_tool_all_day keep the same rows per element of the runs' tags
-- (key=value, migration 0035): run_day per agent and for agent '' as
-- the others, the step and tool rows for agent '' only (no report reads
-- one agent's steps or tools under a tag).
-- A run report narrowed to a tag value then reads a row per day and key,
-- as an unnarrowed one does, instead of every run of its window (a 90-day
-- window of 10 M calls: over a million runs, 0.4-0.9 s).
--
-- The tag leads the key after the project: the rows over every run
-- (tag '') stay one contiguous range, whether read for one agent, for ''
-- or for every agent (the agents summary), and so do one value's rows.
ALTER TABLE run_day ADD COLUMN tag text NOT NULL DEFAULT '';
ALTER TABLE run_day DROP CONSTRAINT run_day_pkey,
    ADD PRIMARY KEY (project_id, tag, agent_name, bucket, workflow);
ALTER TABLE run_step_day ADD COLUMN tag text NOT NULL DEFAULT '';
ALTER TABLE run_step_day DROP CONSTRAINT run_step_day_pkey,
    ADD PRIMARY KEY (project_id, tag, agent_name, bucket, workflow, name);
ALTER TABLE run_tool_day ADD COLUMN tag text NOT NULL DEFAULT '';
ALTER TABLE run_tool_day DROP CONSTRAINT run_tool_day_pkey,
    ADD PRIMARY KEY (project_id, tag, agent_name, bucket, workflow, name);
ALTER TABLE run_tool_all_day ADD COLUMN tag text NOT NULL DEFAULT '';
ALTER TABLE run_tool_all_day DROP CONSTRAINT run_tool_all_day_pkey,
    ADD PRIMARY KEY (project_id, tag, agent_name, bucket, name);

-- The tagged runs stored so far, summed as postgres.dayInserts sums them
-- (each run with the outcome it is counted with, runs.outcome).
INSERT INTO run_day (project_id, tag, agent_name, bucket, workflow, runs, cost_nano, max_cost_nano, calls, steps,
    max_depth, success_calls, succeeded, failed, success_cost, failure_cost)
SELECT r.project_id, t.tag, a.agent, date_trunc('day', r.first_ts, 'UTC'), coalesce(r.workflow, ''), count(*),
    sum(r.cost_nano), max(r.cost_nano), sum(r.calls), sum(r.steps), max(r.max_depth), sum(r.success_calls),
    count(*) FILTER (WHERE r.outcome), count(*) FILTER (WHERE NOT r.outcome),
    coalesce(sum(r.cost_nano) FILTER (WHERE r.outcome), 0), coalesce(sum(r.cost_nano) FILTER (WHERE NOT r.outcome), 0)
FROM runs r CROSS JOIN LATERAL unnest(r.tags) AS t(tag) CROSS JOIN LATERAL (VALUES (r.agent_name), ('')) AS a(agent)
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO run_step_day (project_id, tag, agent_name, bucket, workflow, name, calls, runs, cost_nano, tokens,
    latency_sum, latency_count, success_calls)
SELECT r.project_id, t.tag, '', date_trunc('day', r.first_ts, 'UTC'), coalesce(r.workflow, ''), s.step_name,
    sum(s.calls), count(*), sum(s.cost_nano), sum(s.tokens), sum(s.latency_sum), sum(s.latency_count),
    sum(s.success_calls)
FROM runs r CROSS JOIN LATERAL unnest(r.tags) AS t(tag)
JOIN run_steps s ON s.project_id = r.project_id AND s.trace_id = r.trace_id
GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO run_tool_day (project_id, tag, agent_name, bucket, workflow, name, calls, runs, cost_nano, tokens,
    latency_sum, latency_count, success_calls)
SELECT r.project_id, t.tag, '', date_trunc('day', r.first_ts, 'UTC'), coalesce(r.workflow, ''), s.tool_name,
    sum(s.calls), count(*), sum(s.cost_nano), sum(s.tokens), sum(s.latency_sum), sum(s.latency_count),
    sum(s.success_calls)
FROM runs r CROSS JOIN LATERAL unnest(r.tags) AS t(tag)
JOIN run_tools s ON s.project_id = r.project_id AND s.trace_id = r.trace_id
GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO run_tool_all_day (project_id, tag, agent_name, bucket, name, calls, runs, cost_nano, tokens,
    latency_sum, latency_count, success_calls)
SELECT project_id, tag, agent_name, bucket, name, sum(calls), sum(runs), sum(cost_nano), sum(tokens),
    sum(latency_sum), sum(latency_count), sum(success_calls)
FROM run_tool_day WHERE tag <> ''
GROUP BY 1, 2, 3, 4, 5;
