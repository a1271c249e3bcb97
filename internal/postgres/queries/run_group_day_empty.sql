-- Deletes the step or tool rollup rows of a refresh's keys left with no
-- run (postgres.queueDayDelta), after run_group_day_add.sql.
--
-- Parameters:
--   @project_id  uuid[]         each key's project
--   @agent_name  text[]         its agent ('': every agent)
--   @tag         text[]         its tag ('': every run; key=value: the runs with it)
--   @bucket      timestamptz[]  its UTC day
--   @workflow    text[]         its workflow ('': none)
--   @name        text[]         the step or tool
--
-- The table marker names the rollup: run_step_day as written, or
-- run_tool_day.
DELETE FROM /* TEMPLATE_BEGIN: table */ run_step_day /* TEMPLATE_END */ x USING unnest(@project_id::uuid[],
  @agent_name::text[], @tag::text[], @bucket::timestamptz[], @workflow::text[], @name::text[]) AS k(p, a, t, d, w, n)
WHERE x.project_id = k.p AND x.agent_name = k.a AND x.tag = k.t AND x.bucket = k.d AND x.workflow = k.w AND x.name = k.n AND x.runs = 0
