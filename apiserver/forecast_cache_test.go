package apiserver

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/forecast"
)

// Fifty pollers of one project's budget state make one history read; the
// next minute's polls answer the kept days at once and read again once,
// in the background; a new UTC day is read afresh.
func TestHistoryCacheReadsOncePerMinute(t *testing.T) {
	var reads atomic.Int64
	release := make(chan struct{})
	c := newHistoryCache(nil)
	c.read = func(ctx context.Context, _ string, today time.Time) ([]forecast.Day, error) {
		reads.Add(1)
		<-release
		return []forecast.Day{{Date: today.AddDate(0, 0, -1), Nano: reads.Load()}}, nil
	}
	now := time.Date(2026, time.June, 15, 12, 0, 0, 0, time.UTC)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if days, err := c.get(ctx, "p", now); err != nil || len(days) != 1 {
				t.Errorf("poll: %v %v", days, err)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond) // let the pollers queue behind the first read
	close(release)
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Fatalf("50 concurrent polls made %d reads, want 1", n)
	}
	for i := range 100 {
		if _, err := c.get(ctx, "p", now.Add(time.Duration(i)*500*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("polls within the minute made %d reads, want 1", n)
	}
	later := now.Add(historyFresh + time.Second)
	if days, err := c.get(ctx, "p", later); err != nil || days[0].Nano != 1 {
		t.Fatalf("a stale poll answers the kept days: %v %v", days, err)
	}
	waitFor(t, func() bool { return reads.Load() == 2 })
	waitFor(t, func() bool {
		days, _ := c.get(ctx, "p", later)
		return days[0].Nano == 2
	})
	if _, err := c.get(ctx, "p", now.AddDate(0, 0, 1)); err != nil || reads.Load() != 3 {
		t.Fatalf("a new day: %d reads (%v), want 3", reads.Load(), err)
	}
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
