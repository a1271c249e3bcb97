package wire

import "encoding/json"

// EstimateRequest uses the ingest token semantics: input_tokens is the
// whole prompt; cached_tokens, cache_write_tokens (5-minute) and
// cache_write_1h_tokens are parts of it; output_tokens includes
// reasoning_tokens, which is informational only.
type EstimateRequest struct {
	Model              string   `json:"model"`
	InputTokens        *int64   `json:"input_tokens"`
	OutputTokens       *int64   `json:"output_tokens"`
	CachedTokens       int64    `json:"cached_tokens"`
	CacheWriteTokens   int64    `json:"cache_write_tokens"`
	CacheWrite1hTokens int64    `json:"cache_write_1h_tokens"`
	ReasoningTokens    int64    `json:"reasoning_tokens"`
	Compare            []string `json:"compare"`
	// Timestamp (RFC 3339) prices the call at the rates in force then;
	// absent: now.
	Timestamp *string `json:"timestamp"`
}

// EstimateRates are the rates, USD per 1000 tokens, an estimate priced
// with.
type EstimateRates struct {
	InputPer1K        json.Number `json:"input_per_1k"`
	OutputPer1K       json.Number `json:"output_per_1k"`
	CacheReadPer1K    json.Number `json:"cache_read_per_1k"`
	CacheWritePer1K   json.Number `json:"cache_write_per_1k"`
	CacheWrite1hPer1K json.Number `json:"cache_write_1h_per_1k"`
}

// EstimateAlternative is the same call priced with another model.
type EstimateAlternative struct {
	Model     string `json:"model"`
	TotalCost Money  `json:"total_cost"`
	// Savings is the estimate's total minus this one: negative when the
	// alternative costs more.
	Savings Money `json:"savings"`
}

// Estimate is POST /v1/estimate: the call priced part by part, and its
// alternatives.
type Estimate struct {
	Model              string                `json:"model"`
	InputTokens        int64                 `json:"input_tokens"`
	OutputTokens       int64                 `json:"output_tokens"`
	CachedTokens       int64                 `json:"cached_tokens"`
	CacheWriteTokens   int64                 `json:"cache_write_tokens"`
	CacheWrite1hTokens int64                 `json:"cache_write_1h_tokens"`
	ReasoningTokens    int64                 `json:"reasoning_tokens"`
	InputCost          Money                 `json:"input_cost"`
	OutputCost         Money                 `json:"output_cost"`
	CacheReadCost      Money                 `json:"cache_read_cost"`
	CacheWriteCost     Money                 `json:"cache_write_cost"`
	TotalCost          Money                 `json:"total_cost"`
	Currency           string                `json:"currency"`
	LongContext        bool                  `json:"long_context"`
	Rates              EstimateRates         `json:"rates"`
	Alternatives       []EstimateAlternative `json:"alternatives"`
	PriceVersion       string                `json:"price_version"`
	// Timestamp is when the call is priced; PricePeriod the rate period in
	// force then (null for a model with one price).
	Timestamp   string  `json:"timestamp"`
	PricePeriod *string `json:"price_period"`
}
