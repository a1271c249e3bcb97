-- Sums per key, unordered and unlimited: a per-agent read (a thousand agent
-- and model keys) that the caller groups and sorts itself; ranking them for
-- a limit (by_key.sql) cost several times the reading.
SELECT key, {{SUMS}}
FROM src
GROUP BY key
