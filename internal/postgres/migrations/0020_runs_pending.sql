-- Runs refreshed outside the ingest transaction (docs/analytics.md, "Runs",
-- "Maintenance"). Refreshing a batch's runs and their day rollups inside the
-- ingest transaction held ingest of traced calls to about a quarter of raw
-- COPY: every batch recomputed each touched (agent, day, workflow) key from
-- its runs, and a project's concurrent batches queue behind each other's
-- commit (the month's spend row). The ingest statement now marks each run it
-- touched here, adding the batch's share of the run's guardrail totals; the
-- run merger (and a run report, before it reads) refreshes marked runs,
-- holding the marks' row locks from before it reads the calls until it
-- commits with the marks deleted. So the runs row plus its mark, read in one
-- snapshot, are the run's totals over every stored call: per-run guardrail
-- limits are judged on them in the ingest transaction. Existing runs are
-- current, so an upgrade starts with no mark.
CREATE TABLE runs_pending (
    project_id     uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    trace_id       text NOT NULL,
    -- the marked calls (none when only an outcome was recorded)
    calls          bigint NOT NULL,
    cost_nano      bigint NOT NULL,
    tool_calls     bigint NOT NULL,
    has_workflow   boolean NOT NULL,
    -- the earliest marked call by (ts, event_id) and its agent; NULL without calls
    first_ts       timestamptz,
    first_event_id text,
    first_agent    text,
    last_end       timestamptz,
    -- when a batch last marked the run (its transaction's start): the merger
    -- leaves runs still being written to for a later merge
    marked_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project_id, trace_id)
);
