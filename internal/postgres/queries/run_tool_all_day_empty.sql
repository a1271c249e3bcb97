-- Deletes the run_tool_all_day rows of a refresh's keys left with no run
-- (postgres.queueDayDelta), after run_tool_all_day_add.sql.
--
-- Parameters:
--   @project_id  uuid[]         each key's project
--   @agent_name  text[]         its agent ('': every agent)
--   @tag         text[]         its tag ('': every run; key=value: the runs with it)
--   @bucket      timestamptz[]  its UTC day
--   @workflow    text[]         '' (the rows are over every workflow)
--   @name        text[]         the tool
DELETE FROM run_tool_all_day x USING unnest(@project_id::uuid[], @agent_name::text[], @tag::text[],
  @bucket::timestamptz[], @workflow::text[], @name::text[]) AS k(p, a, t, d, w, n)
WHERE x.project_id = k.p AND x.agent_name = k.a AND x.tag = k.t AND x.bucket = k.d AND x.name = k.n AND x.runs = 0
