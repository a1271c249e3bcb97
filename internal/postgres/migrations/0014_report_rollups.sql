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

-- Sessions (the by/session report). A session's calls normally fall in a
-- few hours, so a 90-day report would read every session's daily rows (ten
-- thousand keys on the benchmark) and rank them all. rollup_session keeps
-- each session's totals over its merged calls (tx below the watermark,
-- like every rollup) with the hours of its first and last call; a report
-- takes the sessions lying wholly inside its whole days from here, most
-- expensive first through rollup_session_cost_idx (costs are never
-- negative, so the top of the window is among the top sessions wholly
-- inside it plus the few keys with calls elsewhere in the window), and the
-- sessions crossing a boundary of those days from their daily rows
-- (rollup_day_session_key_idx). rollup_session_span bounds how long a
-- session lasts, so the sessions crossing a boundary are found by their
-- first hour. Maintained by the merger, re-pricing and the savings
-- backfill (postgres.rollupUpsert), rebuilt from rollup_hour.
CREATE TABLE rollup_session (
    project_id          uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    session_id          text NOT NULL,
    first_hour          timestamptz NOT NULL,
    last_hour           timestamptz NOT NULL,
    calls               bigint NOT NULL,
    input_tokens        bigint NOT NULL,
    output_tokens       bigint NOT NULL,
    cached_tokens       bigint NOT NULL,
    cache_write_tokens  bigint NOT NULL,
    total_tokens        bigint NOT NULL,
    cost_nano           bigint NOT NULL,
    subscription_nano   bigint NOT NULL,
    latency_sum         bigint NOT NULL,
    latency_count       bigint NOT NULL,
    success_calls       bigint NOT NULL,
    unpriced_calls      bigint NOT NULL,
    read_savings_nano   bigint NOT NULL,
    write_premium_nano  bigint NOT NULL,
    events_with_cache   bigint NOT NULL,
    PRIMARY KEY (project_id, session_id)
);
CREATE INDEX rollup_session_cost_idx ON rollup_session (project_id, cost_nano DESC, session_id COLLATE "C");
CREATE INDEX rollup_session_first_idx ON rollup_session (project_id, first_hour);
-- The longest last_hour − first_hour of the project's sessions.
CREATE TABLE rollup_session_span (
    project_id  uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    max_span    interval NOT NULL
);
-- A crossing session's daily rows, by key.
CREATE INDEX rollup_day_session_key_idx ON rollup_day (project_id, key, bucket)
    WHERE dim = 'session' AND agent_name = '';

-- llmcost_rebuild_session_rollups recomputes rollup_session (one project,
-- or every one when p is NULL) from the all-agents hourly session rows,
-- which hold exactly the merged calls: run it after llmcost_rebuild_rollups,
-- under the merger's lock.
CREATE FUNCTION llmcost_rebuild_session_rollups(p uuid) RETURNS void LANGUAGE sql AS $fn$
    DELETE FROM rollup_session WHERE p IS NULL OR project_id = p;
    DELETE FROM rollup_session_span WHERE p IS NULL OR project_id = p;
    INSERT INTO rollup_session
    SELECT project_id, key, min(bucket), max(bucket), sum(calls), sum(input_tokens), sum(output_tokens),
        sum(cached_tokens), sum(cache_write_tokens), sum(total_tokens), sum(cost_nano), sum(subscription_nano),
        sum(latency_sum), sum(latency_count), sum(success_calls), sum(unpriced_calls), sum(read_savings_nano),
        sum(write_premium_nano), sum(events_with_cache)
    FROM rollup_hour
    WHERE (p IS NULL OR project_id = p) AND dim = 'session' AND agent_name = ''
    GROUP BY project_id, key;
    INSERT INTO rollup_session_span
    SELECT project_id, max(last_hour - first_hour) FROM rollup_session
    WHERE p IS NULL OR project_id = p
    GROUP BY project_id;
$fn$;

-- Upgrade: fill them from the rollups as they stand, holding the merger's
-- lock so no merge moves the watermark meanwhile.
SELECT watermark FROM rollup_state FOR UPDATE;
SELECT llmcost_rebuild_session_rollups(NULL);
