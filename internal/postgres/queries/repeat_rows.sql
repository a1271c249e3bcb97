-- The repeated-work rows, most wasted first (postgres.RepeatRows): the
-- groups carry their run's first call time, agent and workflow, so the
-- read walks run_repeats_wasted_idx and stops at the limit.
--
-- Parameters:
--   @project_id  uuid         the project
--   @start       timestamptz  the window [start, end) of the runs' first calls
--   @end         timestamptz
--   @limit       bigint       the number of rows (NULL: all)
--
-- The runs marker adds the agent and workflow filters (RunQuery.runsWhere,
-- which may name @agent and @workflow, text); as written, all of them.
SELECT x.trace_id, x.workflow, x.step_name, x.tool_name, x.model, x.occurrences,
  x.spend_nano, x.wasted_nano, x.first_seen
FROM run_repeats x
WHERE /* TEMPLATE_BEGIN: runs */ x.project_id = @project_id AND x.run_first_ts >= @start AND x.run_first_ts < @end /* TEMPLATE_END */
ORDER BY x.wasted_nano DESC, x.trace_id, x.seq LIMIT @limit
