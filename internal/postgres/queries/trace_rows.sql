-- The most expensive runs of the window (postgres.TraceRows).
--
-- Parameters:
--   @project_id  uuid         the project
--   @start       timestamptz  the window [start, end) of the runs' first calls
--   @end         timestamptz
--   @limit       bigint       the number of rows (NULL: all)
--
-- The runs marker adds the agent and workflow filters (RunQuery.runsWhere,
-- which may name @agent and @workflow, text); as written, all of them.
SELECT r.trace_id, r.workflow, r.calls, r.cost_nano, r.max_depth, r.failed_calls, r.first_ts, r.last_end
FROM runs r
WHERE /* TEMPLATE_BEGIN: runs */ r.project_id = @project_id AND r.first_ts >= @start AND r.first_ts < @end /* TEMPLATE_END */
ORDER BY r.cost_nano DESC, r.trace_id COLLATE "C" LIMIT @limit
