package wire

import "encoding/json"

// EventList is GET /v1/events: one page, newest first.
type EventList struct {
	Events  []Event `json:"events"`
	Limit   int     `json:"limit"`
	Offset  int     `json:"offset"`
	HasMore bool    `json:"has_more"`
	// ExpiredBefore says that the project's calls before this instant
	// have expired (its retention) and are not listed; null: none has.
	ExpiredBefore *string `json:"expired_before"`
}

// Event is the listed form of an event: the ingest fields plus how it
// was priced. Empty optional strings are null.
type Event struct {
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
	Cost               Money           `json:"cost"`
	CostProvided       bool            `json:"cost_provided"`
	CatalogueCost      *Money          `json:"catalogue_cost"`
	Priced             bool            `json:"priced"`
	PriceVersion       *string         `json:"price_version"`
	PricePeriod        *string         `json:"price_period"`
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
