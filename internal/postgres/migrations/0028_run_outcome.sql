-- The daily run rollups are changed by the difference a refresh makes to
-- its runs (runs.Delta) instead of being recomputed from every run of each
-- touched day and workflow, which read a whole busy day's runs for every
-- chunk the run merger refreshed. Taking a run's old contribution away
-- needs the outcome it was counted with, since the outcome may have been
-- replaced since: each run keeps it here (NULL: none declared).
ALTER TABLE runs ADD COLUMN outcome boolean;
UPDATE runs r SET outcome = o.success FROM outcomes o
WHERE o.project_id = r.project_id AND o.trace_id = r.trace_id;
