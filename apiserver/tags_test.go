package apiserver

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// TestTagDeclarationRules refuses bad declarations with the field and the
// rule, storing nothing, and answers the declared keys and limits.
func TestTagDeclarationRules(t *testing.T) {
	e := newEnv(t)
	u := e.register("tags")
	path := "/v1/projects/" + u.ProjectID + "/tags"
	for body, want := range map[string]string{
		`{}`:                                           "keys: is required",
		`{"keys":["a","b","c","d","e","f"]}`:           "keys: at most 5 tag keys",
		`{"keys":["team","Team"]}`:                     "keys[1]: must match",
		`{"keys":["team","cost-center"]}`:              "keys[1]: must match",
		`{"keys":["team","env","team"]}`:               `keys[2]: \"team\" is declared twice`,
		`{"keys":["` + strings.Repeat("a", 33) + `"]}`: "keys[0]: must match",
	} {
		r := e.must(e.do("PUT", path, u.Access, body), 422)
		if !strings.Contains(r.Raw, want) {
			t.Errorf("%s: %s, want %q", body, r.Raw, want)
		}
	}
	r := e.must(e.do("GET", path, u.Key, nil), 200)
	if fmt.Sprint(r.Body["keys"]) != "[]" || r.Body["max_keys"] != 5.0 || r.Body["max_values"] != 1000.0 {
		t.Fatalf("after refused declarations: %s", r.Raw)
	}
	e.must(e.do("PUT", path, u.Key, map[string]any{"keys": []string{"team"}}), 403)
	r = e.must(e.do("PUT", path, u.Access, map[string]any{"keys": []string{"team", "cost_center"}}), 200)
	keys, _ := r.Body["keys"].([]any)
	if len(keys) != 2 || keys[0].(map[string]any)["dimension"] != "tag.cost_center" ||
		keys[1].(map[string]any)["key"] != "team" || keys[1].(map[string]any)["backfilling"] != false {
		t.Fatalf("declared: %s", r.Raw)
	}
}

// TestTagReports serves a tag filter on the spend reports and by/tag.team,
// each summing to the calls, and refuses an undeclared tag, a filter with
// agent_name, and a value past the rule.
func TestTagReports(t *testing.T) {
	e := newEnv(t)
	u := e.register("tagrep")
	p := u.ProjectID
	ctx := context.Background()
	e.must(e.do("PUT", "/v1/projects/"+p+"/tags", u.Access, map[string]any{"keys": []string{"team"}}), 200)
	now := e.clock.Now()
	var evs []event.Event
	for i, c := range []struct {
		team, model string
		cost        int64
	}{{"payments", "m1", 100}, {"payments", "m2", 200}, {"search", "m1", 400}, {"", "m1", 800}} {
		meta := `{}`
		if c.team != "" {
			meta = `{"team":"` + c.team + `"}`
		}
		evs = append(evs, event.Event{ProjectID: p, EventID: fmt.Sprint("c", i), AgentName: "a", Model: c.model,
			InputTokens: 1, OutputTokens: 1, TotalTokens: 2, CostNano: c.cost, Priced: true, Success: true,
			Source: "batch", Billing: "api", Timestamp: now.Add(-time.Duration(i+1) * 3 * time.Hour), Metadata: []byte(meta)})
	}
	if _, err := e.db.Write(ctx, evs, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.MergeRollups(ctx); err != nil {
		t.Fatal(err)
	}
	q := "?project_id=" + p + "&range=24h"
	r := e.must(e.do("GET", "/v1/analytics/by/tag.team"+q, u.Key, nil), 200)
	got := map[string]string{}
	for _, row := range r.List {
		m := row.(map[string]any)
		got[m["key"].(string)] = fmt.Sprint(m["total_calls"], " ", m["total_cost"])
	}
	if fmt.Sprint(got) != "map[(none):1 8e-07 payments:2 3e-07 search:1 4e-07]" {
		t.Fatalf("by/tag.team: %v (%s)", got, r.Raw)
	}
	r = e.must(e.do("GET", "/v1/analytics/overview"+q+"&tag.team=payments", u.Key, nil), 200)
	if r.Body["total_calls"] != 2.0 || fmt.Sprint(r.Body["total_cost"]) != "3e-07" {
		t.Fatalf("overview for payments: %s", r.Raw)
	}
	r = e.must(e.do("GET", "/v1/analytics/models"+q+"&tag.team=payments", u.Key, nil), 200)
	if len(r.List) != 2 {
		t.Fatalf("models for payments: %s", r.Raw)
	}
	r = e.must(e.do("GET", "/v1/analytics/full"+q+"&tag.team=(none)", u.Key, nil), 200)
	if r.obj("overview")["total_calls"] != 1.0 {
		t.Fatalf("full for (none): %s", r.Raw)
	}
	e.must(e.do("GET", "/v1/analytics/timeseries"+q+"&tag.team=search", u.Key, nil), 200)
	for path, want := range map[string]string{
		"/v1/analytics/overview" + q + "&tag.env=prod":                        `tag.env: \"env\" is not a declared tag key`,
		"/v1/analytics/overview" + q + "&tag.team=a&agent_name=a":             "tag.team: a tag filter does not combine with agent_name",
		"/v1/analytics/overview" + q + "&tag.team=" + strings.Repeat("x", 65): "tag.team: a tag value has 1 to 64 characters",
		"/v1/analytics/overview" + q + "&tag.team=(mine)":                     "tag.team: a tag value starting with (",
		"/v1/analytics/by/tag.team" + q + "&tag.team=payments":                "dimension: a tag dimension takes neither",
	} {
		r := e.must(e.do("GET", path, u.Key, nil), 422)
		if !strings.Contains(r.Raw, want) {
			t.Errorf("%s: %s, want %q", path, r.Raw, want)
		}
	}
	// /v1/metrics stays of the whole project and reports each key's values
	// and overflow.
	m := e.must(e.do("GET", "/v1/metrics"+q+"&tag.team=payments", u.Key, nil), 200)
	for _, want := range []string{"service_calls 4", `service_tag_values{tag="team"} 2`,
		`service_tag_overflow_calls_total{tag="team"} 0`} {
		if !strings.Contains(m.Raw, want) {
			t.Errorf("metrics lack %q: %s", want, m.Raw)
		}
	}
	cmd := exec.Command(promtool(t), "check", "metrics")
	cmd.Stdin = strings.NewReader(m.Raw)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s\n%s", err, out, m.Raw)
	}
	r = e.must(e.do("GET", "/v1/analytics/by/tag.env"+q, u.Key, nil), 422)
	if !strings.Contains(r.Raw, "dimension: \\\"env\\\" is not a declared tag key") {
		t.Errorf("by/tag.env: %s", r.Raw)
	}
}

