-- Adds a run refresh's difference to run_day (postgres.queueDayDelta): one
-- element of each array per key, in key order, under the keys' locks;
-- counts and sums are added (negative: taken away), maxima only raised.
--
-- Parameters:
--   @project_id     uuid[]         each key's project
--   @agent_name     text[]         its agent ('': every agent)
--   @tag            text[]         its tag ('': every run; key=value: the runs with it)
--   @bucket         timestamptz[]  its UTC day
--   @workflow       text[]         its workflow ('': none)
--   @runs           bigint[]       the runs added
--   @cost_nano      bigint[]       their cost
--   @max_cost_nano  bigint[]       the cost of the dearest run added
--   @calls          bigint[]       their calls
--   @steps          bigint[]       their steps
--   @max_depth      bigint[]       the deepest span of the runs added
--   @success_calls  bigint[]       their successful calls
--   @succeeded      bigint[]       the runs declared successful
--   @failed         bigint[]       the runs declared failed
--   @success_cost   bigint[]       the cost of the successful runs
--   @failure_cost   bigint[]       the cost of the failed runs
INSERT INTO run_day AS x (project_id, agent_name, tag, bucket, workflow, runs, cost_nano, max_cost_nano,
  calls, steps, max_depth, success_calls, succeeded, failed, success_cost, failure_cost)
SELECT * FROM unnest(@project_id::uuid[], @agent_name::text[], @tag::text[], @bucket::timestamptz[], @workflow::text[],
  @runs::bigint[], @cost_nano::bigint[], @max_cost_nano::bigint[], @calls::bigint[], @steps::bigint[],
  @max_depth::bigint[], @success_calls::bigint[], @succeeded::bigint[], @failed::bigint[], @success_cost::bigint[],
  @failure_cost::bigint[])
ON CONFLICT (project_id, tag, agent_name, bucket, workflow) DO UPDATE SET runs = x.runs + excluded.runs,
  cost_nano = x.cost_nano + excluded.cost_nano, max_cost_nano = greatest(x.max_cost_nano, excluded.max_cost_nano),
  calls = x.calls + excluded.calls, steps = x.steps + excluded.steps, max_depth = greatest(x.max_depth, excluded.max_depth),
  success_calls = x.success_calls + excluded.success_calls, succeeded = x.succeeded + excluded.succeeded,
  failed = x.failed + excluded.failed, success_cost = x.success_cost + excluded.success_cost,
  failure_cost = x.failure_cost + excluded.failure_cost
