package apiserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmcost/llmcost/internal/pricing"
)

type golden struct {
	name string
	req  map[string]any
	// input, cache read, cache write, output, total cost (USD); long context
	want [5]string
	long bool
}

// Every expected figure is computed by hand from the published per-million
// rates in the comments, independently of the code under test.
var goldenEstimates = []golden{
	// Anthropic claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75
	// 5-minute write, $6 1-hour write.
	// uncached 100000−40000−10000−5000 = 45000 × 3 = $0.135; read 40000 × 0.30 = $0.012;
	// writes 10000 × 3.75 + 5000 × 6 = $0.0375 + $0.03 = $0.0675; output 2000 × 15 = $0.03.
	{"anthropic cache read, 5m and 1h writes", map[string]any{"model": "claude-sonnet-4-5", "input_tokens": 100000,
		"output_tokens": 2000, "cached_tokens": 40000, "cache_write_tokens": 10000, "cache_write_1h_tokens": 5000},
		[5]string{"0.135", "0.012", "0.0675", "0.03", "0.2445"}, false},
	// Above 200k prompt tokens the whole call takes the tier: $6 in, $22.5
	// out, $0.60 read, $7.50 5m write, $12 1h write.
	// uncached 250000−130000 = 120000 × 6 = $0.72; read 100000 × 0.60 = $0.06;
	// writes 20000 × 7.5 + 10000 × 12 = $0.15 + $0.12 = $0.27; output 4000 × 22.5 = $0.09.
	{"anthropic above 200k", map[string]any{"model": "anthropic/claude-sonnet-4-5-20250929", "input_tokens": 250000,
		"output_tokens": 4000, "cached_tokens": 100000, "cache_write_tokens": 20000, "cache_write_1h_tokens": 10000},
		[5]string{"0.72", "0.06", "0.27", "0.09", "1.14"}, true},
	// Exactly 200000 is not above the threshold: 200000 × 3 = $0.6.
	{"anthropic at the threshold", map[string]any{"model": "claude-sonnet-4-5", "input_tokens": 200000, "output_tokens": 0},
		[5]string{"0.6", "0", "0", "0", "0.6"}, false},
	// One token more prices every token at the tier: 200001 × 6 = $1.200006.
	{"anthropic one above the threshold", map[string]any{"model": "claude-sonnet-4-5", "input_tokens": 200001, "output_tokens": 0},
		[5]string{"1.200006", "0", "0", "0", "1.200006"}, true},
	// OpenAI gpt-5: $1.25 in, $10 out, $0.125 cached input. Reasoning is
	// inside output_tokens and never added again.
	// uncached 2000 × 1.25 = $0.0025; read 8000 × 0.125 = $0.001; output 3000 × 10 = $0.03.
	{"openai cached input and reasoning", map[string]any{"model": "gpt-5", "input_tokens": 10000, "output_tokens": 3000,
		"cached_tokens": 8000, "reasoning_tokens": 2500}, [5]string{"0.0025", "0.001", "0", "0.03", "0.0335"}, false},
	// gpt-5 publishes no write rate, so writes cost the input rate:
	// uncached 1000 × 1.25 = $0.00125; read $0.001; writes 1000 × 1.25 = $0.00125; output $0.03.
	{"openai write at the input rate", map[string]any{"model": "openai/gpt-5", "input_tokens": 10000, "output_tokens": 3000,
		"cached_tokens": 8000, "cache_write_tokens": 1000}, [5]string{"0.00125", "0.001", "0.00125", "0.03", "0.0335"}, false},
	// Gemini 2.5 Pro: $1.25 in, $10 out, $0.125 cached; above 200k $2.50,
	// $15 and $0.25. uncached 200000 × 2.5 = $0.5; read 100000 × 0.25 = $0.025; output 5000 × 15 = $0.075.
	{"gemini above 200k, cached", map[string]any{"model": "gemini-2.5-pro", "input_tokens": 300000, "output_tokens": 5000,
		"cached_tokens": 100000}, [5]string{"0.5", "0.025", "0", "0.075", "0.6"}, true},
	// Under the threshold: 100000 × 1.25 = $0.125; 50000 × 0.125 = $0.00625; 1000 × 10 = $0.01.
	{"gemini cached", map[string]any{"model": "gemini/gemini-2.5-pro", "input_tokens": 150000, "output_tokens": 1000,
		"cached_tokens": 50000}, [5]string{"0.125", "0.00625", "0", "0.01", "0.14125"}, false},
	// GPT-4o 2024-05-13 publishes no cache rates: $5 in, $15 out, so
	// caching saves nothing. uncached 3000 × 5 = $0.015; read 6000 × 5 = $0.03;
	// write 1000 × 5 = $0.005; output 1000 × 15 = $0.015.
	{"no cache rate", map[string]any{"model": "gpt-4o-2024-05-13", "input_tokens": 10000, "output_tokens": 1000,
		"cached_tokens": 6000, "cache_write_tokens": 1000}, [5]string{"0.015", "0.03", "0.005", "0.015", "0.065"}, false},
}

