package analytics

import "time"

// Complement reads s's partial edge hours the cheaper way round: a raw
// edge is either the calls of its part of the hour (RawHead, RawTail), or
// the hour's rollup row minus the calls of the hour's other part
// (MinusHead, MinusTail: subtracted), whichever reads fewer minutes of
// calls. Sums are exact either way: every call of the hour is in its
// rollup or in the unmerged tail, which Rolled extends over the whole hour.
//
// The head's complement is the minutes before the window's start; it is
// taken when they are fewer than the minutes after it and the calls there
// are still kept (at or after rawExpired; nil: nothing expired). The tail's
// complement is the minutes from the window's end to the end of its hour,
// of which only those before now can hold calls: for a window ending now
// it reads only calls stamped in the future, usually none.
//
// Only for reads whose rollups keep hourly rows of every call they sum.
// s without rolled-up parts (a window within an hour or two) is returned
// as it is.
func (s Segments) Complement(now time.Time, rawExpired *time.Time) Segments {
	if s.Rolled().Empty() {
		return s
	}
	if !s.RawHead.Empty() {
		h1 := s.RawHead.End
		h0 := h1.Add(-time.Hour)
		before, after := s.RawHead.Start.Sub(h0), h1.Sub(s.RawHead.Start)
		kept := rawExpired == nil || !h0.Before(*rawExpired)
		if h1.Equal(ceil(s.RawHead.Start, time.Hour)) && before < after && kept {
			s.MinusHead = Span{Start: h0, End: s.RawHead.Start}
			s.RawHead = Span{Start: h0, End: h0}
			if s.HourHead.Empty() {
				s.HourHead = Span{Start: h0, End: h1}
			} else {
				s.HourHead.Start = h0
			}
		}
	}
	if !s.RawTail.Empty() {
		h2 := s.RawTail.Start
		h3 := h2.Add(time.Hour)
		if h2.Equal(s.RawTail.End.Truncate(time.Hour)) && callMinutes(s.RawTail.End, h3, now) < callMinutes(h2, s.RawTail.End, now) {
			s.MinusTail = Span{Start: s.RawTail.End, End: h3}
			s.RawTail = Span{Start: h2, End: h2}
			if s.HourTail.Empty() {
				s.HourTail = Span{Start: h2, End: h3}
			} else {
				s.HourTail.End = h3
			}
		}
	}
	return s
}

// callMinutes is how much of [start, end) lies before now, where calls
// can be.
func callMinutes(start, end, now time.Time) time.Duration {
	if end.After(now) {
		end = now
	}
	return max(0, end.Sub(start))
}

// WithoutHours moves s's hourly parts to its raw edges, for a read whose
// rollups keep no hourly rows (but daily ones): its partial first and last
// days are read raw.
func (s Segments) WithoutHours() Segments {
	if !s.HourHead.Empty() {
		s.RawHead.End, s.HourHead = s.HourHead.End, Span{}
	}
	if !s.HourTail.Empty() {
		s.RawTail.Start, s.HourTail = s.HourTail.Start, Span{}
	}
	return s
}

// ComplementDays is Complement for a read without hourly rows (s as
// WithoutHours leaves it, with whole days): a partial edge day is either
// its part inside the window read raw, or the day's rollup rows less the
// calls of its part outside, whichever holds fewer hours of calls.
func (s Segments) ComplementDays(now time.Time, rawExpired *time.Time) Segments {
	const day = 24 * time.Hour
	if s.Rolled().Empty() || !s.HourHead.Empty() || !s.HourTail.Empty() {
		return s
	}
	if !s.RawHead.Empty() {
		d1 := s.RawHead.End
		d0 := d1.Add(-day)
		kept := rawExpired == nil || !d0.Before(*rawExpired)
		if d1.Equal(ceil(s.RawHead.Start, day)) && s.RawHead.Start.Sub(d0) < d1.Sub(s.RawHead.Start) && kept {
			s.MinusHead = Span{Start: d0, End: s.RawHead.Start}
			s.RawHead = Span{Start: d0, End: d0}
			if s.Days.Empty() {
				s.Days = Span{Start: d0, End: d1}
			} else {
				s.Days.Start = d0
			}
		}
	}
	if !s.RawTail.Empty() {
		d2 := s.RawTail.Start
		d3 := d2.Add(day)
		if d2.Equal(s.RawTail.End.Truncate(day)) && callMinutes(s.RawTail.End, d3, now) < callMinutes(d2, s.RawTail.End, now) {
			s.MinusTail = Span{Start: s.RawTail.End, End: d3}
			s.RawTail = Span{Start: d2, End: d2}
			if s.DaysTail.Empty() {
				s.DaysTail = Span{Start: d2, End: d3}
			} else {
				s.DaysTail.End = d3
			}
		}
	}
	return s
}
