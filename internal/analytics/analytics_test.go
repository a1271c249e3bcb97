package analytics

import (
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func span(a, b string) Span { return Span{at(a), at(b)} }

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		in      string
		allowed []Range
		want    Range
		ok      bool
	}{
		{"", AllRanges, Range7d, true},
		{"1h", AllRanges, Range1h, true},
		{"90d", OverviewRanges, Range90d, true},
		{"1h", OverviewRanges, "", false},
		{"24H", AllRanges, "", false},
		{"2d", AllRanges, "", false},
	} {
		got, err := ParseRange(tc.in, tc.allowed)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseRange(%q) = %q, %v", tc.in, got, err)
		}
		if err != nil && err.Error() == "" {
			t.Errorf("empty error")
		}
	}
	_, err := ParseRange("2d", OverviewRanges)
	if err == nil || err.Error() != "validation_failed: range: must be one of 24h, 7d, 30d, 90d" {
		t.Fatalf("error %v", err)
	}
}

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]int{"": 100, "1": 1, "1000": 1000, "0": 0, "1001": 0, "x": 0, "-5": 0} {
		got, err := ParseLimit(in)
		if got != want || (want == 0) != (err != nil) {
			t.Errorf("ParseLimit(%q) = %d, %v", in, got, err)
		}
	}
}

