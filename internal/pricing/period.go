package pricing

import (
	"fmt"
	"strings"
	"time"
)

// Period is a set of rates in force for part of a model's life: from From
// (inclusive) until Until (exclusive), zero meaning open-ended, and, where
// the provider publishes one, only inside a daily window of UTC time
// (DayStart ≤ minute-of-day < DayEnd; a window with DayStart > DayEnd wraps
// midnight). WeekdaysOnly limits the window to Monday–Friday (UTC), as
// DeepSeek's peak hours are. A period without a window applies all day.
type Period struct {
	From, Until  time.Time
	HasWindow    bool
	DayStart     int // minutes after 00:00 UTC
	DayEnd       int // minutes after 00:00 UTC, exclusive
	WeekdaysOnly bool
	Label        string // "peak", "off-peak", "promotion": shown, not priced
	Base         Rates
	LongContext  *Tier
}

// BasePeriod is the price_period stamp of an entry's base rates when the
// entry has periods (the rates in force before, or outside, every period).
const BasePeriod = "base"

// Active reports whether the period's rates are in force at ts.
func (p Period) Active(ts time.Time) bool {
	ts = ts.UTC()
	if !p.From.IsZero() && ts.Before(p.From) {
		return false
	}
	if !p.Until.IsZero() && !ts.Before(p.Until) {
		return false
	}
	if !p.HasWindow {
		return true
	}
	if p.WeekdaysOnly && (ts.Weekday() == time.Saturday || ts.Weekday() == time.Sunday) {
		return false
	}
	m := ts.Hour()*60 + ts.Minute()
	if p.DayStart <= p.DayEnd {
		return m >= p.DayStart && m < p.DayEnd
	}
	return m >= p.DayStart || m < p.DayEnd
}

// ID names the period for the events it prices (their price_period):
// its start, its end when it has one, and its window, for example
// "2026-09-10T04:00:00Z..@01:00-04:00 Mon-Fri". Equal periods give equal IDs.
func (p Period) ID() string {
	var b strings.Builder
	if !p.From.IsZero() {
		b.WriteString(p.From.UTC().Format(time.RFC3339))
	}
	b.WriteString("..")
	if !p.Until.IsZero() {
		b.WriteString(p.Until.UTC().Format(time.RFC3339))
	}
	if p.HasWindow {
		fmt.Fprintf(&b, "@%s-%s", clock(p.DayStart), clock(p.DayEnd))
		if p.WeekdaysOnly {
			b.WriteString(" Mon-Fri")
		}
	}
	return b.String()
}

func clock(min int) string { return fmt.Sprintf("%02d:%02d", min/60, min%60) }

// At returns the entry as priced at ts: its Base and LongContext replaced by
// those of the period in force, and that period's ID. Periods are tried last
// to first and the first active one wins (a later period in the list
// overrides an earlier one where both apply: a peak window over an all-day
// rate, a new price over an old one). Without an active period the base
// rates apply ("base", or "" for an entry that has no periods at all).
func (e Entry) At(ts time.Time) (Entry, string) {
	if len(e.Periods) == 0 {
		return e, ""
	}
	for i := len(e.Periods) - 1; i >= 0; i-- {
		p := e.Periods[i]
		if p.Active(ts) {
			e.Base = p.Base
			e.LongContext = p.LongContext
			return e, p.ID()
		}
	}
	return e, BasePeriod
}

// ParseClock reads "HH:MM" or "HH:MM:SS" with an optional "Z" into minutes
// after midnight UTC ("24:00" is the end of the day).
func ParseClock(s string) (int, error) {
	s = strings.TrimSuffix(strings.TrimSpace(s), "Z")
	var h, m, sec int
	n, _ := fmt.Sscanf(s, "%d:%d:%d", &h, &m, &sec)
	if n < 2 || h < 0 || h > 24 || m < 0 || m > 59 || (h == 24 && m != 0) {
		return 0, fmt.Errorf("pricing: %q is not a time of day (HH:MM)", s)
	}
	return h*60 + m, nil
}
