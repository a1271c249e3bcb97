-- Per-agent hourly rows for every dimension. Until now only the model
-- dimension kept its per-agent rows hourly (0013); billing, user,
-- session, workflow and tool kept theirs daily, so a report narrowed to
-- one agent by one of them read its partial first and last days from
-- events: a 24-hour window holds no whole day, so all of the agent's
-- calls of the last 24 hours; a longer one up to half a day of them,
-- depending on the hour: a cost that grows with the agent's daily rate.
-- With hourly rows such a read takes its edges as the all-agents reports
-- do: at most half an hour of calls raw.
-- A session or a user works with one agent at a time, so the new rows
-- are about as many as the all-agents rows of those dimensions.
--
-- The rows are added for the calls already merged (tx below the
-- watermark, under the merger's lock, so the merger waits and then folds
-- the tail with the new rows) and still stored: hours whose calls expired
-- before this upgrade keep daily per-agent rows only, which is why a read
-- narrowed to one agent still starts a window that reaches before the raw
-- cutoff at its whole day (reports.Params). A project's hours whose
-- rollups have expired get none (the expiry finds a project's oldest
-- rows by its all-agents ones). Deleted projects are being removed and
-- get none either. On the 2-core development machine its insert took
-- 2 minutes over 11 M merged calls and 5 over 32 M (docs/scale.md);
-- ingest goes on meanwhile, up to the merge backlog's bound (only the
-- merger waits).
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

-- The new rows of the calls already merged, one pass over events, under
-- the merger's lock (the merger's lockState).
SELECT watermark FROM rollup_state FOR UPDATE;
INSERT INTO rollup_hour (project_id, bucket, dim, key, agent_name, calls, input_tokens, output_tokens,
    cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano, latency_sum,
    latency_count, success_calls, unpriced_calls, read_savings_nano, write_premium_nano,
    events_with_cache, failed_cost_nano, traced_calls, output_over_16_calls, output_over_256_calls)
SELECT e.project_id, date_trunc('hour', e.ts, 'UTC'), v.dim, v.key, e.agent_name,
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
CROSS JOIN LATERAL (VALUES ('billing', e.billing), ('user', e.user_id), ('session', e.session_id),
    ('workflow', e.workflow), ('tool', e.tool_name)) AS v(dim, key)
WHERE e.tx < (SELECT watermark FROM rollup_state) AND v.key IS NOT NULL
    AND (p.rollup_expired_before IS NULL OR e.ts >= p.rollup_expired_before)
GROUP BY 1, 2, 3, 4, 5;
