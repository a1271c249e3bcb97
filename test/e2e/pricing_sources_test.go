package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// Two sources that disagree on one model, through the running service:
// the model keeps its price (catalogue read and estimator), the
// disagreement is listed in the sync status with each source's value, and
// a source going down later fails nothing.
func TestTwoSourcesDisagreeThroughTheService(t *testing.T) {
	var m map[string]map[string]any
	if err := json.Unmarshal(pricingFixture(t), &m); err != nil {
		t.Fatal(err)
	}
	m["gpt-5"]["input_cost_per_token"] = 2e-06 // genai-prices (and OpenAI): $1.25
	lite, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	genai, err := os.ReadFile(filepath.Join(repoRoot(), "testdata", "fixtures", "pricing", "genai-prices-subset-2026-11.json"))
	if err != nil {
		t.Fatal(err)
	}
	ls, gs := newPriceSource(t, lite), newPriceSource(t, genai)
	s := start(t, map[string]string{"LLMCOST_PRICING_SYNC_URL": ls.srv.URL, "LLMCOST_PRICING_GENAI_PRICES_URL": gs.srv.URL,
		"LLMCOST_PRICING_SYNC_INTERVAL": "1s", "LLMCOST_PRICING_SYNC_TIMEOUT": "500ms"})
	st := s.waitStatus(t, "two-source sync", func(st map[string]any) bool { return st["source"] == "litellm+genai-prices" })
	var listed bool
	for _, d := range st["disagreements"].([]any) {
		d := d.(map[string]any)
		v, _ := d["values"].(map[string]any)
		if d["model"] == "gpt-5" && d["field"] == "input" && v["litellm"] == json.Number("0.002") && v["genai-prices"] == json.Number("0.00125") {
			listed = true
		}
	}
	if !listed || len(st["source_urls"].([]any)) != 2 || st["last_error"] != nil {
		t.Fatalf("status: %v", st)
	}
	if e := s.call(t, "GET", "/v1/pricing/gpt-5", "", nil).must(t, http.StatusOK); e.Body["input_per_1k"] != json.Number("0.00125") {
		t.Errorf("gpt-5 must keep its price: %s", e.Raw)
	}
	est := s.call(t, "POST", "/v1/estimate", "", map[string]any{"model": "gpt-5", "input_tokens": 1000000, "output_tokens": 0}).
		must(t, http.StatusOK)
	if est.Body["total_cost"] != json.Number("1.25") {
		t.Errorf("estimate: %s", est.Raw)
	}
	// genai-prices goes down: LiteLLM's file alone still applies, the error
	// names the source, the service keeps answering.
	gs.set([]byte("gone"), http.StatusBadGateway, 0)
	st = s.waitStatus(t, "one source down", func(st map[string]any) bool {
		e, _ := st["last_error"].(string)
		return e != "" && st["source"] == "litellm"
	})
	if s.call(t, "GET", "/v1/health", "", nil).Status != http.StatusOK {
		t.Errorf("health after a failed source: %v", st)
	}
}
