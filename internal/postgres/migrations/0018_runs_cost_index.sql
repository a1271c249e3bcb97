-- The cost distribution (GET /v1/analytics/workflows/distribution, and the
-- agent detail's tail cost) reads the cost of a workflow's newest runs in
-- the window: at 10 M events some 33,000 runs over 90 days, each on its own
-- heap page, 246 ms of heap fetches. Carrying cost_nano in the index makes
-- it an index-only scan (10–18 ms on the benchmark's dataset). Same key
-- columns as the index it replaces, so every other read by workflow keeps
-- its plan.
CREATE INDEX runs_project_workflow_first_cost_idx ON runs (project_id, workflow, first_ts) INCLUDE (cost_nano);
DROP INDEX runs_project_workflow_first_idx;
