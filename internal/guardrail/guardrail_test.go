package guardrail

import (
	"reflect"
	"testing"
	"time"
)

func ptr(v int64) *int64 { return &v }

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func policy() Policy {
	return Policy{
		Guardrails: map[string]Guardrail{
			"reader": {AgentName: "reader", AllowedTools: []string{"search", "delete_row"}, ReadOnly: true,
				AllowedModels: []string{"gpt-4o-mini"}, MaxToolCallsPerRun: ptr(2), MaxCostPerRunNano: ptr(1000), Enabled: true},
			"free": {AgentName: "free", Enabled: true},
			"none": {AgentName: "none", AllowedTools: []string{}, AllowedModels: []string{}, Enabled: true},
			"off":  {AgentName: "off", AllowedTools: []string{}, Enabled: false},
		},
		Tags: map[string]Access{"search": Read, "delete_row": Write},
	}
}

func TestToolBreach(t *testing.T) {
	p := policy()
	cases := []struct {
		agent, tool string
		want        Kind
	}{
		{"reader", "search", ""},
		{"reader", "delete_row", WriteInReadOnly},
		{"reader", "shell", UndeclaredTool}, // undeclared wins over any tag
		{"free", "delete_row", ""},
		{"none", "search", UndeclaredTool}, // empty list permits none
	}
	for _, c := range cases {
		if got := ToolBreach(p.Guardrails[c.agent], p.ToolAccess(c.tool), c.tool); got != c.want {
			t.Errorf("%s/%s: got %q, want %q", c.agent, c.tool, got, c.want)
		}
	}
}

func TestModelPermittedNormalises(t *testing.T) {
	g := Guardrail{AllowedModels: []string{"claude-sonnet-4.5"}}
	for model, want := range map[string]bool{
		"claude-sonnet-4-5-20250929": true, "anthropic/claude-sonnet-4-5": true, "CLAUDE-SONNET-4.5": true,
		"gpt-4o": false,
	} {
		if got := ModelPermitted(g, model); got != want {
			t.Errorf("%s: got %v, want %v", model, got, want)
		}
	}
	if !ModelPermitted(Guardrail{}, "anything") {
		t.Error("nil allowed_models must permit any model")
	}
	if ModelPermitted(Guardrail{AllowedModels: []string{}}, "gpt-4o") {
		t.Error("empty allowed_models must permit none")
	}
}

func TestJudgeBatchEveryKind(t *testing.T) {
	p := policy()
	calls := []Call{
		{Agent: "reader", Model: "gpt-4o-mini", Tool: "search", TS: t0},
		{Agent: "reader", Model: "gpt-4o-mini", Tool: "delete_row", TS: t0.Add(time.Minute)},
		{Agent: "reader", Model: "gpt-4o-mini", Tool: "delete_row", TS: t0.Add(2 * time.Minute)},
		{Agent: "reader", Model: "gpt-4o", Tool: "shell", TS: t0.Add(3 * time.Minute)},
		{Agent: "reader", Model: "gpt-4o", TS: t0.Add(4 * time.Minute)}, // not a tool call
		{Agent: "free", Model: "o3", Tool: "delete_row", TS: t0},
		{Agent: "off", Model: "o3", Tool: "x", TS: t0},
		{Agent: "unguarded", Model: "o3", Tool: "x", TS: t0},
	}
	runs := map[string][]Run{"reader": {
		{TraceID: "r1", ToolCalls: 2, CostNano: 900, LastSeen: t0},
		{TraceID: "r2", ToolCalls: 5, CostNano: 1500, LastSeen: t0.Add(time.Minute)},
		{TraceID: "r3", ToolCalls: 3, CostNano: 4000, LastSeen: t0.Add(2 * time.Minute)},
	}}
	got := JudgeBatch(p, calls, runs)
	want := []Breach{
		{Agent: "reader", Kind: UndeclaredTool, Subject: "shell", Count: 1, Observed: 1, LastSeen: t0.Add(3 * time.Minute)},
		{Agent: "reader", Kind: WriteInReadOnly, Subject: "delete_row", Count: 2, Observed: 2, LastSeen: t0.Add(2 * time.Minute)},
		{Agent: "reader", Kind: UndeclaredModel, Subject: "gpt-4o", Count: 2, Observed: 2, LastSeen: t0.Add(4 * time.Minute)},
		{Agent: "reader", Kind: ToolCallsOverLimit, Subject: "r2", Count: 2, Limit: ptr(2), Observed: 5, LastSeen: t0.Add(time.Minute)},
		{Agent: "reader", Kind: RunCostOverLimit, Subject: "r3", Count: 2, Limit: ptr(1000), Observed: 4000, LastSeen: t0.Add(2 * time.Minute)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("breaches:\n got %+v\nwant %+v", got, want)
	}
	if n := Count(got); n != 9 {
		t.Errorf("Count = %d, want 9", n)
	}
}

func TestJudgeBatchCompliantAndDisabled(t *testing.T) {
	p := policy()
	calls := []Call{{Agent: "reader", Model: "gpt-4o-mini-2024-07-18", Tool: "search", TS: t0},
		{Agent: "off", Model: "o3", Tool: "anything", TS: t0}}
	runs := map[string][]Run{"reader": {{TraceID: "ok", ToolCalls: 2, CostNano: 1000}}} // at the limit is within it
	if got := JudgeBatch(p, calls, runs); len(got) != 0 {
		t.Fatalf("want no breach, got %+v", got)
	}
}

func TestRunStatsAndUnknownAccess(t *testing.T) {
	if RunStats(nil) != nil {
		t.Error("no runs: want nil stats")
	}
	runs := []Run{}
	for i := int64(1); i <= 20; i++ {
		runs = append(runs, Run{TraceID: "t", ToolCalls: i, CostNano: i * 10})
	}
	got := *RunStats(runs)
	want := Stats{Runs: 20, P50ToolCalls: 10, P95ToolCalls: 19, MaxToolCalls: 20, P50Cost: 100, P95Cost: 190, MaxCost: 200}
	if got != want {
		t.Errorf("stats: got %+v, want %+v", got, want)
	}
	p := policy()
	tools := []Usage{{Key: "search"}, {Key: "zeta"}, {Key: "alpha"}}
	if u := UnknownAccess(p.Guardrails["reader"], p, tools); !reflect.DeepEqual(u, []string{"alpha", "zeta"}) {
		t.Errorf("unknown access: %v", u)
	}
	if u := UnknownAccess(p.Guardrails["free"], p, tools); len(u) != 0 {
		t.Errorf("not read-only: want none, got %v", u)
	}
}
