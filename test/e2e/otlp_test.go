package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/postgres/pgtest"
	"github.com/llmcost/llmcost/internal/pricing"
)

// otlpFixtureDir holds the agent log exports and their expected
// events (see its README.md).
const otlpFixtureDir = "../../testdata/fixtures/otlp"

var otlpFixtures = []string{
	"claude_code_session.json",
	"codex_session.json",
	"gemini_cli_session.json",
	"genai_semconv.json",
	"mixed_and_malformed.json",
}

// otlpExpected is the part of X.expected.json the endpoint must match.
type otlpExpected struct {
	Events   []expectedCall `json:"events"`
	Response struct {
		Status int             `json:"status"`
		Body   json.RawMessage `json:"body"`
	} `json:"response"`
}

type expectedCall struct {
	AgentName        string   `json:"agent_name"`
	Model            string   `json:"model"`
	InputTokens      int64    `json:"input_tokens"`
	OutputTokens     int64    `json:"output_tokens"`
	CachedTokens     int64    `json:"cached_tokens"`
	CacheWriteTokens int64    `json:"cache_write_tokens"`
	CostProvided     bool     `json:"cost_provided"`
	CostUSD          *float64 `json:"cost_usd"`
	Success          bool     `json:"success"`
	LatencyMS        *int64   `json:"latency_ms"`
	SessionID        *string  `json:"session_id"`
	UserID           *string  `json:"user_id"`
	Timestamp        string   `json:"timestamp"`
	Key              string   `json:"idempotency_key"`
}

// readOTLPFixture fails, never skips, when the fixtures are absent.
func readOTLPFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(otlpFixtureDir, name))
	if err != nil {
		t.Fatalf("OTLP fixture missing: %v", err)
	}
	return b
}

func readExpected(t *testing.T, fixture string) otlpExpected {
	t.Helper()
	var want otlpExpected
	name := strings.TrimSuffix(strings.TrimSuffix(fixture, ".gz"), ".json") + ".expected.json"
	if err := json.Unmarshal(readOTLPFixture(t, name), &want); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return want
}

// postOTLP posts body to the logs endpoint exactly as given: no header is
// set but the key and those in headers (Content-Type included).
func (s *service) postOTLP(t *testing.T, path, key string, body []byte, headers map[string]string) response {
	t.Helper()
	req, err := http.NewRequest("POST", s.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	var raw bytes.Buffer
	_, _ = raw.ReadFrom(resp.Body)
	out := response{Status: resp.StatusCode, Header: resp.Header, Raw: raw.Bytes()}
	_ = json.Unmarshal(out.Raw, &out.Body)
	return out
}

var jsonType = map[string]string{"Content-Type": "application/json"}

// checkReply compares a reply with the fixture's expected status and body.
func checkReply(t *testing.T, r response, want otlpExpected) {
	t.Helper()
	var got, body any
	if err := json.Unmarshal(r.Raw, &got); err != nil {
		t.Fatalf("reply is not JSON: %s", r.Raw)
	}
	_ = json.Unmarshal(want.Response.Body, &body)
	if r.Status != want.Response.Status || !reflect.DeepEqual(got, body) || r.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("reply %d %s, want %d %s", r.Status, r.Raw, want.Response.Status, want.Response.Body)
	}
}

// checkStored compares the project's stored events with the expected ones,
// keyed by the idempotency key, which is the stored event_id.
func checkStored(t *testing.T, s *service, key string, want []expectedCall) map[string]map[string]any {
	t.Helper()
	got := s.listed(t, key)
	if len(got) != len(want) {
		t.Fatalf("%d events stored, want %d", len(got), len(want))
	}
	for _, w := range want {
		e := got[w.Key]
		if e == nil {
			t.Fatalf("no event %s (%s %s)", w.Key, w.AgentName, w.Model)
		}
		checkCall(t, e, w)
	}
	return got
}

