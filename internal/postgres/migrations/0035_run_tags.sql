-- Chargeback tags of runs (docs/tags.md "Runs"): a run is tagged like its
-- agent, by its first call. tags holds the run's value of each key the
-- project declared when the run was last refreshed, as the tag rollups
-- count the first call ('(none)', '(invalid)' and '(other)' included),
-- {"team": "payments"}; NULL for a run of a project without keys. A key
-- declared later reaches the runs stored before through the tag back-fill.
-- A tag-filtered run report reads the window's runs by first_ts and keeps
-- those with the value, so no index: the filter costs a test per run read.
ALTER TABLE runs ADD COLUMN tags jsonb;
