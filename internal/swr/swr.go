// Package swr is a keyed, single-flight, stale-while-revalidate cache for
// reads that are costly next to the answer they ride on but change slowly:
// the daily history a budget state's forecast projects, the anomalous days
// a report carries as a signal.
//
// A key's first Get reads and waits (concurrent Gets of that key wait for
// the same read). Later Gets answer the kept value at once; when it is
// older than Fresh, one of them starts a read in the background, so no
// caller waits for the database again while the key is in use. A failed
// first read is answered to its callers and not kept; a failed refresh
// keeps the older value. Keys nobody asked for during Forget are dropped.
package swr

import (
	"context"
	"sync"
	"time"
)

// Cache keeps the values of recently asked keys. Its zero value is not
// usable; make one with New.
type Cache[K comparable, V any] struct {
	fresh, forget, timeout time.Duration
	read                   func(ctx context.Context, k K) (V, error)

	mu sync.Mutex
	m  map[K]*entry[V]
}

type entry[V any] struct {
	v       V
	readAt  time.Time // zero: never filled
	usedAt  time.Time
	reading chan struct{} // closed when the read in flight ends
	err     error         // the last read's, while none succeeded
}

// New makes a cache whose values are read by read, refreshed when older
// than fresh, and forgotten when unused for forget. A background refresh
// gets at most timeout.
func New[K comparable, V any](fresh, forget, timeout time.Duration, read func(ctx context.Context, k K) (V, error)) *Cache[K, V] {
	return &Cache[K, V]{fresh: fresh, forget: forget, timeout: timeout, read: read, m: map[K]*entry[V]{}}
}

// Get answers k's value as of now: the kept one (starting a background
// refresh when it is stale), or, when none was read yet, the one it reads
// or waits for.
func (c *Cache[K, V]) Get(ctx context.Context, k K, now time.Time) (V, error) {
	c.mu.Lock()
	e := c.m[k]
	if e == nil {
		c.sweep(now)
		e = &entry[V]{}
		c.m[k] = e
	}
	e.usedAt = now
	if !e.readAt.IsZero() {
		if now.Sub(e.readAt) >= c.fresh && e.reading == nil {
			e.reading = make(chan struct{})
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
				defer cancel()
				c.fill(ctx, k, e, now)
			}()
		}
		v := e.v
		c.mu.Unlock()
		return v, nil
	}
	if e.reading == nil {
		e.reading = make(chan struct{})
		c.mu.Unlock()
		c.fill(ctx, k, e, now)
		c.mu.Lock()
		v, err := e.v, e.err
		c.mu.Unlock()
		return v, err
	}
	done := e.reading
	c.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	if e.readAt.IsZero() {
		if e.err != nil {
			return zero, e.err
		}
		return zero, context.Cause(ctx)
	}
	return e.v, nil
}

// fill reads e's value; called without mu, with e.reading set. A failed
// first read drops the entry, so the next Get reads again.
func (c *Cache[K, V]) fill(ctx context.Context, k K, e *entry[V], now time.Time) {
	v, err := c.read(ctx, k)
	c.mu.Lock()
	defer c.mu.Unlock()
	close(e.reading)
	e.reading, e.err = nil, err
	if err == nil {
		e.v, e.readAt = v, now
		return
	}
	if e.readAt.IsZero() && c.m[k] == e {
		delete(c.m, k)
	}
}

// sweep drops the entries unused for forget; called with mu held.
func (c *Cache[K, V]) sweep(now time.Time) {
	for k, e := range c.m {
		if e.reading == nil && now.Sub(e.usedAt) > c.forget {
			delete(c.m, k)
		}
	}
}
