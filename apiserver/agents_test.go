package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

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

func summaryRows(t *testing.T, raw string) map[string]AgentSummaryRow {
	t.Helper()
	var rows []AgentSummaryRow
	if err := json.Unmarshal([]byte(raw), &rows); err != nil {
		t.Fatal(err)
	}
	out := map[string]AgentSummaryRow{}
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
	if g.Developers != 2 || g.Sessions != 2 || g.RepeatedCost != "0.05" || g.RepeatedRuns != 1 || len(g.Models) != 2 ||
		g.Models[0].Model != "gpt-4o" || g.Models[0].Cost != "0.5" {
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
func shareOf(t *testing.T, rows map[string]AgentSummaryRow, agent string) float64 {
	t.Helper()
	var all, mine float64
	for name, r := range rows {
		c, err := r.TotalCost.Float64()
		if err != nil {
			t.Fatal(err)
		}
		all += c
		if name == agent {
			mine = c
		}
	}
	p, _ := json.Number(fmt.Sprintf("%.2f", mine/all*100)).Float64()
	return p
}

// TestAgentDetailEqualsTheReports checks each section of an agent's detail
// against the standalone report narrowed to the agent.
func TestAgentDetailEqualsTheReports(t *testing.T) {
	e, u := agentsEnv(t)
	get := func(path string) resp { return e.must(e.do("GET", path, u.Key, nil), 200) }
	for _, agent := range []string{"guarded", "looper", "untraced"} {
		d := get("/v1/analytics/agents/" + agent + "?range=30d")
		var detail AgentDetail
		if err := json.Unmarshal([]byte(d.Raw), &detail); err != nil {
			t.Fatal(err)
		}
		sections := map[string]string{
			"by_model":      "/v1/analytics/by/model?limit=8",
			"by_tool":       "/v1/analytics/by/tool?limit=8",
			"by_user":       "/v1/analytics/by/user?limit=8",
			"by_session":    "/v1/analytics/by/session?limit=8",
			"by_workflow":   "/v1/analytics/by/workflow?limit=8",
			"traces":        "/v1/analytics/traces?limit=10",
			"repeated_work": "/v1/analytics/workflows/repeated-work?limit=10",
		}
		for field, path := range sections {
			want := get(path + "&range=30d&agent_name=" + agent)
			if got := compact(t, d.Body[field]); got != compact(t, want.List) {
				t.Errorf("%s %s\n got %s\nwant %s", agent, field, got, compact(t, want.List))
			}
		}
		// The summary is the agent's summary row.
		rows := summaryRows(t, get("/v1/analytics/agents/summary?range=30d").Raw)
		if got, want := compact(t, detail.Summary), compact(t, rows[agent]); got != want {
			t.Errorf("%s summary\n got %s\nwant %s", agent, got, want)
		}
		// Distribution: the agent's highest-spend workflow, or null.
		dist := e.do("GET", "/v1/analytics/workflows/distribution?range=30d&agent_name="+agent, u.Key, nil)
		switch {
		case dist.Status == 404 && detail.Distribution != nil, dist.Status == 200 && compact(t, d.Body["distribution"]) != compact(t, dist.Body):
			t.Errorf("%s distribution %s, report %d %s", agent, compact(t, d.Body["distribution"]), dist.Status, dist.Raw)
		}
		// Outcomes: the outcome rows summed.
		var runs, ok, failed, unknown int64
		for _, o := range get("/v1/analytics/workflows/outcomes?range=30d&agent_name=" + agent).List {
			m := o.(map[string]any)
			runs, ok = runs+int64(m["runs"].(float64)), ok+int64(m["succeeded"].(float64))
			failed, unknown = failed+int64(m["failed"].(float64)), unknown+int64(m["unknown"].(float64))
		}
		if o := detail.Outcomes; o.Runs != runs || o.Succeeded != ok || o.Failed != failed || o.Unknown != unknown {
			t.Errorf("%s outcomes %+v, report %d %d %d %d", agent, o, runs, ok, failed, unknown)
		}
		// Steps: the step rows summed per step name across workflows.
		type st struct{ calls, runs float64 }
		steps := map[string]st{}
		for _, s := range get("/v1/analytics/workflows/steps?range=30d&agent_name=" + agent).List {
			m := s.(map[string]any)
			x := steps[m["step_name"].(string)]
			steps[m["step_name"].(string)] = st{x.calls + m["calls"].(float64), x.runs + m["runs"].(float64)}
		}
		if len(steps) != len(detail.Steps) {
			t.Errorf("%s steps %+v, report %v", agent, detail.Steps, steps)
		}
		for _, s := range detail.Steps {
			if w := steps[s.StepName]; float64(s.Calls) != w.calls || float64(s.Runs) != w.runs {
				t.Errorf("%s step %+v, report %+v", agent, s, w)
			}
		}
		// Compliance: the agent's record of the compliance report, or null.
		var comp Compliance
		if err := json.Unmarshal([]byte(get("/v1/guardrails/compliance?range=30d").Raw), &comp); err != nil {
			t.Fatal(err)
		}
		var rec *AgentCompliance
		for i := range comp.Agents {
			if comp.Agents[i].AgentName == agent {
				rec = &comp.Agents[i]
			}
		}
		if compact(t, detail.Compliance) != compact(t, rec) {
			t.Errorf("%s compliance %s, report %s", agent, compact(t, detail.Compliance), compact(t, rec))
		}
	}

	// The guarded agent's own figures: steps, latency, tail, outcomes.
	var g AgentDetail
	if err := json.Unmarshal([]byte(get("/v1/analytics/agents/guarded?range=7d").Raw), &g); err != nil {
		t.Fatal(err)
	}
	// look: g1 (0.1) + g4, g5 (0.05 each), all search calls; act: g2, g3 on gpt-4o, g2 a tool call.
	want := `[{"step_name":"act","tool":false,"models":["gpt-4o"],"runs":1,"calls":2,"calls_per_run":2,"max_calls_per_run":2,` +
		`"total_cost":0.5,"median_cost_per_run":0.5,"p95_cost_per_run":0.5,"success_rate":100},` +
		`{"step_name":"look","tool":true,"models":["gpt-4o-mini"],"runs":1,"calls":3,"calls_per_run":3,"max_calls_per_run":3,` +
		`"total_cost":0.2,"median_cost_per_run":0.2,"p95_cost_per_run":0.2,"success_rate":100}]`
	if got, want := compact(t, g.Steps), compact(t, json.RawMessage(want)); got != want {
		t.Errorf("steps\n got %s\nwant %s", got, want)
	}
	// Latencies of g1..g5 (100..500 ms): percentile_cont.
	if l := g.Latency; l.SampleSize != 5 || *l.P50 != 300 || *l.P95 != 480 || *l.P99 != 496 || *l.Avg != 300 {
		t.Errorf("latency %s", compact(t, l))
	}
	if o := g.Outcomes; o.Runs != 1 || o.Succeeded != 1 || o.CostOnSuccess != "0.7" || *o.CostPerSuccess != "0.7" || *o.SuccessRate != 100 {
		t.Errorf("outcomes %s", compact(t, o))
	}
	if tc := g.TailCost; tc.Runs != 1 || tc.Cost != "0.7" || tc.Threshold != "0.7" || *tc.SharePercent != 100 {
		t.Errorf("tail %s", compact(t, tc))
	}
	if g.Compliance == nil || g.Compliance.Status != "breach" || len(g.Compliance.Breaches) != 2 {
		t.Errorf("compliance %s", compact(t, g.Compliance))
	}
}

func compact(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}

// TestAgentNamesInThePath reads agents whose names need URL-encoding:
// spaces, slashes (%2F) and non-ASCII letters; the other routes under
// /v1/analytics/agents still answer.
func TestAgentNamesInThePath(t *testing.T) {
	e := newEnv(t)
	e.clock.mu.Lock()
	e.clock.now = agentsNow
	e.clock.mu.Unlock()
	u := e.register("names")
	names := []string{"team/bøt one", "support agent", "Ünïcode-агент", "a/b/c"}
	evs := make([]event.Event, len(names))
	for i, n := range names {
		evs[i] = event.Event{ProjectID: u.ProjectID, EventID: fmt.Sprintf("e%d", i), AgentName: n, Model: "gpt-4o-mini",
			InputTokens: 1, OutputTokens: 1, TotalTokens: 2, CostNano: int64(1000 * (i + 1)), Priced: true, Success: true,
			Source: "batch", Timestamp: agentsNow.Add(-time.Hour)}
	}
	if _, err := e.db.Write(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		r := e.must(e.do("GET", "/v1/analytics/agents/"+url.PathEscape(n)+"?range=24h", u.Key, nil), 200)
		s := r.obj("summary")
		if s["agent_name"] != n || s["total_cost"] != float64(i+1)*1e-6 {
			t.Errorf("%q: %s", n, r.Raw)
		}
		// The raw form of a space, as some clients send it.
		if i == 1 {
			e.must(e.do("GET", "/v1/analytics/agents/support%20agent", u.Key, nil), 200)
		}
	}
	if r := e.must(e.do("GET", "/v1/analytics/agents/summary?range=24h", u.Key, nil), 200); len(r.List) != 4 {
		t.Errorf("summary: %s", r.Raw)
	}
	if r := e.must(e.do("GET", "/v1/analytics/agents?range=24h", u.Key, nil), 200); len(r.List) != 4 {
		t.Errorf("agents: %s", r.Raw)
	}
	e.must(e.do("GET", "/v1/analytics/agents/team%2Fb%C3%B8t%20two", u.Key, nil), 404)
}

// TestOptimizations checks the suggestions of the signal dataset over 30
// days and that the summary totals them.
func TestOptimizations(t *testing.T) {
	e, u := agentsEnv(t)
	r := e.must(e.do("GET", "/v1/optimizations", u.Key, nil), 200)
	var list []Optimization
	if err := json.Unmarshal([]byte(r.Raw), &list); err != nil {
		t.Fatal(err)
	}
	// The classifier's tokens priced at claude-haiku-4-5 ($1 in, $5 out per
	// M): 100,000 × 1,000 + 511 × 5,000 nano; it paid 99 × 3,075,000 +
	// 3,240,000. The 99-call agent's outputs never exceed 256 tokens.
	classifier := 99*3_075_000 + 3_240_000 - (100_000*1_000 + 511*5_000)
	classifier99 := 99*3_075_000 - (99_000*1_000 + 495*5_000)
	want := []string{
		fmt.Sprintf("model_downgrade classifier claude-sonnet-4-5 %s high", nano(int64(classifier))),
		fmt.Sprintf("model_downgrade classifier99 claude-sonnet-4-5 %s high", nano(int64(classifier99))),
		"repeated_work looper - 0.2 high",
		"repeated_work guarded - 0.05 medium",
		"failed_spend looper - 0.05 medium",
		"failed_spend flaky - 0.01 medium",
		// 2 × 1,000 repeated prompt tokens × ($3 − $0.30) per M.
		"prompt_cache looper claude-sonnet-4-5 0.0054 low",
	}
	var total float64
	high := 0
	for i, s := range list {
		model := "-"
		if s.Model != nil {
			model = *s.Model
		}
		got := fmt.Sprintf("%s %s %s %s %s", s.Type, s.AgentName, model, s.EstimatedSavingsMonthly, s.Priority)
		if i >= len(want) || got != want[i] {
			t.Errorf("#%d %s", i, got)
		}
		if s.Title == "" || s.Description == "" || len(s.ActionItems) == 0 || s.EstimatedSavingsPercent == nil {
			t.Errorf("#%d incomplete: %+v", i, s)
		}
		v, _ := s.EstimatedSavingsMonthly.Float64()
		total += v
		if s.Priority == "high" {
			high++
		}
	}
	if len(list) != len(want) {
		t.Fatalf("%d suggestions: %s", len(list), r.Raw)
	}
	if list[0].EstimatedSavingsMonthly != "0.20511" {
		t.Errorf("classifier saving %s, want 0.20511 (to the cent 0.21)", list[0].EstimatedSavingsMonthly)
	}
	var sum OptimizationSummary
	if err := json.Unmarshal([]byte(e.must(e.do("GET", "/v1/optimizations/summary", u.Key, nil), 200).Raw), &sum); err != nil {
		t.Fatal(err)
	}
	// 723,460,000 of the project's 1,865,090,000 over 30 days.
	if got, _ := sum.TotalPotentialSavingsMonthly.Float64(); fmt.Sprintf("%.9f", got) != fmt.Sprintf("%.9f", total) ||
		sum.TotalPotentialSavingsMonthly != "0.72346" || sum.SuggestionCount != len(list) || sum.HighPriorityCount != high ||
		*sum.TotalPotentialSavingsPercent != 38.79 {
		t.Errorf("summary %+v (percent %v), list total %v, high %d", sum, *sum.TotalPotentialSavingsPercent, total, high)
	}
	// A project without calls: nothing to suggest.
	other := e.register("opt-empty")
	if r := e.must(e.do("GET", "/v1/optimizations/summary", other.Key, nil), 200); r.Body["suggestion_count"] != 0.0 ||
		r.Body["total_potential_savings_percent"] != nil {
		t.Errorf("empty summary %s", r.Raw)
	}
}

// nano writes nano-USD as the API writes dollars.
func nano(n int64) string { return string(money(n)) }
