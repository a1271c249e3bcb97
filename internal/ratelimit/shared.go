package ratelimit

import (
	"context"
	"time"
)

// Counter is a store that counts requests for every instance of a
// deployment: internal/postgres.DB and Redis are two.
type Counter interface {
	CountRequest(ctx context.Context, key string, windowStart time.Time, limit int) (count int, allowed bool, err error)
}

// Shared is a fixed-window limiter whose counts live in a Counter shared
// by all instances, so N instances behind a load balancer still allow
// Limit requests per key and window in all, not N×Limit. Windows are
// aligned to multiples of Window since the Unix epoch, so every instance
// computes the same window from its clock.
type Shared struct {
	Limit   int
	Window  time.Duration
	Now     func() time.Time
	Counter Counter

	// leases are the shares of windows this instance holds when Counter
	// is a Leaser.
	leases leases
}

// NewShared returns a limiter of limit requests per window counted in c.
func NewShared(limit int, window time.Duration, c Counter) *Shared {
	return &Shared{Limit: limit, Window: window, Now: time.Now, Counter: c}
}

// Allow counts one request for key. An error of the store is returned
// with an allowing decision: the caller decides whether to fail open.
func (l *Shared) Allow(ctx context.Context, key string) (Decision, error) {
	now := l.Now()
	start := now.Truncate(l.Window)
	reset := max(start.Add(l.Window).Sub(now), time.Second)
	if c, ok := l.Counter.(Leaser); ok {
		return l.allowLeased(ctx, c, key, start, reset)
	}
	count, allowed, err := l.Counter.CountRequest(ctx, key, start, l.Limit)
	if err != nil {
		return l.failOpen(reset), err
	}
	return Decision{Allowed: allowed, Limit: l.Limit, Remaining: l.Limit - count, Reset: reset}, nil
}

// failOpen is the decision when the count could not be kept: allowed, the
// caller decides whether to refuse.
func (l *Shared) failOpen(reset time.Duration) Decision {
	return Decision{Allowed: true, Limit: l.Limit, Remaining: l.Limit, Reset: reset}
}

// Policy is the limit and window, for the RateLimit-Policy header.
func (l *Shared) Policy() (int, time.Duration) { return l.Limit, l.Window }
