-- Issue 28: bounds on what one call and one project may hold, and the
-- repair of a project that stored a call beyond them before they existed
-- (docs/api.md, "Bounds"; internal/pricing/bounds.go).
--
-- 1. Calls beyond the per-call bounds (a count above 10^9 tokens, a total
--    above 2×10^9, a latency above 10^9 ms, a cost, catalogue cost or cache
--    saving above $1,000,000 = 10^15 nano-USD, negative money) are moved
--    out of events into events_refused, kept for inspection, never summed.
--    Before this migration such a call was stored with its cost clamped to
--    the largest int64, and the month's spend counter of its project could
--    not add to it: every later metered batch of the project failed.
-- 2. The month counters of their projects are recomputed from the events
--    that remain, and the projects are listed in bounds_repairs: at start
--    llmcost rebuilds their rollups and runs from those events
--    (postgres.RepairBounds), which needs Go and so is not done here.
-- 3. project_totals holds, per project, what its calls sum to over its
--    life, in numeric (which cannot overflow): money (for each call the
--    largest of its cost, catalogue cost and cache savings, so that every
--    money column's sum is below it), tokens (input + output + total) and
--    latency. The ingest statement adds each batch to it and the CHECK
--    refuses a batch that would take it past 2^62 (pricing.MaxProjectTotal):
--    every report, rollup, run, month counter and budget comparison of the
--    project then fits an int64, even two columns added together.

CREATE TABLE events_refused (LIKE events INCLUDING DEFAULTS);
ALTER TABLE events_refused ADD COLUMN refused_at timestamptz NOT NULL DEFAULT now();
-- They go with their project, as its events do (LIKE copies no key).
ALTER TABLE events_refused ADD FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE;

CREATE TABLE bounds_repairs (
    project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE
);

WITH gone AS (
    DELETE FROM events
    WHERE input_tokens NOT BETWEEN 0 AND 1000000000
       OR output_tokens NOT BETWEEN 0 AND 1000000000
       OR cached_tokens NOT BETWEEN 0 AND 1000000000
       OR cache_write_tokens NOT BETWEEN 0 AND 1000000000
       OR cache_write_1h_tokens NOT BETWEEN 0 AND 1000000000
       OR reasoning_tokens NOT BETWEEN 0 AND 1000000000
       OR total_tokens NOT BETWEEN 0 AND 2000000000
       OR latency_ms NOT BETWEEN 0 AND 1000000000
       OR cost_nano NOT BETWEEN 0 AND 1000000000000000
       OR catalogue_cost_nano > 1000000000000000
       OR read_savings_nano NOT BETWEEN -1000000000000000 AND 1000000000000000
       OR write_premium_nano NOT BETWEEN -1000000000000000 AND 1000000000000000
    RETURNING *
), moved AS (
    INSERT INTO events_refused SELECT *, now() FROM gone
)
INSERT INTO bounds_repairs (project_id)
SELECT DISTINCT project_id FROM gone;

-- The month counters of those projects, from the events that remain (a
-- counter holding a clamped cost can take no more calls).
DELETE FROM spend_month s USING bounds_repairs r WHERE s.project_id = r.project_id;
INSERT INTO spend_month (project_id, month, metered_nano)
SELECT e.project_id, (date_trunc('month', e.ts, 'UTC') AT TIME ZONE 'UTC')::date, sum(e.cost_nano)::bigint
FROM events e JOIN bounds_repairs r USING (project_id)
WHERE e.billing <> 'subscription'
GROUP BY 1, 2;

CREATE TABLE project_totals (
    project_id uuid PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    money_nano numeric NOT NULL DEFAULT 0,
    tokens     numeric NOT NULL DEFAULT 0,
    latency_ms numeric NOT NULL DEFAULT 0
);

INSERT INTO project_totals (project_id, money_nano, tokens, latency_ms)
SELECT project_id,
       sum(greatest(cost_nano, coalesce(catalogue_cost_nano, 0), read_savings_nano, write_premium_nano)),
       sum(input_tokens + output_tokens + total_tokens),
       sum(coalesce(latency_ms, 0))
FROM events GROUP BY project_id;

-- NOT VALID: a project already past a bound (only a flood of calls near
-- the per-call bounds gets there) keeps its row, and its next batch is
-- refused with a clear reason instead of this migration failing.
ALTER TABLE project_totals ADD CONSTRAINT project_totals_bound CHECK (
    money_nano <= 4611686018427387904 AND tokens <= 4611686018427387904 AND latency_ms <= 4611686018427387904
) NOT VALID;
