package swr

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, time.June, 15, 12, 0, 0, 0, time.UTC)

// counter is a read that answers how many reads were made, after release
// is closed, or fails while fail is set.
type counter struct {
	reads   atomic.Int64
	release chan struct{}
	fail    atomic.Bool
}

func (c *counter) read(ctx context.Context, k string) (int64, error) {
	n := c.reads.Add(1)
	select {
	case <-c.release:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if c.fail.Load() {
		return 0, errors.New("down")
	}
	return n, nil
}

func newCounter() (*counter, *Cache[string, int64]) {
	c := &counter{release: make(chan struct{})}
	return c, New(time.Minute, 10*time.Minute, 5*time.Second, c.read)
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 5 s")
}

// Fifty concurrent first Gets of a key make one read and all get its value.
func TestFirstGetsShareOneRead(t *testing.T) {
	c, cache := newCounter()
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if v, err := cache.Get(context.Background(), "p", t0); err != nil || v != 1 {
				t.Errorf("get: %v %v", v, err)
			}
		})
	}
	time.Sleep(50 * time.Millisecond) // let them queue behind the first read
	close(c.release)
	wg.Wait()
	if n := c.reads.Load(); n != 1 {
		t.Fatalf("50 concurrent first gets made %d reads, want 1", n)
	}
}

// Within fresh a Get answers at once; past it, it answers the kept value
// and one background read replaces it; other keys read on their own.
func TestStaleAnswersAtOnceAndRefreshesOnce(t *testing.T) {
	c, cache := newCounter()
	close(c.release)
	ctx := context.Background()
	if v, err := cache.Get(ctx, "p", t0); err != nil || v != 1 {
		t.Fatalf("first: %v %v", v, err)
	}
	for i := range 100 {
		if v, _ := cache.Get(ctx, "p", t0.Add(time.Duration(i)*500*time.Millisecond)); v != 1 {
			t.Fatalf("within the minute: %d", v)
		}
	}
	if n := c.reads.Load(); n != 1 {
		t.Fatalf("gets within the minute made %d reads, want 1", n)
	}
	stale := t0.Add(time.Minute + time.Second)
	if v, err := cache.Get(ctx, "p", stale); err != nil || v != 1 {
		t.Fatalf("a stale get answers the kept value: %v %v", v, err)
	}
	waitFor(t, func() bool { v, _ := cache.Get(ctx, "p", stale); return v == 2 })
	if n := c.reads.Load(); n != 2 {
		t.Fatalf("the stale gets made %d reads in all, want 2", n)
	}
	if v, _ := cache.Get(ctx, "q", stale); v != 3 {
		t.Fatalf("another key: %d, want its own read (3)", v)
	}
}

// A failed first read is answered to its caller and not kept; a failed
// refresh keeps the older value.
func TestFailedReads(t *testing.T) {
	c, cache := newCounter()
	close(c.release)
	ctx := context.Background()
	c.fail.Store(true)
	if _, err := cache.Get(ctx, "p", t0); err == nil {
		t.Fatal("a failed first read answered no error")
	}
	c.fail.Store(false)
	if v, err := cache.Get(ctx, "p", t0); err != nil || v != 2 {
		t.Fatalf("after a failed first read: %v %v, want a new read (2)", v, err)
	}
	c.fail.Store(true)
	stale := t0.Add(2 * time.Minute)
	if v, err := cache.Get(ctx, "p", stale); err != nil || v != 2 {
		t.Fatalf("stale: %v %v", v, err)
	}
	waitFor(t, func() bool { return c.reads.Load() == 3 })
	waitFor(t, func() bool {
		cache.mu.Lock()
		defer cache.mu.Unlock()
		return cache.m["p"].reading == nil
	})
	if v, err := cache.Get(ctx, "p", stale); err != nil || v != 2 {
		t.Fatalf("after a failed refresh: %v %v, want the kept 2", v, err)
	}
}

// A caller waiting for another's first read gives up with its context.
func TestWaiterGivesUpWithItsContext(t *testing.T) {
	c, cache := newCounter()
	go func() { _, _ = cache.Get(context.Background(), "p", t0) }()
	waitFor(t, func() bool { return c.reads.Load() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := cache.Get(ctx, "p", t0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiter: %v, want its deadline", err)
	}
	close(c.release)
}

// Keys unused for forget are dropped when a new key is asked.
func TestUnusedKeysAreForgotten(t *testing.T) {
	c, cache := newCounter()
	close(c.release)
	ctx := context.Background()
	_, _ = cache.Get(ctx, "old", t0)
	_, _ = cache.Get(ctx, "new", t0.Add(11*time.Minute))
	cache.mu.Lock()
	_, kept := cache.m["old"]
	n := len(cache.m)
	cache.mu.Unlock()
	if kept || n != 1 {
		t.Fatalf("after 11 minutes unused: old kept %v, %d keys", kept, n)
	}
}
