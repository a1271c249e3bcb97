package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// acmeCatalogue knows acme-llm-9000 at $2 in and $8 out per million tokens.
func acmeCatalogue() *pricing.Catalogue {
	return pricing.Merge(pricing.Builtin(), []pricing.Entry{{Model: "acme-llm-9000", Provider: "acme", Mode: "chat",
		Base: pricing.Rates{Input: 2_000_000_000_000, Output: 8_000_000_000_000}, Source: "litellm"}}, "import")
}

func stored(project, id, model string, ts time.Time, in, out int64, mod func(*event.Event)) event.Event {
	e := event.Event{ProjectID: project, EventID: id, AgentName: "a", Model: model, InputTokens: in,
		OutputTokens: out, TotalTokens: in + out, Timestamp: ts, Success: true, Billing: "api", Source: "batch",
		CatalogueCostNano: -1, PriceVersion: pricing.Builtin().Version()}
	if mod != nil {
		mod(&e)
	}
	return e
}

func byID(t *testing.T, db *postgres.DB, project string) map[string]event.Event {
	t.Helper()
	events, _, err := db.ListEvents(context.Background(), postgres.EventFilter{ProjectID: project, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]event.Event{}
	for _, e := range events {
		out[e.EventID] = e
	}
	return out
}

func TestRepriceDryRunThenRealRun(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p, q := newProject(t, db), newProject(t, db)
	t0 := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	client := func(e *event.Event) { e.CostNano, e.CostProvided = 500_000_000, true }
	stale := func(e *event.Event) { e.CostNano, e.CatalogueCostNano, e.Priced = 1, 1, true }
	// claude-sonnet-4-5 at 1000 in, 100 out: 1000 × $3/M + 100 × $15/M = $0.0045.
	right := func(e *event.Event) { e.CostNano, e.CatalogueCostNano, e.Priced = 4_500_000, 4_500_000, true }
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "unknown", "acme-llm-9000", t0.Add(time.Hour), 1000, 500, nil),
		stored(p, "client", "ACME-LLM-9000", t0.Add(time.Hour), 1000, 500, client),
		stored(p, "stale", "gpt-5", t0.Add(2*time.Hour), 1000, 100, stale),
		stored(p, "right", "claude-sonnet-4-5", t0.Add(time.Hour), 1000, 100, right),
		stored(p, "before", "acme-llm-9000", t0.Add(-time.Second), 1000, 500, nil),
		stored(p, "at-end", "acme-llm-9000", t0.Add(24*time.Hour), 1000, 500, nil),
		stored(p, "still-unknown", "mystery-1", t0.Add(time.Hour), 1000, 500, nil),
		stored(q, "other", "acme-llm-9000", t0.Add(time.Hour), 1000, 500, nil),
	}, nil); err != nil {
		t.Fatal(err)
	}
	cat := acmeCatalogue()
	day := postgres.RepriceFilter{Start: t0, End: t0.Add(24 * time.Hour)}
	before := byID(t, db, p)

	// acme: 1000 × $2/M + 500 × $8/M = $0.006; gpt-5: 1000 × $1.25/M + 100 × $10/M = $0.00225.
	res, err := db.Reprice(ctx, cat, day, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Events != 4 || res.OldTotal != 500_000_001 || res.NewTotal != 6_000_000+500_000_000+2_250_000+6_000_000 ||
		len(res.Changes) != 3 || res.PriceVersion != cat.Version() {
		t.Fatalf("dry run: %+v", res)
	}
	if after := byID(t, db, p); !equalEvents(before, after) {
		t.Fatal("the dry run changed events")
	}

	only := day
	only.ProjectID = p
	res, err = db.Reprice(ctx, cat, only, false)
	if err != nil || res.Events != 3 || res.NewTotal != 6_000_000+500_000_000+2_250_000 {
		t.Fatalf("real run: %+v %v", res, err)
	}
	after := byID(t, db, p)
	for id, want := range map[string][2]int64{"unknown": {6_000_000, 6_000_000}, "client": {500_000_000, 6_000_000},
		"stale": {2_250_000, 2_250_000}} {
		e := after[id]
		if e.CostNano != want[0] || e.CatalogueCostNano != want[1] || !e.Priced || e.PriceVersion != cat.Version() {
			t.Errorf("%s after the run: %+v", id, e)
		}
	}
	if !after["client"].CostProvided {
		t.Error("the client cost lost its flag")
	}
	for _, id := range []string{"right", "before", "at-end", "still-unknown"} {
		if e, ok := after[id]; !ok || !sameEvent(e, before[id]) {
			t.Errorf("%s changed: %+v", id, after[id])
		}
	}
	if res, _ := db.Reprice(ctx, cat, only, true); res.Events != 0 {
		t.Fatalf("a second dry run still finds %+v", res)
	}
	if res, _ := db.Reprice(ctx, cat, day, true); res.Events != 1 || res.Changes[0].Model != "acme-llm-9000" {
		t.Fatalf("the other project's event: %+v", res)
	}
}

func TestRepriceModelFilter(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	t0 := time.Now().UTC().Add(-time.Hour)
	stale := func(e *event.Event) { e.CostNano, e.CatalogueCostNano, e.Priced = 1, 1, true }
	if _, err := db.Write(ctx, []event.Event{
		stored(p, "a", "acme-llm-9000", t0, 10, 10, nil),
		stored(p, "b", "anthropic/claude-sonnet-4-5", t0, 10, 10, stale),
		stored(p, "c", "claude-sonnet-4-5-20250929", t0, 10, 10, stale),
	}, nil); err != nil {
		t.Fatal(err)
	}
	f := postgres.RepriceFilter{Start: t0.Add(-time.Minute), End: t0.Add(time.Minute)}
	for models, want := range map[string]int64{"ACME-LLM-9000": 1, "claude-sonnet-4-5": 2, "gpt-5": 0} {
		f.Models = []string{models}
		if res, err := db.Reprice(ctx, acmeCatalogue(), f, true); err != nil || res.Events != want {
			t.Errorf("models %s: %+v %v, want %d events", models, res, err, want)
		}
	}
}

func equalEvents(a, b map[string]event.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for k, e := range a {
		if !sameEvent(e, b[k]) {
			return false
		}
	}
	return true
}

func sameEvent(a, b event.Event) bool {
	return a.CostNano == b.CostNano && a.CatalogueCostNano == b.CatalogueCostNano && a.Priced == b.Priced &&
		a.PriceVersion == b.PriceVersion && a.CostProvided == b.CostProvided
}
