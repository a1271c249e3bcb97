-- Sums per key, unordered and unlimited: a per-agent read (a thousand agent
-- and model keys) that the caller groups and sorts itself; ranking them for
-- a limit (by_key.sql) cost several times the reading.
--
-- Parameters:
--   @project_id  uuid  the project
--   @dim         text  the dimension
--
-- src is window.sql's rows (the window marker; as written, every hourly
-- row of the dimension).
WITH src AS (
  /* TEMPLATE_BEGIN: window */ SELECT bucket AS t, r.* FROM rollup_hour r WHERE r.project_id = @project_id AND r.dim = @dim /* TEMPLATE_END */
)
SELECT key,
  sum(calls)::bigint, sum(input_tokens)::bigint, sum(output_tokens)::bigint, sum(cached_tokens)::bigint,
  sum(cache_write_tokens)::bigint, sum(total_tokens)::bigint, sum(cost_nano)::bigint, sum(subscription_nano)::bigint,
  sum(latency_sum)::bigint, sum(latency_count)::bigint, sum(success_calls)::bigint, sum(unpriced_calls)::bigint,
  sum(read_savings_nano)::bigint, sum(write_premium_nano)::bigint, sum(events_with_cache)::bigint,
  sum(failed_cost_nano)::bigint, sum(traced_calls)::bigint, sum(output_over_16_calls)::bigint,
  sum(output_over_256_calls)::bigint
FROM src
GROUP BY key
HAVING sum(calls) <> 0 /* nets to no call: all of it in an edge hour, outside the window (window.sql) */
