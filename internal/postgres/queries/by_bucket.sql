-- Sums per time bucket of @bucket_secs seconds, aligned to UTC multiples
-- of the width (the origin is a UTC midnight).
--
-- Parameters:
--   @project_id   uuid    the project
--   @dim          text    the dimension
--   @bucket_secs  float8  the width of a bucket in seconds
--
-- src is window.sql's rows (the window marker; as written, every hourly
-- row of the dimension).
WITH src AS (
  /* TEMPLATE_BEGIN: window */ SELECT bucket AS t, r.* FROM rollup_hour r WHERE r.project_id = @project_id AND r.dim = @dim /* TEMPLATE_END */
)
SELECT date_bin(make_interval(secs => @bucket_secs), t, timestamptz '2000-01-01 00:00:00+00') AS b,
  sum(calls)::bigint, sum(input_tokens)::bigint, sum(output_tokens)::bigint, sum(cached_tokens)::bigint,
  sum(cache_write_tokens)::bigint, sum(total_tokens)::bigint, sum(cost_nano)::bigint, sum(subscription_nano)::bigint,
  sum(latency_sum)::bigint, sum(latency_count)::bigint, sum(success_calls)::bigint, sum(unpriced_calls)::bigint,
  sum(read_savings_nano)::bigint, sum(write_premium_nano)::bigint, sum(events_with_cache)::bigint,
  sum(failed_cost_nano)::bigint, sum(traced_calls)::bigint, sum(output_over_16_calls)::bigint,
  sum(output_over_256_calls)::bigint
FROM src
GROUP BY b
HAVING sum(calls) <> 0 /* nets to no call: all of it in an edge hour, outside the window (window.sql) */
