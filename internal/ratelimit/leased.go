package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Leaser is a Counter that can also hand an instance several requests of
// a key's window at once (PostgreSQL does).
type Leaser interface {
	Counter
	// LeaseRequests takes up to n requests of key's window, never past
	// limit in all, and answers the window's count including them and how
	// many it took (limit and 0 when the window was full).
	LeaseRequests(ctx context.Context, key string, windowStart time.Time, limit, n int) (count, granted int, err error)
}

// Counting every request in a shared store costs every request a round
// trip to it, and on a database busy with ingest that round trip, not the
// request's own work, was most of a budget-state poll's time. So an
// instance takes a share of a key's window at once (a lease) and admits
// from memory until its share runs low, when it takes the next share in
// the background. A share is a 256th of what the window has left (at most
// maxLease), so a key far from a high limit costs a round trip per
// hundreds of requests, while a key under a limit of a few hundred, and
// any key near its limit, is counted request by request, with exact
// RateLimit-Remaining headers. No instance admits past the limit, since
// every admitted request was counted in the shared window first. What an
// instance leased and did not use when the window ends is lost to the
// others: at most a 256th of the window per instance. A full window
// refuses from memory: its count can only grow until it ends.
const (
	maxLease      = 256
	leaseFraction = 256
)

// lease is what one instance holds of one key's window.
type lease struct {
	start  time.Time
	tokens int  // leased and not used yet
	count  int  // the window's shared count at the last lease
	last   int  // the size of the last lease
	full   bool // the store said the window is full
	// fetching is closed when the lease being taken ends; nil when none
	// is: requests that find no token wait for it rather than each taking
	// a lease of their own (a burst would otherwise share the window out
	// among requests that each use one request of it).
	fetching chan struct{}
}

// leases are the instance's leases, by key.
type leases struct {
	mu sync.Mutex
	m  map[string]*lease
}

// leaseSize is the share to take of a window of limit that holds count.
func leaseSize(limit, count int) int {
	return min(max((limit-count)/leaseFraction, 1), maxLease)
}

// current is key's lease for the window starting at start, a fresh one
// when the held one is of an earlier window; leases of ended windows are
// dropped once the map grows large. Called with mu held.
func (ls *leases) current(key string, start time.Time) *lease {
	if ls.m == nil {
		ls.m = map[string]*lease{}
	}
	st := ls.m[key]
	if st == nil || !st.start.Equal(start) {
		if len(ls.m) >= 4096 {
			for k, v := range ls.m {
				if v.start.Before(start) {
					delete(ls.m, k)
				}
			}
		}
		st = &lease{start: start}
		ls.m[key] = st
	}
	return st
}

// allowLeased is Shared.Allow over a Leaser.
func (l *Shared) allowLeased(ctx context.Context, c Leaser, key string, start time.Time, reset time.Duration) (Decision, error) {
	d := Decision{Limit: l.Limit, Reset: reset}
	ls := &l.leases
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for {
		st := ls.current(key, start)
		switch {
		case st.tokens > 0:
			st.tokens--
			d.Allowed, d.Remaining = true, l.Limit-st.count+st.tokens
			if st.last > 1 && st.tokens <= st.last/2 && st.fetching == nil && !st.full {
				st.fetching = make(chan struct{})
				go func() {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					ls.mu.Lock()
					defer ls.mu.Unlock()
					_ = l.fetch(ctx, c, key, st) // on failure the next request without a token takes one
				}()
			}
			return d, nil
		case st.full:
			return d, nil
		case st.fetching != nil:
			done := st.fetching
			ls.mu.Unlock()
			select {
			case <-done:
			case <-ctx.Done():
				ls.mu.Lock()
				return l.failOpen(reset), context.Cause(ctx)
			}
			ls.mu.Lock()
		default:
			st.fetching = make(chan struct{})
			if err := l.fetch(ctx, c, key, st); err != nil {
				return l.failOpen(reset), err
			}
		}
	}
}

// fetch takes st's next lease from the store; called with mu held and
// st.fetching set, it releases mu for the round trip and ends the fetch.
func (l *Shared) fetch(ctx context.Context, c Leaser, key string, st *lease) error {
	n := leaseSize(l.Limit, st.count)
	l.leases.mu.Unlock()
	count, granted, err := c.LeaseRequests(ctx, key, st.start, l.Limit, n)
	l.leases.mu.Lock()
	close(st.fetching)
	st.fetching = nil
	if err != nil {
		return err
	}
	st.count = max(st.count, count)
	st.tokens += granted
	if granted == 0 {
		st.full = true
	} else {
		st.last = granted
	}
	return nil
}
