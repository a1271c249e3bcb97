package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// The estimator prices a call at the rates in force at its optional
// timestamp: before and after a price cut, in and out of DeepSeek's peak
// hours; a bad timestamp is a 422 naming the field.
func TestEstimateAtTimestamp(t *testing.T) {
	url := pricingServer(t, false)
	est := func(model, ts string) pricingReply {
		return pricingDo(t, "POST", url+"/v1/estimate", map[string]any{"model": model,
			"input_tokens": 1_000_000, "output_tokens": 100_000, "timestamp": ts})
	}
	cases := []struct{ model, ts, total, period string }{
		{"o3", "2025-06-09T12:00:00Z", "14", "base"},
		{"o3", "2025-06-10T12:00:00+02:00", "2.8", "2025-06-10T00:00:00Z.."},
		{"deepseek-flash", "2026-11-23T02:00:00Z", "0.42", "2026-09-10T04:00:00Z..@01:00-04:00 Mon-Fri"},
		{"deepseek-flash", "2026-11-23T14:00:00Z", "0.21", "2026-09-10T04:00:00Z.."},
		{"gpt-5", "2026-11-23T14:00:00Z", "2.25", "null"},
	}
	for _, c := range cases {
		r := est(c.model, c.ts)
		if r.status != http.StatusOK || r.str("total_cost") != c.total || r.str("price_period") != c.period {
			t.Errorf("%s at %s: %d total %s period %s, want %s %s", c.model, c.ts, r.status,
				r.str("total_cost"), r.str("price_period"), c.total, c.period)
		}
	}
	if r := est("o3", "yesterday"); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.raw, "timestamp") {
		t.Errorf("bad timestamp: %d %s", r.status, r.raw)
	}
}

// GET /v1/pricing/{model} says which entry a name resolved to: an alias, an
// undated name, a retired name (deprecated, with its successor as the
// replacement); a model with periods lists them with the one in force.
func TestPricingResolvesNames(t *testing.T) {
	url := pricingServer(t, false)
	cases := []struct{ name, model, via string }{
		{"mistral-large-latest", "mistral-large-2512", "alias"},
		{"codestral-latest", "codestral-2508", "alias"},
		{"grok-4", "grok-4-0709", "alias"},
		{"xai%2Fgrok-4-fast", "grok-4-fast-reasoning", "alias"},
		{"claude-opus-4", "claude-opus-4-20250514", "undated"},
		{"deepseek-v4-flash", "deepseek-flash", "retired"},
		{"gpt-5", "gpt-5", "exact"},
	}
	for _, c := range cases {
		r := pricingDo(t, "GET", url+"/v1/pricing/"+c.name, nil)
		res, _ := r.body["resolved"].(map[string]any)
		if r.status != http.StatusOK || r.str("model") != c.model || res["via"] != c.via {
			t.Errorf("%s: %d model %s resolved %v", c.name, r.status, r.str("model"), res)
		}
	}
	r := pricingDo(t, "GET", url+"/v1/pricing/deepseek-v4-flash", nil)
	if res := r.body["resolved"].(map[string]any); res["deprecated"] != true ||
		r.str("deprecation_date") != "2026-09-10" || r.str("replacement") != "deepseek-flash" {
		t.Errorf("retired name: %s", r.raw)
	}
	periods, _ := r.body["periods"].([]any)
	// base, the launch cache price, Flash's periods from 2026-08-16 (off-peak,
	// peak every day for a week, then on weekdays), V4.1 Flash's from
	// 2026-09-10 and six public holidays.
	if len(periods) != 16 || r.str("period") == "null" {
		t.Fatalf("deepseek-flash periods: %s", r.raw)
	}
	peak := periods[5].(map[string]any)
	tod, _ := peak["time_of_day"].(map[string]any)
	if tod["start"] != "01:00" || tod["end"] != "04:00" || tod["weekdays_only"] != true ||
		peak["input_per_1k"].(json.Number) != "0.00044" {
		t.Errorf("peak period: %v", peak)
	}
	aliases := pricingDo(t, "GET", url+"/v1/pricing/mistral-large-2512", nil).body["aliases"].([]any)
	if len(aliases) == 0 || aliases[0].(map[string]any)["name"] != "mistral-large-latest" {
		t.Errorf("aliases: %v", aliases)
	}
}
