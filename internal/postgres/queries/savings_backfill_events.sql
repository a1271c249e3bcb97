-- The next chunk of priced events with cache tokens, whose cache savings
-- the backfill of migration 0005 computes (postgres.BackfillSavings), in
-- key order after the last chunk's last key.
--
-- Parameters:
--   @after_project_id  uuid    the last chunk's last key (the nil uuid and '' first)
--   @after_event_id    text
--   @limit             bigint  the chunk's size
SELECT project_id::text, event_id, model, price_version, input_tokens, output_tokens, cached_tokens,
  cache_write_tokens, cache_write_1h_tokens, read_savings_nano, write_premium_nano, ts
FROM events
WHERE priced AND cached_tokens + cache_write_tokens + cache_write_1h_tokens > 0
  AND (project_id, event_id) > (@after_project_id::uuid, @after_event_id::text)
ORDER BY project_id, event_id
LIMIT @limit