func TestDecompose(t *testing.T) {
	var zero Span
	for _, tc := range []struct {
		name string
		w    Span
		g    Grain
		want Segments
	}{
		{"raw only", span("2026-03-01T10:07:00Z", "2026-03-01T11:07:00Z"), Raw,
			Segments{RawHead: span("2026-03-01T10:07:00Z", "2026-03-01T11:07:00Z")}},
		{"inside one hour", span("2026-03-01T10:07:00Z", "2026-03-01T10:59:00Z"), Day,
			Segments{RawHead: span("2026-03-01T10:07:00Z", "2026-03-01T10:59:00Z")}},
		{"24h with hours", span("2026-03-01T10:07:30Z", "2026-03-02T10:07:30Z"), Day,
			Segments{RawHead: span("2026-03-01T10:07:30Z", "2026-03-01T11:00:00Z"),
				HourHead: span("2026-03-01T11:00:00Z", "2026-03-02T10:00:00Z"),
				RawTail:  span("2026-03-02T10:00:00Z", "2026-03-02T10:07:30Z")}},
		{"7d with days", span("2026-03-01T10:07:30Z", "2026-03-08T10:07:30Z"), Day,
			Segments{RawHead: span("2026-03-01T10:07:30Z", "2026-03-01T11:00:00Z"),
				HourHead: span("2026-03-01T11:00:00Z", "2026-03-02T00:00:00Z"),
				Days:     span("2026-03-02T00:00:00Z", "2026-03-08T00:00:00Z"),
				HourTail: span("2026-03-08T00:00:00Z", "2026-03-08T10:00:00Z"),
				RawTail:  span("2026-03-08T10:00:00Z", "2026-03-08T10:07:30Z")}},
		{"7d capped at hours", span("2026-03-01T10:07:30Z", "2026-03-08T10:07:30Z"), Hour,
			Segments{RawHead: span("2026-03-01T10:07:30Z", "2026-03-01T11:00:00Z"),
				HourHead: span("2026-03-01T11:00:00Z", "2026-03-08T10:00:00Z"),
				RawTail:  span("2026-03-08T10:00:00Z", "2026-03-08T10:07:30Z")}},
		{"aligned to midnight", span("2026-03-01T00:00:00Z", "2026-03-08T00:00:00Z"), Day,
			Segments{RawHead: span("2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z"),
				HourHead: span("2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z"),
				Days:     span("2026-03-01T00:00:00Z", "2026-03-08T00:00:00Z"),
				HourTail: span("2026-03-08T00:00:00Z", "2026-03-08T00:00:00Z"),
				RawTail:  span("2026-03-08T00:00:00Z", "2026-03-08T00:00:00Z")}},
		{"90d with weeks", span("2026-01-01T10:07:30Z", "2026-04-01T10:07:30Z"), Week,
			Segments{RawHead: span("2026-01-01T10:07:30Z", "2026-01-01T11:00:00Z"),
				HourHead: span("2026-01-01T11:00:00Z", "2026-01-02T00:00:00Z"),
				Days:     span("2026-01-02T00:00:00Z", "2026-01-05T00:00:00Z"), // 2026-01-05 is a Monday
				Weeks:    span("2026-01-05T00:00:00Z", "2026-03-30T00:00:00Z"),
				DaysTail: span("2026-03-30T00:00:00Z", "2026-04-01T00:00:00Z"),
				HourTail: span("2026-04-01T00:00:00Z", "2026-04-01T10:00:00Z"),
				RawTail:  span("2026-04-01T10:00:00Z", "2026-04-01T10:07:30Z")}},
		{"7d too short for a whole week", span("2026-03-01T10:07:30Z", "2026-03-08T10:07:30Z"), Week,
			Segments{RawHead: span("2026-03-01T10:07:30Z", "2026-03-01T11:00:00Z"),
				HourHead: span("2026-03-01T11:00:00Z", "2026-03-02T00:00:00Z"),
				Days:     span("2026-03-02T00:00:00Z", "2026-03-08T00:00:00Z"),
				HourTail: span("2026-03-08T00:00:00Z", "2026-03-08T10:00:00Z"),
				RawTail:  span("2026-03-08T10:00:00Z", "2026-03-08T10:07:30Z")}},
		{"empty", zero, Day, Segments{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Decompose(tc.w, tc.g)
			if got != tc.want {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
			// The parts tile the window.
			var total time.Duration
			for _, s := range []Span{got.RawHead, got.HourHead, got.Days, got.Weeks, got.DaysTail, got.HourTail, got.RawTail} {
				if !s.Empty() {
					total += s.End.Sub(s.Start)
				}
			}
			if want := tc.w.End.Sub(tc.w.Start); total != want {
				t.Fatalf("parts cover %v of %v", total, want)
			}
		})
	}
}

func TestBucketsCountAndAlignment(t *testing.T) {
	now := at("2026-03-08T10:07:30Z")
	for _, tc := range []struct {
		r     Range
		n     int
		first string
	}{
		{Range1h, 13, "2026-03-08T09:05:00Z"},
		{Range24h, 25, "2026-03-07T10:00:00Z"},
		{Range7d, 169, "2026-03-01T10:00:00Z"},
		{Range30d, 31, "2026-02-06T00:00:00Z"},
		{Range90d, 91, "2025-12-08T00:00:00Z"},
	} {
		b := Buckets(Window(tc.r, now), tc.r.BucketWidth())
		if len(b) != tc.n || !b[0].Equal(at(tc.first)) || !b[len(b)-1].Equal(now.Truncate(tc.r.BucketWidth())) {
			t.Errorf("%s: %d buckets from %v to %v", tc.r, len(b), b[0], b[len(b)-1])
		}
		for i := 1; i < len(b); i++ {
			if b[i].Sub(b[i-1]) != tc.r.BucketWidth() {
				t.Errorf("%s: gap at %d", tc.r, i)
			}
		}
	}
	// A window starting on a boundary has no partial first bucket.
	if b := Buckets(Window(Range24h, at("2026-03-08T10:00:00Z")), time.Hour); len(b) != 25 ||
		!b[0].Equal(at("2026-03-07T10:00:00Z")) {
		t.Errorf("aligned: %d from %v", len(b), b[0])
	}
}

func TestZeroFill(t *testing.T) {
	b := Buckets(span("2026-03-08T09:00:00Z", "2026-03-08T11:30:00Z"), time.Hour)
	got := ZeroFill(b, []Point{{at("2026-03-08T10:00:00Z"), Sums{Calls: 2, CostNano: 5}},
		{at("2026-03-08T10:00:00Z"), Sums{Calls: 1}}})
	if len(got) != 3 || got[0].Calls != 0 || got[1].Calls != 3 || got[1].CostNano != 5 || got[2].Calls != 0 {
		t.Fatalf("%+v", got)
	}
}

func TestRatiosAndMeans(t *testing.T) {
	f := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	for _, tc := range []struct {
		got  *float64
		want any
	}{
		{Percent(1, 3), 33.33}, {Percent(2, 3), 66.67}, {Percent(0, 0), nil}, {Percent(5, 5), 100.0},
		{Percent(1, 8), 12.5}, {Mean(1001, 2), 500.5}, {Mean(10, 3), 3.33}, {Mean(0, 0), nil},
		{Percent(1, 200000), 0.0}, {Percent(1, 20000), 0.01},
	} {
		if f(tc.got) != tc.want {
			t.Errorf("got %v, want %v", f(tc.got), tc.want)
		}
	}
	if n, ok := DivNano(10, 3); !ok || n != 3 {
		t.Errorf("DivNano(10,3) = %d", n)
	}
	if n, ok := DivNano(5, 2); !ok || n != 3 {
		t.Errorf("DivNano(5,2) = %d", n)
	}
	if _, ok := DivNano(5, 0); ok {
		t.Errorf("DivNano by zero")
	}
}

func TestSortByCost(t *testing.T) {
	rows := []Keyed{{"b", Sums{CostNano: 1}}, {"a", Sums{CostNano: 1}}, {"z", Sums{CostNano: 9}}, {"B", Sums{CostNano: 1}}}
	SortByCost(rows)
	if rows[0].Key != "z" || rows[1].Key != "B" || rows[2].Key != "a" || rows[3].Key != "b" {
		t.Fatalf("%v", rows)
	}
}

func TestRolled(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    Span
		g    Grain
		want Span
	}{
		{"raw only", span("2026-03-01T10:07:00Z", "2026-03-01T11:07:00Z"), Raw, Span{}},
		{"inside one hour", span("2026-03-01T10:07:00Z", "2026-03-01T10:59:00Z"), Day, Span{}},
		{"24h with hours", span("2026-03-01T10:07:30Z", "2026-03-02T10:07:30Z"), Day,
			span("2026-03-01T11:00:00Z", "2026-03-02T10:00:00Z")},
		{"aligned to midnight", span("2026-03-01T00:00:00Z", "2026-03-08T00:00:00Z"), Day,
			span("2026-03-01T00:00:00Z", "2026-03-08T00:00:00Z")},
		{"90d with weeks", span("2026-01-01T10:07:30Z", "2026-04-01T10:07:30Z"), Week,
			span("2026-01-01T11:00:00Z", "2026-04-01T10:00:00Z")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Decompose(tc.w, tc.g)
			got := s.Rolled()
			if got.Empty() != tc.want.Empty() || (!got.Empty() && got != tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			// With the raw edges it tiles the window.
			if !got.Empty() && (!got.Start.Equal(s.RawHead.End) || !got.End.Equal(s.RawTail.Start)) {
				t.Fatalf("rolled %+v does not meet the raw edges %+v, %+v", got, s.RawHead, s.RawTail)
			}
		})
	}
	// Edge hours moved to the raw parts (a per-agent read): only the days.
	s := Segments{RawHead: span("2026-03-01T10:07:30Z", "2026-03-02T00:00:00Z"),
		Days:    span("2026-03-02T00:00:00Z", "2026-03-08T00:00:00Z"),
		RawTail: span("2026-03-08T00:00:00Z", "2026-03-08T10:07:30Z")}
	if got := s.Rolled(); got != s.Days {
		t.Fatalf("got %+v, want the days %+v", got, s.Days)
	}
}

