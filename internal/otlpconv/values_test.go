package otlpconv

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

var testNow = time.Date(2026, 7, 14, 12, 0, 0, 0, time.UTC)

// batch builds a one-resource, one-scope batch and returns a function
// adding records to it.
func batch(service, scope string) (plog.Logs, func() plog.LogRecord) {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", service)
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName(scope)
	return ld, func() plog.LogRecord {
		lr := sl.LogRecords().AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(testNow))
		return lr
	}
}

func only(t *testing.T, r Result) Converted {
	t.Helper()
	if len(r.Events) != 1 || len(r.Rejected) != 0 {
		t.Fatalf("want exactly one event, got %+v", r)
	}
	return r.Events[0]
}

// apiRequest adds a Claude Code api_request record of claude-sonnet-4-5
// with 6 input and 958 output tokens and returns its attributes.
func apiRequest(add func() plog.LogRecord) pcommon.Map {
	lr := add()
	lr.Body().SetStr("claude_code.api_request")
	a := lr.Attributes()
	a.PutStr("event.name", "api_request")
	a.PutStr("model", "claude-sonnet-4-5")
	a.PutInt("input_tokens", 6)
	a.PutInt("output_tokens", 958)
	return a
}

// TestJSSDKEncodings mirrors the OTel JS SDK (Claude Desktop): intValue as a
// JSON number, the cost as doubleValue.
func TestJSSDKEncodings(t *testing.T) {
	ld, add := batch("claude-code", claudeScope)
	a := apiRequest(add)
	a.PutInt("cache_read_tokens", 18452)
	a.PutDouble("cache_creation_tokens", 1287.0)
	a.PutDouble("cost_usd", 0.02474985)
	a.PutInt("duration_ms", 8512)
	a.PutInt("event.sequence", 5)
	a.PutStr("session.id", "s1")
	a.PutStr("event.timestamp", "2026-07-14T12:00:00.000Z")
	ev := only(t, Convert(ld, testNow)).Event
	if ev.InputTokens != 19745 || ev.CachedTokens != 18452 || ev.CacheWriteTokens != 1287 || ev.OutputTokens != 958 {
		t.Errorf("tokens %+v", ev)
	}
	if !ev.CostProvided || ev.CostNano != 24749850 {
		t.Errorf("cost %d provided=%v", ev.CostNano, ev.CostProvided)
	}
	if ev.LatencyMS == nil || *ev.LatencyMS != 8512 {
		t.Errorf("latency %v", ev.LatencyMS)
	}
}

// TestRustSDKEncodings mirrors Codex: Display-formatted strings next to
// i64 intValues, timeUnixNano 0 and a callsite eventName.
func TestRustSDKEncodings(t *testing.T) {
	ld, add := batch("codex_exec", "codex_otel.log_only")
	lr := add()
	lr.SetTimestamp(0)
	lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(testNow.Add(time.Second)))
	lr.SetEventName("event codex-rs/otel/src/events/session_telemetry.rs:1012")
	a := lr.Attributes()
	a.PutStr("event.name", "codex.sse_event")
	a.PutStr("event.kind", "response.completed")
	a.PutStr("input_token_count", "3000")
	a.PutStr("output_token_count", "150")
	a.PutInt("cached_token_count", 2048)
	a.PutInt("reasoning_token_count", 64)
	a.PutStr("tool_token_count", "3150")
	a.PutStr("model", "gpt-5.1-codex")
	a.PutStr("conversation.id", "c1")
	a.PutStr("user.email", "lee@example.com")
	got := only(t, Convert(ld, testNow))
	ev := got.Event
	if ev.InputTokens != 3000 || ev.OutputTokens != 150 || ev.CachedTokens != 2048 || ev.ReasoningTokens != 64 {
		t.Errorf("tokens %+v", ev)
	}
	if ev.UserID != "lee@example.com" || !ev.Timestamp.Equal(testNow.Add(time.Second)) || ev.LatencyMS != nil {
		t.Errorf("user %q ts %v latency %v", ev.UserID, ev.Timestamp, ev.LatencyMS)
	}
	if got.SourceEvent != "codex.sse_event" || ev.Source != "otlp:codex" {
		t.Errorf("source %q %q", got.SourceEvent, ev.Source)
	}
}

