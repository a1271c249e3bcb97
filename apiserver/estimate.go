package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Estimator bounds: a billion tokens per count keeps every cost far inside
// int64 nano-USD at the $1-per-token rate ceiling; 20 comparisons are
// plenty for a "which model" question.
const (
	maxEstimateTokens  = pricing.MaxCallTokens
	maxEstimateCompare = 20
)

// estimateRequest uses the ingest token semantics: input_tokens is the
// whole prompt; cached_tokens, cache_write_tokens (5-minute) and
// cache_write_1h_tokens are parts of it; output_tokens includes
// reasoning_tokens, which is informational only.
type estimateRequest struct {
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

type estimateRates struct {
	InputPer1K        json.Number `json:"input_per_1k"`
	OutputPer1K       json.Number `json:"output_per_1k"`
	CacheReadPer1K    json.Number `json:"cache_read_per_1k"`
	CacheWritePer1K   json.Number `json:"cache_write_per_1k"`
	CacheWrite1hPer1K json.Number `json:"cache_write_1h_per_1k"`
}

type estimateAlternative struct {
	Model     string      `json:"model"`
	TotalCost json.Number `json:"total_cost"`
	// Savings is the estimate's total minus this one: negative when the
	// alternative costs more.
	Savings json.Number `json:"savings"`
}

type estimateResponse struct {
	Model              string                `json:"model"`
	InputTokens        int64                 `json:"input_tokens"`
	OutputTokens       int64                 `json:"output_tokens"`
	CachedTokens       int64                 `json:"cached_tokens"`
	CacheWriteTokens   int64                 `json:"cache_write_tokens"`
	CacheWrite1hTokens int64                 `json:"cache_write_1h_tokens"`
	ReasoningTokens    int64                 `json:"reasoning_tokens"`
	InputCost          json.Number           `json:"input_cost"`
	OutputCost         json.Number           `json:"output_cost"`
	CacheReadCost      json.Number           `json:"cache_read_cost"`
	CacheWriteCost     json.Number           `json:"cache_write_cost"`
	TotalCost          json.Number           `json:"total_cost"`
	Currency           string                `json:"currency"`
	LongContext        bool                  `json:"long_context"`
	Rates              estimateRates         `json:"rates"`
	Alternatives       []estimateAlternative `json:"alternatives"`
	PriceVersion       string                `json:"price_version"`
	// Timestamp is when the call is priced; PricePeriod the rate period in
	// force then (null for a model with one price).
	Timestamp   string  `json:"timestamp"`
	PricePeriod *string `json:"price_period"`
}

func usdNumber(nano int64) json.Number { return json.Number(pricing.FormatUSD(nano)) }

// estimate is POST /v1/estimate: what one call would cost, priced exactly
// as ingest prices it, with the rates applied (unpublished cache rates
// already replaced by their fallbacks) and optional alternatives.
func (s *Server) estimate(w http.ResponseWriter, r *http.Request) error {
	var req estimateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	usage, err := checkEstimate(&req)
	if err != nil {
		return err
	}
	at, err := estimateTime(req.Timestamp)
	if err != nil {
		return err
	}
	cat := s.Catalogue.Load()
	entry, found := cat.Lookup(req.Model)
	if !found {
		return unknownModel(cat, "model", req.Model)
	}
	entry, period := entry.At(at)
	b := entry.Price(usage)
	alts := make([]estimateAlternative, 0, len(req.Compare))
	for i, name := range req.Compare {
		alt, found := cat.Lookup(name)
		if !found { // the estimate's own model exists: a bad comparison is a 422
			return apierr.Field(fmt.Sprintf("compare[%d]", i), fmt.Sprintf("%q is not in the price catalogue", name)).
				WithHint(closeNames(cat, name))
		}
		alt, _ = alt.At(at)
		total := alt.Price(usage).Total
		alts = append(alts, estimateAlternative{Model: alt.Model, TotalCost: usdNumber(total),
			Savings: usdNumber(b.Total - total)})
	}
	return ok(w, http.StatusOK, estimateResponse{
		Model: entry.Model, InputTokens: usage.Input, OutputTokens: usage.Output, CachedTokens: usage.Cached,
		CacheWriteTokens: usage.CacheWrite, CacheWrite1hTokens: usage.CacheWrite1h, ReasoningTokens: req.ReasoningTokens,
		InputCost: usdNumber(b.Input), OutputCost: usdNumber(b.Output), CacheReadCost: usdNumber(b.CacheRead),
		CacheWriteCost: usdNumber(b.CacheWrite), TotalCost: usdNumber(b.Total), Currency: "USD",
		LongContext: b.LongContext,
		Rates: estimateRates{InputPer1K: per1K(b.Rates.Input), OutputPer1K: per1K(b.Rates.Output),
			CacheReadPer1K: per1K(b.Rates.CacheRead), CacheWritePer1K: per1K(b.Rates.CacheWrite),
			CacheWrite1hPer1K: per1K(b.Rates.CacheWrite1h)},
		Alternatives: alts, PriceVersion: cat.Version(), Timestamp: ts(at), PricePeriod: optText(period),
	})
}

// estimateTime reads the optional timestamp; absent means now.
func estimateTime(raw *string) (time.Time, error) {
	if raw == nil {
		return time.Now().UTC(), nil
	}
	at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(*raw))
	if err != nil {
		return time.Time{}, apierr.Field("timestamp", "must be an RFC 3339 time with a zone, e.g. 2026-11-23T14:00:00Z")
	}
	return at.UTC(), nil
}

