package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/semconv"
)

// agentsNow is the fixed clock of the agent view tests: a 7d window is
// [2026-03-01T10:07:30Z, 2026-03-08T10:07:30Z), touching 8 UTC days.
var agentsNow = time.Date(2026, 3, 8, 10, 7, 30, 0, time.UTC)

// vc is one call of the signal dataset.
type vc struct {
	id, agent, model, trace, step, tool, user, session string
	in, out, cost                                      int64
	failed                                             bool
	ago                                                time.Duration
}

// signalCalls make each signal kind win exactly once (costs in nano-USD):
//   - guarded: breach. gpt-4o is outside its allowed models and shell
//     outside its tools: g2 breaks both and counts once (0.3 + 0.2 at
//     stake); it also repeats work (g4, g5: 0.05 of 0.7 > 5%).
//   - looper: repeated_work (0.2 of 0.35) beats its failed call (0.05).
//   - flaky: failed_spend (0.01 of 0.1).
//   - classifier: classification, 100 calls of at most 16 output tokens
//     on claude-sonnet-4-5 ($3/$15 per M): 1000 in, 5 out (one 16) cost
//     3,075,000 each (3,240,000); at claude-haiku-4-5 ($1/$5) the same
//     100,000 in and 511 out cost 102,555,000: 0.20511 less.
//   - classifier99: none, the same calls but 99 of them.
//   - untraced: untraced, no trace_id.
func signalCalls() []vc {
	h := time.Hour
	calls := []vc{
		{id: "g1", agent: "guarded", model: "gpt-4o-mini", trace: "g-run", step: "look", tool: "search", in: 10, out: 300, cost: 100_000_000, ago: 50 * h, user: "u1", session: "s1"},
		{id: "g2", agent: "guarded", model: "gpt-4o", trace: "g-run", step: "act", tool: "shell", in: 20, out: 300, cost: 300_000_000, ago: 49 * h, user: "u2", session: "s1"},
		{id: "g3", agent: "guarded", model: "gpt-4o", trace: "g-run", step: "act", in: 30, out: 300, cost: 200_000_000, ago: 48 * h, user: "u1", session: "s2"},
		{id: "g4", agent: "guarded", model: "gpt-4o-mini", trace: "g-run", step: "look", tool: "search", in: 40, out: 300, cost: 50_000_000, ago: 47 * h},
		{id: "g5", agent: "guarded", model: "gpt-4o-mini", trace: "g-run", step: "look", tool: "search", in: 40, out: 300, cost: 50_000_000, ago: 46 * h},
		{id: "l1", agent: "looper", model: "claude-sonnet-4-5", trace: "l-run", step: "fetch", in: 1000, out: 300, cost: 100_000_000, ago: 4 * 24 * h},
		{id: "l2", agent: "looper", model: "claude-sonnet-4-5", trace: "l-run", step: "fetch", in: 1000, out: 300, cost: 100_000_000, ago: 4*24*h - time.Minute},
		{id: "l3", agent: "looper", model: "claude-sonnet-4-5", trace: "l-run", step: "fetch", in: 1000, out: 300, cost: 100_000_000, ago: 4*24*h - 2*time.Minute},
		{id: "l4", agent: "looper", model: "claude-sonnet-4-5", trace: "l-run2", step: "fetch", in: 7, out: 300, cost: 50_000_000, failed: true, ago: 2 * h},
		// The previous window: 0.1.
		{id: "l0", agent: "looper", model: "claude-sonnet-4-5", trace: "l-old", step: "fetch", in: 5, out: 300, cost: 100_000_000, ago: 9 * 24 * h},
		{id: "u1", agent: "untraced", model: "gpt-4o-mini", in: 1, out: 300, cost: 1_000_000, ago: 3 * h, user: "u1", session: "s9"},
		{id: "u2", agent: "untraced", model: "gpt-4o-mini", in: 2, out: 300, cost: 1_000_000, ago: 2 * h, user: "u2", session: "s9"},
		{id: "u3", agent: "untraced", model: "gpt-4o-mini", in: 3, out: 300, cost: 1_000_000, ago: 1 * h, user: "u2"},
	}
	for i := range 10 {
		calls = append(calls, vc{id: fmt.Sprintf("f%d", i), agent: "flaky", model: "gpt-4o-mini", trace: "f-run",
			step: "try", in: int64(100 + i), out: 300, cost: 10_000_000, failed: i == 0, ago: 30 * h})
	}
	for i := range 100 {
		c := vc{id: fmt.Sprintf("c%d", i), agent: "classifier", model: "claude-sonnet-4-5", trace: fmt.Sprintf("c-run%d", i),
			step: "label", in: 1000, out: 5, cost: 3_075_000, ago: time.Duration(i+1) * time.Minute}
		if i == 7 {
			c.out, c.cost = 16, 3_240_000 // at the limit: still classification-like
		}
		calls = append(calls, c)
		if i < 99 {
			c.id, c.agent, c.trace, c.out, c.cost = fmt.Sprintf("n%d", i), "classifier99", fmt.Sprintf("n-run%d", i), 5, 3_075_000
			calls = append(calls, c)
		}
	}
	return calls
}

