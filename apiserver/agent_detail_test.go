package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/event"
)

// TestAgentDetailEqualsTheReports checks each section of an agent's detail
// against the standalone report narrowed to the agent.
func TestAgentDetailEqualsTheReports(t *testing.T) {
	e, u := agentsEnv(t)
	get := func(path string) resp { return e.must(e.do("GET", path, u.Key, nil), 200) }
	for _, agent := range []string{"guarded", "looper", "untraced"} {
		d := get("/v1/analytics/agents/" + agent + "?range=30d")
		var detail wire.AgentDetail
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
		var comp wire.Compliance
		if err := json.Unmarshal([]byte(get("/v1/guardrails/compliance?range=30d").Raw), &comp); err != nil {
			t.Fatal(err)
		}
		var rec *wire.AgentCompliance
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
	var g wire.AgentDetail
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
	if o := g.Outcomes; o.Runs != 1 || o.Succeeded != 1 || o.CostOnSuccess.String() != "0.7" || o.CostPerSuccess.String() != "0.7" || *o.SuccessRate != 100 {
		t.Errorf("outcomes %s", compact(t, o))
	}
	if tc := g.TailCost; tc.Runs != 1 || tc.Cost.String() != "0.7" || tc.Threshold.String() != "0.7" || *tc.SharePercent != 100 {
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
