package runs

import (
	"reflect"
	"testing"
	"time"
)

func TestDelta(t *testing.T) {
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	k := DayKey{Project: "p", Agent: "a", Day: day, Workflow: "w"}
	all := DayKey{Project: "p", Day: day, Workflow: "w"}
	moved := DayKey{Project: "p", Agent: "a", Day: day.Add(-24 * time.Hour), Workflow: "w"}
	yes := true
	run := func(key DayKey, cost, depth int64, outcome *bool, tool string) Contribution {
		c := Contribution{Key: key, Outcome: outcome, Summary: Summary{CostNano: cost, Calls: 2, MaxDepth: depth, Steps: 1}}
		if tool != "" {
			c.Tools = []Group{{Name: tool, Calls: 1, CostNano: cost}}
		}
		return c
	}
	for _, c := range []struct {
		name      string
		old, new  map[string]Contribution
		wantDay   DayRow // the per-agent row of k
		wantDirty []DayKey
	}{
		{"a new run adds itself", nil, map[string]Contribution{"r": run(k, 10, 1, nil, "")},
			DayRow{Runs: 1, CostNano: 10, MaxCostNano: 10, Calls: 2, Steps: 1, MaxDepth: 1}, nil},
		{"a grown run adds the difference and raises the maxima",
			map[string]Contribution{"r": run(k, 10, 1, nil, "")}, map[string]Contribution{"r": run(k, 25, 2, nil, "")},
			DayRow{CostNano: 15, MaxCostNano: 25, MaxDepth: 2}, nil},
		{"a run whose outcome arrived moves its cost to succeeded",
			map[string]Contribution{"r": run(k, 10, 1, nil, "")}, map[string]Contribution{"r": run(k, 10, 1, &yes, "")},
			DayRow{MaxCostNano: 10, MaxDepth: 1, Succeeded: 1, SuccessCost: 10}, nil},
		{"a cheaper run leaves its key dirty",
			map[string]Contribution{"r": run(k, 10, 1, nil, "")}, map[string]Contribution{"r": run(k, 4, 1, nil, "")},
			DayRow{CostNano: -6, MaxCostNano: 4, MaxDepth: 1}, []DayKey{k}},
		{"a run that moved to an earlier day leaves its old key dirty",
			map[string]Contribution{"r": run(k, 10, 1, nil, "")}, map[string]Contribution{"r": run(moved, 12, 1, nil, "")},
			DayRow{Runs: -1, CostNano: -10, Calls: -2, Steps: -1}, []DayKey{k}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Delta(c.old, c.new)
			if got.Days[k] != c.wantDay {
				t.Fatalf("per-agent row %+v, want %+v", got.Days[k], c.wantDay)
			}
			if got.Days[all] != c.wantDay {
				t.Fatalf("all-agents row %+v, want the per-agent row %+v", got.Days[all], c.wantDay)
			}
			var dirty []DayKey
			for d := range got.Dirty {
				dirty = append(dirty, d)
			}
			if !reflect.DeepEqual(dirty, c.wantDirty) {
				t.Fatalf("dirty %v, want %v", dirty, c.wantDirty)
			}
		})
	}
}

func TestDeltaToolsOverWorkflows(t *testing.T) {
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	k := DayKey{Project: "p", Agent: "a", Day: day, Workflow: "w"}
	c := Delta(nil, map[string]Contribution{"r": {Key: k, Tools: []Group{{Name: "web", Calls: 3, CostNano: 7}}}})
	want := GroupRow{Calls: 3, Runs: 1, CostNano: 7}
	for _, gk := range []GroupKey{
		{DayKey: DayKey{Project: "p", Agent: "a", Day: day}, Name: "web"},
		{DayKey: DayKey{Project: "p", Day: day}, Name: "web"},
	} {
		if c.ToolAll[gk] != want {
			t.Fatalf("tool row over workflows %+v: %+v, want %+v", gk, c.ToolAll[gk], want)
		}
	}
	if c.Tools[GroupKey{DayKey: k, Name: "web"}] != want || len(c.Steps) != 0 {
		t.Fatalf("tools %+v steps %+v", c.Tools, c.Steps)
	}
}

func TestDeltaTags(t *testing.T) {
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	k := DayKey{Project: "p", Agent: "a", Day: day, Workflow: "w"}
	tagged := func(tags ...string) Contribution {
		return Contribution{Key: k, Tags: tags, Summary: Summary{CostNano: 10, Calls: 1, MaxDepth: 1},
			Steps: []Group{{Name: "plan", Calls: 1, CostNano: 10}}}
	}
	at := func(agent, tag string) DayKey {
		x := k
		x.Agent, x.Tag = agent, tag
		return x
	}
	added := DayRow{Runs: 1, CostNano: 10, MaxCostNano: 10, Calls: 1, MaxDepth: 1}
	c := Delta(nil, map[string]Contribution{"r": tagged("env=prod", "team=pay")})
	for _, key := range []DayKey{at("a", ""), at("", ""), at("a", "team=pay"), at("", "team=pay"), at("", "env=prod")} {
		if c.Days[key] != added {
			t.Fatalf("row %+v: %+v, want %+v", key, c.Days[key], added)
		}
	}
	if len(c.Days) != 6 || len(c.Dirty) != 0 {
		t.Fatalf("rows %d (want 6: two agents × no tag and two tags), dirty %v", len(c.Days), c.Dirty)
	}
	// Steps per tag over every agent only: four rows, not six.
	for _, key := range []DayKey{at("a", ""), at("", ""), at("", "team=pay"), at("", "env=prod")} {
		if g := c.Steps[GroupKey{DayKey: key, Name: "plan"}]; g.Runs != 1 || g.CostNano != 10 {
			t.Fatalf("step row %+v: %+v", key, g)
		}
	}
	if len(c.Steps) != 4 {
		t.Fatalf("step rows %v, want 4 (none of one agent under a tag)", c.Steps)
	}
	// A run whose tag changed leaves its old value's rows with a maximum
	// no sum can take back: the key is dirty.
	c = Delta(map[string]Contribution{"r": tagged("team=pay")}, map[string]Contribution{"r": tagged("team=ops")})
	if c.Days[at("", "team=pay")].Runs != -1 || c.Days[at("", "team=ops")].Runs != 1 || c.Days[at("a", "")].Runs != 0 {
		t.Fatalf("moved between values: %+v", c.Days)
	}
	if !c.Dirty[k] || len(c.Dirty) != 1 {
		t.Fatalf("dirty %v, want only %+v", c.Dirty, k)
	}
}