// TestFocusExportTagsDeclaredKeys fills the FOCUS Tags column with the
// declared keys' values: one row per day, model, billing type, agent and
// tag set, a call without the key carrying no such tag, and the rows
// summing to the calls.
func TestFocusExportTagsDeclaredKeys(t *testing.T) {
	e := newEnv(t)
	u := e.register("focustags")
	p := u.ProjectID
	e.must(e.do("PUT", "/v1/projects/"+p+"/tags", u.Access, map[string]any{"keys": []string{"team"}}), 200)
	y := e.clock.Now().Truncate(24 * time.Hour).Add(-24 * time.Hour)
	var evs []event.Event
	for i, meta := range []string{`{"team":"payments"}`, `{"team":"payments"}`, `{"team":"search"}`, `{}`} {
		evs = append(evs, event.Event{ProjectID: p, EventID: fmt.Sprint("f", i), AgentName: "a", Model: "gpt-4o",
			InputTokens: 1, OutputTokens: 1, TotalTokens: 2, CostNano: 1000, CatalogueCostNano: 1000, Priced: true,
			Success: true, Source: "batch", Billing: "api", Timestamp: y.Add(time.Duration(i+1) * time.Hour), Metadata: []byte(meta)})
	}
	if _, err := e.db.Write(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	rec := e.raw("/v1/exports/focus?from="+y.Format("2006-01-02")+"&to="+y.Add(24*time.Hour).Format("2006-01-02"), u.Key, nil)
	if rec.Code != 200 {
		t.Fatalf("focus: %d %s", rec.Code, rec.Body.String())
	}
	header, rows := readCSV(t, rec.Body)
	tags, calls := column(t, header, rows, "Tags"), column(t, header, rows, "x_Calls")
	got := map[string]string{}
	for i := range tags {
		got[tags[i]] = calls[i]
	}
	want := map[string]string{`{"llmcost/agent":"a","team":"payments"}`: "2", `{"llmcost/agent":"a","team":"search"}`: "1",
		`{"llmcost/agent":"a"}`: "1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("FOCUS rows by tags: %v, want %v", got, want)
	}
}

// TestDashboardChargeback shows spend by the declared tag's values on the
// chargeback page, each linking to the overview narrowed to it, and the
// overview's total under that filter.
func TestDashboardChargeback(t *testing.T) {
	e := newEnv(t)
	u := e.register("dashtags")
	e.verify(u)
	p := u.ProjectID
	b := e.browser()
	b.signIn(u.Email)
	q := "?project=" + p + "&range=24h"
	b.must(b.get("/chargeback"+q), 200, "No tag keys declared")
	e.must(e.do("PUT", "/v1/projects/"+p+"/tags", u.Access, map[string]any{"keys": []string{"team"}}), 200)
	now := e.clock.Now()
	var evs []event.Event
	for i, c := range []struct {
		meta string
		cost int64
	}{{`{"team":"payments"}`, 2_000_000_000}, {`{"team":"search"}`, 1_000_000_000}, {`{}`, 500_000_000}} {
		evs = append(evs, event.Event{ProjectID: p, EventID: fmt.Sprint("d", i), AgentName: "a", Model: "gpt-4o",
			InputTokens: 1, OutputTokens: 1, TotalTokens: 2, CostNano: c.cost, Priced: true, Success: true,
			Source: "batch", Billing: "api", Timestamp: now.Add(-time.Hour), Metadata: []byte(c.meta)})
	}
	if _, err := e.db.Write(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	b.must(b.get("/chargeback"+q), 200, `id="chargeback"`, ">payments</a>", ">search</a>", ">(none)</a>",
		`id="chargeback-total">$3.50<`, "tag=team%3Dpayments")
	b.must(b.get("/"+q+"&tag=team%3Dpayments"), 200, `id="total-cost">$2.00<`, `name="tag" value="team=payments"`)
	b.must(b.get("/"+q+"&tag=team%3Dnobody"), 200, `id="total-cost">$0.00<`)
	b.must(b.get("/"+q+"&tag=env%3Dprod"), 422)
}
