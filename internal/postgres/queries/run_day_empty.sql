-- Deletes the run_day rows of a refresh's keys left with no run
-- (postgres.queueDayDelta), after run_day_add.sql.
--
-- Parameters:
--   @project_id  uuid[]         each key's project
--   @agent_name  text[]         its agent ('': every agent)
--   @bucket      timestamptz[]  its UTC day
--   @workflow    text[]         its workflow ('': none)
DELETE FROM run_day x USING unnest(@project_id::uuid[], @agent_name::text[], @bucket::timestamptz[],
  @workflow::text[]) AS k(p, a, d, w)
WHERE x.project_id = k.p AND x.agent_name = k.a AND x.bucket = k.d AND x.workflow = k.w AND x.runs = 0
