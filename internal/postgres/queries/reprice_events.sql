-- The events a re-pricing prices again (postgres.Reprice): their usage,
-- their prices as stored and the rate period in force when they were made,
-- in key order.
--
-- Parameters:
--   @start       timestamptz  the events' window [start, end)
--   @end         timestamptz
--   @project_id  text         the project ('': every project)
SELECT project_id::text, event_id, model, input_tokens, output_tokens, cached_tokens, cache_write_tokens,
  cache_write_1h_tokens, cost_nano, cost_provided, coalesce(catalogue_cost_nano, -1), priced,
  read_savings_nano, write_premium_nano, ts, price_period
FROM events
WHERE ts >= @start AND ts < @end AND (@project_id::text = '' OR project_id = NULLIF(@project_id::text, '')::uuid)
ORDER BY project_id, event_id
