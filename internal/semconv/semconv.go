// Package semconv names the llmcost.* attributes that carry one LLM call
// through the collector pipeline, and converts between them and event.Event.
// Every component reads and writes records only through this package, so the
// keys are defined once.
package semconv

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/llmcost/llmcost/internal/event"
)

// Record kinds: a pipeline record is either one LLM call or one run outcome.
const (
	KindCall    = "call"
	KindOutcome = "outcome"
)

// Attribute keys of the canonical record.
const (
	Kind              = "llmcost.kind"
	ProjectID         = "llmcost.project_id"
	EventID           = "llmcost.event_id"
	AgentName         = "llmcost.agent_name"
	Model             = "llmcost.model"
	InputTokens       = "llmcost.input_tokens"
	OutputTokens      = "llmcost.output_tokens"
	CachedTokens      = "llmcost.cached_tokens"
	CacheWriteTokens  = "llmcost.cache_write_tokens"
	CacheWrite1h      = "llmcost.cache_write_1h_tokens"
	TotalTokens       = "llmcost.total_tokens"
	ReasoningTokens   = "llmcost.reasoning_tokens"
	CostNano          = "llmcost.cost_nano"
	CostProvided      = "llmcost.cost_provided"
	CatalogueCostNano = "llmcost.catalogue_cost_nano"
	Priced            = "llmcost.priced"
	PriceVersion      = "llmcost.price_version"
	ReadSavingsNano   = "llmcost.read_savings_nano"
	WritePremiumNano  = "llmcost.write_premium_nano"
	LatencyMS         = "llmcost.latency_ms"
	Success           = "llmcost.success"
	Error             = "llmcost.error"
	Streaming         = "llmcost.streaming"
	TraceID           = "llmcost.trace_id"
	SpanID            = "llmcost.span_id"
	ParentSpanID      = "llmcost.parent_span_id"
	Workflow          = "llmcost.workflow"
	StepName          = "llmcost.step_name"
	ToolName          = "llmcost.tool_name"
	// RequestHash is also read from an agent's OTLP record (otlpconv).
	RequestHash  = "llmcost.request_hash"
	UserID       = "llmcost.user_id"
	SessionID    = "llmcost.session_id"
	Billing      = "llmcost.billing"
	Source       = "llmcost.source"
	Metadata     = "llmcost.metadata"
	OutcomeLabel = "llmcost.outcome_label"
)

// Outcome is a run's declared result, carried as its own record kind.
type Outcome struct {
	ProjectID string
	TraceID   string
	Success   bool
	Label     string
}

// IsCall reports whether a record is a canonical LLM-call record.
func IsCall(lr plog.LogRecord) bool {
	v, ok := lr.Attributes().Get(Kind)
	return ok && v.Str() == KindCall
}

// IsOutcome reports whether a record is a canonical outcome record.
func IsOutcome(lr plog.LogRecord) bool {
	v, ok := lr.Attributes().Get(Kind)
	return ok && v.Str() == KindOutcome
}

// PutEvent writes ev onto lr as a canonical call record.
func PutEvent(lr plog.LogRecord, ev *event.Event) {
	a := lr.Attributes()
	a.EnsureCapacity(32)
	a.PutStr(Kind, KindCall)
	lr.SetTimestamp(pcommon.NewTimestampFromTime(ev.Timestamp))
	a.PutStr(ProjectID, ev.ProjectID)
	a.PutStr(EventID, ev.EventID)
	a.PutStr(AgentName, ev.AgentName)
	a.PutStr(Model, ev.Model)
	a.PutInt(InputTokens, ev.InputTokens)
	a.PutInt(OutputTokens, ev.OutputTokens)
	a.PutInt(CachedTokens, ev.CachedTokens)
	a.PutInt(CacheWriteTokens, ev.CacheWriteTokens)
	if ev.CacheWrite1hTokens != 0 {
		a.PutInt(CacheWrite1h, ev.CacheWrite1hTokens)
	}
	a.PutInt(TotalTokens, ev.TotalTokens)
	a.PutInt(ReasoningTokens, ev.ReasoningTokens)
	a.PutInt(CostNano, ev.CostNano)
	a.PutBool(CostProvided, ev.CostProvided)
	a.PutInt(CatalogueCostNano, ev.CatalogueCostNano)
	a.PutBool(Priced, ev.Priced)
	if ev.ReadSavingsNano != 0 || ev.WritePremiumNano != 0 {
		a.PutInt(ReadSavingsNano, ev.ReadSavingsNano)
		a.PutInt(WritePremiumNano, ev.WritePremiumNano)
	}
	a.PutBool(Success, ev.Success)
	a.PutBool(Streaming, ev.Streaming)
	putOptStr(a, PriceVersion, ev.PriceVersion)
	if ev.LatencyMS != nil {
		a.PutInt(LatencyMS, *ev.LatencyMS)
	}
	putOptStr(a, Error, ev.Error)
	putOptStr(a, TraceID, ev.TraceID)
	putOptStr(a, SpanID, ev.SpanID)
	putOptStr(a, ParentSpanID, ev.ParentSpanID)
	putOptStr(a, Workflow, ev.Workflow)
	putOptStr(a, StepName, ev.StepName)
	putOptStr(a, ToolName, ev.ToolName)
	putOptStr(a, RequestHash, ev.RequestHash)
	putOptStr(a, UserID, ev.UserID)
	putOptStr(a, SessionID, ev.SessionID)
	putOptStr(a, Billing, ev.Billing)
	putOptStr(a, Source, ev.Source)
	if len(ev.Metadata) > 0 {
		a.PutEmptyBytes(Metadata).FromRaw(ev.Metadata)
	}
}

