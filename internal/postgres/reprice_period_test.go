package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Re-pricing uses the rates in force at each event's timestamp: events on
// either side of a price cut, and a DeepSeek call in peak hours and one
// off-peak, keep their own rates and get their period stamped.
func TestRepriceKeepsEachEventsPeriod(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	unpriced := func(e *event.Event) { e.PriceVersion = "old" }
	cut := time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC)
	mon := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "o3-before", "o3", cut.Add(-time.Hour), 1_000_000, 100_000, unpriced),
		stored(p, "o3-after", "o3", cut.Add(time.Hour), 1_000_000, 100_000, unpriced),
		stored(p, "ds-peak", "deepseek-flash", mon.Add(2*time.Hour), 1_000_000, 100_000, unpriced),
		stored(p, "ds-off", "deepseek-flash", mon.Add(14*time.Hour), 1_000_000, 100_000, unpriced),
	}, nil); err != nil {
		t.Fatal(err)
	}
	f := postgres.RepriceFilter{Start: cut.AddDate(0, -1, 0), End: mon.AddDate(0, 0, 1), ProjectID: p}
	res, err := db.Reprice(ctx, pricing.Builtin(), f, false)
	if err != nil || res.Events != 4 {
		t.Fatalf("reprice: %+v, %v", res, err)
	}
	want := map[string]struct {
		cost   int64
		period string
	}{
		"o3-before": {14_000_000_000, pricing.BasePeriod},                        // $10 + 0.1 × $40
		"o3-after":  {2_800_000_000, "2025-06-10T00:00:00Z.."},                   // $2 + 0.1 × $8
		"ds-peak":   {420_000_000, "2026-09-10T04:00:00Z..@01:00-04:00 Mon-Fri"}, // $0.30 + 0.1 × $1.20
		"ds-off":    {210_000_000, "2026-09-10T04:00:00Z.."},                     // $0.15 + 0.1 × $0.60
	}
	got := byID(t, db, p)
	for id, w := range want {
		if e := got[id]; e.CostNano != w.cost || e.PricePeriod != w.period || !e.Priced {
			t.Errorf("%s: cost %d period %q, want %d %q", id, e.CostNano, e.PricePeriod, w.cost, w.period)
		}
	}
	// A second run finds nothing to change: both sides keep their rates.
	again, err := db.Reprice(ctx, pricing.Builtin(), f, true)
	if err != nil || again.Events != 0 {
		t.Errorf("second run: %+v, %v", again, err)
	}
}
