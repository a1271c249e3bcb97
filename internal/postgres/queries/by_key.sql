-- Sums per key, most expensive first, then by key in byte order; the last
-- column is the cost of every key (before the limit), for shares. The keys
-- are ranked on their cost alone first: summing all the columns for every
-- key (ten thousand sessions in 90 days) cost more than the reading, and
-- only the keys within the limit need them.
--
-- Parameters:
--   @project_id  uuid    the project
--   @dim         text    the dimension
--   @limit       bigint  the number of keys (NULL: all)
--
-- src is window.sql's rows (the window marker; as written, every hourly
-- row of the dimension).
WITH src AS (
  /* TEMPLATE_BEGIN: window */ SELECT bucket AS t, r.* FROM rollup_hour r WHERE r.project_id = @project_id AND r.dim = @dim /* TEMPLATE_END */
), ranked AS (
  SELECT key, sum(cost_nano) AS cost, sum(sum(cost_nano)) OVER () AS total
  FROM src
  GROUP BY key
  HAVING sum(calls) <> 0 /* nets to no call: all of it in an edge hour, outside the window (window.sql) */
  ORDER BY cost DESC, key COLLATE "C"
  LIMIT @limit
)
SELECT src.key,
  sum(calls)::bigint, sum(input_tokens)::bigint, sum(output_tokens)::bigint, sum(cached_tokens)::bigint,
  sum(cache_write_tokens)::bigint, sum(total_tokens)::bigint, sum(cost_nano)::bigint, sum(subscription_nano)::bigint,
  sum(latency_sum)::bigint, sum(latency_count)::bigint, sum(success_calls)::bigint, sum(unpriced_calls)::bigint,
  sum(read_savings_nano)::bigint, sum(write_premium_nano)::bigint, sum(events_with_cache)::bigint,
  sum(failed_cost_nano)::bigint, sum(traced_calls)::bigint, sum(output_over_16_calls)::bigint,
  sum(output_over_256_calls)::bigint,
  ranked.total::bigint
FROM src JOIN ranked ON ranked.key = src.key
GROUP BY src.key, ranked.cost, ranked.total
ORDER BY ranked.cost DESC, src.key COLLATE "C"
