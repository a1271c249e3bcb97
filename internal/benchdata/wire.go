package benchdata

import (
	"encoding/json"
	"time"

	"github.com/llmcost/llmcost/internal/event"
)

// wireEvent is one event of a /v1/events/batch body, as a client sends it:
// no cost, so the server prices it.
type wireEvent struct {
	EventID            string          `json:"event_id"`
	AgentName          string          `json:"agent_name"`
	Model              string          `json:"model"`
	InputTokens        int64           `json:"input_tokens"`
	OutputTokens       int64           `json:"output_tokens"`
	CachedTokens       int64           `json:"cached_tokens,omitempty"`
	CacheWriteTokens   int64           `json:"cache_write_tokens,omitempty"`
	CacheWrite1hTokens int64           `json:"cache_write_1h_tokens,omitempty"`
	LatencyMS          *int64          `json:"latency_ms,omitempty"`
	Success            bool            `json:"success"`
	Error              string          `json:"error,omitempty"`
	Streaming          *bool           `json:"streaming,omitempty"`
	Timestamp          string          `json:"timestamp"`
	TraceID            string          `json:"trace_id,omitempty"`
	SpanID             string          `json:"span_id,omitempty"`
	ParentSpanID       string          `json:"parent_span_id,omitempty"`
	Workflow           string          `json:"workflow,omitempty"`
	StepName           string          `json:"step_name,omitempty"`
	ToolName           string          `json:"tool_name,omitempty"`
	Metadata           json.RawMessage `json:"metadata,omitempty"`
}

type wireOutcome struct {
	TraceID string `json:"trace_id"`
	Success bool   `json:"success"`
	Label   string `json:"label,omitempty"`
}

// BatchBody renders events and outcomes as a /v1/events/batch request body.
// Ingest turns each event back into the same event.Event, priced alike.
func BatchBody(events []event.Event, outcomes []Outcome) ([]byte, error) {
	body := struct {
		Events   []wireEvent   `json:"events"`
		Outcomes []wireOutcome `json:"outcomes,omitempty"`
	}{Events: make([]wireEvent, len(events))}
	for i := range events {
		body.Events[i] = toWire(&events[i])
	}
	for _, o := range outcomes {
		body.Outcomes = append(body.Outcomes, wireOutcome{TraceID: o.TraceID, Success: o.Success, Label: o.Label})
	}
	return json.Marshal(body)
}

func toWire(ev *event.Event) wireEvent {
	return wireEvent{EventID: ev.EventID, AgentName: ev.AgentName, Model: ev.Model, InputTokens: ev.InputTokens,
		OutputTokens: ev.OutputTokens, CachedTokens: ev.CachedTokens, CacheWriteTokens: ev.CacheWriteTokens,
		CacheWrite1hTokens: ev.CacheWrite1hTokens, LatencyMS: ev.LatencyMS, Success: ev.Success, Error: ev.Error,
		Streaming: ev.Streaming, Timestamp: ev.Timestamp.UTC().Format(time.RFC3339Nano), TraceID: ev.TraceID,
		SpanID: ev.SpanID, ParentSpanID: ev.ParentSpanID, Workflow: ev.Workflow, StepName: ev.StepName,
		ToolName: ev.ToolName, Metadata: ev.Metadata}
}
