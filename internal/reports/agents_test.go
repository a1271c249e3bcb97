package reports

import (
	"slices"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/postgres"
)

// TestAgentQueriesReadTheProjectSpendOnlyForOneAgent checks the spend
// reads of the agent view: the window by day, the window before, the
// models (per agent over all agents) and, narrowed to one agent, the
// project's spend its share is of.
func TestAgentQueriesReadTheProjectSpendOnlyForOneAgent(t *testing.T) {
	now := time.Date(2026, 6, 17, 13, 27, 0, 0, time.UTC)
	cases := []struct {
		name, agent string
		rng         analytics.Range
		n           int
		grain       analytics.Grain
	}{
		{"all agents, 7d", "", analytics.Range7d, 3, analytics.Day},
		{"one agent, 7d", "a1", analytics.Range7d, 4, analytics.Day},
		{"one agent, 1h reads events", "a1", analytics.Range1h, 4, analytics.Raw},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := analytics.Window(c.rng, now)
			prev := analytics.Span{Start: w.Start.Add(-c.rng.Duration()), End: w.Start}
			qs := agentQueries("p", c.agent, TagFilter{}, c.rng, w, prev)
			if len(qs) != c.n {
				t.Fatalf("%d reads, want %d", len(qs), c.n)
			}
			if qs[0].Segments != analytics.Decompose(w, c.grain) || !qs[0].KeyBuckets || qs[0].BucketWidth != day {
				t.Errorf("window read %+v: want days of the window at grain %d", qs[0], c.grain)
			}
			if qs[1].Segments != analytics.Decompose(prev, c.grain) {
				t.Errorf("previous read %+v: want the window before", qs[1].Segments)
			}
			if qs[2].Dim != "model" || qs[2].PerAgent != (c.agent == "") || qs[2].AgentName != c.agent {
				t.Errorf("model read %+v", qs[2])
			}
			if c.n == 4 && (qs[3].AgentName != "" || qs[3].Limit != 1) {
				t.Errorf("project read %+v: want every agent's spend", qs[3])
			}
		})
	}
}

// TestKeyDaysSumsEachKeyMostExpensiveFirst checks the key-by-day read's
// sums and day lists; a key without calls is no row.
func TestKeyDaysSumsEachKeyMostExpensiveFirst(t *testing.T) {
	d1 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	pt := func(key string, at time.Time, calls, cost int64) postgres.KeyPoint {
		return postgres.KeyPoint{Key: key, Point: analytics.Point{Bucket: at, Sums: analytics.Sums{Calls: calls, CostNano: cost}}}
	}
	sums, days := keyDays([]postgres.KeyPoint{pt("cheap", d1, 1, 5), pt("dear", d1, 1, 7), pt("dear", d1.Add(day), 2, 4),
		pt("empty", d1, 0, 0)})
	var keys []string
	for _, k := range sums {
		keys = append(keys, k.Key)
	}
	if want := []string{"dear", "cheap"}; !slices.Equal(keys, want) {
		t.Fatalf("keys %q, want %q", keys, want)
	}
	if sums[0].Calls != 3 || sums[0].CostNano != 11 {
		t.Errorf("dear sums %d calls %d nano, want 3 11", sums[0].Calls, sums[0].CostNano)
	}
	if len(days["dear"]) != 2 || days["dear"][1].CostNano != 4 {
		t.Errorf("dear days %+v", days["dear"])
	}
}

// TestModelsByAgentSplitsPerAgentKeys checks that a per-agent model read
// is grouped by agent and a read narrowed to one agent keeps its keys.
func TestModelsByAgentSplitsPerAgentKeys(t *testing.T) {
	k := func(key string, cost int64) analytics.Keyed {
		return analytics.Keyed{Key: key, Sums: analytics.Sums{Calls: 1, CostNano: cost}}
	}
	cases := []struct {
		name, agent string
		keys        []analytics.Keyed
		want        map[string][]string
	}{
		{"narrowed", "a1", []analytics.Keyed{k("m1", 1), k("m2", 2)}, map[string][]string{"a1": {"m2", "m1"}}},
		{"per agent", "", []analytics.Keyed{k(agentKey("a1", "m1"), 1), k(agentKey("a2", "m1"), 3), k(agentKey("a1", "m2"), 2)},
			map[string][]string{"a1": {"m2", "m1"}, "a2": {"m1"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := modelsByAgent(c.keys, c.agent)
			if len(got) != len(c.want) {
				t.Fatalf("%d agents, want %d", len(got), len(c.want))
			}
			for a, want := range c.want {
				var models []string
				for _, m := range got[a] {
					models = append(models, m.Key)
				}
				if !slices.Equal(models, want) {
					t.Errorf("%s: models %q, want %q", a, models, want)
				}
			}
		})
	}
}

// agentKey is a per-agent read's key as the store writes it; the tests
// that use it check it against postgres.SplitAgentKey first.
func agentKey(agent, key string) string { return agent + "\x1f" + key }

func TestAgentKeyIsTheStoresForm(t *testing.T) {
	if a, k := postgres.SplitAgentKey(agentKey("a1", "m1")); a != "a1" || k != "m1" {
		t.Fatalf("SplitAgentKey(agentKey) = %q %q: the store's per-agent key changed", a, k)
	}
}
