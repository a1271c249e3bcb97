package semconv

import (
	"reflect"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/llmcost/llmcost/internal/event"
)

func TestEventRoundTrip(t *testing.T) {
	ms := int64(812)
	in := event.Event{
		ProjectID: "p", EventID: "e", AgentName: "a", Model: "m", InputTokens: 10, OutputTokens: 5,
		CachedTokens: 3, CacheWriteTokens: 2, CacheWrite1hTokens: 1, TotalTokens: 15, ReasoningTokens: 1, CostNano: 123,
		CostProvided: true, CatalogueCostNano: 99, Priced: true, PriceVersion: "v", LatencyMS: &ms,
		Success: true, Error: "x", Streaming: true, Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
		TraceID: "t", SpanID: "s", ParentSpanID: "ps", Workflow: "w", StepName: "st", ToolName: "tl", RequestHash: "rh",
		UserID: "u", SessionID: "se", Billing: "subscription", Source: "batch", Metadata: []byte(`{"k":1}`),
	}
	lr := plog.NewLogRecord()
	PutEvent(lr, &in)
	if !IsCall(lr) || IsOutcome(lr) {
		t.Fatal("kind not recorded")
	}
	out, err := GetEvent(lr)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip changed the event:\n in %+v\nout %+v", in, out)
	}
}

func TestGetEventRefusesForeignRecords(t *testing.T) {
	lr := plog.NewLogRecord()
	lr.Attributes().PutStr(Kind, KindCall)
	if _, err := GetEvent(lr); err == nil {
		t.Fatal("a record without project, id, agent and model was read")
	}
}

func TestOutcomeRoundTrip(t *testing.T) {
	lr := plog.NewLogRecord()
	PutOutcome(lr, Outcome{ProjectID: "p", TraceID: "t", Success: true, Label: "merged"})
	if got := GetOutcome(lr); !IsOutcome(lr) || got != (Outcome{ProjectID: "p", TraceID: "t", Success: true, Label: "merged"}) {
		t.Fatalf("%+v", got)
	}
}
