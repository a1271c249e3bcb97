package forecast

import (
	"math"
	"testing"
	"time"
)

const usd = int64(1_000_000_000)

func day(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }

// series gives every day from from to before to its amount.
func series(from, to time.Time, amount func(time.Time) int64) []Day {
	var out []Day
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		out = append(out, Day{Date: d, Nano: amount(d)})
	}
	return out
}

func flat(v int64) func(time.Time) int64 { return func(time.Time) int64 { return v } }

// June 2026 starts on a Monday; June 15 is a Monday, 16 days remain.
func TestProject(t *testing.T) {
	now := day(time.June, 15).Add(12 * time.Hour)
	june25, june10, june15 := day(time.June, 25), day(time.June, 10), day(time.June, 15)
	tests := []struct {
		name               string
		in                 Input
		end, low, high     int64
		exhausted          *time.Time
		history            int
		exceeds            bool
		weekday, weekendMd int64
	}{
		{name: "flat month: every remaining day at the flat rate, exhausted when the cumulative reaches the budget",
			in:  Input{Now: now, Daily: series(day(time.May, 1), june15, flat(10*usd)), MonthToDate: 144 * usd, Budget: 250 * usd},
			end: 300 * usd, low: 300 * usd, high: 300 * usd, exhausted: &june25, history: 28, exceeds: true,
			weekday: 10 * usd, weekendMd: 10 * usd},
		{name: "flat month under budget: no exhaustion",
			in:  Input{Now: now, Daily: series(day(time.May, 1), june15, flat(10*usd)), MonthToDate: 144 * usd, Budget: 301 * usd},
			end: 300 * usd, low: 300 * usd, high: 300 * usd, history: 28, weekday: 10 * usd, weekendMd: 10 * usd},
		{name: "budget already spent: the day the complete days reached it",
			in:  Input{Now: now, Daily: series(day(time.May, 1), june15, flat(10*usd)), MonthToDate: 144 * usd, Budget: 100 * usd},
			end: 300 * usd, low: 300 * usd, high: 300 * usd, exhausted: &june10, history: 28, exceeds: true,
			weekday: 10 * usd, weekendMd: 10 * usd},
		{name: "step change: the median lags the last 8 days' doubling, the high end carries it",
			in: Input{Now: now.Add(-6 * time.Hour), MonthToDate: 225 * usd, Daily: series(day(time.May, 1), june15, func(d time.Time) int64 {
				if d.Before(day(time.June, 7)) {
					return 10 * usd
				}
				return 20 * usd
			})},
			end: 380 * usd, low: 380 * usd, high: 540 * usd, history: 28, weekday: 10 * usd, weekendMd: 10 * usd},
		{name: "weekend dip: weekends projected at their own median",
			in: Input{Now: now, MonthToDate: 111 * usd, Daily: series(day(time.May, 1), june15, func(d time.Time) int64 {
				if Weekend(d) {
					return 2 * usd
				}
				return 10 * usd
			})},
			end: 236 * usd, low: 236 * usd, high: 236 * usd, history: 28, weekday: 10 * usd, weekendMd: 2 * usd},
		{name: "new project with three days: history from its first day, range widened",
			in: Input{Now: now, MonthToDate: 14 * usd, Daily: append(series(day(time.May, 1), day(time.June, 12), flat(0)),
				Day{day(time.June, 12), 6 * usd}, Day{day(time.June, 13), 3 * usd}, Day{day(time.June, 14), 3 * usd})},
			end: 96 * usd, low: 47_999_999_992, high: 143_999_999_992, history: 3, weekday: 6 * usd, weekendMd: 3 * usd},
		{name: "no history: today's spend so far is the typical day, low is what is spent",
			in:  Input{Now: now, MonthToDate: 2 * usd},
			end: 32 * usd, low: 2 * usd, high: 64 * usd, history: 0, weekday: 2 * usd, weekendMd: 2 * usd},
		{name: "today above its kind: today counts as spent so far",
			in:  Input{Now: now, Daily: series(day(time.May, 1), june15, flat(10*usd)), MonthToDate: 170 * usd},
			end: 320 * usd, low: 320 * usd, high: 320 * usd, history: 28, weekday: 10 * usd, weekendMd: 10 * usd},
		{name: "last day of the month: the month is what is spent, or today's kind",
			in:  Input{Now: day(time.June, 30).Add(23 * time.Hour), Daily: series(day(time.May, 1), day(time.June, 30), flat(10*usd)), MonthToDate: 295 * usd},
			end: 300 * usd, low: 300 * usd, high: 300 * usd, history: 28, weekday: 10 * usd, weekendMd: 10 * usd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Project(tt.in)
			if f.MonthEnd != tt.end || f.Low != tt.low || f.High != tt.high {
				t.Errorf("month end %d [%d, %d], want %d [%d, %d]", f.MonthEnd, f.Low, f.High, tt.end, tt.low, tt.high)
			}
			if (f.ExhaustedOn == nil) != (tt.exhausted == nil) || (f.ExhaustedOn != nil && !f.ExhaustedOn.Equal(*tt.exhausted)) {
				t.Errorf("exhausted on %v, want %v", f.ExhaustedOn, tt.exhausted)
			}
			if f.HistoryDays != tt.history || f.Exceeds != tt.exceeds {
				t.Errorf("history %d exceeds %v, want %d %v", f.HistoryDays, f.Exceeds, tt.history, tt.exceeds)
			}
			if f.Weekday.Median != tt.weekday || f.Weekend.Median != tt.weekendMd {
				t.Errorf("medians %d/%d, want %d/%d", f.Weekday.Median, f.Weekend.Median, tt.weekday, tt.weekendMd)
			}
			if f.Low > f.MonthEnd || f.MonthEnd > f.High {
				t.Errorf("range not ordered: %d ≤ %d ≤ %d", f.Low, f.MonthEnd, f.High)
			}
			last := day(time.July, 1).AddDate(0, 0, -len(f.Projection))
			if len(f.Projection) == 0 || !f.Projection[0].Date.Equal(last) || !last.Equal(DayOf(tt.in.Now)) {
				t.Errorf("projection starts %v with %d days, want today", last, len(f.Projection))
			}
		})
	}
}

func TestStats(t *testing.T) {
	tests := []struct {
		vs          []int64
		median, p20 int64
		p80         int64
	}{
		{nil, 0, 0, 0},
		{[]int64{5}, 5, 5, 5},
		{[]int64{4, 1, 3, 2}, 2, 1, 4},
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5, 2, 8},
		{[]int64{math.MaxInt64, math.MaxInt64 - 2}, math.MaxInt64 - 1, math.MaxInt64 - 2, math.MaxInt64},
	}
	for _, tt := range tests {
		if m, lo, hi := Median(tt.vs), Percentile(tt.vs, 20), Percentile(tt.vs, 80); m != tt.median || lo != tt.p20 || hi != tt.p80 {
			t.Errorf("%v: median %d p20 %d p80 %d, want %d %d %d", tt.vs, m, lo, hi, tt.median, tt.p20, tt.p80)
		}
	}
	if got := MulDiv(math.MaxInt64, 11, 7); got != math.MaxInt64 {
		t.Errorf("MulDiv saturates: got %d", got)
	}
	if got := MulDiv(6*usd, 3, 7); got != 2_571_428_571 {
		t.Errorf("MulDiv(6 USD, 3, 7) = %d", got)
	}
	if got := addSat(math.MaxInt64-1, 5); got != math.MaxInt64 {
		t.Errorf("addSat saturates: got %d", got)
	}
}
