package agentview

import (
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/pricing"
)

// Day is one entry of a summary row's daily series. Money is nano-USD.
type Day struct {
	Day            time.Time // UTC midnight
	CostNano       int64
	Calls          int64
	FailedCostNano int64
}

// Days lists the UTC midnights of every day the window [Start, End)
// touches, oldest first: 8 for a 7d window ending mid-day, 7 when it ends
// exactly at midnight (the last day then has no instant in the window).
func Days(w analytics.Span) []time.Time {
	if w.Empty() {
		return nil
	}
	start := w.Start.UTC()
	d := time.Date(start.Year(), start.Month(), start.Day(), 0, 0, 0, 0, time.UTC)
	var out []time.Time
	for ; d.Before(w.End); d = d.Add(24 * time.Hour) {
		out = append(out, d)
	}
	return out
}

// DailySeries puts found days into the window's days, missing ones zero;
// a found day outside the window is dropped.
func DailySeries(w analytics.Span, found []Day) []Day {
	byDay := make(map[int64]Day, len(found))
	for _, f := range found {
		byDay[f.Day.UTC().Unix()] = f
	}
	days := Days(w)
	out := make([]Day, len(days))
	for i, d := range days {
		f := byDay[d.Unix()]
		f.Day = d
		out[i] = f
	}
	return out
}

// ChangePercent is (cost − previous) ÷ previous × 100 with two decimals,
// nil when the previous window cost nothing.
func ChangePercent(costNano, previousNano int64) *float64 {
	if previousNano == 0 {
		return nil
	}
	return analytics.Ratio(costNano-previousNano, previousNano, 100)
}

// ModelCachedShare is cached ÷ input tokens × 100 for one model, nil when
// the model is unknown or publishes no cache-read rate (caching cannot
// show there), or when it read no input.
func ModelCachedShare(cat *pricing.Catalogue, model string, cached, input int64) *float64 {
	if cat == nil {
		return nil
	}
	e, ok := cat.Lookup(model)
	if !ok || !e.Base.HasCacheRead {
		return nil
	}
	return analytics.Percent(cached, input)
}