func TestEstimateGoldenCases(t *testing.T) {
	url := pricingServer(t, false)
	for _, g := range goldenEstimates {
		r := pricingDo(t, "POST", url+"/v1/estimate", g.req)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", g.name, r.status, r.raw)
		}
		got := [5]string{r.str("input_cost"), r.str("cache_read_cost"), r.str("cache_write_cost"),
			r.str("output_cost"), r.str("total_cost")}
		if got != g.want || r.body["long_context"] != g.long || r.str("currency") != "USD" {
			t.Errorf("%s: got %v long %v, want %v long %v", g.name, got, r.body["long_context"], g.want, g.long)
		}
	}
}

func TestEstimateRatesAndAlternatives(t *testing.T) {
	url := pricingServer(t, false)
	r := pricingDo(t, "POST", url+"/v1/estimate", map[string]any{"model": "claude-sonnet-4-5", "input_tokens": 100000,
		"output_tokens": 2000, "cached_tokens": 40000, "cache_write_tokens": 10000, "cache_write_1h_tokens": 5000,
		"compare": []string{"claude-haiku-4-5", "gpt-5", "claude-opus-4-1"}})
	if r.str("rates") != `{"cache_read_per_1k":0.0003,"cache_write_1h_per_1k":0.006,"cache_write_per_1k":0.00375,"input_per_1k":0.003,"output_per_1k":0.015}` {
		t.Errorf("rates %s", r.str("rates"))
	}
	// Haiku 4.5 ($1/$5/$0.10/$1.25/$2): 0.045 + 0.004 + 0.0125 + 0.01 + 0.01 = $0.0815.
	// gpt-5 (writes at $1.25 input): 0.05625 + 0.005 + 0.01875 + 0.02 = $0.1.
	// Opus 4.1 ($15/$75/$1.50/$18.75/$30): 0.675 + 0.06 + 0.1875 + 0.15 + 0.15 = $1.2225.
	want := `[{"model":"claude-haiku-4-5","savings":0.163,"total_cost":0.0815},` +
		`{"model":"gpt-5","savings":0.1445,"total_cost":0.1},` +
		`{"model":"claude-opus-4-1","savings":-0.978,"total_cost":1.2225}]`
	if got := r.str("alternatives"); got != want {
		t.Errorf("alternatives\n got %s\nwant %s", got, want)
	}
	// A model without cache rates shows the input rate it applies to them.
	r = pricingDo(t, "POST", url+"/v1/estimate", map[string]any{"model": "gpt-4o-2024-05-13", "input_tokens": 1, "output_tokens": 1})
	if rates := r.body["rates"].(map[string]any); rates["cache_read_per_1k"].(json.Number) != "0.005" {
		t.Errorf("no-cache rates %v", rates)
	}
}

