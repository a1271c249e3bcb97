-- Two follow-ups of 0013 (agent view) and 0014 (report rollups), kept in a
-- migration of their own so a database that applied either stays valid.
--
-- 1. The per-agent model read (agent_name <> '') cannot range over the
-- primary key's bucket, which follows agent_name: these indexes find the
-- window's rows by bucket.
CREATE INDEX rollup_hour_model_agents_idx ON rollup_hour (project_id, bucket) WHERE dim = 'model' AND agent_name <> '';
CREATE INDEX rollup_day_model_agents_idx ON rollup_day (project_id, bucket) WHERE dim = 'model' AND agent_name <> '';

-- 2. rollup_session keeps every summed column the other rollups keep
-- (postgres.rollupSums), 0013's four agent-view sums included, so a
-- session's totals read from it equal those read from its hourly rows.
ALTER TABLE rollup_session
    ADD COLUMN failed_cost_nano      bigint NOT NULL DEFAULT 0,
    ADD COLUMN traced_calls          bigint NOT NULL DEFAULT 0,
    ADD COLUMN output_over_16_calls  bigint NOT NULL DEFAULT 0,
    ADD COLUMN output_over_256_calls bigint NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION llmcost_rebuild_session_rollups(p uuid) RETURNS void LANGUAGE sql AS $fn$
    DELETE FROM rollup_session WHERE p IS NULL OR project_id = p;
    DELETE FROM rollup_session_span WHERE p IS NULL OR project_id = p;
    INSERT INTO rollup_session (project_id, session_id, first_hour, last_hour, calls, input_tokens, output_tokens,
        cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano, latency_sum, latency_count,
        success_calls, unpriced_calls, read_savings_nano, write_premium_nano, events_with_cache, failed_cost_nano,
        traced_calls, output_over_16_calls, output_over_256_calls)
    SELECT project_id, key, min(bucket), max(bucket), sum(calls), sum(input_tokens), sum(output_tokens),
        sum(cached_tokens), sum(cache_write_tokens), sum(total_tokens), sum(cost_nano), sum(subscription_nano),
        sum(latency_sum), sum(latency_count), sum(success_calls), sum(unpriced_calls), sum(read_savings_nano),
        sum(write_premium_nano), sum(events_with_cache), sum(failed_cost_nano), sum(traced_calls),
        sum(output_over_16_calls), sum(output_over_256_calls)
    FROM rollup_hour
    WHERE (p IS NULL OR project_id = p) AND dim = 'session' AND agent_name = ''
    GROUP BY project_id, key;
    INSERT INTO rollup_session_span
    SELECT project_id, max(last_hour - first_hour) FROM rollup_session
    WHERE p IS NULL OR project_id = p
    GROUP BY project_id;
$fn$;

-- Upgrade: refill from the rollups as they stand, under the merger's lock.
SELECT watermark FROM rollup_state FOR UPDATE;
SELECT llmcost_rebuild_session_rollups(NULL);
