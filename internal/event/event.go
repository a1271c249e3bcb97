// Package event defines the canonical LLM-call record that every ingest path
// (batch JSON, OTLP agent logs) produces and every later stage consumes.
package event

import "time"

// Billing types: a flat-plan call is priced and shown but never counted
// against a budget.
const (
	BillingAPI          = "api"
	BillingSubscription = "subscription"
)

// Event is one LLM call in canonical form. Token semantics are fixed here:
// InputTokens is the whole prompt; CachedTokens, CacheWriteTokens and
// CacheWrite1hTokens are parts of it; OutputTokens includes reasoning tokens.
type Event struct {
	ProjectID string
	EventID   string
	AgentName string
	Model     string

	InputTokens      int64
	OutputTokens     int64
	CachedTokens     int64
	CacheWriteTokens int64
	// CacheWrite1hTokens are cache writes with a one-hour TTL; like the
	// five-minute CacheWriteTokens they are part of InputTokens.
	CacheWrite1hTokens int64
	TotalTokens        int64
	// ReasoningTokens is informational only: already inside OutputTokens.
	ReasoningTokens int64

	// CostNano is the cost in nano-USD: the client's when CostProvided, else
	// the catalogue's (zero and Priced false when the model is unknown).
	CostNano     int64
	CostProvided bool
	// CatalogueCostNano is what the catalogue would charge, kept beside a
	// client-sent cost for comparison; -1 when the model is unknown.
	CatalogueCostNano int64
	Priced            bool
	PriceVersion      string
	// ReadSavingsNano and WritePremiumNano are what prompt caching saved
	// and cost on this call, priced with the rates of the catalogue in
	// force when it was stored or re-priced (0 for an unknown model or a
	// model with no published cache rate).
	ReadSavingsNano  int64
	WritePremiumNano int64

	LatencyMS *int64
	Success   bool
	Error     string
	Streaming bool
	Timestamp time.Time

	TraceID      string
	SpanID       string
	ParentSpanID string
	Workflow     string
	StepName     string
	ToolName     string
	// RequestHash is the client's hash of the request it made (≤ 128
	// characters), which tells repeated identical calls of a run apart.
	RequestHash string
	UserID      string
	SessionID   string
	Billing     string
	// Source names the ingest path: "batch", or "otlp:<agent>".
	Source string
	// Metadata is the client's free-form metadata as raw JSON (may be empty).
	Metadata []byte
}