// seedSignals stores the signal dataset, outcomes for two runs and the
// guarded agent's guardrail.
func (e *env) seedSignals(u user) {
	e.t.Helper()
	calls := signalCalls()
	evs := make([]event.Event, len(calls))
	for i, c := range calls {
		evs[i] = event.Event{ProjectID: u.ProjectID, EventID: c.id, AgentName: c.agent, Model: c.model, TraceID: c.trace,
			StepName: c.step, ToolName: c.tool, UserID: c.user, SessionID: c.session, InputTokens: c.in,
			OutputTokens: c.out, TotalTokens: c.in + c.out, CostNano: c.cost, Priced: true, Success: !c.failed,
			Source: "batch", Timestamp: agentsNow.Add(-c.ago)}
		if c.trace != "" {
			evs[i].Workflow = "wf-" + c.agent
			lat := int64(100 * (i%7 + 1))
			evs[i].LatencyMS = &lat
		}
	}
	oc := []semconv.Outcome{{ProjectID: u.ProjectID, TraceID: "g-run", Success: true},
		{ProjectID: u.ProjectID, TraceID: "l-run", Success: false}}
	if _, err := e.db.Write(context.Background(), evs, oc); err != nil {
		e.t.Fatal(err)
	}
	e.must(e.do("PUT", "/v1/projects/"+u.ProjectID+"/guardrails", u.Access, map[string]any{"agent_name": "guarded",
		"allowed_tools": []string{"search"}, "allowed_models": []string{"gpt-4o-mini"}}), 201)
}

func agentsEnv(t *testing.T) (*env, user) {
	e := newEnv(t)
	e.clock.mu.Lock()
	e.clock.now = agentsNow
	e.clock.mu.Unlock()
	u := e.register("agents")
	e.seedSignals(u)
	return e, u
}

func summaryRows(t *testing.T, raw string) map[string]wire.AgentSummaryRow {
	t.Helper()
	var rows []wire.AgentSummaryRow
	if err := json.Unmarshal([]byte(raw), &rows); err != nil {
		t.Fatal(err)
	}
	out := map[string]wire.AgentSummaryRow{}
	for _, r := range rows {
		out[r.AgentName] = r
	}
	return out
}

