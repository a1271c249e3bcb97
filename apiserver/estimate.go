package apiserver

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
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

// estimate is POST /v1/estimate: what one call would cost, priced exactly
// as ingest prices it, with the rates applied (unpublished cache rates
// already replaced by their fallbacks) and optional alternatives.
func (s *Server) estimate(w http.ResponseWriter, r *http.Request) error {
	var req wire.EstimateRequest
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
	alts := make([]wire.EstimateAlternative, 0, len(req.Compare))
	for i, name := range req.Compare {
		alt, found := cat.Lookup(name)
		if !found { // the estimate's own model exists: a bad comparison is a 422
			return apierr.Field(fmt.Sprintf("compare[%d]", i), fmt.Sprintf("%q is not in the price catalogue", name)).
				WithHint(closeNames(cat, name))
		}
		alt, _ = alt.At(at)
		total := alt.Price(usage).Total
		alts = append(alts, wire.EstimateAlternative{Model: alt.Model, TotalCost: money(total),
			Savings: money(b.Total - total)})
	}
	return ok(w, http.StatusOK, wire.Estimate{
		Model: entry.Model, InputTokens: usage.Input, OutputTokens: usage.Output, CachedTokens: usage.Cached,
		CacheWriteTokens: usage.CacheWrite, CacheWrite1hTokens: usage.CacheWrite1h, ReasoningTokens: req.ReasoningTokens,
		InputCost: money(b.Input), OutputCost: money(b.Output), CacheReadCost: money(b.CacheRead),
		CacheWriteCost: money(b.CacheWrite), TotalCost: money(b.Total), Currency: "USD",
		LongContext: b.LongContext,
		Rates: wire.EstimateRates{InputPer1K: per1K(b.Rates.Input), OutputPer1K: per1K(b.Rates.Output),
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
func checkEstimate(req *wire.EstimateRequest) (pricing.Usage, error) {
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
