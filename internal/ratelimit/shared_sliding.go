package ratelimit

import (
	"context"
	"time"
)

// EventLog is a store that keeps, for every instance of a deployment, the
// times of each key's events within a rolling window: internal/postgres.DB
// and Redis are two.
type EventLog interface {
	// CountEvent counts one event at now for key unless limit events
	// happened within the window before now; then allowed is false and
	// oldest is the earliest of those. The store keeps the log at least
	// one window after its latest event, whatever the other limits'
	// windows are.
	CountEvent(ctx context.Context, key string, now time.Time, window time.Duration, limit int) (allowed bool, oldest time.Time, err error)
}

// SharedSliding allows Limit events per key within any Window-long span,
// like Sliding, but counts them in an EventLog every instance shares, so
// N instances on one store still allow Limit in all, not N×Limit. Its
// semantics are exactly Sliding's: an event leaves the window Window after
// it happened, and refused events are not counted.
type SharedSliding struct {
	Limit  int
	Window time.Duration
	Now    func() time.Time
	Log    EventLog
	// local counts while Log cannot: a store outage then leaves the
	// per-process limit in force rather than none, since these limits
	// guard mail sent to other people's addresses.
	local *Sliding
}

// NewSharedSliding returns a limiter of limit events per rolling window
// counted in log; with a nil log it counts in process memory only.
func NewSharedSliding(limit int, window time.Duration, log EventLog) *SharedSliding {
	l := &SharedSliding{Limit: limit, Window: window, Now: time.Now, Log: log, local: NewSliding(limit, window)}
	l.local.Now = func() time.Time { return l.Now() }
	return l
}

// Allow counts one event for key when it is within the limit. When it is
// not, retryAfter is how long until the oldest counted event leaves the
// window (at least one second). An error of the store is returned with
// the decision of the process's own count, which the caller may log.
func (l *SharedSliding) Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration, err error) {
	if l.Log == nil {
		ok, retryAfter = l.local.Allow(key)
		return ok, retryAfter, nil
	}
	now := l.Now()
	ok, oldest, err := l.Log.CountEvent(ctx, key, now, l.Window, l.Limit)
	if err != nil {
		ok, retryAfter = l.local.Allow(key)
		return ok, retryAfter, err
	}
	if ok {
		return true, 0, nil
	}
	return false, max(oldest.Add(l.Window).Sub(now), time.Second), nil
}
