-- Adds a run refresh's difference to the tool rows over every workflow,
-- run_tool_all_day (postgres.queueDayDelta): the arrays of
-- run_group_day_add.sql, whose workflows are all ''.
--
-- Parameters:
--   @project_id     uuid[]         each key's project
--   @agent_name     text[]         its agent ('': every agent)
--   @tag            text[]         its tag ('': every run; key=value: the runs with it)
--   @bucket         timestamptz[]  its UTC day
--   @workflow       text[]         '' (the rows are over every workflow)
--   @name           text[]         the tool
--   @calls          bigint[]       the calls added
--   @runs           bigint[]       the runs added
--   @cost_nano      bigint[]       the calls' cost
--   @tokens         bigint[]       their tokens
--   @latency_sum    bigint[]       the sum of their latencies
--   @latency_count  bigint[]       how many of them have a latency
--   @success_calls  bigint[]       their successful calls
INSERT INTO run_tool_all_day AS x (project_id, agent_name, tag, bucket, name, calls, runs, cost_nano, tokens,
  latency_sum, latency_count, success_calls)
SELECT p, a, t, d, n, c, r, co, tk, ls, lc, sc FROM unnest(@project_id::uuid[], @agent_name::text[], @tag::text[],
  @bucket::timestamptz[], @workflow::text[], @name::text[], @calls::bigint[], @runs::bigint[], @cost_nano::bigint[],
  @tokens::bigint[], @latency_sum::bigint[], @latency_count::bigint[], @success_calls::bigint[])
  AS u(p, a, t, d, w, n, c, r, co, tk, ls, lc, sc)
ON CONFLICT (project_id, tag, agent_name, bucket, name) DO UPDATE SET calls = x.calls + excluded.calls,
  runs = x.runs + excluded.runs, cost_nano = x.cost_nano + excluded.cost_nano, tokens = x.tokens + excluded.tokens,
  latency_sum = x.latency_sum + excluded.latency_sum, latency_count = x.latency_count + excluded.latency_count,
  success_calls = x.success_calls + excluded.success_calls