// TestIntValueJSONForms checks that intValue written as a number (JS) and as
// a string (Rust, Collector) decode and convert identically.
func TestIntValueJSONForms(t *testing.T) {
	body := func(v string) []byte {
		return []byte(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"acme"}}]},
		"scopeLogs":[{"logRecords":[{"timeUnixNano":"1784031041902000000","eventName":"` + semconvEvent + `",
		"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7",
		"attributes":[{"key":"gen_ai.request.model","value":{"stringValue":"m"}},
		{"key":"gen_ai.usage.input_tokens","value":{"intValue":` + v + `}},
		{"key":"gen_ai.usage.output_tokens","value":{"doubleValue":7.0}}]}]}]}]}`)
	}
	num := convertBody(t, body("12"))
	str := convertBody(t, body(`"12"`))
	a, b := only(t, num).Event, only(t, str).Event
	if a.InputTokens != 12 || a.OutputTokens != 7 || a.EventID != b.EventID || b.InputTokens != 12 {
		t.Errorf("number form %+v, string form %+v", a, b)
	}
	if a.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || a.SpanID != "00f067aa0ba902b7" {
		t.Errorf("trace %q span %q", a.TraceID, a.SpanID)
	}
	if !strings.HasSuffix(only(t, num).IdempotencyMaterial, "|trace:4bf92f3577b34da6a3ce929d0e0e4736|span:00f067aa0ba902b7") {
		t.Errorf("material %q", only(t, num).IdempotencyMaterial)
	}
}

func TestRejectionReasons(t *testing.T) {
	cases := []struct {
		name string
		val  func(pcommon.Map)
		want string
	}{
		{"negative", func(m pcommon.Map) { m.PutInt("gen_ai.usage.input_tokens", -1) }, "negative token count (gen_ai.usage.input_tokens=-1)"},
		{"text", func(m pcommon.Map) { m.PutStr("gen_ai.usage.input_tokens", "abc") }, `non-numeric token count (gen_ai.usage.input_tokens="abc")`},
		{"fraction", func(m pcommon.Map) { m.PutDouble("gen_ai.usage.input_tokens", 12.5) }, "non-integer token count (gen_ai.usage.input_tokens=12.5)"},
		{"nan string", func(m pcommon.Map) { m.PutStr("gen_ai.usage.input_tokens", "NaN") }, `non-numeric token count (gen_ai.usage.input_tokens="NaN")`},
		{"no model", func(m pcommon.Map) { m.Remove("gen_ai.request.model") }, "missing or empty model"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ld, add := batch("acme", "acme")
			for range 2 {
				lr := add()
				lr.SetEventName(semconvEvent)
				lr.Attributes().PutStr("gen_ai.request.model", "m")
				lr.Attributes().PutInt("gen_ai.usage.output_tokens", 1)
			}
			c.val(ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Attributes())
			got := Convert(ld, testNow)
			if len(got.Rejected) != 1 || got.Rejected[0].Reason != c.want || len(got.Events) != 1 {
				t.Fatalf("got %+v, want one rejection %q beside one event", got, c.want)
			}
			if got.Rejected[0].Path != "resourceLogs[0].scopeLogs[0].logRecords[0]" {
				t.Errorf("path %q", got.Rejected[0].Path)
			}
		})
	}
}

func TestCostParsing(t *testing.T) {
	cases := []struct {
		in   string
		nano int64
		ok   bool
	}{
		{"0.075411", 75411000, true},
		{"1.2e-3", 1200000, true},
		{"1.5E-9", 2, true}, // half up
		{"1.4e-9", 1, true},
		{"3", 3000000000, true},
		{".5", 500000000, true},
		{"-0.01", 0, false},
		{"abc", 0, false},
		{"NaN", 0, false},
		{"Infinity", 0, false},
		{"1e999999", 0, false},
		{"1e100", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		nano, ok := decimalToNano(c.in)
		if nano != c.nano || ok != c.ok {
			t.Errorf("decimalToNano(%q) = %d,%v want %d,%v", c.in, nano, ok, c.nano, c.ok)
		}
	}
}

// TestBadCostKeepsEvent: an unusable cost is dropped, not a rejection.
func TestBadCostKeepsEvent(t *testing.T) {
	for _, set := range []func(pcommon.Map){
		func(m pcommon.Map) { m.PutStr("cost_usd", "-1") },
		func(m pcommon.Map) { m.PutStr("cost_usd", "undefined") },
		func(m pcommon.Map) { m.PutEmptyMap("cost_usd") },
	} {
		ld, add := batch("claude-code", claudeScope)
		lr := add()
		lr.Attributes().PutStr("event.name", "api_request") // bare, no body
		lr.Attributes().PutStr("model", "claude-haiku-4-5")
		lr.Attributes().PutStr("input_tokens", "3")
		set(lr.Attributes())
		ev := only(t, Convert(ld, testNow)).Event
		if ev.CostProvided || ev.CostNano != 0 || ev.InputTokens != 3 {
			t.Errorf("cost kept: %+v", ev)
		}
	}
}

// TestOverridesAndPrivacy covers the llmcost.* resource attributes, the
// metadata allow-list and the timestamp fallbacks.
func TestOverridesAndPrivacy(t *testing.T) {
	ld, add := batch("my-renamed-service", "some.scope")
	res := ld.ResourceLogs().At(0).Resource().Attributes()
	res.PutStr("llmcost.agent_name", "team-gemini")
	res.PutStr("llmcost.billing", "subscription")
	res.PutStr("team.id", "platform")
	res.PutStr("user.email", "sam@example.com")
	lr := add()
	lr.SetTimestamp(0)
	a := lr.Attributes()
	a.PutStr("event.name", "gemini_cli.api_response")
	a.PutStr("event.timestamp", "2026-07-14T11:30:18.823Z")
	a.PutStr("model", "gemini-2.5-pro")
	a.PutInt("input_token_count", 10)
	a.PutStr("prompt", "secret prompt")
	a.PutStr("terminal.type", "vscode")
	got := only(t, Convert(ld, testNow))
	ev := got.Event
	if ev.AgentName != "team-gemini" || ev.Source != "otlp:gemini-cli" || ev.Billing != "subscription" {
		t.Errorf("agent %q source %q billing %q", ev.AgentName, ev.Source, ev.Billing)
	}
	if got.UserEmail != "sam@example.com" || ev.UserID != "sam@example.com" {
		t.Errorf("email %q user %q", got.UserEmail, ev.UserID)
	}
	var meta map[string]string
	if err := json.Unmarshal(ev.Metadata, &meta); err != nil {
		t.Fatalf("metadata %s: %v", ev.Metadata, err)
	}
	if len(meta) != 2 || meta["team.id"] != "platform" || meta["terminal.type"] != "vscode" {
		t.Errorf("metadata %s", ev.Metadata)
	}
	if want := time.Date(2026, 7, 14, 11, 30, 18, 823e6, time.UTC); !ev.Timestamp.Equal(want) {
		t.Errorf("timestamp %v, want event.timestamp %v", ev.Timestamp, want)
	}
	lr.Attributes().Remove("event.timestamp")
	if ev := only(t, Convert(ld, testNow)).Event; !ev.Timestamp.Equal(testNow) {
		t.Errorf("timestamp %v, want now", ev.Timestamp)
	}
}

// TestTraps checks records that look billable but must be discarded.
func TestTraps(t *testing.T) {
	ld, add := batch("qwen-code", "qwen-code")
	twin := add() // Qwen's GenAI copy of its own api_response
	twin.SetEventName(semconvEvent)
	twin.Attributes().PutStr("gen_ai.request.model", "qwen3-coder")
	twin.Attributes().PutInt("gen_ai.usage.input_tokens", 5)
	models := add() // a failed Codex request to /models is not a model call
	models.Attributes().PutStr("event.name", "codex.api_request")
	models.Attributes().PutInt("http.response.status_code", 500)
	models.Attributes().PutStr("endpoint", "/models")
	models.Attributes().PutStr("model", "gpt-5")
	bare := add() // a bare name outside Claude Code is unknown
	bare.Attributes().PutStr("event.name", "api_request")
	bare.Attributes().PutStr("model", "m")
	qwen := add()
	qwen.Attributes().PutStr("event.name", "qwen-code.api_response")
	qwen.Attributes().PutStr("model", "qwen3-coder")
	qwen.Attributes().PutInt("input_token_count", 5)
	got := Convert(ld, testNow)
	if len(got.Events) != 1 || got.Discarded != 3 || got.Events[0].Event.AgentName != "qwen-code" {
		t.Fatalf("got %+v", got)
	}
}

func TestSemconvExcludedCacheHeuristic(t *testing.T) {
	ld, add := batch("anthropic-wrapper", "x")
	lr := add()
	lr.SetEventName(semconvEvent)
	a := lr.Attributes()
	a.PutStr("gen_ai.response.model", "claude-sonnet-4-5")
	a.PutInt("gen_ai.usage.input_tokens", 6)
	a.PutInt("gen_ai.usage.cache_read.input_tokens", 18452)
	a.PutInt("gen_ai.usage.cache_creation.input_tokens", 1287)
	a.PutInt("gen_ai.usage.output_tokens", 958)
	if ev := only(t, Convert(ld, testNow)).Event; ev.InputTokens != 19745 || ev.TotalTokens != 20703 {
		t.Errorf("input %d total %d", ev.InputTokens, ev.TotalTokens)
	}
}
