package reports

import (
	"slices"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
)

// complianceFixture is three UTC days of agent a's usage (and one of b's,
// which a's judging must not see): a read-only agent that used a write
// tool, an undeclared tool and an undeclared model, with one run over its
// tool-call limit.
func complianceFixture() (guardrail.Policy, postgres.ComplianceData, time.Time, time.Time) {
	d1 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	d2 := d1.Add(day)
	pol := guardrail.Policy{Tags: map[string]guardrail.Access{"search": guardrail.Read, "write_file": guardrail.Write}}
	data := postgres.ComplianceData{
		Usage: []postgres.DayUsage{
			{Agent: "a", Dim: "tool", Key: "search", Day: d1, Calls: 5, CostNano: 50},
			{Agent: "a", Dim: "tool", Key: "write_file", Day: d2, Calls: 2, CostNano: 20},
			{Agent: "a", Dim: "tool", Key: "shell", Day: d2, Calls: 1, CostNano: 10},
			{Agent: "a", Dim: "model", Key: "gpt-4o", Day: d1, Calls: 6, CostNano: 60},
			{Agent: "a", Dim: "model", Key: "claude-3-haiku", Day: d2, Calls: 1, CostNano: 5},
			{Agent: "b", Dim: "tool", Key: "rm", Day: d2, Calls: 9, CostNano: 90},
		},
		Totals:   map[string][2]int64{"a": {7, 65}, "b": {9, 90}},
		LastSeen: map[[3]string]time.Time{{"a", "tool", "shell"}: d2.Add(time.Hour)},
		Runs: []postgres.AgentRun{
			{Agent: "a", Run: guardrail.Run{TraceID: "r1", ToolCalls: 2, CostNano: 20, LastSeen: d1.Add(time.Hour)}},
			{Agent: "a", Run: guardrail.Run{TraceID: "r2", ToolCalls: 5, CostNano: 40, LastSeen: d2.Add(time.Hour)}},
			{Agent: "b", Run: guardrail.Run{TraceID: "r3", ToolCalls: 50, CostNano: 1, LastSeen: d2}},
		},
	}
	return pol, data, d1.Add(10 * time.Hour), d2.Add(day + 10*time.Hour)
}

func guardrailOfA(enabled bool) postgres.GuardrailRow {
	limit := int64(3)
	return postgres.GuardrailRow{Guardrail: guardrail.Guardrail{AgentName: "a", ReadOnly: true,
		AllowedTools: []string{"search", "write_file"}, AllowedModels: []string{"gpt-4o"},
		MaxToolCallsPerRun: &limit, Enabled: enabled}}
}

