package apiserver

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

// eventListJSON is GET /v1/events: one page, newest first.
type eventListJSON struct {
	Events  []eventJSON `json:"events"`
	Limit   int         `json:"limit"`
	Offset  int         `json:"offset"`
	HasMore bool        `json:"has_more"`
}

// listEvents is GET /v1/events: newest first, paged by limit and offset,
// optionally of one agent.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := intParam(q.Get("limit"), "limit", 100, 1, s.MaxListLimit)
	if err != nil {
		return err
	}
	offset, err := intParam(q.Get("offset"), "offset", 0, 0, 1_000_000)
	if err != nil {
		return err
	}
	events, more, err := s.DB.ListEvents(r.Context(), postgres.EventFilter{
		ProjectID: callerOf(r).ProjectID, AgentName: q.Get("agent_name"), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	out := make([]eventJSON, len(events))
	for i := range events {
		out[i] = newEventJSON(&events[i])
	}
	return ok(w, http.StatusOK, eventListJSON{Events: out, Limit: limit, Offset: offset, HasMore: more})
}

// intParam reads an optional integer query parameter within [lo, hi].
func intParam(s, name string, def, lo, hi int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, apierr.Field(name, "must be an integer from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi))
	}
	return n, nil
}

// eventJSON is the listed form of an event: the ingest fields plus how it
// was priced. Empty optional strings are null.
type eventJSON struct {
	EventID            string          `json:"event_id"`
	AgentName          string          `json:"agent_name"`
	Model              string          `json:"model"`
	InputTokens        int64           `json:"input_tokens"`
	OutputTokens       int64           `json:"output_tokens"`
	CachedTokens       int64           `json:"cached_tokens"`
	CacheWriteTokens   int64           `json:"cache_write_tokens"`
	CacheWrite1hTokens int64           `json:"cache_write_1h_tokens"`
	TotalTokens        int64           `json:"total_tokens"`
	ReasoningTokens    int64           `json:"reasoning_tokens"`
	Cost               json.Number     `json:"cost"`
	CostProvided       bool            `json:"cost_provided"`
	CatalogueCost      *json.Number    `json:"catalogue_cost"`
	Priced             bool            `json:"priced"`
	PriceVersion       *string         `json:"price_version"`
	LatencyMS          *int64          `json:"latency_ms"`
	Success            bool            `json:"success"`
	Error              *string         `json:"error"`
	Streaming          *bool           `json:"streaming"` // null: the producer did not say
	Timestamp          string          `json:"timestamp"`
	TraceID            *string         `json:"trace_id"`
	SpanID             *string         `json:"span_id"`
	ParentSpanID       *string         `json:"parent_span_id"`
	Workflow           *string         `json:"workflow"`
	StepName           *string         `json:"step_name"`
	ToolName           *string         `json:"tool_name"`
	UserID             *string         `json:"user_id"`
	SessionID          *string         `json:"session_id"`
	Billing            string          `json:"billing"`
	FlatPlan           bool            `json:"flat_plan"`
	Source             string          `json:"source"`
	Metadata           json.RawMessage `json:"metadata"`
}

func newEventJSON(ev *event.Event) eventJSON {
	out := eventJSON{
		EventID: ev.EventID, AgentName: ev.AgentName, Model: ev.Model,
		InputTokens: ev.InputTokens, OutputTokens: ev.OutputTokens, CachedTokens: ev.CachedTokens,
		CacheWriteTokens: ev.CacheWriteTokens, CacheWrite1hTokens: ev.CacheWrite1hTokens,
		TotalTokens: ev.TotalTokens, ReasoningTokens: ev.ReasoningTokens,
		Cost: usdNumber(ev.CostNano), CostProvided: ev.CostProvided, Priced: ev.Priced,
		PriceVersion: optText(ev.PriceVersion), LatencyMS: ev.LatencyMS, Success: ev.Success,
		Error: optText(ev.Error), Streaming: ev.Streaming, Timestamp: ts(ev.Timestamp),
		TraceID: optText(ev.TraceID), SpanID: optText(ev.SpanID), ParentSpanID: optText(ev.ParentSpanID),
		Workflow: optText(ev.Workflow), StepName: optText(ev.StepName), ToolName: optText(ev.ToolName),
		UserID: optText(ev.UserID), SessionID: optText(ev.SessionID), Billing: ev.Billing,
		FlatPlan: ev.Billing == event.BillingSubscription, Source: ev.Source,
	}
	if ev.Priced {
		c := usdNumber(ev.CatalogueCostNano)
		out.CatalogueCost = &c
	}
	if len(ev.Metadata) > 0 {
		out.Metadata = json.RawMessage(ev.Metadata)
	}
	return out
}
