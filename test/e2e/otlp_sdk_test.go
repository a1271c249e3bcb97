package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

var (
	sdkTrace = pcommon.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	sdkSpan  = pcommon.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}
)

// sdkExport builds what OpenTelemetry SDKs' OTLP log exporters send: Claude
// Code (JS: typed ints and doubles, a double cost), a GenAI semantic-
// convention producer with trace context, and Codex (Rust: counts as
// Display strings beside i64s, time 0, a callsite eventName).
func sdkExport(at time.Time) plog.Logs {
	ld := plog.NewLogs()
	scope := func(service, name string, resource ...string) plog.LogRecordSlice {
		rl := ld.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", service)
		for i := 0; i+1 < len(resource); i += 2 {
			rl.Resource().Attributes().PutStr(resource[i], resource[i+1])
		}
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName(name)
		return sl.LogRecords()
	}
	lr := scope("claude-code", "com.anthropic.claude_code.events").AppendEmpty()
	lr.SetTimestamp(pcommon.NewTimestampFromTime(at))
	lr.SetTraceID(sdkTrace)
	lr.SetSpanID(sdkSpan)
	lr.Body().SetStr("claude_code.api_request")
	a := lr.Attributes()
	a.PutStr("event.name", "api_request")
	a.PutStr("event.timestamp", at.Format(time.RFC3339Nano))
	a.PutInt("event.sequence", 3)
	a.PutStr("request_id", "req_sdk_0001")
	a.PutStr("session.id", "sess-sdk")
	a.PutStr("model", "claude-sonnet-4-5-20250929")
	a.PutInt("input_tokens", 6)
	a.PutInt("output_tokens", 958)
	a.PutInt("cache_read_tokens", 18452)
	a.PutDouble("cache_creation_tokens", 1287)
	a.PutDouble("cost_usd", 0.02474985)
	a.PutInt("duration_ms", 8512)

	// An operator's resource attributes: a flat plan, and a chosen name.
	lr = scope("my-agent", "my.agent", "llmcost.billing", "subscription", "llmcost.agent_name", "team-bot").AppendEmpty()
	lr.SetTimestamp(pcommon.NewTimestampFromTime(at.Add(time.Second)))
	lr.SetTraceID(sdkTrace)
	lr.SetEventName("gen_ai.client.inference.operation.details")
	a = lr.Attributes()
	a.PutStr("gen_ai.response.model", "gpt-4o")
	a.PutStr("gen_ai.response.id", "chatcmpl-sdk-1")
	a.PutStr("gen_ai.conversation.id", "conv-sdk")
	a.PutInt("gen_ai.usage.input_tokens", 1200)
	a.PutInt("gen_ai.usage.output_tokens", 300)
	a.PutInt("gen_ai.usage.cache_read.input_tokens", 200)

	lr = scope("codex_cli_rs", "codex_otel.log_only").AppendEmpty()
	lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(at.Add(2 * time.Second)))
	lr.SetEventName("event codex-rs/otel/src/events/session_telemetry.rs:1012")
	a = lr.Attributes()
	a.PutStr("event.name", "codex.sse_event")
	a.PutStr("event.kind", "response.completed")
	a.PutStr("event.timestamp", at.Add(2*time.Second).Format(time.RFC3339Nano))
	a.PutStr("conversation.id", "conv-codex-sdk")
	a.PutStr("model", "gpt-5.1-codex")
	a.PutStr("input_token_count", "3000")
	a.PutStr("output_token_count", "150")
	a.PutInt("cached_token_count", 2048)
	a.PutInt("reasoning_token_count", 64)
	return ld
}

// intString matches an intValue written as a decimal string.
var intString = regexp.MustCompile(`"intValue":"(-?\d+)"`)

