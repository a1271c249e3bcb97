-- /v1/analytics/full: src holds the agent and the model dimensions of one
-- decomposition (window.sql with @dims = {agent, model}); each key's sums
-- (dim agent or model, b NULL, the dimension's total cost last), then,
-- when the time series has the same decomposition, its buckets of
-- @bucket_secs seconds from the agent rows of the same rows (dim 'bucket',
-- key NULL; the buckets marker, empty when the series is read apart).
-- Ordering and the limit are applied by the caller: the keys are few (one
-- row per agent and per model), and sorting them once in Go spares a
-- second grouping pass.
--
-- Parameters:
--   @project_id   uuid    the project
--   @dims         text[]  the dimensions read, {agent, model}
--   @bucket_secs  float8  the width of a bucket in seconds
--
-- src is window.sql's rows (the window marker; as written, every hourly
-- row of both dimensions).
WITH src AS (
  /* TEMPLATE_BEGIN: window */ SELECT bucket AS t, r.* FROM rollup_hour r WHERE r.project_id = @project_id AND r.dim = ANY(@dims::text[]) /* TEMPLATE_END */
), g AS (
  SELECT dim, key,
    sum(calls)::bigint AS calls, sum(input_tokens)::bigint AS input_tokens,
    sum(output_tokens)::bigint AS output_tokens, sum(cached_tokens)::bigint AS cached_tokens,
    sum(cache_write_tokens)::bigint AS cache_write_tokens, sum(total_tokens)::bigint AS total_tokens,
    sum(cost_nano)::bigint AS cost_nano, sum(subscription_nano)::bigint AS subscription_nano,
    sum(latency_sum)::bigint AS latency_sum, sum(latency_count)::bigint AS latency_count,
    sum(success_calls)::bigint AS success_calls, sum(unpriced_calls)::bigint AS unpriced_calls,
    sum(read_savings_nano)::bigint AS read_savings_nano, sum(write_premium_nano)::bigint AS write_premium_nano,
    sum(events_with_cache)::bigint AS events_with_cache, sum(failed_cost_nano)::bigint AS failed_cost_nano,
    sum(traced_calls)::bigint AS traced_calls, sum(output_over_16_calls)::bigint AS output_over_16_calls,
    sum(output_over_256_calls)::bigint AS output_over_256_calls
  FROM src GROUP BY dim, key
  HAVING sum(calls) <> 0 /* nets to no call: all of it in an edge hour, outside the window (window.sql) */
)
SELECT dim, key, NULL::timestamptz AS b,
  calls, input_tokens, output_tokens, cached_tokens, cache_write_tokens, total_tokens, cost_nano, subscription_nano,
  latency_sum, latency_count, success_calls, unpriced_calls, read_savings_nano, write_premium_nano,
  events_with_cache, failed_cost_nano, traced_calls, output_over_16_calls, output_over_256_calls,
  (sum(cost_nano) OVER (PARTITION BY dim))::bigint
FROM g
/* TEMPLATE_BEGIN: buckets */
UNION ALL
SELECT 'bucket', NULL, date_bin(make_interval(secs => @bucket_secs), t, timestamptz '2000-01-01 00:00:00+00'),
  sum(calls)::bigint, sum(input_tokens)::bigint, sum(output_tokens)::bigint, sum(cached_tokens)::bigint,
  sum(cache_write_tokens)::bigint, sum(total_tokens)::bigint, sum(cost_nano)::bigint, sum(subscription_nano)::bigint,
  sum(latency_sum)::bigint, sum(latency_count)::bigint, sum(success_calls)::bigint, sum(unpriced_calls)::bigint,
  sum(read_savings_nano)::bigint, sum(write_premium_nano)::bigint, sum(events_with_cache)::bigint,
  sum(failed_cost_nano)::bigint, sum(traced_calls)::bigint, sum(output_over_16_calls)::bigint,
  sum(output_over_256_calls)::bigint,
  NULL
FROM src WHERE dim = 'agent'
GROUP BY 3
HAVING sum(calls) <> 0 /* nets to no call: all of it in an edge hour, outside the window (window.sql) */
/* TEMPLATE_END */
