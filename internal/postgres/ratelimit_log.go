package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// countEventSQL counts one event in key's rolling log unless the log
// already holds limit events after $3 (now − window): one round trip,
// atomic across instances (ON CONFLICT locks the key's row, so concurrent
// counts of one key are serialised and each sees the other's event).
// Counting drops the events that left the window, so a row holds at most
// limit times. No row comes back when the log was full: refused events are
// not counted, as in rate_limit_windows.
const countEventSQL = `
INSERT INTO rate_limit_logs AS l (key, times, expires_at) VALUES ($1, ARRAY[$2::timestamptz], $4)
ON CONFLICT (key) DO UPDATE
SET times = ARRAY(SELECT t FROM unnest(l.times) t WHERE t > $3 ORDER BY t) || $2::timestamptz,
    expires_at = greatest(l.expires_at, $4)
WHERE (SELECT count(*) FROM unnest(l.times) t WHERE t > $3) < $5
RETURNING true`

// oldestEventSQL is the oldest event of key's log still in the window.
const oldestEventSQL = `SELECT min(t) FROM rate_limit_logs, unnest(times) t WHERE key = $1 AND t > $2`

// CountEvent counts one event at now in key's log of the last window,
// unless limit events are already in it; then allowed is false and oldest
// is when the earliest of them happened (it leaves the window at
// oldest+window). The row expires two windows after its latest event: the
// sweep deletes it by that time, whatever its window, and two windows keep
// it while any instance's clock, a little behind, still counts the event.
func (db *DB) CountEvent(ctx context.Context, key string, now time.Time, window time.Duration, limit int) (allowed bool, oldest time.Time, err error) {
	since := now.Add(-window)
	err = db.Pool.QueryRow(ctx, countEventSQL, key, now, since, now.Add(2*window), limit).Scan(&allowed)
	if err == nil {
		return true, time.Time{}, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, time.Time{}, translate(err, "rate limit")
	}
	var t *time.Time
	if err := db.Pool.QueryRow(ctx, oldestEventSQL, key, since).Scan(&t); err != nil {
		return false, time.Time{}, translate(err, "rate limit")
	}
	if t == nil { // the events left the window between the two statements: retry at once
		return false, since, nil
	}
	return false, *t, nil
}
