package postgres

import "github.com/llmcost/llmcost/internal/pricing"

// storedEntry is the persisted form of a pricing.Entry, with names of its
// own so that renaming a Go field cannot silently change stored rows. Rates
// are integer atto-USD per token; jsonb keeps them exactly.
type storedEntry struct {
	Model           string      `json:"model"`
	Provider        string      `json:"provider"`
	Mode            string      `json:"mode"`
	Base            storedRates `json:"base"`
	LongContext     *storedTier `json:"long_context,omitempty"`
	MaxInputTokens  int64       `json:"max_input_tokens,omitempty"`
	MaxOutputTokens int64       `json:"max_output_tokens,omitempty"`
	DeprecationDate string      `json:"deprecation_date,omitempty"`
	Replacement     string      `json:"replacement,omitempty"`
	Source          string      `json:"source"`
}

type storedRates struct {
	Input        int64  `json:"input"`
	Output       int64  `json:"output"`
	CacheRead    *int64 `json:"cache_read,omitempty"`
	CacheWrite   *int64 `json:"cache_write,omitempty"`
	CacheWrite1h *int64 `json:"cache_write_1h,omitempty"`
}

type storedTier struct {
	ThresholdTokens int64 `json:"threshold_tokens"`
	storedRates
}

func toStored(entries []pricing.Entry) []storedEntry {
	out := make([]storedEntry, len(entries))
	for i, e := range entries {
		out[i] = storedEntry{Model: e.Model, Provider: e.Provider, Mode: e.Mode, Base: toStoredRates(e.Base),
			MaxInputTokens: e.MaxInputTokens, MaxOutputTokens: e.MaxOutputTokens,
			DeprecationDate: e.DeprecationDate, Replacement: e.Replacement, Source: e.Source}
		if t := e.LongContext; t != nil {
			out[i].LongContext = &storedTier{ThresholdTokens: t.ThresholdTokens, storedRates: toStoredRates(t.Rates)}
		}
	}
	return out
}

func fromStored(stored []storedEntry) []pricing.Entry {
	out := make([]pricing.Entry, len(stored))
	for i, s := range stored {
		out[i] = pricing.Entry{Model: s.Model, Provider: s.Provider, Mode: s.Mode, Base: fromStoredRates(s.Base),
			MaxInputTokens: s.MaxInputTokens, MaxOutputTokens: s.MaxOutputTokens,
			DeprecationDate: s.DeprecationDate, Replacement: s.Replacement, Source: s.Source}
		if t := s.LongContext; t != nil {
			out[i].LongContext = &pricing.Tier{ThresholdTokens: t.ThresholdTokens, Rates: fromStoredRates(t.storedRates)}
		}
	}
	return out
}

// toStoredRates writes an unpublished cache rate as an absent key.
func toStoredRates(r pricing.Rates) storedRates {
	opt := func(v int64, has bool) *int64 {
		if !has {
			return nil
		}
		return &v
	}
	return storedRates{Input: r.Input, Output: r.Output, CacheRead: opt(r.CacheRead, r.HasCacheRead),
		CacheWrite: opt(r.CacheWrite, r.HasCacheWrite), CacheWrite1h: opt(r.CacheWrite1h, r.HasCacheWrite1h)}
}

func fromStoredRates(s storedRates) pricing.Rates {
	r := pricing.Rates{Input: s.Input, Output: s.Output}
	if s.CacheRead != nil {
		r.CacheRead, r.HasCacheRead = *s.CacheRead, true
	}
	if s.CacheWrite != nil {
		r.CacheWrite, r.HasCacheWrite = *s.CacheWrite, true
	}
	if s.CacheWrite1h != nil {
		r.CacheWrite1h, r.HasCacheWrite1h = *s.CacheWrite1h, true
	}
	return r
}
