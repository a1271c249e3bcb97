-- Cache writes with a one-hour TTL, billed at their own rate. Like
-- cache_write_tokens (five-minute writes) they are part of input_tokens.
ALTER TABLE events ADD COLUMN cache_write_1h_tokens bigint NOT NULL DEFAULT 0;
