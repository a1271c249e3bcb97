-- Sums per key and time bucket of $21 seconds (aligned like by_bucket.sql):
-- the agent summary's daily series of every agent in one read.
SELECT key, date_bin(make_interval(secs => $21), t, timestamptz '2000-01-01 00:00:00+00') AS b, {{SUMS}}
FROM src
GROUP BY key, b