// checkEstimate validates the request and returns its usage.
func checkEstimate(req *estimateRequest) (pricing.Usage, error) {
	req.Model = strings.TrimSpace(req.Model)
	switch {
	case req.Model == "":
		return pricing.Usage{}, apierr.Field("model", "is required")
	case req.InputTokens == nil:
		return pricing.Usage{}, apierr.Field("input_tokens", "is required")
	case req.OutputTokens == nil:
		return pricing.Usage{}, apierr.Field("output_tokens", "is required")
	case len(req.Compare) > maxEstimateCompare:
		return pricing.Usage{}, apierr.Field("compare", fmt.Sprintf("must list at most %d models", maxEstimateCompare))
	}
	counts := []struct {
		field string
		v     int64
	}{{"input_tokens", *req.InputTokens}, {"output_tokens", *req.OutputTokens}, {"cached_tokens", req.CachedTokens},
		{"cache_write_tokens", req.CacheWriteTokens}, {"cache_write_1h_tokens", req.CacheWrite1hTokens},
		{"reasoning_tokens", req.ReasoningTokens}}
	for _, c := range counts {
		if c.v < 0 || c.v > maxEstimateTokens {
			return pricing.Usage{}, apierr.Field(c.field, fmt.Sprintf("must be an integer from 0 to %d", maxEstimateTokens))
		}
	}
	u := pricing.Usage{Input: *req.InputTokens, Output: *req.OutputTokens, Cached: req.CachedTokens,
		CacheWrite: req.CacheWriteTokens, CacheWrite1h: req.CacheWrite1hTokens}
	if u.Cached+u.CacheWrite+u.CacheWrite1h > u.Input {
		return u, apierr.Field("cached_tokens", "cached_tokens + cache_write_tokens + cache_write_1h_tokens must not exceed input_tokens").
			WithHint("input_tokens is the whole prompt; Anthropic's usage.input_tokens excludes cache tokens, " +
				"so send input_tokens + cache_read_input_tokens + cache_creation_input_tokens")
	}
	if req.ReasoningTokens > u.Output {
		return u, apierr.Field("reasoning_tokens", "must not exceed output_tokens, which include reasoning")
	}
	for i, name := range req.Compare {
		if strings.TrimSpace(name) == "" {
			return u, apierr.Field(fmt.Sprintf("compare[%d]", i), "must be a model name")
		}
	}
	return u, nil
}
