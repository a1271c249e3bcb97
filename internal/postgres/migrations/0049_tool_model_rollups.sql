-- Per-agent rows of each tool and model used together (dimension
-- tool_model, key the tool's length in bytes, a colon, the tool and the
-- model: no separator a tool name could hold would be unambiguous),
-- hourly and daily. The agent view's amount at stake counts each
-- breaching call once; a call that used a forbidden tool with a
-- forbidden model is in both the tool's and the model's rows, and these
-- rows are what to take off (postgres.BreachCost). Only tool calls get
-- one, per agent only: a quarter of the calls in a typical agent stream,
-- a thirteenth row for each of them at merge time.
--
-- The rows are added for the calls already merged and still stored, as
-- 0045 did: a breach on a day whose calls expired before this upgrade
-- may count a call in both its tool and its model (docs/agent-view.md).
-- Deleted projects and expired rollup hours get none.
SET LOCAL statement_timeout = 0;
SET LOCAL work_mem = '256MB';

CREATE OR REPLACE FUNCTION llmcost_rebuild_rollups(p uuid, below bigint) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
    d record;
BEGIN
    DELETE FROM rollup_hour WHERE p IS NULL OR project_id = p;
    DELETE FROM rollup_day WHERE p IS NULL OR project_id = p;
    DELETE FROM rollup_week WHERE p IS NULL OR project_id = p;
    -- Hourly rows of every dimension for all agents (''), and of every
    -- dimension but agent per agent too; days from hours, weeks from days.
    FOR d IN SELECT * FROM (VALUES
        ('agent', 'agent_name', false), ('model', 'model', false), ('model', 'model', true),
        ('billing', 'billing', false), ('billing', 'billing', true), ('user', 'user_id', false),
        ('user', 'user_id', true), ('session', 'session_id', false), ('session', 'session_id', true),
        ('workflow', 'workflow', false), ('workflow', 'workflow', true), ('tool', 'tool_name', false),
        ('tool', 'tool_name', true)) AS v(dim, col, per_agent)
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
    -- Tool and model together, per agent only.
    INSERT INTO rollup_hour (project_id, bucket, dim, key, agent_name, calls, input_tokens, output_tokens,
    cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano, latency_sum,
    latency_count, success_calls, unpriced_calls, read_savings_nano, write_premium_nano,
    events_with_cache, failed_cost_nano, traced_calls, output_over_16_calls, output_over_256_calls)
    SELECT e.project_id, date_trunc('hour', e.ts, 'UTC'), 'tool_model',
        octet_length(e.tool_name) || ':' || e.tool_name || e.model, e.agent_name,
    count(*), sum(e.input_tokens), sum(e.output_tokens), sum(e.cached_tokens),
    sum(e.cache_write_tokens + e.cache_write_1h_tokens), sum(e.total_tokens), sum(e.cost_nano),
    sum(CASE WHEN e.billing = 'subscription' THEN e.cost_nano ELSE 0 END),
    coalesce(sum(e.latency_ms), 0), count(e.latency_ms), count(*) FILTER (WHERE e.success),
    count(*) FILTER (WHERE NOT e.priced), sum(e.read_savings_nano), sum(e.write_premium_nano),
    count(*) FILTER (WHERE e.cached_tokens + e.cache_write_tokens + e.cache_write_1h_tokens > 0),
    coalesce(sum(e.cost_nano) FILTER (WHERE NOT e.success), 0), count(e.trace_id),
    count(*) FILTER (WHERE e.output_tokens > 16), count(*) FILTER (WHERE e.output_tokens > 256)
    FROM events e
    WHERE (p IS NULL OR e.project_id = p) AND e.tx < below AND e.tool_name IS NOT NULL
    GROUP BY 1, 2, 4, 5;
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

-- The new rows of the calls already merged, hourly and daily, under the
-- merger's lock (the merger's lockState).
SELECT watermark FROM rollup_state FOR UPDATE;
WITH h AS (
    INSERT INTO rollup_hour (project_id, bucket, dim, key, agent_name, calls, input_tokens, output_tokens,
    cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano, latency_sum,
    latency_count, success_calls, unpriced_calls, read_savings_nano, write_premium_nano,
    events_with_cache, failed_cost_nano, traced_calls, output_over_16_calls, output_over_256_calls)
    SELECT e.project_id, date_trunc('hour', e.ts, 'UTC'), 'tool_model',
        octet_length(e.tool_name) || ':' || e.tool_name || e.model, e.agent_name,
    count(*), sum(e.input_tokens), sum(e.output_tokens), sum(e.cached_tokens),
    sum(e.cache_write_tokens + e.cache_write_1h_tokens), sum(e.total_tokens), sum(e.cost_nano),
    sum(CASE WHEN e.billing = 'subscription' THEN e.cost_nano ELSE 0 END),
    coalesce(sum(e.latency_ms), 0), count(e.latency_ms), count(*) FILTER (WHERE e.success),
    count(*) FILTER (WHERE NOT e.priced), sum(e.read_savings_nano), sum(e.write_premium_nano),
    count(*) FILTER (WHERE e.cached_tokens + e.cache_write_tokens + e.cache_write_1h_tokens > 0),
    coalesce(sum(e.cost_nano) FILTER (WHERE NOT e.success), 0), count(e.trace_id),
    count(*) FILTER (WHERE e.output_tokens > 16), count(*) FILTER (WHERE e.output_tokens > 256)
    FROM events e
    JOIN projects p ON p.id = e.project_id AND p.deleted_at IS NULL
    WHERE e.tx < (SELECT watermark FROM rollup_state) AND e.tool_name IS NOT NULL
        AND (p.rollup_expired_before IS NULL OR e.ts >= p.rollup_expired_before)
    GROUP BY 1, 2, 4, 5
    RETURNING *
)
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
FROM h
GROUP BY 1, 2, 3, 4, 5;
