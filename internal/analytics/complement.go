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
	if !s.Rolled().Empty() {
		s.complementEdges(now, rawExpired)
	}
	return s
}

// complementEdges takes each raw edge the cheaper way round: complemented,
// it joins the hourly part beside it (HourHead, HourTail), grown over the
// edge's whole hour.
func (s *Segments) complementEdges(now time.Time, rawExpired *time.Time) {
	const unit = time.Hour
	head, tail := &s.HourHead, &s.HourTail
	if !s.RawHead.Empty() {
		u1 := s.RawHead.End
		u0 := u1.Add(-unit)
		kept := rawExpired == nil || !u0.Before(*rawExpired)
		if u1.Equal(ceil(s.RawHead.Start, unit)) && s.RawHead.Start.Sub(u0) < u1.Sub(s.RawHead.Start) && kept {
			s.MinusHead = Span{Start: u0, End: s.RawHead.Start}
			s.RawHead = Span{Start: u0, End: u0}
			if head.Empty() {
				*head = Span{Start: u0, End: u1}
			} else {
				head.Start = u0
			}
		}
	}
	if !s.RawTail.Empty() {
		u2 := s.RawTail.Start
		u3 := u2.Add(unit)
		if u2.Equal(s.RawTail.End.Truncate(unit)) && callMinutes(s.RawTail.End, u3, now) < callMinutes(u2, s.RawTail.End, now) {
			s.MinusTail = Span{Start: s.RawTail.End, End: u3}
			s.RawTail = Span{Start: u2, End: u2}
			if tail.Empty() {
				*tail = Span{Start: u2, End: u3}
			} else {
				tail.End = u3
			}
		}
	}
}

// callMinutes is how much of [start, end) lies before now, where calls
// can be.
func callMinutes(start, end, now time.Time) time.Duration {
	if end.After(now) {
		end = now
	}
	return max(0, end.Sub(start))
}
