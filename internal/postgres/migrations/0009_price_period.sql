-- The rate period that priced an event, beside price_version: the start,
-- end and UTC time-of-day window of a dated or peak/off-peak rate
-- ("2026-09-10T04:00:00Z..@01:00-04:00 Mon-Fri"), "base" for the rates in
-- force before or outside every period, '' for a model with one price.
ALTER TABLE events ADD COLUMN price_period text NOT NULL DEFAULT '';
