-- The most expensive runs of the window (postgres.TraceRows), by one of two
-- plans, chosen on the window's size rather than by the planner's
-- estimate. Walking the cost index and skipping the runs outside the
-- window reads about limit ÷ (the window's share of the project's runs)
-- entries: a handful for a busy window, every run of the project for an
-- empty one (a window being back-filled, or a quiet agent's week), which
-- took seconds at a million runs. Reading the window by its first calls
-- reads the window's runs: few for a sparse window, all of them for a busy
-- one. So the window is read first, up to 2,001 runs; a window that holds
-- at most 2,000 is sorted whole, and only a larger one, where the cost
-- index finds the limit within a few thousand entries, walks it. The
-- walk's branch runs only when its one-time filter holds.
--
-- Parameters:
--   @project_id  uuid         the project
--   @start       timestamptz  the window [start, end) of the runs' first calls
--   @end         timestamptz
--   @limit       bigint       the number of rows (NULL: all)
--
-- The runs marker adds the agent and workflow filters (RunQuery.runsWhere,
-- which may name @agent and @workflow, text); as written, all of them.
WITH w AS MATERIALIZED (
  SELECT r.trace_id, r.workflow, r.calls, r.cost_nano, r.max_depth, r.failed_calls, r.first_ts, r.last_end
  FROM runs r WHERE /* TEMPLATE_BEGIN: runs */ r.project_id = @project_id AND r.first_ts >= @start AND r.first_ts < @end /* TEMPLATE_END */ ORDER BY r.first_ts LIMIT 2001
), n AS MATERIALIZED (SELECT count(*) AS runs FROM w)
SELECT * FROM (
  SELECT w.* FROM w WHERE (SELECT runs FROM n) <= 2000
  UNION ALL
  (SELECT r.trace_id, r.workflow, r.calls, r.cost_nano, r.max_depth, r.failed_calls, r.first_ts, r.last_end
  FROM runs r WHERE /* TEMPLATE_BEGIN: runs */ r.project_id = @project_id AND r.first_ts >= @start AND r.first_ts < @end /* TEMPLATE_END */ AND (SELECT runs FROM n) > 2000
  ORDER BY r.cost_nano DESC, r.trace_id COLLATE "C" LIMIT @limit)
) t ORDER BY t.cost_nano DESC, t.trace_id COLLATE "C" LIMIT @limit
