package apiserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// seedTaggedRuns stores three runs of project: r-pay (workflow refund, its
// first call payments, its second search), r-search (lookup, search) and
// r-none (lookup, no team), merged into rollups and runs.
func (e *env) seedTaggedRuns(project string) {
	e.t.Helper()
	now := e.clock.Now()
	var evs []event.Event
	for i, c := range []struct{ trace, workflow, meta, agent string }{
		{"r-pay", "refund", `{"team":"payments"}`, "a"}, {"r-pay", "refund", `{"team":"search"}`, "b"},
		{"r-search", "lookup", `{"team":"search"}`, "b"}, {"r-none", "lookup", `{}`, "a"},
	} {
		evs = append(evs, event.Event{ProjectID: project, EventID: fmt.Sprint("e", i), AgentName: c.agent, Model: "m1",
			InputTokens: 1, OutputTokens: 1, TotalTokens: 2, CostNano: int64(100 << i), Priced: true, Success: true,
			Source: "batch", Billing: "api", Timestamp: now.Add(-time.Duration(10-i) * time.Hour), Metadata: []byte(c.meta),
			TraceID: c.trace, SpanID: fmt.Sprint("s", i), Workflow: c.workflow, StepName: "step", ToolName: "tool"})
	}
	ctx := context.Background()
	if _, err := e.db.Write(ctx, evs, nil); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.db.MergeRollups(ctx); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.db.MergeRuns(ctx, 0); err != nil {
		e.t.Fatal(err)
	}
}

// TestTagRunReports narrows every run report and the agents summary to
// the runs whose first call has the tag's value, and refuses what the
// spend reports refuse (an undeclared key, a bad value, agent_name) and a
// tag filter on one agent's detail.
func TestTagRunReports(t *testing.T) {
	e := newEnv(t)
	u := e.register("tagruns")
	p := u.ProjectID
	e.must(e.do("PUT", "/v1/projects/"+p+"/tags", u.Access, map[string]any{"keys": []string{"team"}}), 200)
	e.seedTaggedRuns(p)
	q := "?project_id=" + p + "&range=24h&tag.team="
	field := func(r resp, name string) []string {
		var out []string
		for _, row := range r.List {
			out = append(out, fmt.Sprint(row.(map[string]any)[name]))
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct{ value, workflows, traces string }{
		{"payments", "[refund]", "[r-pay]"}, {"search", "[lookup]", "[r-search]"}, {"(none)", "[lookup]", "[r-none]"},
		{"nobody", "[]", "[]"},
	} {
		for _, path := range []string{"workflows", "workflows/outcomes"} {
			r := e.must(e.do("GET", "/v1/analytics/"+path+q+c.value, u.Key, nil), 200)
			if got := fmt.Sprint(field(r, "workflow")); got != c.workflows {
				t.Errorf("%s for %s: %s, want %s", path, c.value, r.Raw, c.workflows)
			}
		}
		r := e.must(e.do("GET", "/v1/analytics/traces"+q+c.value, u.Key, nil), 200)
		if got := fmt.Sprint(field(r, "trace_id")); got != c.traces {
			t.Errorf("traces for %s: %s, want %s", c.value, r.Raw, c.traces)
		}
		for _, path := range []string{"workflows/steps", "workflows/tools", "workflows/repeated-work"} {
			e.must(e.do("GET", "/v1/analytics/"+path+q+c.value, u.Key, nil), 200)
		}
	}
	// r-pay's two calls count for payments, its first call's value.
	r := e.must(e.do("GET", "/v1/analytics/workflows/steps"+q+"payments", u.Key, nil), 200)
	if len(r.List) != 1 || r.List[0].(map[string]any)["calls"] != 2.0 {
		t.Errorf("steps for payments: %s", r.Raw)
	}
	r = e.must(e.do("GET", "/v1/analytics/workflows/distribution"+q+"payments", u.Key, nil), 200)
	if r.Body["workflow"] != "refund" {
		t.Errorf("distribution for payments: %s", r.Raw)
	}
	e.must(e.do("GET", "/v1/analytics/workflows/distribution"+q+"nobody", u.Key, nil), 404)
	// The agents summary: spend of the value's calls, runs of its runs.
	r = e.must(e.do("GET", "/v1/analytics/agents/summary"+q+"search", u.Key, nil), 200)
	rows := map[string]string{}
	for _, row := range r.List {
		m := row.(map[string]any)
		rows[m["agent_name"].(string)] = fmt.Sprint(m["total_calls"], " calls ", m["runs"], " runs")
	}
	if fmt.Sprint(rows) != "map[b:2 calls 1 runs]" {
		t.Errorf("agents summary for search: %v (%s)", rows, r.Raw)
	}
	for path, want := range map[string]string{
		"workflows" + q + "a&agent_name=a":                "tag.team: a tag filter does not combine with agent_name",
		"traces" + q + strings.Repeat("x", 65):            "tag.team: a tag value has 1 to 64 characters",
		"workflows/steps" + q + "(mine)":                  "tag.team: a tag value starting with (",
		"workflows/tools?project_id=" + p + "&tag.env=x":  `tag.env: \"env\" is not a declared tag key`,
		"agents/summary?project_id=" + p + "&tag.env=x":   `tag.env: \"env\" is not a declared tag key`,
		"agents/a" + q + "payments":                       "tag.team: a tag filter does not combine with an agent's detail",
		"workflows/repeated-work" + q + "a&tag.team2=b":   "one tag filter per report",
		"workflows/distribution" + q + "a&agent_name=a":   "tag.team: a tag filter does not combine with agent_name",
		"workflows/outcomes" + q + "a&agent_name=a":       "tag.team: a tag filter does not combine with agent_name",
		"workflows/steps" + q + "(invalid)&agent_name=b":  "tag.team: a tag filter does not combine with agent_name",
		"agents/summary?project_id=" + p + "&tag.team=(x": "tag.team: a tag value starting with (",
	} {
		r := e.must(e.do("GET", "/v1/analytics/"+path, u.Key, nil), 422)
		if !strings.Contains(r.Raw, want) {
			t.Errorf("%s: %s, want %q", path, r.Raw, want)
		}
	}
}

// TestDashboardRunPagesTakeTheTagFilter shows the workflows, traces and
// agents pages narrowed to the picked tag, with the picker.
func TestDashboardRunPagesTakeTheTagFilter(t *testing.T) {
	e := newEnv(t)
	u := e.register("dashruntags")
	e.verify(u)
	p := u.ProjectID
	e.must(e.do("PUT", "/v1/projects/"+p+"/tags", u.Access, map[string]any{"keys": []string{"team"}}), 200)
	e.seedTaggedRuns(p)
	b := e.browser()
	b.signIn(u.Email)
	q := "?project=" + p + "&range=24h&tag=team%3Dpayments"
	picker := `name="tag" value="team=payments"`
	w := b.must(b.get("/workflows"+q), 200, picker, "refund")
	if strings.Contains(w.Body, "lookup") {
		t.Errorf("the workflows page for payments shows lookup: %s", w.Body)
	}
	tr := b.must(b.get("/traces"+q), 200, picker, "r-pay")
	if strings.Contains(tr.Body, "r-search") || strings.Contains(tr.Body, "r-none") {
		t.Errorf("the traces page for payments shows other runs: %s", tr.Body)
	}
	b.must(b.get("/agents"+q), 200, picker, "/agents/a?")
	b.must(b.get("/agents/a"+q), 200, `id="tag-note"`)
	b.must(b.get("/workflows?project="+p+"&range=24h&tag=env%3Dprod"), 422)
}
