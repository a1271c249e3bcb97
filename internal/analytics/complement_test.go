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

func TestComplementDays(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    Span
		g    Grain
		now  time.Time
		want Segments
	}{
		{"7d early in the day: both edge days from the day rows", span("2026-03-01T03:10:00Z", "2026-03-08T03:10:00Z"), Day,
			at("2026-03-08T03:10:00Z"),
			Segments{RawHead: span("2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z"),
				Days:      span("2026-03-01T00:00:00Z", "2026-03-08T00:00:00Z"),
				DaysTail:  span("2026-03-08T00:00:00Z", "2026-03-09T00:00:00Z"),
				RawTail:   span("2026-03-08T00:00:00Z", "2026-03-08T00:00:00Z"),
				MinusHead: span("2026-03-01T00:00:00Z", "2026-03-01T03:10:00Z"),
				MinusTail: span("2026-03-08T03:10:00Z", "2026-03-09T00:00:00Z")}},
		{"7d late in the day: the head day stays raw", span("2026-03-01T20:50:00Z", "2026-03-08T20:50:00Z"), Day,
			at("2026-03-08T20:50:00Z"),
			Segments{RawHead: span("2026-03-01T20:50:00Z", "2026-03-02T00:00:00Z"),
				Days:      span("2026-03-02T00:00:00Z", "2026-03-08T00:00:00Z"),
				DaysTail:  span("2026-03-08T00:00:00Z", "2026-03-09T00:00:00Z"),
				RawTail:   span("2026-03-08T00:00:00Z", "2026-03-08T00:00:00Z"),
				MinusTail: span("2026-03-08T20:50:00Z", "2026-03-09T00:00:00Z")}},
		{"90d of users: the days beside the weeks", span("2026-01-01T03:10:00Z", "2026-04-01T10:07:30Z"), Week,
			at("2026-04-01T10:07:30Z"),
			Segments{RawHead: span("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
				Days:      span("2026-01-01T00:00:00Z", "2026-01-05T00:00:00Z"),
				Weeks:     span("2026-01-05T00:00:00Z", "2026-03-30T00:00:00Z"),
				DaysTail:  span("2026-03-30T00:00:00Z", "2026-04-02T00:00:00Z"),
				RawTail:   span("2026-04-01T00:00:00Z", "2026-04-01T00:00:00Z"),
				MinusHead: span("2026-01-01T00:00:00Z", "2026-01-01T03:10:00Z"),
				MinusTail: span("2026-04-01T10:07:30Z", "2026-04-02T00:00:00Z")}},
		{"no whole day: raw as it is", span("2026-03-01T03:10:00Z", "2026-03-02T03:10:00Z"), Day,
			at("2026-03-02T03:10:00Z"),
			Segments{RawHead: span("2026-03-01T03:10:00Z", "2026-03-02T03:00:00Z"),
				RawTail: span("2026-03-02T03:00:00Z", "2026-03-02T03:10:00Z")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decompose(tc.w, tc.g).WithoutHours().ComplementDays(tc.now, nil); got != tc.want {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	// The calls of the head day before the start expired: it stays raw.
	expired := at("2026-03-01T02:00:00Z")
	s := Decompose(span("2026-03-01T03:10:00Z", "2026-03-08T03:10:00Z"), Day).WithoutHours().
		ComplementDays(at("2026-03-08T03:10:00Z"), &expired)
	if !s.MinusHead.Empty() || !s.RawHead.Equal(span("2026-03-01T03:10:00Z", "2026-03-02T00:00:00Z")) {
		t.Fatalf("head with expired calls before it: %+v", s)
	}
}

// TestComplementCountsEachInstantOnce: over random windows, grains and
// clocks, edge hours or (without hours) edge days complemented, every
// instant is counted once inside the window and not at all outside it, the
// subtracted spans taken away from the parts they lie in, and every
// subtracted span lies inside an hourly part (a daily one for edge days).
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
		days := rng.IntN(2) == 0
		if days {
			s = Decompose(w, g).WithoutHours().ComplementDays(now, nil)
		}
		for _, m := range []Span{s.MinusHead, s.MinusTail} {
			if m.Empty() {
				continue
			}
			if n := in(s.HourHead, m.Start) + in(s.HourTail, m.Start); !days && n == 0 {
				t.Fatalf("%v at %v: subtracted %v outside the hourly parts %+v", w, g, m, s)
			}
			if n := in(s.Days, m.Start) + in(s.DaysTail, m.Start); days && n == 0 {
				t.Fatalf("%v at %v: subtracted %v outside the daily parts %+v", w, g, m, s)
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