// The Claude Code fixture's own cost_usd values, reproduced within a
// nano-dollar (input_tokens there is already the whole prompt).
func TestEstimateReproducesClaudeCodeCosts(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", "otlp", "claude_code_session.expected.json"))
	if err != nil {
		t.Fatalf("fixture missing: %v", err)
	}
	var fx struct {
		Events []struct {
			Model        string       `json:"model"`
			InputTokens  int64        `json:"input_tokens"`
			OutputTokens int64        `json:"output_tokens"`
			CachedTokens int64        `json:"cached_tokens"`
			CacheWrite   int64        `json:"cache_write_tokens"`
			CostUSD      *json.Number `json:"cost_usd"`
		} `json:"events"`
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&fx); err != nil {
		t.Fatal(err)
	}
	url := pricingServer(t, false)
	checked := 0
	for _, e := range fx.Events {
		if e.CostUSD == nil {
			continue
		}
		r := pricingDo(t, "POST", url+"/v1/estimate", map[string]any{"model": e.Model, "input_tokens": e.InputTokens,
			"output_tokens": e.OutputTokens, "cached_tokens": e.CachedTokens, "cache_write_tokens": e.CacheWrite})
		got, err1 := pricing.ParseCostNano(r.str("total_cost"))
		want, err2 := pricing.ParseCostNano(e.CostUSD.String())
		if err1 != nil || err2 != nil || got-want > 1 || want-got > 1 {
			t.Errorf("%s %d/%d/%d/%d: total %s, fixture %s", e.Model, e.InputTokens, e.CachedTokens, e.CacheWrite,
				e.OutputTokens, r.str("total_cost"), e.CostUSD)
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("only %d fixture costs checked", checked)
	}
	// A real Claude Code call: 6 + 18452 + 1287 prompt tokens, 958 output.
	r := pricingDo(t, "POST", url+"/v1/estimate", map[string]any{"model": "claude-sonnet-4-5", "input_tokens": 19745,
		"output_tokens": 958, "cached_tokens": 18452, "cache_write_tokens": 1287})
	if r.str("total_cost") != "0.02474985" {
		t.Errorf("claude code call: %s", r.raw)
	}
}

func TestEstimateValidation(t *testing.T) {
	url := pricingServer(t, false)
	base := func(kv ...any) map[string]any {
		m := map[string]any{"model": "gpt-5", "input_tokens": 100, "output_tokens": 10}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(m, kv[i].(string))
			} else {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		return m
	}
	compare21 := make([]string, 21)
	for i := range compare21 {
		compare21[i] = "gpt-5"
	}
	for _, c := range []struct {
		body   any
		status int
		field  string
	}{
		{base("model", nil), 422, "model"},
		{base("model", "  "), 422, "model"},
		{base("input_tokens", nil), 422, "input_tokens"},
		{base("output_tokens", nil), 422, "output_tokens"},
		{base("output_tokens", -1), 422, "output_tokens"},
		{base("input_tokens", 1.5), 422, "input_tokens"},
		{base("input_tokens", "100"), 422, "input_tokens"},
		{base("cached_tokens", 2_000_000_000), 422, "cached_tokens"},
		{base("cached_tokens", 60, "cache_write_tokens", 50), 422, "cached_tokens"},
		{base("reasoning_tokens", 11), 422, "reasoning_tokens"},
		{base("compare", []string{"gpt-5", "no-such-model-xyz"}), 422, "compare[1]"},
		{base("compare", []string{""}), 422, "compare[0]"},
		{base("compare", compare21), 422, "compare"},
		{`{"model": "gpt-5",`, 400, "malformed"},
	} {
		r := pricingDo(t, "POST", url+"/v1/estimate", c.body)
		_, msg, _ := errorOf(r)
		if r.status != c.status || !strings.Contains(msg, c.field) {
			t.Errorf("%v: %d %s, want %d naming %s", c.body, r.status, r.raw, c.status, c.field)
		}
	}
	r := pricingDo(t, "POST", url+"/v1/estimate", base("cached_tokens", 60, "cache_write_tokens", 50))
	if _, _, hint := errorOf(r); !strings.Contains(hint, "Anthropic") {
		t.Errorf("the cache overflow hint should explain Anthropic's convention: %s", r.raw)
	}
}
