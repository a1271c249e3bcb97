package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/alerts"
	"github.com/llmcost/llmcost/internal/event"
)

func (e *env) spend(project, id string, nano int64, billing string) {
	e.t.Helper()
	ev := event.Event{ProjectID: project, EventID: id, AgentName: "a", Model: "gpt-4o", InputTokens: 1, OutputTokens: 1,
		TotalTokens: 2, CostNano: nano, Priced: true, Success: true, Source: "batch", Billing: billing, Timestamp: e.clock.Now()}
	if _, err := e.db.Write(context.Background(), []event.Event{ev}, nil); err != nil {
		e.t.Fatal(err)
	}
}

func TestBudgetStateAndThresholds(t *testing.T) {
	e := newEnv(t)
	hook := alerts.New(nil, e.clock.Now)
	e.db.Hook = hook
	u := e.register("budget")
	p := u.ProjectID
	state := "/v1/projects/" + p + "/budget-state"

	// No budget: spend is still counted, the budget fields are null.
	e.spend(p, "s0", 1_000_000_000, "")
	e.spend(p, "sub", 50_000_000_000, "subscription")
	r := e.must(e.do("GET", state, u.Key, nil), 200)
	if r.Body["enabled"] != false || r.Body["budget"] != nil || r.Body["remaining"] != nil ||
		r.Body["utilization_percent"] != nil || fmt.Sprint(r.Body["spend_mtd"]) != "1" || r.Body["currency"] != "USD" {
		t.Fatalf("no budget: %s", r.Raw)
	}
	for _, bad := range []map[string]any{{"budget": 0}, {"budget": 10, "mode": "stop"}, {"budget": 10, "thresholds": []int{50, 50}},
		{"budget": 10, "thresholds": []int{0}}, {"mode": "warn"},
		// Past what a project's calls may sum to (2^62 nano-USD).
		{"budget": json.Number("4611686018.427387905")}, {"budget": json.Number("9223372036.854775807")}} {
		e.must(e.do("PUT", "/v1/projects/"+p+"/budget", u.Access, bad), 422)
	}
	e.must(e.do("PUT", "/v1/projects/"+p+"/budget", u.Key, map[string]any{"budget": 10}), 403)
	r = e.must(e.do("PUT", "/v1/projects/"+p+"/budget", u.Access, map[string]any{"budget": 10, "mode": "hard_cap"}), 200)
	if fmt.Sprint(r.Body["thresholds"]) != "[50 80 100]" || r.Body["utilization_percent"] != 10.0 {
		t.Fatalf("budget set: %s", r.Raw)
	}

	// 1 → 5.5 USD crosses 50 %; subscription calls never move spend.
	e.spend(p, "s1", 4_500_000_000, "api")
	e.spend(p, "sub2", 900_000_000_000, "subscription")
	e.spend(p, "s2", 1, "")
	// 5.5 → 10.5 crosses 80 and 100 in one batch.
	e.spend(p, "s3", 5_000_000_000, "")
	r = e.must(e.do("GET", state, u.Access, nil), 200)
	want := "true hard_cap 10 10.500000001 0 105 [50 80 100] true"
	if got := fmt.Sprint(r.Body["enabled"], " ", r.Body["mode"], " ", r.Body["budget"], " ", r.Body["spend_mtd"], " ",
		r.Body["remaining"], " ", r.Body["utilization_percent"], " ", r.Body["thresholds_crossed"], " ", r.Body["exhausted"]); got != want {
		t.Errorf("state: got %q, want %q (%s)", got, want, r.Raw)
	}
	if r.str("period_ends_at") == "" || r.str("as_of") == "" {
		t.Errorf("state: %s", r.Raw)
	}
	// Ingest queued the crossings (s1's 50 %, and s2 and s3 repeat it as
	// the drain has not run yet); the drain notifies each threshold once.
	if crossed := budgetNotices(t, e, u); len(crossed) != 0 {
		t.Errorf("notified before the drain: %v", crossed)
	}
	e.drain(hook, 3)
	crossed := budgetNotices(t, e, u)
	if fmt.Sprint(crossed) != "[50 80 100]" {
		t.Errorf("one notification per threshold, got %v", crossed)
	}
	e.spend(p, "s4", 1_000_000_000, "")
	e.drain(hook, 0) // known notified: nothing queued
	if again := budgetNotices(t, e, u); len(again) != 3 {
		t.Errorf("a threshold alerted twice in a month: %v", again)
	}
}

// budgetNotices are the thresholds of the user's budget notifications,
// ascending.
func budgetNotices(t *testing.T, e *env, u user) []int {
	t.Helper()
	n := e.must(e.do("GET", "/v1/notifications", u.Access, nil), 200)
	var out []int
	for _, item := range n.Body["notifications"].([]any) {
		m := item.(map[string]any)
		if m["type"] == "budget.threshold_crossed" {
			out = append(out, int(m["data"].(map[string]any)["threshold"].(float64)))
		}
	}
	slices.Sort(out)
	return out
}

// Two writers crossing the same thresholds at the same moment, each with
// its own hook (two instances): every threshold is recorded once.
func TestBudgetThresholdsOnceUnderConcurrency(t *testing.T) {
	e := newEnv(t)
	u := e.register("race")
	p := u.ProjectID
	e.must(e.do("PUT", "/v1/projects/"+p+"/budget", u.Access, map[string]any{"budget": 1, "thresholds": []int{10, 20, 30, 40, 50}}), 200)
	hooks := []*alerts.Hook{alerts.New(nil, e.clock.Now), alerts.New(nil, e.clock.Now)}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				ev := event.Event{ProjectID: p, EventID: fmt.Sprintf("w%d-%d", w, i), AgentName: "a", Model: "m",
					CostNano: 10_000_000, Priced: true, Source: "batch", Timestamp: e.clock.Now().Add(-time.Second)}
				if _, err := e.db.WriteWith(context.Background(), hooks[w%2], []event.Event{ev}, nil); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	// Both instances drain at once.
	for _, h := range hooks {
		wg.Go(func() {
			if _, err := h.Drain(context.Background(), e.db); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := budgetNotices(t, e, u); fmt.Sprint(got) != "[10 20 30 40 50]" {
		t.Errorf("thresholds notified: %v", got)
	}
}
