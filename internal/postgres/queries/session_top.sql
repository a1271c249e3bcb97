-- The top @limit sessions of the window, over all agents
-- (postgres.readSessionTop; docs/analytics.md). span is the longest
-- session of the project (0 when none); crossing, the sessions with merged
-- calls on both sides of a boundary of the whole days [@days_start,
-- @days_end): a session crosses @days_start when it started before and
-- ended at or after it, so it started within the span before it
-- (rollup_session_first_idx finds them); likewise for @days_end. src is
-- window.sql reading only the crossing sessions' daily rows (its day_keys
-- marker), plus the hourly rows, raw edges and tail as for any key: every
-- call of the window but those of the sessions lying wholly inside the
-- days, whose merged calls rollup_session sums.
--
-- Parameters:
--   @project_id  uuid         the project
--   @dim         text         the dimension, session
--   @days_start  timestamptz  the whole days [start, end)
--   @days_end    timestamptz
--   @limit       bigint       the number of sessions
--
-- src is window.sql's rows (the window marker; as written, every hourly
-- session row).
WITH span AS (
  SELECT coalesce((SELECT max_span FROM rollup_session_span WHERE project_id = @project_id), interval '0') AS l
), crossing AS (
  SELECT s.session_id FROM span, rollup_session s
  WHERE s.project_id = @project_id AND s.first_hour >= @days_start::timestamptz - span.l
    AND s.first_hour < @days_start AND s.last_hour >= @days_start
  UNION
  SELECT s.session_id FROM span, rollup_session s
  WHERE s.project_id = @project_id
    AND s.first_hour >= greatest(@days_start::timestamptz, @days_end::timestamptz - span.l) AND s.first_hour < @days_end
    AND s.last_hour >= @days_end
), src AS (
  /* TEMPLATE_BEGIN: window */ SELECT bucket AS t, r.* FROM rollup_hour r WHERE r.project_id = @project_id AND r.dim = @dim /* TEMPLATE_END */
), extra AS (
  SELECT key,
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
  FROM src GROUP BY key
  HAVING sum(calls) <> 0 /* nets to no call: all of it in an edge hour, outside the window (window.sql) */
), inside AS (
  -- Costs are never negative: a session outside these and without extra
  -- calls is behind @limit sessions that are at least as costly.
  SELECT session_id FROM rollup_session
  WHERE project_id = @project_id AND first_hour >= @days_start AND last_hour < @days_end
  ORDER BY cost_nano DESC, session_id COLLATE "C"
  LIMIT @limit
), cand AS (
  SELECT key FROM extra UNION SELECT session_id FROM inside
)
SELECT c.key,
  coalesce(x.calls, 0) + coalesce(s.calls, 0), coalesce(x.input_tokens, 0) + coalesce(s.input_tokens, 0),
  coalesce(x.output_tokens, 0) + coalesce(s.output_tokens, 0), coalesce(x.cached_tokens, 0) + coalesce(s.cached_tokens, 0),
  coalesce(x.cache_write_tokens, 0) + coalesce(s.cache_write_tokens, 0),
  coalesce(x.total_tokens, 0) + coalesce(s.total_tokens, 0), coalesce(x.cost_nano, 0) + coalesce(s.cost_nano, 0),
  coalesce(x.subscription_nano, 0) + coalesce(s.subscription_nano, 0),
  coalesce(x.latency_sum, 0) + coalesce(s.latency_sum, 0), coalesce(x.latency_count, 0) + coalesce(s.latency_count, 0),
  coalesce(x.success_calls, 0) + coalesce(s.success_calls, 0),
  coalesce(x.unpriced_calls, 0) + coalesce(s.unpriced_calls, 0),
  coalesce(x.read_savings_nano, 0) + coalesce(s.read_savings_nano, 0),
  coalesce(x.write_premium_nano, 0) + coalesce(s.write_premium_nano, 0),
  coalesce(x.events_with_cache, 0) + coalesce(s.events_with_cache, 0),
  coalesce(x.failed_cost_nano, 0) + coalesce(s.failed_cost_nano, 0),
  coalesce(x.traced_calls, 0) + coalesce(s.traced_calls, 0),
  coalesce(x.output_over_16_calls, 0) + coalesce(s.output_over_16_calls, 0),
  coalesce(x.output_over_256_calls, 0) + coalesce(s.output_over_256_calls, 0),
  0::bigint
FROM cand c
LEFT JOIN extra x ON x.key = c.key
-- One primary-key probe per candidate, whatever the statistics say (the
-- LIMIT keeps the planner from flattening the subquery into a join):
-- planned as a join of the window's sessions, from statistics taken before
-- a project's first day of calls was merged (7 of its sessions expected,
-- 7,600 there), it became a nested loop comparing every candidate with
-- every session, 9.7 million comparisons and 1.9 s.
LEFT JOIN LATERAL (
  SELECT * FROM rollup_session r
  WHERE r.project_id = @project_id AND r.session_id = c.key
    AND r.first_hour >= @days_start AND r.last_hour < @days_end
  LIMIT 1
) s ON true
ORDER BY 8 DESC, c.key COLLATE "C"
LIMIT @limit