func checkCall(t *testing.T, e map[string]any, w expectedCall) {
	t.Helper()
	eq := func(field string, got, want any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s %s: %s = %v, want %v", w.AgentName, w.Key[:8], field, got, want)
		}
	}
	eq("model", e["model"], w.Model)
	eq("agent_name", e["agent_name"], w.AgentName)
	eq("source", e["source"], "otlp:"+w.AgentName)
	eq("billing", e["billing"], "api")
	eq("input_tokens", e["input_tokens"], w.InputTokens)
	eq("output_tokens", e["output_tokens"], w.OutputTokens)
	eq("cached_tokens", e["cached_tokens"], w.CachedTokens)
	eq("cache_write_tokens", e["cache_write_tokens"], w.CacheWriteTokens)
	eq("success", e["success"], w.Success)
	eq("latency_ms", orNil(e["latency_ms"]), opt(w.LatencyMS))
	eq("session_id", orNil(e["session_id"]), opt(w.SessionID))
	eq("user_id", orNil(e["user_id"]), opt(w.UserID))
	eq("cost_provided", e["cost_provided"], w.CostProvided)
	// PostgreSQL keeps microseconds; Codex sends nanoseconds.
	ts, err1 := time.Parse(time.RFC3339Nano, fmt.Sprint(e["timestamp"]))
	wts, err2 := time.Parse(time.RFC3339Nano, w.Timestamp)
	if d := ts.Sub(wts); err1 != nil || err2 != nil || d < -time.Microsecond || d > time.Microsecond {
		t.Errorf("%s %s: timestamp %v, want %s", w.AgentName, w.Key[:8], e["timestamp"], w.Timestamp)
	}
	cost := nanoOf(t, e["cost"])
	if w.CostProvided {
		eq("cost (the agent's)", cost, int64(*w.CostUSD*1e9+0.5))
		return
	}
	// Not sent: the catalogue's price, which must be known and non-zero
	// for a call that used tokens.
	if e["priced"] != true || cost != nanoOf(t, e["catalogue_cost"]) || (w.InputTokens+w.OutputTokens > 0) != (cost > 0) {
		t.Errorf("%s %s: cost %v catalogue %v priced %v", w.AgentName, w.Key[:8], e["cost"], e["catalogue_cost"], e["priced"])
	}
	if cat := pricing.Builtin(); e["price_version"] == cat.Version() {
		entry, _ := cat.Lookup(w.Model)
		price := entry.Price(pricing.Usage{Input: w.InputTokens, Output: w.OutputTokens,
			Cached: w.CachedTokens, CacheWrite: w.CacheWriteTokens})
		eq("cost (catalogue)", cost, price.Total)
	}
}

func nanoOf(t *testing.T, v any) int64 {
	t.Helper()
	n, err := pricing.ParseCostNano(fmt.Sprint(v))
	if err != nil {
		t.Fatalf("cost %v: %v", v, err)
	}
	return n
}

// orNil makes a JSON null and an absent value print alike.
func orNil(v any) any {
	if v == nil {
		return "<nil>"
	}
	return v
}

// opt prints an expected optional value the way orNil prints a listed one.
func opt[T any](p *T) any {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestOTLPFixturesBecomePricedEvents(t *testing.T) {
	s := start(t, nil)
	cases := append([]string{}, otlpFixtures...)
	cases = append(cases, "claude_code_session.json.gz")
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, key := s.account(t)
			body, want := readOTLPFixture(t, name), readExpected(t, name)
			headers := map[string]string{"Content-Type": "application/json"}
			if strings.HasSuffix(name, ".gz") {
				headers["Content-Encoding"] = "gzip"
			}
			checkReply(t, s.postOTLP(t, "/v1/otlp/v1/logs", key, body, headers), want)
			first := checkStored(t, s, key, want.Events)

			// An exporter's retry re-sends the export: same reply, nothing new.
			checkReply(t, s.postOTLP(t, "/v1/otlp/v1/logs", key, body, headers), want)
			if again := s.listed(t, key); !reflect.DeepEqual(again, first) {
				t.Fatalf("re-sending changed the stored events:\n%v\n%v", first, again)
			}
		})
	}
}

