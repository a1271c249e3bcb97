package apiserver

import (
	"fmt"
	"strings"
	"testing"

	pt "github.com/llmcost/llmcost/internal/providers/providerstest"
)

// The report finds each deliberate gap with its cause and amount, and
// nothing else.
func TestReconciliationFindsEachGap(t *testing.T) {
	f := newReconFixture(t)
	e, u := f.e, f.u
	base := "/v1/projects/" + u.ProjectID + "/connections"
	e.must(e.do("PUT", base+"/anthropic", u.Access, map[string]any{"admin_key": testAnthropicKey,
		"workspace_ids": []string{"wrkspc_llm"}}), 201)
	e.must(e.do("PUT", base+"/openai", u.Access, map[string]any{"admin_key": testOpenAIKey,
		"project_ids": []string{"proj_llm"}}), 201)
	f.ant.SetFaults(pt.Faults{RateLimited: 1, RetryAfter: 1})
	f.sync(t)
	conns := e.must(e.do("GET", base, u.Access, nil), 200)
	for _, c := range conns.Body["connections"].([]any) {
		if c := c.(map[string]any); c["sync_status"] != "ok" || c["last_sync_at"] == nil {
			t.Fatalf("connection after sync: %v", c)
		}
	}

	r := e.must(e.do("GET", "/v1/reconciliation?range=30d", u.Key, nil), 200)
	rows := r.Body["rows"].([]any)
	causes := map[string]int{}
	byKey := map[string]map[string]any{}
	for _, x := range rows {
		row := x.(map[string]any)
		c, _ := row["cause"].(string)
		causes[c]++
		model, _ := row["model"].(string)
		byKey[fmt.Sprintf("%s %s %s", row["day"], row["provider"], model)] = row
	}
	key := func(n int, provider, model string) map[string]any {
		row := byKey[fmt.Sprintf("%s %s %s", f.day(n).Format("2006-01-02"), provider, model)]
		if row == nil {
			t.Fatalf("no row for day -%d %s %s", n, provider, model)
		}
		return row
	}
	// 28 days of Haiku's output rate, 1 missing day, 3 unpriced days, 1
	// batch day; yesterday's and today's gaps are not final (Haiku both
	// days, today's partial Sonnet and GPT-4o).
	want := map[string]int{"price": 28, "missing_calls": 1, "unpriced_model": 3, "discount": 1, "not_final": 4}
	for c, n := range want {
		if causes[c] != n {
			t.Errorf("cause %s: %d rows, want %d", c, causes[c], n)
		}
	}
	if len(causes) != len(want)+1 {
		t.Errorf("causes %v, want only %v and none", causes, want)
	}

	missing := key(10, "anthropic", "claude-sonnet-4-5")
	// 750k input at $3, 200k cache reads at $0.30, 50k writes at $3.75 and
	// 100k output at $15 per million tokens.
	if missing["cause"] != "missing_calls" || missing["difference"].(float64) != 3.9975 || missing["llmcost_cost"].(float64) != 0 {
		t.Errorf("missing day: %v", missing)
	}
	price := key(12, "anthropic", "claude-haiku-4-5")
	rate := price["rate"].(map[string]any)
	if rate["class"] != "output" || rate["provider_per_mtok"].(float64) != 10 || rate["llmcost_per_mtok"].(float64) != 5 ||
		price["difference"].(float64) != 0.05 {
		t.Errorf("price gap: %v", price)
	}
	if u := key(4, "anthropic", "claude-mystery-9"); u["cause"] != "unpriced_model" || u["difference"].(float64) != 0.0056 {
		t.Errorf("unpriced: %v", u)
	}
	if d := key(7, "openai", "gpt-4o"); d["cause"] != "discount" || d["difference"].(float64) != -0.875 {
		t.Errorf("batch: %v", d)
	}
	if ok := key(2, "anthropic", "claude-sonnet-4-5"); ok["cause"] != nil || ok["final"] != true {
		t.Errorf("a matching day with flat-plan calls: %v", ok)
	}
	tokens := key(3, "anthropic", "claude-sonnet-4-5")["tokens"].(map[string]any)
	if fmt.Sprint(tokens["provider"]) != fmt.Sprint(tokens["llmcost"]) ||
		tokens["provider"].(map[string]any)["cache_write_5m"].(float64) != 50_000 {
		t.Errorf("tokens by class: %v", tokens)
	}
	sum := r.obj("summary")
	if sum["excluded_subscription_cost"].(float64) != float64(f.subCost)/1e9 {
		t.Errorf("excluded flat-plan cost %v, want %d nano", sum["excluded_subscription_cost"], f.subCost)
	}
	if len(sum["providers"].([]any)) != 2 || len(sum["by_cause"].([]any)) != len(want) {
		t.Errorf("summary: %v", sum)
	}
	s2 := e.must(e.do("GET", "/v1/reconciliation/summary?range=30d", u.Key, nil), 200)
	if fmt.Sprint(s2.Body) != fmt.Sprint(sum) {
		t.Errorf("the summary route differs from the report's summary:\n%v\n%v", s2.Body, sum)
	}
	for _, bad := range []string{"range=31d", "month=2026-13", "month=2026-01&range=7d"} {
		r := e.must(e.do("GET", "/v1/reconciliation?"+bad, u.Key, nil), 422)
		if msg := r.obj("error")["message"].(string); !strings.Contains(msg, "range") && !strings.Contains(msg, "month") {
			t.Errorf("%s: %s", bad, msg)
		}
	}
}
