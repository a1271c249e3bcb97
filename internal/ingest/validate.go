package ingest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/llmcost/llmcost/internal/event"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Validator turns one batch event into an event.Event or a rejection.
type Validator struct {
	// Now is the clock for the "at most 24 hours in the future" rule.
	Now func() time.Time
}

var knownEventFields = map[string]bool{
	"agent_name": true, "model": true, "input_tokens": true, "output_tokens": true,
	"timestamp": true, "total_tokens": true, "cost": true, "cached_tokens": true,
	"cache_write_tokens": true, "cache_write_1h_tokens": true, "latency_ms": true, "success": true, "event_id": true,
	"trace_id": true, "metadata": true, "workflow": true, "step_name": true,
	"tool_name": true, "span_id": true, "parent_span_id": true, "error": true,
	"streaming": true, "reasoning_tokens": true, "request_hash": true,
}

// Event validates one event (docs/api.md "Event ingest").
// msg must be valid JSON, as every element of a decoded batch is: its
// syntax is not checked again.
func (v *Validator) Event(msg json.RawMessage, lim Limits) (event.Event, *Rejection) {
	var ev event.Event
	fields := getMembers()
	defer putMembers(fields)
	if rej := objectFields(msg, fields); rej != nil {
		return ev, rej
	}
	f := &fieldReader{fields: fields}
	// A typo first: "input_token" is the mistake, not input_tokens missing.
	f.unknown(knownEventFields)
	ev.EventID = f.str("event_id", false, maxEventID)
	ev.AgentName = f.str("agent_name", true, maxName)
	ev.Model = f.str("model", true, maxName)
	ev.InputTokens, _ = f.integer("input_tokens", true, pricing.MaxCallTokens)
	ev.OutputTokens, _ = f.integer("output_tokens", true, pricing.MaxCallTokens)
	ev.Timestamp = f.timestamp("timestamp", v.Now())
	total, hasTotal := f.integer("total_tokens", false, maxTotalTokens)
	ev.CachedTokens, _ = f.integer("cached_tokens", false, pricing.MaxCallTokens)
	ev.CacheWriteTokens, _ = f.integer("cache_write_tokens", false, pricing.MaxCallTokens)
	ev.CacheWrite1hTokens, _ = f.integer("cache_write_1h_tokens", false, pricing.MaxCallTokens)
	ev.ReasoningTokens, _ = f.integer("reasoning_tokens", false, pricing.MaxCallTokens)
	if ms, ok := f.integer("latency_ms", false, maxLatencyMS); ok {
		ev.LatencyMS = &ms
	}
	ev.Success = f.boolean("success", false, true)
	streaming := f.boolean("streaming", false, false)
	ev.Streaming = &streaming
	ev.Error = f.str("error", false, maxErrorText)
	ev.TraceID = f.str("trace_id", false, maxTraceID)
	v.readMetadata(f, &ev, lim)
	ev.Workflow = firstOf(f.str("workflow", false, maxName), ev.Workflow)
	ev.StepName = firstOf(f.str("step_name", false, maxName), ev.StepName)
	ev.ToolName = firstOf(f.str("tool_name", false, maxName), ev.ToolName)
	ev.SpanID = firstOf(f.str("span_id", false, maxTraceID), ev.SpanID)
	ev.ParentSpanID = firstOf(f.str("parent_span_id", false, maxTraceID), ev.ParentSpanID)
	ev.RequestHash = f.str("request_hash", false, maxHash)
	if text, ok := f.number("cost"); ok {
		nano, err := pricing.ParseCostNano(text)
		if err == nil {
			err = pricing.CheckCost(nano)
		}
		if err != nil {
			f.fail("cost", "must be a finite number of USD from 0 to "+pricing.FormatUSD(pricing.MaxCallCostNano)+
				" per call (llmcost's bound; see docs/api.md, Bounds): "+err.Error())
		}
		ev.CostNano, ev.CostProvided = nano, true
	}
	if f.rej == nil && ev.CachedTokens+ev.CacheWriteTokens+ev.CacheWrite1hTokens > ev.InputTokens {
		f.fail("cached_tokens", "cached_tokens + cache_write_tokens + cache_write_1h_tokens must not exceed input_tokens")
		f.rej.Reason += " (input_tokens is the whole prompt; Anthropic's usage.input_tokens excludes cache tokens, so send input_tokens + cache_read_input_tokens + cache_creation_input_tokens)"
	}
	if f.rej == nil && ev.ReasoningTokens > ev.OutputTokens {
		f.fail("reasoning_tokens", "must not exceed output_tokens, which includes reasoning")
	}
	if f.rej != nil {
		f.rej.EventID = ev.EventID
		return ev, f.rej
	}
	ev.TotalTokens = ev.InputTokens + ev.OutputTokens
	if hasTotal {
		ev.TotalTokens = total
	}
	if ev.EventID == "" {
		ev.EventID = uuid.NewString()
	}
	if ev.Billing == "" {
		ev.Billing = event.BillingAPI
	}
	ev.Source = "batch"
	return ev, nil
}

// readMetadata checks the metadata object and lifts its indexed keys.
func (v *Validator) readMetadata(f *fieldReader, ev *event.Event, lim Limits) {
	raw, ok := f.get("metadata", false)
	if !ok {
		return
	}
	meta, ok := compactObject(raw)
	switch {
	case !ok:
		f.fail("metadata", "must be a JSON object")
		return
	case len(meta) > lim.MaxMetadataBytes:
		f.fail("metadata", fmt.Sprintf("must be at most %d bytes", lim.MaxMetadataBytes))
		return
	}
	// What jsonb refuses (NUL, lone surrogates) or would make costly
	// (deep nesting) is this event's rejection, not the batch's failure.
	if reason := CheckJSONText(meta, MaxDepth); reason != "" {
		f.fail("metadata", reason)
		return
	}
	fields := getMembers()
	defer putMembers(fields)
	_ = objectFields(meta, fields) // meta is a valid object: no rejection
	mf := &fieldReader{fields: fields}
	ev.UserID = mf.str("user_id", false, maxName)
	ev.SessionID = mf.str("session_id", false, maxName)
	ev.Workflow = mf.str("workflow", false, maxName)
	ev.StepName = mf.str("step_name", false, maxName)
	ev.ToolName = mf.str("tool_name", false, maxName)
	ev.SpanID = mf.str("span_id", false, maxTraceID)
	ev.ParentSpanID = mf.str("parent_span_id", false, maxTraceID)
	switch billing := mf.str("billing", false, maxName); billing {
	case "", event.BillingAPI, event.BillingSubscription:
		ev.Billing = billing
	default:
		mf.fail("billing", `must be "subscription" or "api"`)
	}
	if mf.rej != nil {
		f.fail("metadata."+mf.rej.Field, mf.rej.Reason)
	}
	ev.Metadata = meta
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