func TestOTLPRefusals(t *testing.T) {
	s := start(t, nil)
	_, _, key := s.account(t)
	body := readOTLPFixture(t, "claude_code_session.json")
	var big bytes.Buffer
	zw := gzip.NewWriter(&big)
	_, _ = zw.Write([]byte(`{"resourceLogs":[]` + strings.Repeat(" ", 6<<20) + `}`))
	_ = zw.Close()
	cases := []struct {
		name, path, key string
		body            []byte
		headers         map[string]string
		status          int
		code            string
	}{
		{"protobuf", "/v1/otlp/v1/logs", key, body, map[string]string{"Content-Type": "application/x-protobuf"}, 415, "unsupported_media_type"},
		{"brotli", "/v1/otlp/v1/logs", key, body, map[string]string{"Content-Type": "application/json", "Content-Encoding": "br"}, 415, "unsupported_media_type"},
		{"text", "/v1/otlp/v1/logs", key, body, map[string]string{"Content-Type": "text/plain"}, 415, "unsupported_media_type"},
		{"garbage", "/v1/otlp/v1/logs", key, []byte(`{"resourceLogs":[{`), jsonType, 400, "bad_request"},
		{"wrong shape", "/v1/otlp/v1/logs", key, []byte(`{"resourceLogs":"x"}`), jsonType, 400, "bad_request"},
		{"corrupt gzip", "/v1/otlp/v1/logs", key, []byte("not gzip"), map[string]string{"Content-Encoding": "gzip"}, 400, "bad_request"},
		{"too large", "/v1/otlp/v1/logs", key, big.Bytes(), map[string]string{"Content-Encoding": "gzip"}, 413, "payload_too_large"},
		{"no key", "/v1/otlp/v1/logs", "", body, jsonType, 401, "unauthorized"},
		{"no key, metrics", "/v1/otlp/v1/metrics", "", []byte(`{}`), jsonType, 401, "unauthorized"},
		{"bad key", "/v1/otlp/v1/logs", "sk_llmc_nope", body, jsonType, 401, ""},
		{"metrics", "/v1/otlp/v1/metrics", key, []byte(`{"resourceMetrics":[]}`), jsonType, 200, ""},
		{"traces", "/v1/otlp/v1/traces", key, []byte(`{"resourceSpans":[]}`), nil, 200, ""},
		{"empty export", "/v1/otlp/v1/logs", key, []byte(`{}`), nil, 200, ""},
		{"not an export", "/v1/otlp/v1/logs", key, []byte(`{"foo":1}`), jsonType, 400, "bad_request"},
		{"an array", "/v1/otlp/v1/logs", key, []byte(`[{"resourceLogs":[]}]`), jsonType, 400, "bad_request"},
		{"metrics not an export", "/v1/otlp/v1/metrics", key, []byte(`{"foo":1}`), jsonType, 400, "bad_request"},
		{"zstd", "/v1/otlp/v1/logs", key, []byte{0x28, 0xb5, 0x2f, 0xfd}, map[string]string{"Content-Type": "application/json", "Content-Encoding": "zstd"}, 415, "unsupported_media_type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.postOTLP(t, c.path, c.key, c.body, c.headers)
			if r.Status != c.status {
				t.Fatalf("status %d, want %d: %s", r.Status, c.status, r.Raw)
			}
			switch {
			case c.status == 200 && string(bytes.TrimSpace(r.Raw)) != "{}":
				t.Errorf("body %s, want {}", r.Raw)
			case c.code != "" && fmt.Sprint(r.Body["error"].(map[string]any)["code"]) != c.code:
				t.Errorf("error %s, want code %s", r.Raw, c.code)
			case c.name == "bad key" && r.Body["detail"] == nil:
				t.Errorf("invalid key body %s, want {detail}", r.Raw)
			}
		})
	}
	if n := len(s.listed(t, key)); n != 0 {
		t.Fatalf("refused and discarded requests stored %d events", n)
	}
}

func TestOTLPOutageAnswers503AndResendStoresOnce(t *testing.T) {
	s := start(t, nil)
	_, _, key := s.account(t)
	body := readOTLPFixture(t, "claude_code_session.json")
	pgtest.StopServer(t)
	restarted := false
	defer func() {
		if !restarted {
			pgtest.StartServer(t)
		}
	}()
	r := s.postOTLP(t, "/v1/otlp/v1/logs", key, body, jsonType)
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Fatalf("during the outage: status %d Retry-After %q: %s", r.Status, r.Header.Get("Retry-After"), r.Raw)
	}
	pgtest.StartServer(t)
	restarted = true
	deadline := time.Now().Add(30 * time.Second)
	for r = s.postOTLP(t, "/v1/otlp/v1/logs", key, body, jsonType); r.Status != 200 && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		r = s.postOTLP(t, "/v1/otlp/v1/logs", key, body, jsonType)
	}
	checkReply(t, r, readExpected(t, "claude_code_session.json"))
	s.postOTLP(t, "/v1/otlp/v1/logs", key, body, jsonType).must(t, http.StatusOK)
	checkStored(t, s, key, readExpected(t, "claude_code_session.json").Events)
}
