// Package logtest checks an EventLog the way two instances of a deployment
// use it, so the PostgreSQL and Redis logs are held to one behaviour.
package logtest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/ratelimit"
)

// Start is the clock's start in Check; a caller checking the store's
// expiry afterwards counts from it.
var Start = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// Check runs two limiters of 3 events an hour (two instances) on log: the
// limit holds across both, exactly and under concurrency, a window cannot
// be straddled, retry times are exact and keys are independent. Its last
// event for key "straddle" is at Start+60m.
func Check(t *testing.T, log ratelimit.EventLog) {
	t.Helper()
	ctx := context.Background()
	now := Start
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	a, b := ratelimit.NewSharedSliding(3, time.Hour, log), ratelimit.NewSharedSliding(3, time.Hour, log)
	a.Now, b.Now = clock, clock
	allow := func(l *ratelimit.SharedSliding, key string) (bool, time.Duration) {
		t.Helper()
		ok, retry, err := l.Allow(ctx, key)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return ok, retry
	}

	// Ten at once through both instances: exactly three pass.
	var passed atomic.Int32
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, _, err := []*ratelimit.SharedSliding{a, b}[i%2].Allow(ctx, "burst"); err != nil {
				t.Error(err)
			} else if ok {
				passed.Add(1)
			}
		}()
	}
	wg.Wait()
	if passed.Load() != 3 {
		t.Fatalf("%d of 10 concurrent events passed, want 3", passed.Load())
	}
	if ok, retry := allow(b, "burst"); ok || retry != time.Hour {
		t.Fatalf("burst, 11th: ok=%v retry=%s, want refused for an hour", ok, retry)
	}

	// Three events ten minutes apart, alternating instances.
	for i, l := range []*ratelimit.SharedSliding{a, b, a} {
		if ok, _ := allow(l, "straddle"); !ok {
			t.Fatalf("event %d refused", i+1)
		}
		advance(10 * time.Minute)
	}
	// 30 minutes after the first, on the other instance: refused until
	// the first leaves the window.
	if ok, retry := allow(b, "straddle"); ok || retry != 30*time.Minute {
		t.Fatalf("4th within the hour: ok=%v retry=%s, want refused for 30m", ok, retry)
	}
	if ok, _ := allow(b, "other"); !ok {
		t.Fatal("another key shares the count")
	}
	// Exactly one hour after the first: one slot opens, not three.
	advance(30 * time.Minute)
	if ok, _ := allow(b, "straddle"); !ok {
		t.Fatal("slot not freed an hour after the oldest event")
	}
	if ok, retry := allow(a, "straddle"); ok || retry != 10*time.Minute {
		t.Fatalf("after one slot freed: ok=%v retry=%s, want refused for 10m", ok, retry)
	}
}
