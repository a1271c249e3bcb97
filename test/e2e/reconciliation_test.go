package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/providers"
	pt "github.com/llmcost/llmcost/internal/providers/providerstest"
)

// The built service, configured by its environment variables only, syncs a
// connected Anthropic organisation over HTTPS through the extra CA it is
// given (as behind an egress proxy), and the report sets the bill beside
// the calls it received: a day of calls it never saw is found.
func TestReconciliationThroughTheService(t *testing.T) {
	const adminKey = "sk-ant-admin01-e2e-Secret-Value-ABCD"
	fake := pt.NewAnthropic(t, adminKey)
	s := start(t, map[string]string{
		"LLMCOST_SECRET_KEY":        "e2e-secret-0123456789abcdef-0123456789",
		"LLMCOST_ANTHROPIC_API_URL": fake.URL(),
		"LLMCOST_PROVIDER_CA_FILE":  fake.CertFile(),
		"LLMCOST_LOG_LEVEL":         "debug",
	})
	token, project, key := s.account(t)
	today := providers.Day(time.Now())
	var usage []pt.AnthropicUsage
	var costs []pt.AnthropicCost
	var events []map[string]any
	for n := 3; n <= 6; n++ {
		day := today.AddDate(0, 0, -n)
		usage = append(usage, pt.AnthropicUsage{Day: day, Model: "claude-haiku-4-5-20251001", Tier: "standard",
			Uncached: 10_000, Output: 1_000})
		costs = append(costs, pt.AnthropicCost{Day: day, Model: "claude-haiku-4-5-20251001", TokenType: "uncached_input_tokens",
			CostType: "tokens", Tier: "standard", Nano: 10_000_000},
			pt.AnthropicCost{Day: day, Model: "claude-haiku-4-5-20251001", TokenType: "output_tokens",
				CostType: "tokens", Tier: "standard", Nano: 5_000_000})
		if n != 5 { // llmcost never saw day −5's call
			events = append(events, map[string]any{"event_id": day.Format("e-20060102"), "agent_name": "a",
				"model": "claude-haiku-4-5", "input_tokens": 10_000, "output_tokens": 1_000,
				"timestamp": day.Add(9 * time.Hour).Format(time.RFC3339)})
		}
	}
	fake.SetData(usage, costs)
	s.call(t, "POST", "/v1/events/batch", key, map[string]any{"project_id": project, "events": events}).must(t, http.StatusOK)

	s.call(t, "PUT", "/v1/projects/"+project+"/connections/anthropic", token,
		map[string]any{"admin_key": adminKey, "backfill_days": 7}).must(t, http.StatusCreated)
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := s.call(t, "GET", "/v1/projects/"+project+"/connections", token, nil).must(t, http.StatusOK)
		c := r.Body["connections"].([]any)[0].(map[string]any)
		if c["sync_status"] == "ok" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not synced: %v\n%s", c, s.stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	r := s.call(t, "GET", "/v1/reconciliation?range=7d", key, nil).must(t, http.StatusOK)
	var found []string
	for _, x := range r.Body["rows"].([]any) {
		row := x.(map[string]any)
		if c, ok := row["cause"].(string); ok {
			found = append(found, row["day"].(string)+" "+c)
		}
	}
	want := today.AddDate(0, 0, -5).Format("2006-01-02") + " missing_calls"
	if len(found) != 1 || found[0] != want {
		t.Fatalf("gaps %v, want [%s]", found, want)
	}
	if strings.Contains(s.stderr.String(), "e2e-Secret-Value") {
		t.Fatal("the admin key is in the service's log")
	}
}
