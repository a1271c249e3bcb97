package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// monthTotals is the spend report over May 2019 by agent, from the
// rollups (whole days: no raw edge).
func monthTotals(t *testing.T, db *postgres.DB, p string) analytics.Sums {
	t.Helper()
	w := analytics.Span{Start: time.Date(2019, 5, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2019, 6, 1, 0, 0, 0, 0, time.UTC)}
	res, err := db.ReadWindows(context.Background(), postgres.WindowQuery{ProjectID: p, Dim: "agent",
		Segments: analytics.Decompose(w, analytics.Week)})
	if err != nil {
		t.Fatal(err)
	}
	return analytics.Total(res[0].Keys)
}

// p99 of durations.
func p99(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)*99)/100]
}

// TestExpiringAMonthDropsItWholeAndKeepsTheReports expires a month of
// calls while batches are ingested: it takes under a second, the month's
// partition is gone, the spend report over the month answers the same
// totals from the rollups, and the batches' p99 is logged before and
// during (docs/scale.md has the figures).
func TestExpiringAMonthDropsItWholeAndKeepsTheReports(t *testing.T) {
	db := openDB(t)
	p := newProject(t, db)
	ctx := context.Background()
	monthsAround(t, db)
	const calls = 31 * 24 * 20 // 20 an hour
	may := time.Date(2019, 5, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]event.Event, 0, 496)
	for i := range calls {
		e := callAt(p, fmt.Sprintf("may-%d", i), may.Add(time.Duration(i)*3*time.Minute))
		e.CostNano, e.Priced = int64(1000+i%77), true
		if batch = append(batch, e); len(batch) == cap(batch) || i == calls-1 {
			if _, err := db.Write(ctx, batch, nil); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for merge(t, db).Groups > 0 {
	}
	before := monthTotals(t, db, p)
	if before.Calls != calls {
		t.Fatalf("the report counts %d calls of May before the expiry, want %d", before.Calls, calls)
	}

	// Batches of 100 calls of now, back to back, timed.
	var stop atomic.Bool
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; !stop.Load(); n++ {
			b := make([]event.Event, 100)
			for i := range b {
				b[i] = call(p, fmt.Sprintf("now-%d-%d", n, i), 1)
			}
			t0 := time.Now()
			if _, err := db.Write(ctx, b, nil); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			lat = append(lat, time.Since(t0))
			mu.Unlock()
		}
	}()
	time.Sleep(2 * time.Second)
	mu.Lock()
	quiet := len(lat)
	mu.Unlock()

	db.RawRetentionDays = 30
	t0 := time.Now()
	exp, err := db.ExpireRawCalls(ctx, time.Now())
	took := time.Since(t0)
	time.Sleep(500 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(exp.Partitions, "events_p201905") || took > time.Second {
		t.Fatalf("expired %v in %s, want May 2019 dropped in under a second", exp.Partitions, took)
	}
	mu.Lock()
	t.Logf("expired %v in %s; batches of 100: p99 %s over %d before, %s over %d during and after", exp.Partitions, took,
		p99(lat[:quiet]), quiet, p99(lat[quiet:]), len(lat)-quiet)
	mu.Unlock()
	if n := storedCopies(t, db, p, "may-0"); n != 0 {
		t.Fatalf("a call of May is still stored after the expiry")
	}
	if after := monthTotals(t, db, p); after != before {
		t.Fatalf("the report over May changed with the expiry:\nbefore %+v\n after %+v", before, after)
	}
	ret, err := db.Retention(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if eb := ret.RawExpiredBefore(time.Now()); eb == nil || eb.Before(time.Date(2019, 7, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("expired before %v after May and June were dropped", eb)
	}
}

func TestExpiryKeepsTheLongestRetention(t *testing.T) {
	db := openDB(t)
	short, forever := newProject(t, db), newProject(t, db)
	ctx := context.Background()
	monthsAround(t, db)
	if _, err := db.Write(ctx, []event.Event{callAt(short, "s", time.Date(2019, 5, 2, 0, 0, 0, 0, time.UTC)),
		callAt(forever, "f", time.Date(2019, 5, 3, 0, 0, 0, 0, time.UTC))}, nil); err != nil {
		t.Fatal(err)
	}
	days := 1
	if err := db.PutRetention(ctx, short, &days, nil); err != nil {
		t.Fatal(err)
	}
	// The other project keeps the deployment's: forever.
	if exp, err := db.ExpireRawCalls(ctx, time.Now()); err != nil || len(exp.Partitions) != 0 {
		t.Fatalf("dropped %v (%v) while a project keeps its calls forever", exp.Partitions, err)
	}
	if n := storedCopies(t, db, forever, "f"); n != 1 {
		t.Fatal("the project that keeps forever lost its call")
	}
	ret, err := db.Retention(ctx, short)
	if err != nil || ret.RawExpiredBefore(time.Now()) == nil {
		t.Fatalf("the 1-day project sees nothing expired: %+v %v", ret, err)
	}
	long := 3650
	if err := db.PutRetention(ctx, forever, &long, nil); err != nil {
		t.Fatal(err)
	}
	// Ten years back from 2026 is 2016: May 2019 is still kept.
	if exp, err := db.ExpireRawCalls(ctx, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil || len(exp.Partitions) != 0 {
		t.Fatalf("dropped %v (%v) within the longest retention", exp.Partitions, err)
	}
	if exp, err := db.ExpireRawCalls(ctx, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil ||
		!slices.Contains(exp.Partitions, "events_p201905") {
		t.Fatalf("dropped %v (%v) ten years on", exp.Partitions, err)
	}
}
