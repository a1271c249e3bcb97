package postgres

import (
	"time"

	"github.com/llmcost/llmcost/internal/pricing"
)

// storedEntry is the persisted form of a pricing.Entry, with names of its
// own so that renaming a Go field cannot silently change stored rows. Rates
// are integer atto-USD per token; jsonb keeps them exactly.
type storedEntry struct {
	Model           string         `json:"model"`
	Provider        string         `json:"provider"`
	Mode            string         `json:"mode"`
	Base            storedRates    `json:"base"`
	LongContext     *storedTier    `json:"long_context,omitempty"`
	MaxInputTokens  int64          `json:"max_input_tokens,omitempty"`
	MaxOutputTokens int64          `json:"max_output_tokens,omitempty"`
	DeprecationDate string         `json:"deprecation_date,omitempty"`
	Replacement     string         `json:"replacement,omitempty"`
	Source          string         `json:"source"`
	Periods         []storedPeriod `json:"periods,omitempty"`
	Aliases         []storedAlias  `json:"aliases,omitempty"`
}

// storedPeriod is a pricing.Period; times are RFC 3339 text, absent when open.
type storedPeriod struct {
	From         *time.Time  `json:"from,omitempty"`
	Until        *time.Time  `json:"until,omitempty"`
	Window       bool        `json:"window,omitempty"`
	DayStart     int         `json:"day_start,omitempty"`
	DayEnd       int         `json:"day_end,omitempty"`
	WeekdaysOnly bool        `json:"weekdays_only,omitempty"`
	Label        string      `json:"label,omitempty"`
	Base         storedRates `json:"base"`
	LongContext  *storedTier `json:"long_context,omitempty"`
}

type storedAlias struct {
	Name    string `json:"name"`
	Retired string `json:"retired,omitempty"`
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
		out[i].LongContext = toStoredTier(e.LongContext)
		for _, p := range e.Periods {
			out[i].Periods = append(out[i].Periods, storedPeriod{From: optInstant(p.From), Until: optInstant(p.Until),
				Window: p.HasWindow, DayStart: p.DayStart, DayEnd: p.DayEnd, WeekdaysOnly: p.WeekdaysOnly,
				Label: p.Label, Base: toStoredRates(p.Base), LongContext: toStoredTier(p.LongContext)})
		}
		for _, a := range e.Aliases {
			out[i].Aliases = append(out[i].Aliases, storedAlias(a))
		}
	}
	return out
}

func toStoredTier(t *pricing.Tier) *storedTier {
	if t == nil {
		return nil
	}
	return &storedTier{ThresholdTokens: t.ThresholdTokens, storedRates: toStoredRates(t.Rates)}
}

func fromStoredTier(t *storedTier) *pricing.Tier {
	if t == nil {
		return nil
	}
	return &pricing.Tier{ThresholdTokens: t.ThresholdTokens, Rates: fromStoredRates(t.storedRates)}
}

func optInstant(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func instant(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func fromStored(stored []storedEntry) []pricing.Entry {
	out := make([]pricing.Entry, len(stored))
	for i, s := range stored {
		out[i] = pricing.Entry{Model: s.Model, Provider: s.Provider, Mode: s.Mode, Base: fromStoredRates(s.Base),
			MaxInputTokens: s.MaxInputTokens, MaxOutputTokens: s.MaxOutputTokens,
			DeprecationDate: s.DeprecationDate, Replacement: s.Replacement, Source: s.Source}
		out[i].LongContext = fromStoredTier(s.LongContext)
		for _, p := range s.Periods {
			out[i].Periods = append(out[i].Periods, pricing.Period{From: instant(p.From), Until: instant(p.Until),
				HasWindow: p.Window, DayStart: p.DayStart, DayEnd: p.DayEnd, WeekdaysOnly: p.WeekdaysOnly,
				Label: p.Label, Base: fromStoredRates(p.Base), LongContext: fromStoredTier(p.LongContext)})
		}
		for _, a := range s.Aliases {
			out[i].Aliases = append(out[i].Aliases, pricing.Alias(a))
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
