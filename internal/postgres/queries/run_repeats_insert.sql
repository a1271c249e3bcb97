-- The repeated work of refreshed or rebuilt runs (postgres.queueRunInserts),
-- one element of each array per repeated request of a run, with the run's
-- first call, agent and workflow.
--
-- Parameters:
--   @project_id    uuid[]         each repeat's run's project
--   @trace_id      text[]         its run's trace
--   @seq           int[]          its position in the run's repeats
--   @workflow      text[]         the repeated calls' workflow (NULL: none)
--   @step_name     text[]         their step (NULL: none)
--   @tool_name     text[]         their tool (NULL: none)
--   @model         text[]         their model
--   @input_tokens  bigint[]       their input tokens
--   @request_hash  text[]         their request hash (NULL: none)
--   @occurrences   bigint[]       how many times the request was made
--   @spend_nano    bigint[]       the cost of them all
--   @wasted_nano   bigint[]       the cost of the repeats after the first
--   @first_seen    timestamptz[]  the first one's time
--   @run_first_ts  timestamptz[]  the run's first call's time
--   @run_agent     text[]         the run's agent
--   @run_workflow  text[]         the run's workflow (NULL: none)
INSERT INTO run_repeats (project_id, trace_id, seq, workflow, step_name, tool_name, model,
  input_tokens, request_hash, occurrences, spend_nano, wasted_nano, first_seen, run_first_ts, run_agent, run_workflow)
SELECT * FROM unnest(@project_id::uuid[], @trace_id::text[], @seq::int[], @workflow::text[], @step_name::text[],
  @tool_name::text[], @model::text[], @input_tokens::bigint[], @request_hash::text[], @occurrences::bigint[],
  @spend_nano::bigint[], @wasted_nano::bigint[], @first_seen::timestamptz[], @run_first_ts::timestamptz[],
  @run_agent::text[], @run_workflow::text[])
