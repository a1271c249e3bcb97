package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// CountRequest counts one request for key in the fixed window starting at
// windowStart and returns the count including it; allowed is false, and
// count is limit, when the window already held limit requests. It is a
// lease of one request: one round trip, atomic across instances.
func (db *DB) CountRequest(ctx context.Context, key string, windowStart time.Time, limit int) (count int, allowed bool, err error) {
	count, granted, err := db.LeaseRequests(ctx, key, windowStart, limit, 1)
	return count, granted > 0, err
}

// leaseSQL takes up to $4 requests of key $1's window $2 at once, never
// past the limit $3: the row lock serialises instances as for one request.
// No row comes back when the window is full.
const leaseSQL = `
INSERT INTO rate_limit_windows AS w (key, window_start, count, granted)
VALUES ($1, $2, LEAST($4::int, $3::int), LEAST($4::int, $3::int))
ON CONFLICT (key, window_start) DO UPDATE
  SET count = w.count + LEAST($4::int, $3::int - w.count), granted = LEAST($4::int, $3::int - w.count)
  WHERE w.count < $3::int
RETURNING count, granted`

// LeaseRequests takes up to n requests of key's window starting at
// windowStart for this instance to admit from memory, never past limit in
// all; it answers how many it took and the window's count including them
// (limit and 0 when the window was full).
func (db *DB) LeaseRequests(ctx context.Context, key string, windowStart time.Time, limit, n int) (count, granted int, err error) {
	err = db.quickPool().QueryRow(ctx, leaseSQL, key, windowStart, limit, n).Scan(&count, &granted)
	if errors.Is(err, pgx.ErrNoRows) {
		return limit, 0, nil
	}
	if err != nil {
		return 0, 0, translate(err, "rate limit")
	}
	return count, granted, nil
}

// Swept counts what one Sweep deleted.
type Swept struct {
	Sessions, AccountTokens, RateLimitWindows, RateLimitLogs int64
}

// Sweep deletes what no request can use any more: sessions past their
// refresh expiry or revoked more than a day ago (their rotated refresh
// tokens go with them), e-mail tokens expired or used more than a day ago,
// rate-limit windows that ended before windowsBefore, and rolling-window
// logs past their own expiry (set from their limit's window by CountEvent).
func (db *DB) Sweep(ctx context.Context, now, windowsBefore time.Time) (Swept, error) {
	var s Swept
	day := now.Add(-24 * time.Hour)
	for _, q := range []struct {
		n   *int64
		sql string
		arg []any
	}{
		{&s.Sessions, `DELETE FROM sessions WHERE expires_at < $1 OR revoked_at < $2`, []any{now, day}},
		{&s.AccountTokens, `DELETE FROM account_tokens WHERE expires_at < $1 OR used_at < $2`, []any{now, day}},
		{&s.RateLimitWindows, `DELETE FROM rate_limit_windows WHERE window_start < $1`, []any{windowsBefore}},
		{&s.RateLimitLogs, `DELETE FROM rate_limit_logs WHERE expires_at < $1`, []any{now}},
	} {
		tag, err := db.Pool.Exec(ctx, q.sql, q.arg...)
		if err != nil {
			return s, translate(err, "sweep")
		}
		*q.n = tag.RowsAffected()
	}
	return s, nil
}