// GetEvent reads a canonical call record. It fails on a record that lacks a
// required attribute, so a foreign record is never stored half-read.
func GetEvent(lr plog.LogRecord) (event.Event, error) {
	a := lr.Attributes()
	ev := event.Event{Timestamp: lr.Timestamp().AsTime().UTC()}
	for _, req := range []struct {
		key string
		dst *string
	}{{ProjectID, &ev.ProjectID}, {EventID, &ev.EventID}, {AgentName, &ev.AgentName}, {Model, &ev.Model}} {
		v, ok := a.Get(req.key)
		if !ok {
			return ev, fmt.Errorf("record lacks %s", req.key)
		}
		*req.dst = v.Str()
	}
	ev.InputTokens = getInt(a, InputTokens)
	ev.OutputTokens = getInt(a, OutputTokens)
	ev.CachedTokens = getInt(a, CachedTokens)
	ev.CacheWriteTokens = getInt(a, CacheWriteTokens)
	ev.CacheWrite1hTokens = getInt(a, CacheWrite1h)
	ev.TotalTokens = getInt(a, TotalTokens)
	ev.ReasoningTokens = getInt(a, ReasoningTokens)
	ev.CostNano = getInt(a, CostNano)
	ev.CostProvided = getBool(a, CostProvided)
	ev.CatalogueCostNano = getInt(a, CatalogueCostNano)
	ev.Priced = getBool(a, Priced)
	ev.ReadSavingsNano = getInt(a, ReadSavingsNano)
	ev.WritePremiumNano = getInt(a, WritePremiumNano)
	ev.Success = getBool(a, Success)
	ev.Streaming = getBool(a, Streaming)
	if v, ok := a.Get(LatencyMS); ok {
		ms := v.Int()
		ev.LatencyMS = &ms
	}
	ev.PriceVersion = getStr(a, PriceVersion)
	ev.Error = getStr(a, Error)
	ev.TraceID = getStr(a, TraceID)
	ev.SpanID = getStr(a, SpanID)
	ev.ParentSpanID = getStr(a, ParentSpanID)
	ev.Workflow = getStr(a, Workflow)
	ev.StepName = getStr(a, StepName)
	ev.ToolName = getStr(a, ToolName)
	ev.RequestHash = getStr(a, RequestHash)
	ev.UserID = getStr(a, UserID)
	ev.SessionID = getStr(a, SessionID)
	ev.Billing = getStr(a, Billing)
	ev.Source = getStr(a, Source)
	if v, ok := a.Get(Metadata); ok {
		ev.Metadata = v.Bytes().AsRaw()
	}
	return ev, nil
}

// PutOutcome writes o onto lr as a canonical outcome record.
func PutOutcome(lr plog.LogRecord, o Outcome) {
	a := lr.Attributes()
	a.PutStr(Kind, KindOutcome)
	a.PutStr(ProjectID, o.ProjectID)
	a.PutStr(TraceID, o.TraceID)
	a.PutBool(Success, o.Success)
	putOptStr(a, OutcomeLabel, o.Label)
}

// GetOutcome reads a canonical outcome record.
func GetOutcome(lr plog.LogRecord) Outcome {
	a := lr.Attributes()
	return Outcome{
		ProjectID: getStr(a, ProjectID),
		TraceID:   getStr(a, TraceID),
		Success:   getBool(a, Success),
		Label:     getStr(a, OutcomeLabel),
	}
}

func putOptStr(a pcommon.Map, key, v string) {
	if v != "" {
		a.PutStr(key, v)
	}
}

func getStr(a pcommon.Map, key string) string {
	if v, ok := a.Get(key); ok {
		return v.Str()
	}
	return ""
}

func getInt(a pcommon.Map, key string) int64 {
	if v, ok := a.Get(key); ok {
		return v.Int()
	}
	return 0
}

func getBool(a pcommon.Map, key string) bool {
	if v, ok := a.Get(key); ok {
		return v.Bool()
	}
	return false
}
