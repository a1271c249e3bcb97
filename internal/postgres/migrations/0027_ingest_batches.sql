-- The rollup merger folds the tail (events with tx at or above the
-- watermark) in bounded slices: one statement over a backlog of millions of
-- calls ran past its statement timeout, rolled back and started again over
-- a larger backlog, so the watermark never moved. Each ingest transaction
-- now writes one row here per project it stored calls of, in its insert
-- statement: the merger reads these few rows (one per batch) to choose
-- where a slice of about a fixed number of calls ends, and the same rows
-- say how far behind the merger is, per project, in calls and seconds
-- (the merge lag that ingest's back-pressure and the gauges read). A
-- merged slice deletes its rows.
CREATE TABLE ingest_batches (
    tx         bigint NOT NULL DEFAULT (pg_current_xact_id()::text)::bigint,
    project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    calls      bigint NOT NULL,
    stored_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ingest_batches_tx_idx ON ingest_batches (tx);

-- The tail an upgrade finds, so its lag is known and its first slice
-- bounded like any other.
INSERT INTO ingest_batches (tx, project_id, calls)
SELECT e.tx, e.project_id, count(*) FROM events e
WHERE e.tx >= (SELECT watermark FROM rollup_state)
GROUP BY 1, 2;