// TestSegmentsEqual: /full reads keys and series in one pass exactly when
// their decompositions are equal — at 1h (both raw) and 30d (both days),
// not at 7d (hours against days), whatever the location of the times.
func TestSegmentsEqual(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w      Span
		g1, g2 Grain
		want   bool
	}{
		{"1h raw", span("2026-03-01T10:07:00Z", "2026-03-01T11:07:00Z"), Raw, Raw, true},
		{"7d hours and days", span("2026-03-01T10:07:30Z", "2026-03-08T10:07:30Z"), Hour, Day, false},
		{"30d days", span("2026-03-01T10:07:30Z", "2026-03-31T10:07:30Z"), Day, Day, true},
		{"within one hour", span("2026-03-01T10:07:00Z", "2026-03-01T10:59:00Z"), Hour, Day, true},
		{"90d days and weeks", span("2026-01-01T10:07:30Z", "2026-04-01T10:07:30Z"), Day, Week, false},
	} {
		a, b := Decompose(tc.w, tc.g1), Decompose(tc.w, tc.g2)
		if got := a.Equal(b); got != tc.want {
			t.Fatalf("%s: Equal = %v, want %v (%+v, %+v)", tc.name, got, tc.want, a, b)
		}
	}
	w := span("2026-03-01T10:07:30Z", "2026-03-08T10:07:30Z")
	local := Span{w.Start.In(time.FixedZone("x", 3600)), w.End.In(time.FixedZone("x", 3600))}
	if !Decompose(w, Day).Equal(Decompose(local, Day)) {
		t.Fatal("the same instants in another location are not Equal")
	}
}

func TestRetained(t *testing.T) {
	on := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, time.UTC) }
	p := func(t time.Time) *time.Time { return &t }
	w := Span{Start: on(22, 9, 25), End: on(29, 9, 25)}
	for _, c := range []struct {
		name        string
		raw, rollup *time.Time
		wholeDay    bool
		want        time.Time
	}{
		{name: "nothing expired", want: on(22, 9, 25)},
		{name: "raw cutoff after the start: the whole hour", raw: p(on(28, 9, 25)), want: on(22, 9, 0)},
		{name: "raw cutoff after the start, a raw first day", raw: p(on(28, 9, 25)), wholeDay: true, want: on(22, 0, 0)},
		{name: "raw cutoff before the start", raw: p(on(22, 9, 0)), want: on(22, 9, 25)},
		{name: "rollup cutoff after the start", raw: p(on(28, 9, 25)), rollup: p(on(24, 0, 0)), want: on(24, 0, 0)},
		{name: "rollup cutoff within the start's day", raw: p(on(28, 9, 25)), rollup: p(on(22, 0, 0)), wholeDay: true,
			want: on(22, 0, 0)},
		{name: "rollup cutoff within the start's hour", raw: p(on(28, 9, 25)), rollup: p(on(22, 9, 10)), want: on(22, 9, 10)},
	} {
		got := Retained(w, c.raw, c.rollup, c.wholeDay)
		if !got.Start.Equal(c.want) || !got.End.Equal(w.End) {
			t.Errorf("%s: %v, want from %s", c.name, got, c.want)
		}
	}
}
