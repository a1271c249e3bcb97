package costeventsreceiver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/llmcost/llmcost/internal/access"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/pricing"
)

// list is GET /v1/events: newest first, paged by limit and offset.
func (r *costReceiver) list(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	projectID, err := access.FromContext(req.Context()).Project(req.Context(), q.Get("project_id"), access.ViewAnalytics)
	if err != nil {
		apierr.Write(w, err)
		return
	}
	limit, err := intParam(q.Get("limit"), "limit", 100, 1, r.cfg.MaxListLimit)
	if err != nil {
		apierr.Write(w, err)
		return
	}
	offset, err := intParam(q.Get("offset"), "offset", 0, 0, 1_000_000)
	if err != nil {
		apierr.Write(w, err)
		return
	}
	events, more, err := r.api.DB().ListEvents(req.Context(), postgres.EventFilter{
		ProjectID: projectID, AgentName: q.Get("agent_name"), Limit: limit, Offset: offset})
	if err != nil {
		apierr.Write(w, err)
		return
	}
	out := make([]map[string]any, len(events))
	for i := range events {
		out[i] = eventJSON(&events[i])
	}
	apierr.WriteJSON(w, http.StatusOK, map[string]any{"events": out, "limit": limit, "offset": offset, "has_more": more})
}

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

func usd(nano int64) json.Number { return json.Number(pricing.FormatUSD(nano)) }

// eventJSON is the listed form of an event: the ingest fields plus how it
// was priced. Empty optional strings are null.
func eventJSON(ev *event.Event) map[string]any {
	var catalogue any
	if ev.Priced {
		catalogue = usd(ev.CatalogueCostNano)
	}
	var meta any
	if len(ev.Metadata) > 0 {
		meta = json.RawMessage(ev.Metadata)
	}
	return map[string]any{
		"event_id": ev.EventID, "agent_name": ev.AgentName, "model": ev.Model,
		"input_tokens": ev.InputTokens, "output_tokens": ev.OutputTokens, "cached_tokens": ev.CachedTokens,
		"cache_write_tokens": ev.CacheWriteTokens, "cache_write_1h_tokens": ev.CacheWrite1hTokens,
		"total_tokens":     ev.TotalTokens,
		"reasoning_tokens": ev.ReasoningTokens, "cost": usd(ev.CostNano), "cost_provided": ev.CostProvided,
		"catalogue_cost": catalogue, "priced": ev.Priced, "price_version": nullable(ev.PriceVersion),
		"latency_ms": ev.LatencyMS, "success": ev.Success, "error": nullable(ev.Error), "streaming": ev.Streaming,
		"timestamp": ev.Timestamp.UTC().Format(time.RFC3339Nano), "trace_id": nullable(ev.TraceID),
		"span_id": nullable(ev.SpanID), "parent_span_id": nullable(ev.ParentSpanID),
		"workflow": nullable(ev.Workflow), "step_name": nullable(ev.StepName), "tool_name": nullable(ev.ToolName),
		"user_id": nullable(ev.UserID), "session_id": nullable(ev.SessionID), "billing": ev.Billing,
		"flat_plan": ev.Billing == event.BillingSubscription, "source": ev.Source, "metadata": meta,
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
