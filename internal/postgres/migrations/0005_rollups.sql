-- Spend-report rollups (docs/analytics.md). Reports read pre-aggregated rows
-- instead of scanning events: hourly, daily and weekly tables of the same
-- shape, merged asynchronously from events (postgres.MergeRollups) rather
-- than in the ingest statement, which kept ingest at a fifth of raw COPY.
-- Reports stay exact at every instant: they add the events not yet merged
-- (the tail) to the rollups, in one snapshot.

-- Per-call cache economics, priced with the call's own rates when it is
-- stored (or re-priced): savings cannot be summed from tokens later because
-- every model has its own rates.
ALTER TABLE events
    ADD COLUMN read_savings_nano  bigint NOT NULL DEFAULT 0,
    ADD COLUMN write_premium_nano bigint NOT NULL DEFAULT 0;

-- The inserting transaction's id. Rows already stored take 0 (a constant
-- default does not rewrite the table); new rows take their transaction's.
-- A row with tx below rollup_state.watermark is in the rollups, any other
-- is in the tail. Rows arrive in roughly increasing tx order, so a BRIN
-- index finds the tail for the cost of a few summary tuples.
ALTER TABLE events ADD COLUMN tx bigint NOT NULL DEFAULT 0;
ALTER TABLE events ALTER COLUMN tx SET DEFAULT (pg_current_xact_id()::text)::bigint;
CREATE INDEX events_tx_brin ON events USING brin (tx) WITH (pages_per_range = 32, autosummarize = on);

-- One row: every event with tx < watermark is in the rollups. Only the
-- merger moves it, holding this row's lock (FOR UPDATE), which re-pricing
-- and rebuilds take too.
CREATE TABLE rollup_state (
    one       bool PRIMARY KEY DEFAULT true CHECK (one),
    watermark bigint NOT NULL
);

-- One row per (project, bucket, dimension, key, agent). Dimensions:
--   agent    key = agent_name, agent_name = ''  (overview, agents, timeseries, cache)
--   model, billing, user, session, workflow, tool
--            agent_name = '' (all agents) hourly and daily, so an unfiltered
--            report never sums across agents at read time, and
--            agent_name = the call's agent daily only (an hourly row per
--            agent and key would be close to one row per call); reports
--            narrowed to one agent read that agent's edge hours from events.
-- A call without a value for a dimension adds no row for it.
CREATE TABLE rollup_hour (
    project_id          uuid NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    bucket              timestamptz NOT NULL,
    dim                 text NOT NULL,
    key                 text NOT NULL,
    agent_name          text NOT NULL,
    calls               bigint NOT NULL,
    input_tokens        bigint NOT NULL,
    output_tokens       bigint NOT NULL,
    cached_tokens       bigint NOT NULL,
    cache_write_tokens  bigint NOT NULL, -- five-minute and one-hour writes
    total_tokens        bigint NOT NULL,
    cost_nano           bigint NOT NULL,
    subscription_nano   bigint NOT NULL, -- cost of calls with billing subscription
    latency_sum         bigint NOT NULL,
    latency_count       bigint NOT NULL,
    success_calls       bigint NOT NULL,
    unpriced_calls      bigint NOT NULL,
    read_savings_nano   bigint NOT NULL,
    write_premium_nano  bigint NOT NULL,
    events_with_cache   bigint NOT NULL,
    PRIMARY KEY (project_id, dim, agent_name, bucket, key)
);
CREATE TABLE rollup_day (LIKE rollup_hour INCLUDING ALL);
ALTER TABLE rollup_day ADD FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE;
-- Seven-day blocks from a UTC Monday, for the user dimension only: a
-- 90-day report by user reads about 13 rows per user instead of 90.
CREATE TABLE rollup_week (LIKE rollup_hour INCLUDING ALL);
ALTER TABLE rollup_week ADD FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE;

-- The agent report narrowed to one agent reads its rows by key.
CREATE INDEX rollup_hour_agent_key_idx ON rollup_hour (project_id, key, bucket) WHERE dim = 'agent';
CREATE INDEX rollup_day_agent_key_idx ON rollup_day (project_id, key, bucket) WHERE dim = 'agent';

-- llmcost_rebuild_rollups recomputes one project's rollups (every project
-- when p is NULL) from its events with tx < below (the watermark the caller
-- then sets, holding the rollup_state lock): the upgrade backfill below and
-- RebuildRollups (after a bulk COPY) run this same SQL. Hours come from
-- events, days from hours.
CREATE FUNCTION llmcost_rebuild_rollups(p uuid, below bigint) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
    d record;
