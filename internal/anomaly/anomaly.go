// Package anomaly finds days whose metered spend is far above their own
// recent baseline: pure, no I/O, integer nano-USD.
//
// The rule (docs/api.md "Anomalies"): a UTC day of a scope (the project,
// one agent) is anomalous when its spend is above each of
//
//   - the median of the scope's Window days before it plus K times their
//     spread, the median absolute deviation from that median, at least
//     SpreadFloorPercent of the median (a perfectly steady scope has a MAD
//     of zero, and any cent more would be "far above" it);
//   - MinRatio times that median;
//   - MinSpend.
//
// The baseline starts at the scope's first day with spend (days before a
// new agent's first call are not zeros), and a day is judged only with at
// least MinBaseline days of baseline: a new scope has no "usual" yet.
// Medians, not means, so one earlier spike does not hide the next.
package anomaly

import (
	"time"

	"github.com/llmcost/llmcost/internal/forecast"
)

// Constants of the rule.
const (
	// Window is how many days before a day its baseline spans.
	Window = 28
	// MinBaseline is the fewest baseline days a day is judged with.
	MinBaseline = 7
	// K is how many spreads above the median a day must be.
	K = 4
	// SpreadFloorPercent is the least spread, as a percent of the median.
	SpreadFloorPercent = 10
	// MinRatio is how many times the median a day must be.
	MinRatio = 2
	// MinSpend is the least spend of an anomalous day: one USD.
	MinSpend = int64(1_000_000_000)
)

// Anomaly is one anomalous day and the baseline it was judged against.
type Anomaly struct {
	Day  time.Time
	Nano int64
	// Median and Spread describe the baseline; Threshold is what the day
	// had to exceed (the largest of the three bounds).
	Median, Spread, Threshold int64
	BaselineDays              int
}

// Find judges each UTC day in [from, to) of one scope's daily spend
// (any order; absent days are zero; days is expected to reach Window days
// before from) and returns the anomalous ones, oldest first.
func Find(days []forecast.Day, from, to time.Time) []Anomaly {
	byDay := map[time.Time]int64{}
	first := time.Time{}
	for _, d := range days {
		k := forecast.DayOf(d.Date)
		byDay[k] += d.Nano
		if d.Nano > 0 && (first.IsZero() || k.Before(first)) {
			first = k
		}
	}
	var out []Anomaly
	if first.IsZero() {
		return out
	}
	for d := forecast.DayOf(from); d.Before(to); d = d.AddDate(0, 0, 1) {
		spend := byDay[d]
		if spend < MinSpend {
			continue
		}
		start := d.AddDate(0, 0, -Window)
		if start.Before(first) {
			start = first
		}
		var base []int64
		for b := start; b.Before(d); b = b.AddDate(0, 0, 1) {
			base = append(base, byDay[b])
		}
		if len(base) < MinBaseline {
			continue
		}
		if a, ok := Judge(spend, base); ok {
			a.Day = d
			out = append(out, a)
		}
	}
	return out
}

// Judge applies the rule to one day's spend against its baseline days.
func Judge(spend int64, baseline []int64) (Anomaly, bool) {
	med := forecast.Median(baseline)
	dev := make([]int64, len(baseline))
	for i, v := range baseline {
		dev[i] = abs(v - med)
	}
	spread := max(forecast.Median(dev), forecast.MulDiv(med, SpreadFloorPercent, 100))
	threshold := max(sat(med, forecast.MulDiv(spread, K, 1)), forecast.MulDiv(med, MinRatio, 1), MinSpend)
	a := Anomaly{Nano: spend, Median: med, Spread: spread, Threshold: threshold, BaselineDays: len(baseline)}
	// Strictly above the median bound and the ratio; MinSpend itself counts.
	return a, spend >= MinSpend && spend > sat(med, forecast.MulDiv(spread, K, 1)) && spend > forecast.MulDiv(med, MinRatio, 1)
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// sat adds non-negative amounts, saturating at the largest int64.
func sat(a, b int64) int64 {
	if a > (1<<63-1)-b {
		return 1<<63 - 1
	}
	return a + b
}
