package postgres_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// TestBreachCostCountsEachCallOnce checks BreachCost against a sum over
// the stored calls in Go, for tool, model and run breaches that overlap
// call by call, over windows that cut hours and days at odd minutes, lie
// inside one day or one hour, with part of the calls merged and the rest
// in the tail. Tool and model names that run together the same way
// ("t1" with "2m", "t12" with "m") must not be taken for one another.
func TestBreachCostCountsEachCallOnce(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	rng := rand.New(rand.NewPCG(49, 7))
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	t0 := time.Date(2026, 6, 1, 21, 0, 0, 0, time.UTC)
	kept := map[string]event.Event{}
	write := func(n int) {
		t.Helper()
		evs := randomEvents(rng, p, n, t0)
		for i := range evs {
			evs[i].ToolName = pick("", "", "t1", "t12", "t2")
			evs[i].Model = pick("m1", "m", "2m")
			evs[i].TraceID = pick("", "r1", "r2", "r3")
		}
		if _, err := db.Write(ctx, evs, nil); err != nil {
			t.Fatal(err)
		}
		keepFirst(kept, evs)
	}
	write(400)
	merge(t, db)
	write(150) // the tail

	windows := append(agentWindows(t0), [2]time.Time{t0.Add(-time.Hour), t0.Add(80 * time.Hour)}) // every call
	subjects := []struct{ tools, models, traces []string }{
		{[]string{"t1"}, []string{"2m"}, []string{"r1"}},
		{[]string{"t12", "t2"}, []string{"m"}, nil},
		{[]string{"t1", "t12"}, []string{"m1", "2m"}, []string{"r2", "r3"}},
		{nil, []string{"m1"}, []string{"r2"}},
		{[]string{"t2"}, nil, nil},
		{nil, nil, []string{"r1", "r3"}},
		{nil, nil, nil},
	}
	nonzero := 0
	for _, w := range windows {
		for _, s := range subjects {
			for _, agent := range []string{"a1", "a2", "a3"} {
				want := expectBreachCost(kept, agent, w[0], w[1], s.tools, s.models, s.traces)
				got, err := db.BreachCost(ctx, p, agent, w[0], w[1], s.tools, s.models, s.traces)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("%v %s %+v: %d, want %d", w, agent, s, got, want)
				}
				if want != 0 {
					nonzero++
				}
			}
		}
	}
	if nonzero < 60 {
		t.Fatalf("only %d of the cases have calls at stake", nonzero)
	}
}

// expectBreachCost sums the cost of agent's calls in [from, to) that used
// one of tools or models or belong to one of traces.
func expectBreachCost(events map[string]event.Event, agent string, from, to time.Time, tools, models, traces []string) int64 {
	var sum int64
	for _, e := range events {
		if e.AgentName != agent || e.Timestamp.Before(from) || !e.Timestamp.Before(to) {
			continue
		}
		if slices.Contains(tools, e.ToolName) || slices.Contains(models, e.Model) || slices.Contains(traces, e.TraceID) {
			sum += e.CostNano
		}
	}
	return sum
}

// TestToolModelKeysAreUnambiguous checks the keys of tool and model pairs
// whose names run together the same way.
func TestToolModelKeysAreUnambiguous(t *testing.T) {
	for _, c := range []struct{ tool, model, want string }{
		{"t1", "2m", "2:t12m"},
		{"t12", "m", "3:t12m"},
		{"Bash", "claude-sonnet-4-5", "4:Bashclaude-sonnet-4-5"},
		{"ünï", "m", "5:ünïm"}, // bytes, as octet_length counts them
	} {
		if got := postgres.ToolModelKey(c.tool, c.model); got != c.want {
			t.Errorf("ToolModelKey(%q, %q) = %q, want %q", c.tool, c.model, got, c.want)
		}
	}
}
