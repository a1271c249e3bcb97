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
	// Complemented, an edge joins the hourly part beside it, grown over
	// the edge's whole hour.
	if !s.RawHead.Empty() {
		h1 := s.RawHead.End
		h0 := h1.Add(-time.Hour)
		kept := rawExpired == nil || !h0.Before(*rawExpired)
		if h1.Equal(ceil(s.RawHead.Start, time.Hour)) && s.RawHead.Start.Sub(h0) < h1.Sub(s.RawHead.Start) && kept {
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
