package postgres_test

import (
	"context"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// complianceSums are what one compliance read sums, keyed as it keys them.
type complianceSums struct {
	Usage                   map[string][2]int64 // agent dim key day: calls, cost
	Totals                  map[string][2]int64
	ProjectCalls, ToolCalls int64
}

// checkCompliance reads the compliance usage of every agent of events over
// 24h, 7d and 90d ending at end, and compares it with Go sums over the
// stored calls in the window: per agent, tool or model and UTC day, per
// agent, and the project's calls and tool calls.
func checkCompliance(t *testing.T, db *postgres.DB, p string, events map[string]event.Event, end time.Time, when string) {
	t.Helper()
	seen := map[string]bool{}
	var agents []string
	for _, e := range events {
		if !seen[e.AgentName] {
			seen[e.AgentName] = true
			agents = append(agents, e.AgentName)
		}
	}
	sort.Strings(agents)
	for _, r := range []analytics.Range{analytics.Range24h, analytics.Range7d, analytics.Range90d} {
		w := analytics.Window(r, end)
		d, err := db.ReadCompliance(context.Background(), p, agents, w.Start, w.End)
		if err != nil {
			t.Fatal(err)
		}
		got := complianceSums{Usage: map[string][2]int64{}, Totals: d.Totals, ProjectCalls: d.ProjectCalls, ToolCalls: d.ToolCalls}
		for _, u := range d.Usage {
			k := u.Agent + " " + u.Dim + " " + u.Key + " " + u.Day.Format(time.DateOnly)
			got.Usage[k] = add(got.Usage[k], u.Calls, u.CostNano)
		}
		want := complianceSums{Usage: map[string][2]int64{}, Totals: map[string][2]int64{}}
		for _, e := range events {
			if e.Timestamp.Before(w.Start) || !e.Timestamp.Before(w.End) {
				continue
			}
			day := e.Timestamp.UTC().Format(time.DateOnly)
			for dim, key := range map[string]string{"tool": e.ToolName, "model": e.Model} {
				if key != "" {
					k := e.AgentName + " " + dim + " " + key + " " + day
					want.Usage[k] = add(want.Usage[k], 1, e.CostNano)
				}
			}
			want.Totals[e.AgentName] = add(want.Totals[e.AgentName], 1, e.CostNano)
			want.ProjectCalls++
			if e.ToolName != "" {
				want.ToolCalls++
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: compliance over %s ending %s:\n got %+v\nwant %+v", when, r, end.Format("15:04"), got, want)
		}
	}
}

// add is v plus one call's count and cost.
func add(v [2]int64, calls, cost int64) [2]int64 { return [2]int64{v[0] + calls, v[1] + cost} }
