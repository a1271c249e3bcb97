package apiserver

import (
	"io"
	"testing"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/event"
)

// BenchmarkExportRowCSV is the cost of writing one calls-export row as
// CSV, the export's per-row work beside reading it.
func BenchmarkExportRowCSV(b *testing.B) {
	lat := int64(420)
	ev := event.Event{EventID: "0b6f0000-0000-0000-0000-000000000001", AgentName: "planner", Model: "claude-sonnet-4-5",
		InputTokens: 1200, OutputTokens: 300, TotalTokens: 1500, CostNano: 8_100_000, CatalogueCostNano: 8_100_000,
		Priced: true, Success: true, LatencyMS: &lat, Timestamp: time.Now(), TraceID: "t1", Workflow: "w",
		Metadata: []byte(`{"user_id":"u1","session_id":"s1"}`)}
	write, flush := callWriter(io.Discard, "csv")
	b.ReportAllocs()
	for b.Loop() {
		_ = write(wire.ExportCall{Event: newEventJSON(&ev), Cursor: exportCursor(ev.Timestamp, ev.EventID)})
	}
	_ = flush()
}
