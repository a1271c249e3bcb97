package apiserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/llmcost/llmcost/apiserver"
	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/ratelimit"
)

// pricingServer serves the built-in catalogue with no database: the public
// pricing routes need none (mirror selects the mirror's route table).
func pricingServer(t *testing.T, mirror bool) string {
	t.Helper()
	var cat atomic.Pointer[pricing.Catalogue]
	cat.Store(pricing.Builtin())
	s := apiserver.New(apiserver.Deps{Catalogue: &cat, Logger: zap.NewNop(), Version: "test",
		Limiter: ratelimit.New(1_000_000, time.Minute), Mirror: mirror})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

type pricingReply struct {
	status int
	body   map[string]any
	raw    string
}

func pricingDo(t *testing.T, method, url string, body any) pricingReply {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := body.(string); ok {
			raw = []byte(s)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := pricingReply{status: resp.StatusCode, raw: string(raw)}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // compare the exact decimal text the server wrote
	_ = dec.Decode(&out.body)
	return out
}

func (r pricingReply) str(key string) string {
	switch v := r.body[key].(type) {
	case json.Number:
		return v.String()
	case string:
		return v
	case nil:
		return "null"
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

func errorOf(r pricingReply) (code, message, hint string) {
	e, _ := r.body["error"].(map[string]any)
	code, _ = e["code"].(string)
	message, _ = e["message"].(string)
	hint, _ = e["hint"].(string)
	return
}

func TestModelPricingByAnyName(t *testing.T) {
	for _, mirror := range []bool{false, true} {
		url := pricingServer(t, mirror)
		for name, want := range map[string]string{
			"claude-sonnet-4-5":                                        "claude-sonnet-4-5",
			"CLAUDE-Sonnet-4-5-20250929":                               "claude-sonnet-4-5",
			"anthropic/claude-sonnet-4-5":                              "claude-sonnet-4-5",
			"anthropic%2Fclaude-sonnet-4-5":                            "claude-sonnet-4-5",
			"bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0":     "claude-sonnet-4-5",
			"bedrock%2Fus.anthropic.claude-sonnet-4-5-20250929-v1%3A0": "claude-sonnet-4-5",
			"openrouter/openai/gpt-5":                                  "gpt-5",
			"gpt-4o-2024-05-13":                                        "gpt-4o-2024-05-13",
		} {
			r := pricingDo(t, "GET", url+"/v1/pricing/"+name, nil)
			if r.status != 200 || r.str("model") != want {
				t.Errorf("mirror=%v %s: %d %s, want %s", mirror, name, r.status, r.raw, want)
			}
		}
	}
}

func TestCatalogueEntryFields(t *testing.T) {
	url := pricingServer(t, false)
	r := pricingDo(t, "GET", url+"/v1/pricing/claude-sonnet-4-5", nil)
	// $3 / $15 / $0.30 / $3.75 / $6 per million tokens, per 1000 tokens.
	for k, v := range map[string]string{"provider": "anthropic", "mode": "chat", "input_per_1k": "0.003",
		"output_per_1k": "0.015", "cache_read_per_1k": "0.0003", "cache_write_per_1k": "0.00375",
		"cache_write_1h_per_1k": "0.006", "max_input_tokens": "200000", "max_output_tokens": "64000",
		"deprecation_date": "null", "source": "builtin", "updated_at": "2026-11-01T00:00:00Z",
		"long_context": `{"cache_read_per_1k":0.0006,"cache_write_1h_per_1k":0.012,"cache_write_per_1k":0.0075,"input_per_1k":0.006,"output_per_1k":0.0225,"threshold_tokens":200000}`,
	} {
		if got := r.str(k); got != v {
			t.Errorf("%s: %s, want %s", k, got, v)
		}
	}
	// Mistral publishes cached input at 10% and no write rates: null, not zero.
	r = pricingDo(t, "GET", url+"/v1/pricing/mistral-large-2512", nil)
	if got := r.str("cache_read_per_1k"); got != "0.00005" {
		t.Errorf("mistral cache_read_per_1k: %s, want 0.00005", got)
	}
	for _, k := range []string{"cache_write_per_1k", "cache_write_1h_per_1k", "long_context", "max_input_tokens"} {
		if got := r.str(k); got != "null" {
			t.Errorf("mistral %s: %s, want null", k, got)
		}
	}
	// A deprecated model names its date and replacement.
	r = pricingDo(t, "GET", url+"/v1/pricing/claude-3-opus-20240229", nil)
	if r.str("deprecation_date") != "2026-05-01" || r.str("replacement") != "claude-opus-5" {
		t.Errorf("deprecated entry: %s", r.raw)
	}
}

func TestUnknownModelIsNotFoundWithCloseNames(t *testing.T) {
	url := pricingServer(t, false)
	r := pricingDo(t, "GET", url+"/v1/pricing/claude-sonet-4-5", nil)
	code, _, hint := errorOf(r)
	if r.status != 404 || code != "not_found" || !strings.Contains(hint, "claude-sonnet-4-5") {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	r = pricingDo(t, "GET", url+"/v1/pricing/zzzzzzzzzzzzzzzz", nil)
	if _, _, hint := errorOf(r); r.status != 404 || !strings.Contains(hint, "GET /v1/pricing") {
		t.Fatalf("unrelated name: %d %s", r.status, r.raw)
	}
	r = pricingDo(t, "POST", url+"/v1/estimate", map[string]any{"model": "gpt-5-mnii", "input_tokens": 1, "output_tokens": 1})
	if _, _, hint := errorOf(r); r.status != 404 || !strings.Contains(hint, "gpt-5-mini") {
		t.Fatalf("estimate: %d %s", r.status, r.raw)
	}
}

func TestPricingListAndDeprecations(t *testing.T) {
	url := pricingServer(t, false)
	r := pricingDo(t, "GET", url+"/v1/pricing", nil)
	models, _ := r.body["models"].([]any)
	if r.status != 200 || len(models) != pricing.Builtin().Len() || r.str("total") != strconv.Itoa(len(models)) ||
		r.str("source") != pricing.BuiltinSource || r.str("synced_at") != "null" {
		t.Fatalf("list: %d total %s source %s synced_at %s", r.status, r.str("total"), r.str("source"), r.str("synced_at"))
	}
	r = pricingDo(t, "GET", url+"/v1/pricing?provider=mistral", nil)
	for _, m := range r.body["models"].([]any) {
		if m.(map[string]any)["provider"] != "mistral" {
			t.Fatalf("provider filter let through %v", m)
		}
	}
	r = pricingDo(t, "GET", url+"/v1/pricing/deprecations", nil)
	deps, _ := r.body["deprecations"].([]any)
	if r.status != 200 || len(deps) != len(pricing.Builtin().Deprecations()) || len(deps) == 0 {
		t.Fatalf("deprecations: %s", r.raw)
	}
	first := deps[0].(map[string]any)
	if first["model"] == nil || first["deprecation_date"] == nil {
		t.Fatalf("deprecation item %v", first)
	}
	r = pricingDo(t, "GET", url+"/v1/pricing/sync/status", nil)
	if r.status != 200 || r.str("mode") != "embedded" || r.str("source_url") != "null" || r.str("last_error") != "null" {
		t.Fatalf("sync status: %s", r.raw)
	}
}

// The mirror serves the public reads and the estimator and nothing else;
// the origin serves the admin routes beside them (401 without a session).
func TestMirrorRouteTable(t *testing.T) {
	mirror, origin := pricingServer(t, true), pricingServer(t, false)
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"POST", "/v1/pricing/import", 404}, {"POST", "/v1/pricing/reprice", 404}, {"POST", "/v1/auth/register", 404},
		{"POST", "/v1/auth/login", 404}, {"POST", "/v1/projects", 404}, {"GET", "/v1/projects/me", 404},
		{"POST", "/v1/events/batch", 404}, {"GET", "/v1/events", 404}, {"POST", "/v1/otlp/v1/logs", 404},
	} {
		if r := pricingDo(t, c.method, mirror+c.path, "{}"); r.status != c.status {
			t.Errorf("mirror %s %s: %d, want %d", c.method, c.path, r.status, c.status)
		}
	}
	for _, path := range []string{"/v1/pricing/import", "/v1/pricing/reprice"} {
		if r := pricingDo(t, "POST", origin+path, "{}"); r.status != 401 {
			t.Errorf("origin POST %s without credentials: %d %s, want 401", path, r.status, r.raw)
		}
	}
	if r := pricingDo(t, "GET", mirror+"/v1/health", nil); r.status != 200 || r.str("status") != "ok" {
		t.Errorf("mirror health: %d %s", r.status, r.raw)
	}
}
