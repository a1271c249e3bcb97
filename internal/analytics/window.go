package analytics

import "time"

// Span is a half-open time interval [Start, End); empty when End ≤ Start.
type Span struct{ Start, End time.Time }

// Empty reports whether the span holds no instant.
func (s Span) Empty() bool { return !s.End.After(s.Start) }

// Window is a report's interval [now − range, now).
func Window(r Range, now time.Time) Span {
	now = now.UTC()
	return Span{Start: now.Add(-r.Duration()), End: now}
}

// Grain is the coarsest rollup a read may use.
type Grain int

// Grains, finest first.
const (
	Raw  Grain = iota // events only
	Hour              // hourly rollups, raw partial hours at the edges
	Day               // daily rollups where whole UTC days fit
	Week              // weekly rollups (Monday-aligned 7-day blocks) where whole weeks fit
)

// WeekWidth is the block of weekly rollups: seven days from a UTC Monday
// midnight (Go's zero time and 2000-01-03 are both Mondays).
const WeekWidth = 7 * 24 * time.Hour

// Segments decompose a window into parts each read from one source. Their
// union is exactly the window and they do not overlap, so sums over them
// are exact. Unused parts are empty spans. MinusHead and MinusTail are
// raw spans subtracted from the hourly parts they lie in (Complement);
// Decompose leaves them empty.
type Segments struct {
	RawHead, HourHead, Days, Weeks, DaysTail, HourTail, RawTail Span
	MinusHead, MinusTail                                        Span
}

// Decompose splits w for a read whose coarsest source is g: the partial
// hour at the start from raw events, whole hours up to the first day
// boundary from hourly rollups, whole days from daily rollups (with g
// Week: whole weeks from weekly rollups and the days on either side from
// daily ones), whole hours after the last day boundary from hourly
// rollups, and the partial hour at the end from raw events. Boundaries are
// UTC.
func Decompose(w Span, g Grain) Segments {
	if g == Raw || w.Empty() {
		return Segments{RawHead: w}
	}
	h1, h2 := ceil(w.Start, time.Hour), w.End.Truncate(time.Hour)
	if !h1.Before(h2) {
		return Segments{RawHead: w}
	}
	s := Segments{RawHead: Span{w.Start, h1}, RawTail: Span{h2, w.End}}
	if g == Hour {
		s.HourHead = Span{h1, h2}
		return s
	}
	d1, d2 := ceil(h1, 24*time.Hour), h2.Truncate(24*time.Hour)
	if !d1.Before(d2) {
		s.HourHead = Span{h1, h2}
		return s
	}
	s.HourHead, s.Days, s.HourTail = Span{h1, d1}, Span{d1, d2}, Span{d2, h2}
	if g == Day {
		return s
	}
	w1, w2 := ceil(d1, WeekWidth), d2.Truncate(WeekWidth)
	if w1.Before(w2) {
		s.Days, s.Weeks, s.DaysTail = Span{d1, w1}, Span{w1, w2}, Span{w2, d2}
	}
	return s
}

// Rolled is the part of the window read from rollups: from the start of
// the first non-empty rollup span to the end of the last (they are
// contiguous, between the raw edges). Empty when the read is raw only.
// Events not yet merged into the rollups are read raw over this span.
func (s Segments) Rolled() Span {
	var out Span
	for _, p := range []Span{s.HourHead, s.Days, s.Weeks, s.DaysTail, s.HourTail} {
		if p.Empty() {
			continue
		}
		if out.Empty() {
			out.Start = p.Start
		}
		out.End = p.End
	}
	return out
}

// Equal reports whether s and o are the same instants (whatever the
// location of their times).
func (s Span) Equal(o Span) bool { return s.Start.Equal(o.Start) && s.End.Equal(o.End) }

// Clip is the part of s within o: an empty span (starting at s's start)
// when they do not overlap or either is empty.
func (s Span) Clip(o Span) Span {
	if s.Empty() || o.Empty() {
		return Span{Start: s.Start, End: s.Start}
	}
	out := s
	if o.Start.After(out.Start) {
		out.Start = o.Start
	}
	if o.End.Before(out.End) {
		out.End = o.End
	}
	if out.Empty() {
		return Span{Start: s.Start, End: s.Start}
	}
	return out
}

// Hull is the smallest span holding both s and o; an empty span adds
// nothing (the hull of two empty spans is s).
func (s Span) Hull(o Span) Span {
	switch {
	case o.Empty():
		return s
	case s.Empty():
		return o
	}
	if o.Start.Before(s.Start) {
		s.Start = o.Start
	}
	if o.End.After(s.End) {
		s.End = o.End
	}
	return s
}

// Equal reports whether s and o read the same sources over the same spans.
func (s Segments) Equal(o Segments) bool {
	a := []Span{s.RawHead, s.HourHead, s.Days, s.Weeks, s.DaysTail, s.HourTail, s.RawTail, s.MinusHead, s.MinusTail}
	b := []Span{o.RawHead, o.HourHead, o.Days, o.Weeks, o.DaysTail, o.HourTail, o.RawTail, o.MinusHead, o.MinusTail}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

// ceil rounds t up to a multiple of d since the Unix epoch (UTC-aligned for
// hours and days, which have no leap seconds in Go's time).
func ceil(t time.Time, d time.Duration) time.Time {
	f := t.Truncate(d)
	if f.Equal(t) {
		return f
	}
	return f.Add(d)
}

// Buckets are the time-series bucket starts of w for r: from the bucket
// holding the window's start to the bucket holding its end (now), aligned
// to UTC multiples of the width, oldest first. The first and the last may
// be partial.
func Buckets(w Span, width time.Duration) []time.Time {
	var out []time.Time
	for t := w.Start.Truncate(width); !t.After(w.End); t = t.Add(width) {
		out = append(out, t.UTC())
	}
	return out
}

// Retained is w as its project's retention lets it be read exactly
// (docs/scale.md, "Retention"). A start before rollupExpired, where the
// rollups are gone too, moves forward to it (a UTC midnight). A start
// before rawExpired, whose partial first hour would be read from calls
// that are gone, moves back to its whole hour, read from the hourly
// rollups, which outlive the calls; with wholeDay (a read whose hourly
// rows may be missing there: a breakdown narrowed to one agent by a
// dimension whose per-agent hours began with migration 0045), back to its
// whole UTC day. nil: nothing expired. The window's end, now, is within
// every retention.
func Retained(w Span, rawExpired, rollupExpired *time.Time, wholeDay bool) Span {
	if rollupExpired != nil && w.Start.Before(*rollupExpired) {
		w.Start = rollupExpired.UTC()
		return w
	}
	if rawExpired != nil && w.Start.Before(*rawExpired) {
		edge := time.Hour
		if wholeDay {
			edge = 24 * time.Hour
		}
		if s := w.Start.Truncate(edge); rollupExpired == nil || !s.Before(*rollupExpired) {
			w.Start = s
		} else {
			w.Start = rollupExpired.UTC()
		}
	}
	return w
}
