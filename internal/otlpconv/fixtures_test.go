package otlpconv

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
)

// fixtureDir holds the OTLP fixtures (the repository's testdata), relative
// to this package.
const fixtureDir = "../../testdata/fixtures/otlp"

var fixtureNow = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// expectedFile mirrors the parts of X.expected.json the converter must match.
type expectedFile struct {
	Events    []expectedEvent `json:"events"`
	Discarded []struct {
		Record           string `json:"record"`
		CountsAsRejected bool   `json:"counts_as_rejected"`
	} `json:"discarded"`
}

type expectedEvent struct {
	SourceRecord        string   `json:"source_record"`
	AgentName           string   `json:"agent_name"`
	SourceEvent         string   `json:"source_event"`
	Model               string   `json:"model"`
	InputTokens         int64    `json:"input_tokens"`
	OutputTokens        int64    `json:"output_tokens"`
	CachedTokens        int64    `json:"cached_tokens"`
	CacheWriteTokens    int64    `json:"cache_write_tokens"`
	ReasoningTokensInfo *int64   `json:"reasoning_tokens_info"`
	CostProvided        bool     `json:"cost_provided"`
	CostUSD             *float64 `json:"cost_usd"`
	Success             bool     `json:"success"`
	ErrorStatus         *int64   `json:"error_status"`
	LatencyMS           *int64   `json:"latency_ms"`
	SessionID           *string  `json:"session_id"`
	UserID              *string  `json:"user_id"`
	UserEmail           *string  `json:"user_email"`
	Timestamp           string   `json:"timestamp"`
	TimestampUnixNano   string   `json:"timestamp_unix_nano"`
	Material            string   `json:"idempotency_material"`
	Key                 string   `json:"idempotency_key"`
}

var fixtures = []string{
	"claude_code_session.json",
	"codex_session.json",
	"gemini_cli_session.json",
	"genai_semconv.json",
	"mixed_and_malformed.json",
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatalf("fixture missing: %v", err)
	}
	return b
}

func convertBody(t *testing.T, body []byte) Result {
	t.Helper()
	ld, err := DecodeJSON(body)
	if err != nil {
		t.Fatalf("DecodeJSON: %v", err)
	}
	return Convert(ld, fixtureNow)
}

func TestFixtures(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			var want expectedFile
			expected := readFixture(t, name[:len(name)-len(".json")]+".expected.json")
			if err := json.Unmarshal(expected, &want); err != nil {
				t.Fatalf("expected file: %v", err)
			}
			got := convertBody(t, readFixture(t, name))
			checkCounts(t, got, want)
			if len(got.Events) != len(want.Events) {
				t.Fatalf("got %d events, want %d: %+v", len(got.Events), len(want.Events), paths(got))
			}
			for i, w := range want.Events {
				t.Run(w.SourceRecord, func(t *testing.T) { checkEvent(t, got.Events[i], w) })
			}
		})
	}
}

func paths(r Result) []string {
	var p []string
	for _, e := range r.Events {
		p = append(p, e.Path)
	}
	return p
}

func checkCounts(t *testing.T, got Result, want expectedFile) {
	t.Helper()
	var rejected []string
	discarded := 0
	for _, d := range want.Discarded {
		if d.CountsAsRejected {
			rejected = append(rejected, d.Record)
		} else {
			discarded++
		}
	}
	var gotRejected []string
	for _, r := range got.Rejected {
		if r.Reason == "" {
			t.Errorf("%s: empty rejection reason", r.Path)
		}
		gotRejected = append(gotRejected, r.Path)
	}
	if !reflect.DeepEqual(gotRejected, rejected) {
		t.Errorf("rejected %v (%+v), want %v", gotRejected, got.Rejected, rejected)
	}
	if got.Discarded != discarded {
		t.Errorf("discarded %d, want %d", got.Discarded, discarded)
	}
}

