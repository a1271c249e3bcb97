-- Agent view (docs/agent-view.md): the per-agent figures the agent summary
-- and the optimisation suggestions need, kept in the rollups instead of
-- read from events. Every one is a plain sum, so the merger, re-pricing
-- and the savings backfill fold them like the other columns:
--   failed_cost_nano       cost of calls with success false
--   traced_calls           calls that carry a trace_id (the untraced signal)
--   output_over_16_calls   calls whose output exceeded 16 tokens (the
--                          classification signal: none in the window)
--   output_over_256_calls  calls whose output exceeded 256 tokens (the
--                          short-output model_downgrade: none in 30 days)
-- A count of calls above a threshold answers "output never above N" over
-- any window by addition, which a maximum cannot do under re-pricing deltas.
ALTER TABLE rollup_hour
    ADD COLUMN failed_cost_nano      bigint NOT NULL DEFAULT 0,
    ADD COLUMN traced_calls          bigint NOT NULL DEFAULT 0,
    ADD COLUMN output_over_16_calls  bigint NOT NULL DEFAULT 0,
    ADD COLUMN output_over_256_calls bigint NOT NULL DEFAULT 0;
ALTER TABLE rollup_day
    ADD COLUMN failed_cost_nano      bigint NOT NULL DEFAULT 0,
    ADD COLUMN traced_calls          bigint NOT NULL DEFAULT 0,
    ADD COLUMN output_over_16_calls  bigint NOT NULL DEFAULT 0,
    ADD COLUMN output_over_256_calls bigint NOT NULL DEFAULT 0;
ALTER TABLE rollup_week
    ADD COLUMN failed_cost_nano      bigint NOT NULL DEFAULT 0,
    ADD COLUMN traced_calls          bigint NOT NULL DEFAULT 0,
    ADD COLUMN output_over_16_calls  bigint NOT NULL DEFAULT 0,
    ADD COLUMN output_over_256_calls bigint NOT NULL DEFAULT 0;

-- The model dimension now also keeps per-agent rows hourly (agents × models
-- is small), so the agent summary reads every agent's models over a window
-- from rollups, edge hours included, instead of a day of raw events.
CREATE OR REPLACE FUNCTION llmcost_rebuild_rollups(p uuid, below bigint) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
    d record;
