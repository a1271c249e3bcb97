-- A month whose calls DEFAULT holds is made a partition by moving them
-- out of DEFAULT and attaching the month in one transaction. ATTACH takes
-- only SHARE UPDATE EXCLUSIVE on events, so a read of events planned
-- while the job ran (its partitions as they were: the month not among
-- them) waited for the job's lock on DEFAULT, then read DEFAULT in a
-- snapshot taken after the commit: the moved calls were in neither, and
-- the read answered as if they had never been stored
-- (TestReadRacingAPartitionMoveSeesEveryCall). When there are calls to
-- move, the job now takes ACCESS EXCLUSIVE on events first, so such reads
-- plan after it commits; reads and ingest of every project wait for the
-- move (about a second per 100,000 calls, once per back-filled month, and
-- the job gives up after its lock_timeout and tries again later). A month
-- with nothing to move is attached as before, without that lock; if calls
-- of the month reach DEFAULT between the look and the lock on DEFAULT, it
-- is left for the job's next run.
CREATE OR REPLACE FUNCTION llmcost_events_partition(month_start timestamptz) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    lo timestamptz := date_trunc('month', month_start, 'UTC');
    hi timestamptz := date_trunc('month', month_start, 'UTC') + interval '1 month';
    name text := 'events_p' || to_char(lo AT TIME ZONE 'UTC', 'YYYYMM');
    moving boolean;
BEGIN
    IF to_regclass(name) IS NOT NULL THEN
        RETURN false;
    END IF;
    BEGIN
        -- events before DEFAULT, the order every read and ingest takes them in.
        moving := EXISTS (SELECT 1 FROM events_default WHERE ts >= lo AND ts < hi);
        IF moving THEN
            LOCK TABLE ONLY events IN ACCESS EXCLUSIVE MODE;
        END IF;
        -- No insert may reach DEFAULT between the move and ATTACH's check.
        LOCK TABLE events_default IN EXCLUSIVE MODE;
        IF NOT moving AND EXISTS (SELECT 1 FROM events_default WHERE ts >= lo AND ts < hi) THEN
            RETURN false;
        END IF;
        EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (ts >= %L AND ts < %L)', name, name || '_range', lo, hi);
        EXECUTE format('ALTER TABLE %I SET (autovacuum_vacuum_insert_scale_factor = 0.01)', name);
        EXECUTE format('WITH m AS (DELETE FROM events_default WHERE ts >= %L AND ts < %L RETURNING *) INSERT INTO %I SELECT * FROM m',
            lo, hi, name);
        EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (project_id, event_id)', name);
        EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, lo, hi);
    EXCEPTION WHEN invalid_object_definition THEN
        -- The month lies in events_legacy's range: nothing to create.
        RETURN false;
    END;
    RETURN true;
END $$;