func checkEvent(t *testing.T, got Converted, w expectedEvent) {
	t.Helper()
	ev := got.Event
	eq := func(field string, g, w any) {
		t.Helper()
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s = %v, want %v", field, g, w)
		}
	}
	eq("path", got.Path, w.SourceRecord)
	eq("agent_name", ev.AgentName, w.AgentName)
	eq("source", ev.Source, "otlp:"+w.AgentName)
	eq("source_event", got.SourceEvent, w.SourceEvent)
	eq("model", ev.Model, w.Model)
	eq("input_tokens", ev.InputTokens, w.InputTokens)
	eq("output_tokens", ev.OutputTokens, w.OutputTokens)
	eq("cached_tokens", ev.CachedTokens, w.CachedTokens)
	eq("cache_write_tokens", ev.CacheWriteTokens, w.CacheWriteTokens)
	eq("total_tokens", ev.TotalTokens, w.InputTokens+w.OutputTokens)
	if w.ReasoningTokensInfo != nil {
		eq("reasoning_tokens_info", ev.ReasoningTokens, *w.ReasoningTokensInfo)
	}
	eq("cost_provided", ev.CostProvided, w.CostProvided)
	var wantNano int64
	if w.CostUSD != nil {
		wantNano = int64(math.Round(*w.CostUSD * 1e9))
	}
	eq("cost_nano", ev.CostNano, wantNano)
	eq("success", ev.Success, w.Success)
	eq("error_status", deref(got.ErrorStatus), deref(w.ErrorStatus))
	eq("latency_ms", deref(ev.LatencyMS), deref(w.LatencyMS))
	eq("session_id", ev.SessionID, str(w.SessionID))
	eq("user_id", ev.UserID, str(w.UserID))
	eq("user_email", got.UserEmail, str(w.UserEmail))
	eq("timestamp", ev.Timestamp.Format(time.RFC3339Nano), w.Timestamp)
	eq("timestamp_unix_nano", itoa(ev.Timestamp.UnixNano()), w.TimestampUnixNano)
	eq("idempotency_material", got.IdempotencyMaterial, w.Material)
	eq("idempotency_key", ev.EventID, w.Key)
	eq("billing", ev.Billing, "api")
	if bytes.Contains(ev.Metadata, []byte("@")) {
		t.Errorf("metadata leaks an e-mail: %s", ev.Metadata)
	}
}

// deref turns an optional number into a comparable value; nil stays nil.
func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func TestGzipFixtureMatches(t *testing.T) {
	zr, err := gzip.NewReader(bytes.NewReader(readFixture(t, "claude_code_session.json.gz")))
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	got := convertBody(t, body)
	want := convertBody(t, readFixture(t, "claude_code_session.json"))
	if len(got.Events) != 4 || !reflect.DeepEqual(got, want) {
		t.Fatalf("gzipped fixture differs:\n got %+v\nwant %+v", got, want)
	}
}

func TestConvertIsStable(t *testing.T) {
	for _, name := range fixtures {
		body := readFixture(t, name)
		first := convertBody(t, body)
		second := Convert(mustDecode(t, body), fixtureNow.Add(time.Hour))
		if !reflect.DeepEqual(keys(first), keys(second)) {
			t.Errorf("%s: keys differ between runs: %v vs %v", name, keys(first), keys(second))
		}
	}
}

func mustDecode(t *testing.T, body []byte) plog.Logs {
	t.Helper()
	ld, err := DecodeJSON(body)
	if err != nil {
		t.Fatalf("DecodeJSON: %v", err)
	}
	return ld
}

func keys(r Result) []string {
	var k []string
	for _, e := range r.Events {
		k = append(k, e.Event.EventID)
	}
	return k
}

func TestKeysAreUniqueAcrossFixtures(t *testing.T) {
	seen := map[string]string{}
	for _, name := range fixtures {
		for _, e := range convertBody(t, readFixture(t, name)).Events {
			if prev, ok := seen[e.Event.EventID]; ok {
				t.Errorf("key of %s %s repeats %s", name, e.Path, prev)
			}
			seen[e.Event.EventID] = name + " " + e.Path
		}
	}
}

func TestDecodeJSONRejectsGarbage(t *testing.T) {
	if _, err := DecodeJSON([]byte(`{"resourceLogs":[{`)); err == nil {
		t.Fatal("want an error for truncated JSON")
	}
}
