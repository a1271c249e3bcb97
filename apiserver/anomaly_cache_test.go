package apiserver

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/anomaly"
)

// TestSignalCacheJudgesAWindowOncePerMinute: the reports of one window
// share one judgement for a minute (concurrent ones wait for the read in
// flight), a later day's window or a stale one is read again, and a
// failed read is not kept.
func TestSignalCacheJudgesAWindowOncePerMinute(t *testing.T) {
	var reads atomic.Int64
	release := make(chan struct{})
	fail := atomic.Bool{}
	c := &signalCache{m: map[signalKey]*signalEntry{}}
	c.read = func(ctx context.Context, _ string, w analytics.Span) ([]anomaly.Scoped, error) {
		n := reads.Add(1)
		<-release
		if fail.Load() {
			return nil, errors.New("down")
		}
		return []anomaly.Scoped{{Anomaly: anomaly.Anomaly{Nano: n}}}, nil
	}
	now := time.Date(2026, time.June, 15, 12, 0, 0, 0, time.UTC)
	w := analytics.Span{Start: now.Add(-24 * time.Hour), End: now}
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if found, err := c.get(ctx, "p", w, now); err != nil || len(found) != 1 || found[0].Nano != 1 {
				t.Errorf("report: %v %v", found, err)
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Fatalf("20 concurrent reports made %d reads, want 1", n)
	}
	// The same days within the minute: no read; the window moved by a few
	// seconds touches the same days.
	later := analytics.Span{Start: w.Start.Add(30 * time.Second), End: w.End.Add(30 * time.Second)}
	if found, err := c.get(ctx, "p", later, now.Add(30*time.Second)); err != nil || found[0].Nano != 1 || reads.Load() != 1 {
		t.Fatalf("within the minute: %v %v, %d reads", found, err, reads.Load())
	}
	// Stale: read again.
	if found, err := c.get(ctx, "p", w, now.Add(signalFresh+time.Second)); err != nil || found[0].Nano != 2 {
		t.Fatalf("after the minute: %v %v", found, err)
	}
	// Another project or other days: their own reads.
	if _, err := c.get(ctx, "q", w, now.Add(signalFresh+time.Second)); err != nil || reads.Load() != 3 {
		t.Fatalf("another project: %v, %d reads", err, reads.Load())
	}
	// A failed read answers its error and is not kept.
	fail.Store(true)
	week := analytics.Span{Start: now.Add(-7 * 24 * time.Hour), End: now}
	if _, err := c.get(ctx, "p", week, now); err == nil {
		t.Fatal("a failed read answered no error")
	}
	fail.Store(false)
	if found, err := c.get(ctx, "p", week, now); err != nil || len(found) != 1 {
		t.Fatalf("after a failed read: %v %v", found, err)
	}
}