BEGIN
    DELETE FROM rollup_hour WHERE p IS NULL OR project_id = p;
    DELETE FROM rollup_day WHERE p IS NULL OR project_id = p;
    DELETE FROM rollup_week WHERE p IS NULL OR project_id = p;
    FOR d IN SELECT * FROM (VALUES
        ('agent', 'agent_name'), ('model', 'model'), ('billing', 'billing'), ('user', 'user_id'),
        ('session', 'session_id'), ('workflow', 'workflow'), ('tool', 'tool_name')) AS v(dim, col)
    LOOP
        EXECUTE format($q$
            INSERT INTO rollup_hour
            SELECT project_id, date_trunc('hour', ts, 'UTC'), %1$L, %2$I, '',
                count(*), sum(input_tokens), sum(output_tokens), sum(cached_tokens),
                sum(cache_write_tokens + cache_write_1h_tokens), sum(total_tokens), sum(cost_nano),
                sum(CASE WHEN billing = 'subscription' THEN cost_nano ELSE 0 END),
                coalesce(sum(latency_ms), 0), count(latency_ms), count(*) FILTER (WHERE success),
                count(*) FILTER (WHERE NOT priced), sum(read_savings_nano), sum(write_premium_nano),
                count(*) FILTER (WHERE cached_tokens + cache_write_tokens + cache_write_1h_tokens > 0)
            FROM events
            WHERE ($1 IS NULL OR project_id = $1) AND tx < $2 AND %2$I IS NOT NULL
            GROUP BY 1, 2, %2$I$q$, d.dim, d.col) USING p, below;
    END LOOP;
    INSERT INTO rollup_day
    SELECT project_id, date_trunc('day', bucket, 'UTC'), dim, key, agent_name,
        sum(calls), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(cache_write_tokens),
        sum(total_tokens), sum(cost_nano), sum(subscription_nano), sum(latency_sum), sum(latency_count),
        sum(success_calls), sum(unpriced_calls), sum(read_savings_nano), sum(write_premium_nano),
        sum(events_with_cache)
    FROM rollup_hour
    WHERE p IS NULL OR project_id = p
    GROUP BY 1, 2, 3, 4, 5;
    -- Per-agent rows exist only per day: from events.
    FOR d IN SELECT * FROM (VALUES ('model', 'model'), ('billing', 'billing'), ('user', 'user_id'),
        ('session', 'session_id'), ('workflow', 'workflow'), ('tool', 'tool_name')) AS v(dim, col)
    LOOP
        EXECUTE format($q$
            INSERT INTO rollup_day
            SELECT project_id, date_trunc('day', ts, 'UTC'), %1$L, %2$I, agent_name,
                count(*), sum(input_tokens), sum(output_tokens), sum(cached_tokens),
                sum(cache_write_tokens + cache_write_1h_tokens), sum(total_tokens), sum(cost_nano),
                sum(CASE WHEN billing = 'subscription' THEN cost_nano ELSE 0 END),
                coalesce(sum(latency_ms), 0), count(latency_ms), count(*) FILTER (WHERE success),
                count(*) FILTER (WHERE NOT priced), sum(read_savings_nano), sum(write_premium_nano),
                count(*) FILTER (WHERE cached_tokens + cache_write_tokens + cache_write_1h_tokens > 0)
            FROM events
            WHERE ($1 IS NULL OR project_id = $1) AND tx < $2 AND %2$I IS NOT NULL
            GROUP BY 1, 2, 5, %2$I$q$, d.dim, d.col) USING p, below;
    END LOOP;
    INSERT INTO rollup_week
    SELECT project_id, date_bin('7 days', bucket, timestamptz '2000-01-03 00:00:00+00'), dim, key, agent_name,
        sum(calls), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(cache_write_tokens),
        sum(total_tokens), sum(cost_nano), sum(subscription_nano), sum(latency_sum), sum(latency_count),
        sum(success_calls), sum(unpriced_calls), sum(read_savings_nano), sum(write_premium_nano),
        sum(events_with_cache)
    FROM rollup_day
    WHERE (p IS NULL OR project_id = p) AND dim = 'user'
    GROUP BY 1, 2, 3, 4, 5;
END
$fn$;

-- Upgrading a database that already holds events: fill the rollups. Older
-- events get their cache savings computed by the server after migrating
-- (postgres.BackfillSavings, with the catalogue version that priced each
-- call), which also corrects these rows; a pending row says it is due.
-- Every stored event has tx 0 and this transaction is the only writer of
-- the new tables, so rebuilding below 1 covers them all.
SET LOCAL work_mem = '256MB'; -- the GROUP BYs over every event stay in memory
SELECT llmcost_rebuild_rollups(NULL, 1);
INSERT INTO rollup_state (watermark) VALUES (1);

CREATE TABLE pending_backfills (name text PRIMARY KEY);
INSERT INTO pending_backfills (name)
SELECT 'cache_savings' WHERE EXISTS (
    SELECT 1 FROM events WHERE priced AND cached_tokens + cache_write_tokens + cache_write_1h_tokens > 0);