func TestOTLPAcceptsWhatSDKExportersSend(t *testing.T) {
	s := start(t, nil)
	at := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
	collectorJSON, err := (&plog.JSONMarshaler{}).MarshalLogs(sdkExport(at))
	if err != nil {
		t.Fatal(err)
	}
	// pdata writes intValue as a string, as Rust and the Collector do; the
	// JS exporter writes it as a JSON number.
	jsJSON := intString.ReplaceAll(collectorJSON, []byte(`"intValue":$1`))
	hexIDs := fmt.Sprintf(`"traceId":"%s"`, sdkTrace)
	if !regexp.MustCompile(`"intValue":6[,}]`).Match(jsJSON) || !regexp.MustCompile(hexIDs).Match(collectorJSON) {
		t.Fatalf("the bodies do not have the SDK encodings:\n%s", jsJSON)
	}

	_, _, keyRust := s.account(t)
	_, _, keyJS := s.account(t)
	for _, r := range []response{
		s.postOTLP(t, "/v1/otlp/v1/logs", keyRust, collectorJSON, nil),
		s.postOTLP(t, "/v1/otlp/v1/logs", keyJS, jsJSON, map[string]string{"Content-Type": "application/json; charset=utf-8"}),
	} {
		if r.Status != http.StatusOK || string(r.Raw) != "{}\n" {
			t.Fatalf("reply %d %q, want 200 {}", r.Status, r.Raw)
		}
	}
	rust, js := s.listed(t, keyRust), s.listed(t, keyJS)
	if len(rust) != 3 || !reflect.DeepEqual(rust, js) {
		t.Fatalf("the encodings stored different events:\n%v\n%v", rust, js)
	}
	byAgent := map[string]map[string]any{}
	for _, e := range rust {
		byAgent[fmt.Sprint(e["agent_name"])] = e
	}
	want := map[string]map[string]string{
		"claude-code": {"input_tokens": "19745", "cached_tokens": "18452", "cache_write_tokens": "1287",
			"output_tokens": "958", "cost": "0.02474985", "cost_provided": "true", "latency_ms": "8512",
			"trace_id": sdkTrace.String(), "span_id": sdkSpan.String(), "timestamp": at.Format(time.RFC3339Nano)},
		"team-bot": {"input_tokens": "1200", "cached_tokens": "200", "output_tokens": "300", "priced": "true",
			"trace_id": sdkTrace.String(), "session_id": "conv-sdk", "source": "otlp:my-agent",
			"billing": "subscription", "flat_plan": "true"},
		"codex": {"billing": "api", "input_tokens": "3000", "cached_tokens": "2048", "output_tokens": "150", "reasoning_tokens": "64",
			"timestamp": at.Add(2 * time.Second).Format(time.RFC3339Nano), "session_id": "conv-codex-sdk"},
	}
	for agent, fields := range want {
		for k, v := range fields {
			if got := fmt.Sprint(byAgent[agent][k]); got != v {
				t.Errorf("%s %s = %s, want %s", agent, k, got, v)
			}
		}
	}
}

// The same calls sent once as agent logs and once as a batch (into another
// project) cost and count the same.
func TestOTLPAndBatchGiveTheSameTotals(t *testing.T) {
	s := start(t, nil)
	_, _, otlpKey := s.account(t)
	_, batchProject, batchKey := s.account(t)
	var events []any
	for _, name := range otlpFixtures[:4] {
		s.postOTLP(t, "/v1/otlp/v1/logs", otlpKey, readOTLPFixture(t, name), jsonType).must(t, http.StatusOK)
		for _, w := range readExpected(t, name).Events {
			e := map[string]any{"event_id": w.Key, "agent_name": w.AgentName, "model": w.Model,
				"input_tokens": w.InputTokens, "output_tokens": w.OutputTokens, "cached_tokens": w.CachedTokens,
				"cache_write_tokens": w.CacheWriteTokens, "success": w.Success, "timestamp": w.Timestamp}
			if w.CostProvided {
				e["cost"] = json.Number(fmt.Sprint(*w.CostUSD))
			}
			events = append(events, e)
		}
	}
	r := s.call(t, "POST", "/v1/events/batch", batchKey, map[string]any{"project_id": batchProject, "events": events}).
		must(t, http.StatusOK)
	if r.Body["status"] != "ok" {
		t.Fatalf("batch %s", r.Raw)
	}
	viaOTLP, viaBatch := s.listed(t, otlpKey), s.listed(t, batchKey)
	sum := func(events map[string]map[string]any) map[string]int64 {
		out := map[string]int64{"events": int64(len(events))}
		for _, e := range events {
			out["cost_nano"] += nanoOf(t, e["cost"])
			for _, k := range []string{"input_tokens", "output_tokens", "cached_tokens", "cache_write_tokens", "total_tokens"} {
				out[k] += int64(num(t, e[k]))
			}
		}
		return out
	}
	got, want := sum(viaOTLP), sum(viaBatch)
	if !reflect.DeepEqual(got, want) || got["events"] != 16 || got["cost_nano"] == 0 {
		t.Fatalf("totals via OTLP %v, via batch %v", got, want)
	}
	for id, e := range viaOTLP {
		if b := viaBatch[id]; b == nil || fmt.Sprint(b["cost"]) != fmt.Sprint(e["cost"]) {
			t.Errorf("event %s: cost %v via OTLP, %v via batch", id, e["cost"], b["cost"])
		}
	}
}
