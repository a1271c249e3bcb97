package anomaly

import (
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/forecast"
)

const usd = int64(1_000_000_000)

func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestJudge(t *testing.T) {
	alternating := make([]int64, 28)
	for i := range alternating {
		alternating[i] = 5 * usd
		if i%2 == 1 {
			alternating[i] = 15 * usd
		}
	}
	tests := []struct {
		name      string
		spend     int64
		base      []int64
		anomalous bool
		threshold int64
	}{
		{"steady $10, a $50 day", 50 * usd, repeat(10*usd, 28), true, 20 * usd},
		{"steady $10: under twice the median is not", 19 * usd, repeat(10*usd, 28), false, 20 * usd},
		{"steady $10: just over twice the median", 20*usd + 1, repeat(10*usd, 28), true, 20 * usd},
		{"noisy $5/$15: the spread (MAD $5) sets the bar", 29 * usd, alternating, false, 30 * usd},
		{"noisy $5/$15: above median + 4 MAD", 31 * usd, alternating, true, 30 * usd},
		{"pennies: under the minimum amount", 90_000_000, repeat(10_000_000, 28), false, usd},
		{"pennies: the minimum amount counts", usd, repeat(10_000_000, 28), true, usd},
		{"idle scope: any day from a dollar", 3 * usd, append([]int64{usd / 2}, repeat(0, 9)...), true, usd},
		{"an earlier spike does not raise the bar", 50 * usd, append(repeat(10*usd, 27), 100*usd), true, 20 * usd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := Judge(tt.spend, tt.base)
			if ok != tt.anomalous || a.Threshold != tt.threshold {
				t.Errorf("anomalous %v threshold %d, want %v %d (median %d spread %d)",
					ok, a.Threshold, tt.anomalous, tt.threshold, a.Median, a.Spread)
			}
		})
	}
}

func TestFind(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d) }
	series := func(from, n int, v func(int) int64) []forecast.Day {
		var out []forecast.Day
		for i := from; i < from+n; i++ {
			out = append(out, forecast.Day{Date: day(i), Nano: v(i)})
		}
		return out
	}
	tests := []struct {
		name     string
		days     []forecast.Day
		from, to int
		want     []int
	}{
		{"one spiked day among steady ones", series(0, 60, func(i int) int64 {
			if i == 45 {
				return 80 * usd
			}
			return 10 * usd
		}), 30, 60, []int{45}},
		{"a spike before the range is not listed", series(0, 60, func(i int) int64 {
			if i == 20 {
				return 80 * usd
			}
			return 10 * usd
		}), 30, 60, nil},
		{"a new scope's first days are not judged", append(series(0, 3, func(int) int64 { return usd }),
			forecast.Day{Date: day(3), Nano: 50 * usd}), 0, 4, nil},
		{"judged from the seventh day of baseline", series(0, 8, func(i int) int64 {
			if i == 7 {
				return 50 * usd
			}
			return 10 * usd
		}), 0, 8, []int{7}},
		{"a step up is anomalous on its first days only", series(0, 60, func(i int) int64 {
			if i >= 40 {
				return 30 * usd
			}
			return 10 * usd
		}), 30, 60, []int{40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53}},
		{"nothing spent", nil, 0, 30, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find(tt.days, day(tt.from), day(tt.to))
			if len(got) != len(tt.want) {
				t.Fatalf("found %d anomalies %v, want days %v", len(got), got, tt.want)
			}
			for i, a := range got {
				if !a.Day.Equal(day(tt.want[i])) {
					t.Errorf("anomaly %d on %v, want %v", i, a.Day, day(tt.want[i]))
				}
			}
		})
	}
}
