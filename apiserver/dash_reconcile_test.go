package apiserver

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The dashboard's reconciliation page shows the connections' state, the
// daily comparison chart and the gaps of the report, and an invitation to
// connect when there is none.
func TestReconciliationPage(t *testing.T) {
	f := newReconFixture(t)
	e, u := f.e, f.u
	b := e.browser()
	b.signIn(u.Email)
	q := "?project=" + u.ProjectID + "&range=24h"
	b.must(b.get("/reconciliation"+q), http.StatusOK, `id="empty-state"`, "No provider connected")
	e.must(e.do("PUT", "/v1/projects/"+u.ProjectID+"/connections/anthropic", u.Access, map[string]any{"admin_key": testAnthropicKey,
		"workspace_ids": []string{"wrkspc_llm"}}), 201)
	f.sync(t)
	first, last := f.day(29).Format(time.DateOnly), f.day(0).Format(time.DateOnly)
	page := b.must(b.get("/reconciliation"+q), http.StatusOK, `id="gaps"`, "missing_calls", "unpriced_model",
		"the output rate differs", `id="connections"`, "last 30d", `id="daily"`, `class="chart columns"`,
		">"+first+"<", ">"+last+"<", ">provider<", ">llmcost<")
	if strings.Contains(page.Body, "Secret-Key") {
		t.Fatal("the page shows the admin key")
	}
	// One pair per day of the 30-day window, each with both bars: the
	// workspace scope gives the provider's cost of every day.
	for h, n := range map[string]int{`<g class="pair`: 30, `class="bar a">`: 30, `class="bar b">`: 30} {
		if got := strings.Count(page.Body, h); got != n {
			t.Errorf("%q appears %d times, want %d", h, got, n)
		}
	}
	if !strings.Contains(page.Body, `<g class="pair pending"><rect`) || strings.Count(page.Body, `<g class="pair pending">`) > 2 {
		t.Errorf("today, which the provider has not finished counting, should be faint, and at most yesterday with it")
	}
	// The day llmcost never saw the Sonnet calls shows less on llmcost's
	// side than the day after, while the provider billed both alike.
	tip := func(day int, series string) string {
		d := f.day(day).Format(time.DateOnly)
		m := regexp.MustCompile(`<title>` + d + ` · ` + series + `: ([^<]+)</title>`).FindStringSubmatch(page.Body)
		if m == nil {
			t.Fatalf("no %s bar for %s", series, d)
		}
		return m[1]
	}
	if tip(10, "provider") != tip(11, "provider") || tip(10, "llmcost") == tip(11, "llmcost") {
		t.Errorf("day 10: provider %s llmcost %s; day 11: provider %s llmcost %s",
			tip(10, "provider"), tip(10, "llmcost"), tip(11, "provider"), tip(11, "llmcost"))
	}
}

// An admin connects a provider from the settings page, sees it listed by
// its key's hint and never the key, asks for a sync, disconnects, and is
// told which field is wrong when the key is malformed.
func TestDashboardConnectionForms(t *testing.T) {
	e := newEnv(t)
	u := e.register("connform")
	b := e.browser()
	b.signIn(u.Email)
	proj := u.ProjectID
	b.must(b.get("/settings?project="+proj), http.StatusOK, `id="connection-form"`, `id="no-connections"`)

	bad := b.must(b.post("/settings/connections", url.Values{"project": {proj}, "provider": {"anthropic"},
		"admin_key": {"sk-not-an-admin-key-Secret-Key"}}), http.StatusUnprocessableEntity, "admin_key: must be a anthropic admin key")
	if strings.Contains(bad.Body, "Secret-Key") {
		t.Fatal("the refusal echoes the admin key")
	}

	hint := testAnthropicKey[len(testAnthropicKey)-4:]
	p := b.must(b.post("/settings/connections", url.Values{"project": {proj}, "provider": {"anthropic"},
		"admin_key": {testAnthropicKey}, "scope_kind": {"workspace_ids"}, "scope_ids": {"wrkspc_a, wrkspc_b"},
		"tolerance_percent": {"1.5"}, "backfill_days": {"7"}}), http.StatusOK,
		"Connected anthropic", `id="connections"`, "wrkspc_a", "wrkspc_b", "…"+hint, "Sync now", "Disconnect")
	if strings.Contains(p.Body, "Secret-Key") {
		t.Fatal("the settings page shows the admin key")
	}
	list := e.must(e.do("GET", "/v1/projects/"+proj+"/connections", u.Access, nil), 200).Body["connections"].([]any)
	if c := list[0].(map[string]any); len(list) != 1 || c["backfill_days"] != 7.0 || c["tolerance_percent"] != 1.5 {
		t.Errorf("stored connections %v", list)
	}

	b.must(b.post("/settings/connections/sync", url.Values{"project": {proj}, "provider": {"anthropic"}}),
		http.StatusOK, "Sync of anthropic requested.")
	b.must(b.post("/settings/connections/delete", url.Values{"project": {proj}, "provider": {"anthropic"}}),
		http.StatusOK, "Disconnected anthropic.", `id="no-connections"`)
}
