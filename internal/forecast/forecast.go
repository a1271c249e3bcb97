// Package forecast projects a project's metered spend to the end of the
// UTC month from its daily spend: pure, no I/O, integer nano-USD.
//
// The method (docs/api.md "Forecast"): the history is the trailing
// Window complete UTC days before today, from the first day with any
// spend (a new project's days before its first call are not zeros). Its
// weekdays (Monday–Friday) and weekend days are taken apart; the typical
// day of each kind is the median of that kind's days, so one spiked day
// does not move the projection. Each remaining day of the month is
// projected at its kind's median; today counts as the larger of what it
// has spent so far and its kind's median. The range projects each
// remaining day at the LowPercentile and HighPercentile of its kind's
// days instead. With fewer than FullHistory days of history the range is
// widened: low days scaled by n/7, high days by (14−n)/7. A kind with no
// day in the history borrows the other kind's figures; with no history at
// all, today's spend so far is the typical day.
package forecast

import (
	"time"
)

// Constants of the method.
const (
	// Window is how many complete days before today the history spans.
	Window = 28
	// FullHistory is the number of history days under which the range is
	// widened.
	FullHistory = 7
	// LowPercentile and HighPercentile bound the range's days.
	LowPercentile  = 20
	HighPercentile = 80
)

// Day is the metered spend of one UTC day.
type Day struct {
	Date time.Time // midnight UTC
	Nano int64
}

// Input is what a forecast reads.
type Input struct {
	// Now is the instant of the forecast; its UTC day is today.
	Now time.Time
	// Daily is the metered spend of complete UTC days before today, at
	// least the month's and the Window before today; absent days are zero.
	Daily []Day
	// MonthToDate is the month's metered spend so far, today's included.
	MonthToDate int64
	// Budget is the month's budget; 0 when none is set.
	Budget int64
}

// Typical is a kind of day's projection: its median and range.
type Typical struct {
	Median, Low, High int64
	// Days is how many days of the history were of this kind.
	Days int
}

// Forecast is the projection of the month's metered spend.
type Forecast struct {
	// MonthEnd is the projected metered spend of the whole month; Low and
	// High bound it.
	MonthEnd, Low, High int64
	// ExhaustedOn is the UTC day the projected spend reaches the budget,
	// nil when no budget is set or it is not reached within the month. A
	// budget already spent gives the day it was reached.
	ExhaustedOn *time.Time
	// Exceeds says a budget is set and MonthEnd is above it.
	Exceeds bool
	// HistoryDays is how many days of history the projection rests on.
	HistoryDays       int
	Weekday, Weekend  Typical
	MonthStart, Today time.Time
	// TodaySoFar is today's spend so far (MonthToDate less the month's
	// complete days).
	TodaySoFar int64
	// Projection is the expected spend of each remaining day, today first.
	Projection []Day
}

// DayOf is the UTC midnight of t.
func DayOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// Weekend says whether the UTC day is a Saturday or a Sunday.
func Weekend(d time.Time) bool {
	wd := d.UTC().Weekday()
	return wd == time.Saturday || wd == time.Sunday
}

// Project forecasts the month of in.Now.
func Project(in Input) Forecast {
	today := DayOf(in.Now)
	month := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	next := month.AddDate(0, 1, 0)
	byDay := map[time.Time]int64{}
	for _, d := range in.Daily {
		byDay[DayOf(d.Date)] += d.Nano
	}
	f := Forecast{MonthStart: month, Today: today}

	// The history: the Window days before today, from the first with spend.
	var weekdays, weekends []int64
	first := today
	for d := today.AddDate(0, 0, -Window); d.Before(today); d = d.AddDate(0, 0, 1) {
		if byDay[d] > 0 {
			first = d
			break
		}
	}
	for d := first; d.Before(today); d = d.AddDate(0, 0, 1) {
		if Weekend(d) {
			weekends = append(weekends, byDay[d])
		} else {
			weekdays = append(weekdays, byDay[d])
		}
	}
	f.HistoryDays = len(weekdays) + len(weekends)

	var before int64 // the month's complete days
	for d := month; d.Before(today); d = d.AddDate(0, 0, 1) {
		before = addSat(before, byDay[d])
	}
	f.TodaySoFar = max(in.MonthToDate-before, 0)
	base := in.MonthToDate - f.TodaySoFar

	f.Weekday, f.Weekend = typical(weekdays, f.HistoryDays, f.TodaySoFar), typical(weekends, f.HistoryDays, f.TodaySoFar)
	switch {
	case f.Weekday.Days == 0 && f.Weekend.Days > 0:
		f.Weekday = Typical{Median: f.Weekend.Median, Low: f.Weekend.Low, High: f.Weekend.High}
	case f.Weekend.Days == 0 && f.Weekday.Days > 0:
		f.Weekend = Typical{Median: f.Weekday.Median, Low: f.Weekday.Low, High: f.Weekday.High}
	}

	f.MonthEnd, f.Low, f.High = base, base, base
	cum := base
	if in.Budget > 0 && in.MonthToDate >= in.Budget {
		f.ExhaustedOn = reachedOn(byDay, month, today, in.Budget)
	}
	for d := today; d.Before(next); d = d.AddDate(0, 0, 1) {
		k := f.Weekday
		if Weekend(d) {
			k = f.Weekend
		}
		mid, lo, hi := k.Median, k.Low, k.High
		if d.Equal(today) {
			mid, lo, hi = max(mid, f.TodaySoFar), max(lo, f.TodaySoFar), max(hi, f.TodaySoFar)
		}
		f.Projection = append(f.Projection, Day{Date: d, Nano: mid})
		f.MonthEnd, f.Low, f.High = addSat(f.MonthEnd, mid), addSat(f.Low, lo), addSat(f.High, hi)
		cum = addSat(cum, mid)
		if in.Budget > 0 && f.ExhaustedOn == nil && cum >= in.Budget {
			day := d
			f.ExhaustedOn = &day
		}
	}
	f.Exceeds = in.Budget > 0 && f.MonthEnd > in.Budget
	return f
}

// typical is a kind's median and range over its days of a history of n
// days; with no history at all, today's spend so far stands for every day.
func typical(days []int64, n int, todaySoFar int64) Typical {
	if n == 0 {
		return Typical{Median: todaySoFar, Low: 0, High: MulDiv(todaySoFar, 2, 1)}
	}
	t := Typical{Median: Median(days), Low: Percentile(days, LowPercentile),
		High: Percentile(days, HighPercentile), Days: len(days)}
	if n < FullHistory {
		t.Low = MulDiv(t.Low, int64(n), FullHistory)
		t.High = MulDiv(t.High, int64(2*FullHistory-n), FullHistory)
	}
	return t
}

// reachedOn is the first day of the month whose cumulative spend reached
// budget; today when the complete days did not (today's spend did).
func reachedOn(byDay map[time.Time]int64, month, today time.Time, budget int64) *time.Time {
	var cum int64
	for d := month; d.Before(today); d = d.AddDate(0, 0, 1) {
		cum = addSat(cum, byDay[d])
		if cum >= budget {
			return &d
		}
	}
	return &today
}