// TestJudgeAgentJudgesTheWindowAndEachDay checks one guardrail's record:
// usage sorted by calls, the tool breaches of an enabled guardrail only,
// the breaches per UTC day the window touches, and its status.
func TestJudgeAgentJudgesTheWindowAndEachDay(t *testing.T) {
	pol, data, from, to := complianceFixture()
	cases := []struct {
		name         string
		row          postgres.GuardrailRow
		status       string
		toolBreaches []guardrail.Kind // in the order of Tools
		kinds        []guardrail.Kind
		series       []int64
	}{
		{name: "enabled", row: guardrailOfA(true), status: "breach",
			toolBreaches: []guardrail.Kind{"", guardrail.WriteInReadOnly, guardrail.UndeclaredTool},
			kinds: []guardrail.Kind{guardrail.UndeclaredTool, guardrail.WriteInReadOnly, guardrail.UndeclaredModel,
				guardrail.ToolCallsOverLimit},
			series: []int64{0, 5, 0}},
		{name: "disabled is judged for nothing", row: guardrailOfA(false), status: "disabled",
			toolBreaches: []guardrail.Kind{"", "", ""}, series: []int64{0, 0, 0}},
		{name: "an agent without usage is compliant",
			row:    postgres.GuardrailRow{Guardrail: guardrail.Guardrail{AgentName: "idle", Enabled: true}},
			status: "compliant", series: []int64{0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := JudgeAgent(c.row, pol, data, from, to)
			if got.Status != c.status {
				t.Errorf("status %q, want %q", got.Status, c.status)
			}
			var tb []guardrail.Kind
			for _, u := range got.Tools {
				tb = append(tb, u.Breach)
			}
			if !slices.Equal(tb, c.toolBreaches) {
				t.Errorf("tool breaches %q, want %q", tb, c.toolBreaches)
			}
			var kinds []guardrail.Kind
			for _, b := range got.Breaches {
				kinds = append(kinds, b.Kind)
			}
			if !slices.Equal(kinds, c.kinds) {
				t.Errorf("breaches %q, want %q", kinds, c.kinds)
			}
			var series []int64
			for i, d := range got.Series {
				series = append(series, d.Count)
				if want := from.Truncate(day).Add(time.Duration(i) * day); !d.Day.Equal(want) {
					t.Errorf("series day %d is %v, want %v", i, d.Day, want)
				}
			}
			if !slices.Equal(series, c.series) {
				t.Errorf("series %v, want %v", series, c.series)
			}
			if got.ObservedTools == nil || got.ObservedModels == nil || got.UnknownAccessTools == nil {
				t.Error("a list is nil; the records answer [] for none")
			}
		})
	}

	a := JudgeAgent(guardrailOfA(true), pol, data, from, to)
	if want := []string{"search", "shell", "write_file"}; !slices.Equal(a.ObservedTools, want) {
		t.Errorf("observed tools %q, want %q (by name)", a.ObservedTools, want)
	}
	if a.Tools[0].Key != "search" || a.Tools[0].Access != guardrail.Read || a.Tools[2].Access != guardrail.Unknown {
		t.Errorf("tools %+v: want search (read) first, shell (unknown) last", a.Tools)
	}
	if !a.Tools[2].LastSeen.Equal(data.LastSeen[[3]string{"a", "tool", "shell"}]) {
		t.Errorf("shell last seen %v, want the read's", a.Tools[2].LastSeen)
	}
	if want := []string{"shell"}; !slices.Equal(a.UnknownAccessTools, want) {
		t.Errorf("unknown access %q, want %q", a.UnknownAccessTools, want)
	}
	if a.Models[0].Key != "gpt-4o" || !a.Models[0].Permitted || a.Models[1].Permitted {
		t.Errorf("models %+v: want gpt-4o permitted, claude-3-haiku not", a.Models)
	}
	if a.TotalCalls != 7 || a.TotalCostNano != 65 || a.RunsSeen != 2 || a.TrackedToolCalls != 8 {
		t.Errorf("totals %d calls %d nano %d runs %d tool calls, want 7 65 2 8",
			a.TotalCalls, a.TotalCostNano, a.RunsSeen, a.TrackedToolCalls)
	}
	if a.RunStats == nil || a.RunStats.MaxToolCalls != 5 {
		t.Errorf("run stats %+v, want the max of a's runs, 5", a.RunStats)
	}
}

// TestBreachSubjectsAreWhatTheBreachCostSums checks which tools, models
// and runs the agent view prices as breaches.
func TestBreachSubjectsAreWhatTheBreachCostSums(t *testing.T) {
	pol, data, from, to := complianceFixture()
	a := JudgeAgent(guardrailOfA(true), pol, data, from, to)
	tools, models, traces := breachSubjects(&a)
	if want := []string{"write_file", "shell"}; !slices.Equal(tools, want) {
		t.Errorf("tools %q, want %q", tools, want)
	}
	if want := []string{"claude-3-haiku"}; !slices.Equal(models, want) {
		t.Errorf("models %q, want %q", models, want)
	}
	if want := []string{"r2"}; !slices.Equal(traces, want) {
		t.Errorf("traces %q, want %q (b's run is not a's)", traces, want)
	}
}
