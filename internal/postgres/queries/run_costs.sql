-- The cost of the newest runs of the window (postgres.RunCosts).
--
-- Parameters:
--   @project_id  uuid         the project
--   @start       timestamptz  the window [start, end) of the runs' first calls
--   @end         timestamptz
--   @limit       bigint       the number of rows (NULL: all)
--
-- The runs marker adds the agent and workflow filters (RunQuery.runsWhere,
-- which may name @agent and @workflow, text); as written, all of them.
SELECT r.cost_nano FROM runs r
WHERE /* TEMPLATE_BEGIN: runs */ r.project_id = @project_id AND r.first_ts >= @start AND r.first_ts < @end /* TEMPLATE_END */
ORDER BY r.first_ts DESC LIMIT @limit
