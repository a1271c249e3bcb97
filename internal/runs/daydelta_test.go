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
