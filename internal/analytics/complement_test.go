package analytics

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestComplement(t *testing.T) {
	expired := at("2026-03-01T10:05:00Z")
	for _, tc := range []struct {
		name       string
		w          Span
		g          Grain
		now        time.Time
		rawExpired *time.Time
		want       Segments
	}{
		{"24h early in the hour: both edges from the hour rows", span("2026-03-01T10:07:30Z", "2026-03-02T10:07:30Z"), Day,
			at("2026-03-02T10:07:30Z"), nil,
			Segments{RawHead: span("2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z"),
				HourHead:  span("2026-03-01T10:00:00Z", "2026-03-02T10:00:00Z"),
				HourTail:  span("2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z"),
				RawTail:   span("2026-03-02T10:00:00Z", "2026-03-02T10:00:00Z"),
				MinusHead: span("2026-03-01T10:00:00Z", "2026-03-01T10:07:30Z"),
				MinusTail: span("2026-03-02T10:07:30Z", "2026-03-02T11:00:00Z")}},
		{"24h late in the hour: the head stays raw", span("2026-03-01T10:40:00Z", "2026-03-02T10:40:00Z"), Day,
			at("2026-03-02T10:40:00Z"), nil,
			Segments{RawHead: span("2026-03-01T10:40:00Z", "2026-03-01T11:00:00Z"),
				HourHead:  span("2026-03-01T11:00:00Z", "2026-03-02T10:00:00Z"),
				HourTail:  span("2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z"),
				RawTail:   span("2026-03-02T10:00:00Z", "2026-03-02T10:00:00Z"),
				MinusTail: span("2026-03-02T10:40:00Z", "2026-03-02T11:00:00Z")}},
		{"7d: the hour spans beside the days grow", span("2026-03-01T10:07:30Z", "2026-03-08T10:07:30Z"), Day,
			at("2026-03-08T10:07:30Z"), nil,
			Segments{RawHead: span("2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z"),
				HourHead:  span("2026-03-01T10:00:00Z", "2026-03-02T00:00:00Z"),
				Days:      span("2026-03-02T00:00:00Z", "2026-03-08T00:00:00Z"),
				HourTail:  span("2026-03-08T00:00:00Z", "2026-03-08T11:00:00Z"),
				RawTail:   span("2026-03-08T10:00:00Z", "2026-03-08T10:00:00Z"),
				MinusHead: span("2026-03-01T10:00:00Z", "2026-03-01T10:07:30Z"),
				MinusTail: span("2026-03-08T10:07:30Z", "2026-03-08T11:00:00Z")}},
		{"a start on a day boundary's hour: the head hour row is the only one", span("2026-03-01T23:10:00Z", "2026-03-03T05:10:00Z"), Day,
			at("2026-03-03T05:10:00Z"), nil,
			Segments{RawHead: span("2026-03-01T23:00:00Z", "2026-03-01T23:00:00Z"),
				HourHead:  span("2026-03-01T23:00:00Z", "2026-03-02T00:00:00Z"),
				Days:      span("2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z"),
				HourTail:  span("2026-03-03T00:00:00Z", "2026-03-03T06:00:00Z"),
				RawTail:   span("2026-03-03T05:00:00Z", "2026-03-03T05:00:00Z"),
				MinusHead: span("2026-03-01T23:00:00Z", "2026-03-01T23:10:00Z"),
				MinusTail: span("2026-03-03T05:10:00Z", "2026-03-03T06:00:00Z")}},
		{"an end at midnight's hour: the tail hour row is the only one", span("2026-03-01T10:40:00Z", "2026-03-03T00:20:00Z"), Day,
			at("2026-03-03T00:20:00Z"), nil,
			Segments{RawHead: span("2026-03-01T10:40:00Z", "2026-03-01T11:00:00Z"),
				HourHead:  span("2026-03-01T11:00:00Z", "2026-03-02T00:00:00Z"),
				Days:      span("2026-03-02T00:00:00Z", "2026-03-03T00:00:00Z"),
				HourTail:  span("2026-03-03T00:00:00Z", "2026-03-03T01:00:00Z"),
				RawTail:   span("2026-03-03T00:00:00Z", "2026-03-03T00:00:00Z"),
				MinusTail: span("2026-03-03T00:20:00Z", "2026-03-03T01:00:00Z")}},
		{"a window ending in the past early in its hour keeps its raw tail", span("2026-03-01T10:40:00Z", "2026-03-02T10:10:00Z"), Hour,
			at("2026-03-02T12:00:00Z"), nil,
			Segments{RawHead: span("2026-03-01T10:40:00Z", "2026-03-01T11:00:00Z"),
				HourHead: span("2026-03-01T11:00:00Z", "2026-03-02T10:00:00Z"),
				RawTail:  span("2026-03-02T10:00:00Z", "2026-03-02T10:10:00Z")}},
		{"a window ending in the past late in its hour", span("2026-03-01T10:40:00Z", "2026-03-02T10:50:00Z"), Hour,
			at("2026-03-02T12:00:00Z"), nil,
			Segments{RawHead: span("2026-03-01T10:40:00Z", "2026-03-01T11:00:00Z"),
				HourHead:  span("2026-03-01T11:00:00Z", "2026-03-02T10:00:00Z"),
				HourTail:  span("2026-03-02T10:00:00Z", "2026-03-02T11:00:00Z"),
				RawTail:   span("2026-03-02T10:00:00Z", "2026-03-02T10:00:00Z"),
				MinusTail: span("2026-03-02T10:50:00Z", "2026-03-02T11:00:00Z")}},
		{"calls before the start expired: the head stays raw", span("2026-03-01T10:07:30Z", "2026-03-02T10:10:00Z"), Hour,
			at("2026-03-02T12:00:00Z"), &expired,
			Segments{RawHead: span("2026-03-01T10:07:30Z", "2026-03-01T11:00:00Z"),
				HourHead: span("2026-03-01T11:00:00Z", "2026-03-02T10:00:00Z"),
				RawTail:  span("2026-03-02T10:00:00Z", "2026-03-02T10:10:00Z")}},
		{"within an hour: raw as it is", span("2026-03-01T10:07:00Z", "2026-03-01T10:59:00Z"), Day,
			at("2026-03-01T10:59:00Z"), nil,
			Segments{RawHead: span("2026-03-01T10:07:00Z", "2026-03-01T10:59:00Z")}},
		{"raw grain: as it is", span("2026-03-01T10:07:00Z", "2026-03-01T11:07:00Z"), Raw,
			at("2026-03-01T11:07:00Z"), nil,
			Segments{RawHead: span("2026-03-01T10:07:00Z", "2026-03-01T11:07:00Z")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decompose(tc.w, tc.g).Complement(tc.now, tc.rawExpired); got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestComplementCountsEachInstantOnce: over random windows, grains and
// clocks, edge hours complemented, every instant is counted once inside
// the window and not at all outside it, the subtracted spans taken away
// from the parts they lie in, and every subtracted span lies inside an
// hourly part.
func TestComplementCountsEachInstantOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	base := at("2026-03-01T00:00:00Z")
	in := func(s Span, x time.Time) int {
		if !x.Before(s.Start) && x.Before(s.End) {
			return 1
		}
		return 0
	}
	for range 2000 {
		start := base.Add(time.Duration(rng.Int64N(int64(30 * 24 * time.Hour))))
		w := Span{Start: start, End: start.Add(time.Duration(rng.Int64N(int64(20 * 24 * time.Hour))))}
		now := w.End.Add(time.Duration(rng.Int64N(int64(3*time.Hour))) - time.Hour)
		g := Grain(rng.IntN(4))
		s := Decompose(w, g).Complement(now, nil)
		for _, m := range []Span{s.MinusHead, s.MinusTail} {
			if m.Empty() {
				continue
			}
			if n := in(s.HourHead, m.Start) + in(s.HourTail, m.Start); n == 0 {
				t.Fatalf("%v at %v: subtracted %v outside the hourly parts %+v", w, g, m, s)
			}
		}
		for range 50 {
			x := w.Start.Add(time.Duration(rng.Int64N(int64(w.End.Sub(w.Start)+4*time.Hour))) - 2*time.Hour)
			n := 0
			for _, p := range []Span{s.RawHead, s.HourHead, s.Days, s.Weeks, s.DaysTail, s.HourTail, s.RawTail} {
				n += in(p, x)
			}
			n -= in(s.MinusHead, x) + in(s.MinusTail, x)
			if n != in(w, x) {
				t.Fatalf("%v at grain %v, now %v: %v counted %d times\n%+v", w, g, now, x, n, s)
			}
		}
	}
}