BEGIN
    DELETE FROM rollup_hour WHERE p IS NULL OR project_id = p;
    DELETE FROM rollup_day WHERE p IS NULL OR project_id = p;
    DELETE FROM rollup_week WHERE p IS NULL OR project_id = p;
    -- Hourly rows: every dimension for all agents (''), and the model
    -- dimension per agent too.
    FOR d IN SELECT * FROM (VALUES
        ('agent', 'agent_name', false), ('model', 'model', false), ('model', 'model', true),
        ('billing', 'billing', false), ('user', 'user_id', false), ('session', 'session_id', false),
        ('workflow', 'workflow', false), ('tool', 'tool_name', false)) AS v(dim, col, per_agent)
    LOOP
        EXECUTE format($q$
            INSERT INTO rollup_hour (project_id, bucket, dim, key, agent_name, calls, input_tokens, output_tokens,
                cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano, latency_sum,
                latency_count, success_calls, unpriced_calls, read_savings_nano, write_premium_nano,
                events_with_cache, failed_cost_nano, traced_calls, output_over_16_calls, output_over_256_calls)
            SELECT project_id, date_trunc('hour', ts, 'UTC'), %1$L, %2$I, CASE WHEN %3$L THEN agent_name ELSE '' END,
                count(*), sum(input_tokens), sum(output_tokens), sum(cached_tokens),
                sum(cache_write_tokens + cache_write_1h_tokens), sum(total_tokens), sum(cost_nano),
                sum(CASE WHEN billing = 'subscription' THEN cost_nano ELSE 0 END),
                coalesce(sum(latency_ms), 0), count(latency_ms), count(*) FILTER (WHERE success),
                count(*) FILTER (WHERE NOT priced), sum(read_savings_nano), sum(write_premium_nano),
                count(*) FILTER (WHERE cached_tokens + cache_write_tokens + cache_write_1h_tokens > 0),
                coalesce(sum(cost_nano) FILTER (WHERE NOT success), 0), count(trace_id),
                count(*) FILTER (WHERE output_tokens > 16), count(*) FILTER (WHERE output_tokens > 256)
            FROM events
            WHERE ($1 IS NULL OR project_id = $1) AND tx < $2 AND %2$I IS NOT NULL
            GROUP BY 1, 2, 5, %2$I$q$, d.dim, d.col, d.per_agent) USING p, below;
    END LOOP;
    INSERT INTO rollup_day (project_id, bucket, dim, key, agent_name, calls, input_tokens, output_tokens,
        cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano, latency_sum,
        latency_count, success_calls, unpriced_calls, read_savings_nano, write_premium_nano,
        events_with_cache, failed_cost_nano, traced_calls, output_over_16_calls, output_over_256_calls)
    SELECT project_id, date_trunc('day', bucket, 'UTC'), dim, key, agent_name,
        sum(calls), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(cache_write_tokens),
        sum(total_tokens), sum(cost_nano), sum(subscription_nano), sum(latency_sum), sum(latency_count),
        sum(success_calls), sum(unpriced_calls), sum(read_savings_nano), sum(write_premium_nano),
        sum(events_with_cache), sum(failed_cost_nano), sum(traced_calls), sum(output_over_16_calls),
        sum(output_over_256_calls)
    FROM rollup_hour
    WHERE p IS NULL OR project_id = p
    GROUP BY 1, 2, 3, 4, 5;
    -- The other per-agent rows exist only per day: from events.
    FOR d IN SELECT * FROM (VALUES ('billing', 'billing'), ('user', 'user_id'),
        ('session', 'session_id'), ('workflow', 'workflow'), ('tool', 'tool_name')) AS v(dim, col)
    LOOP
        EXECUTE format($q$
            INSERT INTO rollup_day (project_id, bucket, dim, key, agent_name, calls, input_tokens, output_tokens,
                cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano, latency_sum,
                latency_count, success_calls, unpriced_calls, read_savings_nano, write_premium_nano,
                events_with_cache, failed_cost_nano, traced_calls, output_over_16_calls, output_over_256_calls)
            SELECT project_id, date_trunc('day', ts, 'UTC'), %1$L, %2$I, agent_name,
                count(*), sum(input_tokens), sum(output_tokens), sum(cached_tokens),
                sum(cache_write_tokens + cache_write_1h_tokens), sum(total_tokens), sum(cost_nano),
                sum(CASE WHEN billing = 'subscription' THEN cost_nano ELSE 0 END),
                coalesce(sum(latency_ms), 0), count(latency_ms), count(*) FILTER (WHERE success),
                count(*) FILTER (WHERE NOT priced), sum(read_savings_nano), sum(write_premium_nano),
                count(*) FILTER (WHERE cached_tokens + cache_write_tokens + cache_write_1h_tokens > 0),
                coalesce(sum(cost_nano) FILTER (WHERE NOT success), 0), count(trace_id),
                count(*) FILTER (WHERE output_tokens > 16), count(*) FILTER (WHERE output_tokens > 256)
            FROM events
            WHERE ($1 IS NULL OR project_id = $1) AND tx < $2 AND %2$I IS NOT NULL
            GROUP BY 1, 2, 5, %2$I$q$, d.dim, d.col) USING p, below;
    END LOOP;
    INSERT INTO rollup_week (project_id, bucket, dim, key, agent_name, calls, input_tokens, output_tokens,
        cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano, latency_sum,
        latency_count, success_calls, unpriced_calls, read_savings_nano, write_premium_nano,
        events_with_cache, failed_cost_nano, traced_calls, output_over_16_calls, output_over_256_calls)
    SELECT project_id, date_bin('7 days', bucket, timestamptz '2000-01-03 00:00:00+00'), dim, key, agent_name,
        sum(calls), sum(input_tokens), sum(output_tokens), sum(cached_tokens), sum(cache_write_tokens),
        sum(total_tokens), sum(cost_nano), sum(subscription_nano), sum(latency_sum), sum(latency_count),
        sum(success_calls), sum(unpriced_calls), sum(read_savings_nano), sum(write_premium_nano),
        sum(events_with_cache), sum(failed_cost_nano), sum(traced_calls), sum(output_over_16_calls),
        sum(output_over_256_calls)
    FROM rollup_day
    WHERE (p IS NULL OR project_id = p) AND dim = 'user'
    GROUP BY 1, 2, 3, 4, 5;
END
$fn$;

-- Fill the new columns and rows for the events already merged, under the
-- merger's lock: events at or above the watermark are the tail, which the
-- merger folds with the new columns.
SET LOCAL work_mem = '256MB';
SELECT llmcost_rebuild_rollups(NULL, (SELECT watermark FROM rollup_state FOR UPDATE));
