-- Sums per time bucket of $21 seconds, aligned to UTC multiples of the
-- width (the origin is a UTC midnight).
SELECT date_bin(make_interval(secs => $21), t, timestamptz '2000-01-01 00:00:00+00') AS b, {{SUMS}}
FROM src
GROUP BY b
