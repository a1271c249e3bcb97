// Package ratelimit holds fixed-window limiters that report the exact
// remaining quota and reset time the RateLimit headers need: Limiter in
// process memory, Shared over a store every instance of a deployment
// counts in (PostgreSQL, or Redis through go-redis, which brings the
// connection pool, reconnects, RESP3 and EVALSHA with an EVAL fallback a
// hand-written client would have to keep up). The limiters are
// hand-written because golang.org/x/time/rate exposes neither a window
// reset nor an integer remaining count.
package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Allower is what the API's middleware asks of a limiter.
type Allower interface {
	// Allow counts one request for key. An error means the count could
	// not be kept; the decision returned with it allows the request.
	Allow(ctx context.Context, key string) (Decision, error)
	// Policy is the limit and window length.
	Policy() (limit int, window time.Duration)
}

// Decision is the outcome of one request against its key's window.
type Decision struct {
	Allowed   bool
	Limit     int
	Remaining int
	// Reset is the time until the window restarts, at least one second.
	Reset time.Duration
}

type window struct {
	start time.Time
	count int
}

// Limiter allows Limit requests per Window for each key.
type Limiter struct {
	Limit  int
	Window time.Duration
	Now    func() time.Time

	mu      sync.Mutex
	windows map[string]*window
}

// New returns a limiter of limit requests per window.
func New(limit int, w time.Duration) *Limiter {
	return &Limiter{Limit: limit, Window: w, Now: time.Now, windows: map[string]*window{}}
}

// Allow counts one request for key, in this process only.
func (l *Limiter) Allow(_ context.Context, key string) (Decision, error) {
	return l.allow(key), nil
}

// Policy is the limit and window length.
func (l *Limiter) Policy() (int, time.Duration) { return l.Limit, l.Window }

// allow counts one request for key and says whether it may proceed.
func (l *Limiter) allow(key string) Decision {
	now := l.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.windows) > 50_000 {
		l.sweep(now)
	}
	w := l.windows[key]
	if w == nil || now.Sub(w.start) >= l.Window {
		w = &window{start: now}
		l.windows[key] = w
	}
	reset := max(w.start.Add(l.Window).Sub(now), time.Second)
	if w.count >= l.Limit {
		return Decision{Allowed: false, Limit: l.Limit, Remaining: 0, Reset: reset}
	}
	w.count++
	return Decision{Allowed: true, Limit: l.Limit, Remaining: l.Limit - w.count, Reset: reset}
}

// sweep drops finished windows so idle keys do not accumulate.
func (l *Limiter) sweep(now time.Time) {
	for k, w := range l.windows {
		if now.Sub(w.start) >= l.Window {
			delete(l.windows, k)
		}
	}
}
