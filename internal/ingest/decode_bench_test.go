package ingest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// BenchmarkDecodeBatch decodes and validates a 1,000-event batch shaped
// like make bench's (BenchmarkIngestVsCopy in test/e2e): the receiver's
// share of a batch's CPU before the pipeline.
func BenchmarkDecodeBatch(b *testing.B) {
	events := make([]map[string]any, 1000)
	ts := now.Add(-time.Hour).Format(time.RFC3339Nano)
	for j := range events {
		events[j] = map[string]any{
			"event_id": fmt.Sprintf("b0000-%04d", j), "agent_name": fmt.Sprintf("agent-%d", j%7),
			"model": "claude-sonnet-4-5", "input_tokens": 1200 + j, "output_tokens": 300,
			"cached_tokens": 800, "latency_ms": 900, "timestamp": ts, "tool_name": "search",
			"trace_id": fmt.Sprintf("trace-0-%d", j/10), "workflow": "wf", "step_name": "plan",
			"metadata": map[string]any{"user_id": "u1", "session_id": "s1"},
		}
	}
	body, err := json.Marshal(map[string]any{"events": events})
	if err != nil {
		b.Fatal(err)
	}
	v := &Validator{Now: func() time.Time { return now }}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		batch, err := DecodeBatch(body, project, DefaultLimits, v)
		if err != nil || len(batch.Events) != 1000 {
			b.Fatalf("%d events (%v): %+v", len(batch.Events), err, batch.Rejections)
		}
	}
}
