package analytics

import (
	"testing"
	"time"
)

// sp is the span from hour a to hour b of a day; none(a) is the empty
// span at hour a.
func sp(a, b int) Span {
	at := func(h int) time.Time { return time.Date(2026, 11, 29, h, 0, 0, 0, time.UTC) }
	return Span{Start: at(a), End: at(b)}
}

func none(a int) Span { return sp(a, a) }

func TestSpanClip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s, o    Span
		want    Span
		isEmpty bool
	}{
		{"inside", sp(0, 10), sp(2, 5), sp(2, 5), false},
		{"covering", sp(2, 5), sp(0, 10), sp(2, 5), false},
		{"overlapping the start", sp(2, 5), sp(0, 3), sp(2, 3), false},
		{"overlapping the end", sp(2, 5), sp(4, 9), sp(4, 5), false},
		{"before", sp(2, 5), sp(0, 2), none(2), true},
		{"after", sp(2, 5), sp(5, 9), none(2), true},
		{"o empty", sp(2, 5), none(3), none(2), true},
		{"s empty", none(4), sp(0, 9), none(4), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.s.Clip(tc.o)
			if !got.Equal(tc.want) || got.Empty() != tc.isEmpty {
				t.Fatalf("%v.Clip(%v) = %v, want %v", tc.s, tc.o, got, tc.want)
			}
		})
	}
}

func TestSpanHull(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s, o    Span
		want    Span
		isEmpty bool
	}{
		{"inside", sp(0, 10), sp(2, 5), sp(0, 10), false},
		{"covering", sp(2, 5), sp(0, 10), sp(0, 10), false},
		{"apart", sp(2, 3), sp(7, 9), sp(2, 9), false},
		{"apart the other way", sp(7, 9), sp(2, 3), sp(2, 9), false},
		{"o empty before s", sp(4, 5), none(1), sp(4, 5), false},
		{"s empty after o", none(8), sp(2, 3), sp(2, 3), false},
		{"both empty", none(8), none(2), none(8), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.s.Hull(tc.o)
			if !got.Equal(tc.want) || got.Empty() != tc.isEmpty {
				t.Fatalf("%v.Hull(%v) = %v, want %v", tc.s, tc.o, got, tc.want)
			}
		})
	}
}