func TestAgentSummarySignalsEachWinOnce(t *testing.T) {
	e, u := agentsEnv(t)
	r := e.must(e.do("GET", "/v1/analytics/agents/summary?range=7d", u.Key, nil), 200)
	rows := summaryRows(t, r.Raw)
	if len(rows) != 6 || r.List[0].(map[string]any)["agent_name"] != "guarded" {
		t.Fatalf("%d rows, first %v: %s", len(rows), r.List[0], r.Raw)
	}
	want := map[string][2]string{ // kind, amount
		"guarded": {"breach", "0.5"}, "looper": {"repeated_work", "0.2"}, "flaky": {"failed_spend", "0.01"},
		"classifier": {"classification", "0.20511"}, "classifier99": {"none", "<nil>"}, "untraced": {"untraced", "<nil>"},
	}
	kinds := map[string]int{}
	for _, row := range rows {
		kinds[row.Signal.Kind]++
	}
	if len(kinds) != 6 {
		t.Errorf("each kind must win exactly once: %v", kinds)
	}
	for agent, w := range want {
		s := rows[agent].Signal
		amount := "<nil>"
		if s.Amount != nil {
			amount = s.Amount.String()
		}
		if s.Kind != w[0] || amount != w[1] || s.Title == "" || s.Detail == "" {
			t.Errorf("%s: signal %+v (amount %s), want %s %s", agent, s, amount, w[0], w[1])
		}
	}
	// The looper, field by field: 0.35 in the window, 0.1 before it.
	l := rows["looper"]
	got := fmt.Sprintf("%d %d %s %v %v %s %v %d %v %v %v %s %d %s %s %d %d %d %v %v %s %d",
		l.TotalCalls, l.TotalTokens, l.TotalCost, *l.AvgLatencyMS, *l.SuccessRate, l.PreviousCost, *l.CostChangePercent,
		l.Runs, *l.CostPerRun, *l.CallsPerRun, *l.CachedShare, l.CacheSavings, l.FailedCalls, l.FailedCost,
		l.RepeatedCost, l.RepeatedRuns, l.Developers, l.Sessions, *l.FirstSeen, *l.LastSeen, l.Models[0].Model,
		l.Models[0].Calls)
	lat := func(i int) float64 { return float64(100 * (i%7 + 1)) } // l1..l4 are calls 5..8
	avg := (lat(5) + lat(6) + lat(7) + lat(8)) / 4
	wantRow := fmt.Sprintf("4 4207 0.35 %v 75 0.1 250 2 0.175 2 0 0 1 0.05 0.2 1 0 0 2026-03-04T10:07:30Z 2026-03-08T08:07:30Z claude-sonnet-4-5 4", avg)
	if got != wantRow {
		t.Errorf("looper row\n got %s\nwant %s", got, wantRow)
	}
	if *l.SharePercent != shareOf(t, rows, "looper") || l.Models[0].CachedShare == nil || *l.Models[0].CachedShare != 0 {
		t.Errorf("looper share %v, model %+v", *l.SharePercent, l.Models[0])
	}
	// The daily series: 8 days, oldest first; 0.3 on 03-04, 0.05 failed on 03-08.
	if len(l.Daily) != 8 || l.Daily[0].Day != "2026-03-01" || l.Daily[7].Day != "2026-03-08" {
		t.Fatalf("daily %+v", l.Daily)
	}
	for _, d := range l.Daily {
		w := map[string]string{"2026-03-04": "0.3 3 0", "2026-03-08": "0.05 1 0.05"}[d.Day]
		if w == "" {
			w = "0 0 0"
		}
		if g := fmt.Sprintf("%s %d %s", d.Cost, d.Calls, d.FailedCost); g != w {
			t.Errorf("looper %s: %s, want %s", d.Day, g, w)
		}
	}
	// Distinct developers and sessions; untraced runs are none.
	un := rows["untraced"]
	if un.Developers != 2 || un.Sessions != 1 || un.Runs != 0 || un.CostPerRun != nil || un.CostChangePercent != nil {
		t.Errorf("untraced %+v", un)
	}
	g := rows["guarded"]
	if g.Developers != 2 || g.Sessions != 2 || g.RepeatedCost.String() != "0.05" || g.RepeatedRuns != 1 || len(g.Models) != 2 ||
		g.Models[0].Model != "gpt-4o" || g.Models[0].Cost.String() != "0.5" {
		t.Errorf("guarded %+v", g)
	}
	if g.Signal.Title != "3 guardrail breach(es) in this window" {
		t.Errorf("guarded title %q", g.Signal.Title)
	}

	// limit applies after sorting by cost; bad parameters name themselves.
	r = e.must(e.do("GET", "/v1/analytics/agents/summary?range=7d&limit=2", u.Key, nil), 200)
	if len(r.List) != 2 || r.List[1].(map[string]any)["agent_name"] != "looper" {
		t.Errorf("limit 2: %s", r.Raw)
	}
	for path, field := range map[string]string{
		"/v1/analytics/agents/summary?limit=0": "limit", "/v1/analytics/agents/summary?limit=201": "limit",
		"/v1/analytics/agents/summary?limit=x": "limit", "/v1/analytics/agents/summary?range=2d": "range",
		"/v1/analytics/agents/looper?range=24H": "range",
	} {
		r := e.must(e.do("GET", path, u.Key, nil), 422)
		if msg, _ := r.obj("error")["message"].(string); len(msg) <= len(field) || msg[:len(field)+1] != field+":" {
			t.Errorf("%s: %s", path, r.Raw)
		}
	}
	// No agent in a window: an empty array; one unknown agent: 404.
	other := e.register("agents-empty")
	if r := e.must(e.do("GET", "/v1/analytics/agents/summary", other.Key, nil), 200); r.Raw != "[]\n" && r.Raw != "[]" {
		t.Errorf("empty: %q", r.Raw)
	}
	e.must(e.do("GET", "/v1/analytics/agents/nobody", u.Key, nil), 404)
	e.must(e.do("GET", "/v1/analytics/agents/looper?range=1h", u.Key, nil), 404)
}

// shareOf is agent's cost over every agent's in the rows, as a percent
// with two decimals.
func shareOf(t *testing.T, rows map[string]wire.AgentSummaryRow, agent string) float64 {
	t.Helper()
	var all, mine float64
	for name, r := range rows {
		c := r.TotalCost.USD()
		all += c
		if name == agent {
			mine = c
		}
	}
	p, _ := json.Number(fmt.Sprintf("%.2f", mine/all*100)).Float64()
	return p
}
