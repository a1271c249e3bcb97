package apiserver

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
)

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
	project := callerOf(r).ProjectID
	ret, err := s.DB.Retention(r.Context(), project)
	if err != nil {
		return err
	}
	expired := ret.RawExpiredBefore(s.Now())
	events, more, err := s.DB.ListEvents(r.Context(), postgres.EventFilter{
		ProjectID: project, AgentName: q.Get("agent_name"), Limit: limit, Offset: offset, ExpiredBefore: expired})
	if err != nil {
		return err
	}
	out := make([]wire.Event, len(events))
	for i := range events {
		out[i] = newEventJSON(&events[i])
	}
	return ok(w, http.StatusOK, wire.EventList{Events: out, Limit: limit, Offset: offset, HasMore: more,
		ExpiredBefore: expiredTS(expired)})
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

func newEventJSON(ev *event.Event) wire.Event {
	out := wire.Event{
		EventID: ev.EventID, AgentName: ev.AgentName, Model: ev.Model,
		InputTokens: ev.InputTokens, OutputTokens: ev.OutputTokens, CachedTokens: ev.CachedTokens,
		CacheWriteTokens: ev.CacheWriteTokens, CacheWrite1hTokens: ev.CacheWrite1hTokens,
		TotalTokens: ev.TotalTokens, ReasoningTokens: ev.ReasoningTokens,
		Cost: money(ev.CostNano), CostProvided: ev.CostProvided, Priced: ev.Priced,
		PriceVersion: optText(ev.PriceVersion), PricePeriod: optText(ev.PricePeriod), LatencyMS: ev.LatencyMS, Success: ev.Success,
		Error: optText(ev.Error), Streaming: ev.Streaming, Timestamp: ts(ev.Timestamp),
		TraceID: optText(ev.TraceID), SpanID: optText(ev.SpanID), ParentSpanID: optText(ev.ParentSpanID),
		Workflow: optText(ev.Workflow), StepName: optText(ev.StepName), ToolName: optText(ev.ToolName),
		UserID: optText(ev.UserID), SessionID: optText(ev.SessionID), Billing: ev.Billing,
		FlatPlan: ev.Billing == event.BillingSubscription, Source: ev.Source,
	}
	if ev.Priced {
		c := money(ev.CatalogueCostNano)
		out.CatalogueCost = &c
	}
	if len(ev.Metadata) > 0 {
		out.Metadata = json.RawMessage(ev.Metadata)
	}
	return out
}
