package postgres

import (
	"slices"
	"testing"
	"time"
)

func TestMonthsToCreate(t *testing.T) {
	m := func(y int, mo time.Month) time.Time { return time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC) }
	now := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		held []time.Time
		want []time.Time
	}{
		{"nothing held: now and two ahead", nil, []time.Time{m(2026, 11), m(2026, 12), m(2027, 1)}},
		{"a back-fill's first month: every month since is made",
			[]time.Time{time.Date(2026, 8, 31, 9, 0, 0, 0, time.UTC)},
			[]time.Time{m(2026, 8), m(2026, 9), m(2026, 10), m(2026, 11), m(2026, 12), m(2027, 1)}},
		{"a call from years ago: its month alone",
			[]time.Time{m(2019, 5), m(2026, 10)},
			[]time.Time{m(2019, 5), m(2026, 10), m(2026, 11), m(2026, 12), m(2027, 1)}},
		{"twelve months back is the furthest gap filled",
			[]time.Time{m(2025, 11)},
			[]time.Time{m(2025, 11), m(2025, 12), m(2026, 1), m(2026, 2), m(2026, 3), m(2026, 4), m(2026, 5),
				m(2026, 6), m(2026, 7), m(2026, 8), m(2026, 9), m(2026, 10), m(2026, 11), m(2026, 12), m(2027, 1)}},
		{"thirteen months back is made alone", []time.Time{m(2025, 10)},
			[]time.Time{m(2025, 10), m(2026, 11), m(2026, 12), m(2027, 1)}},
		{"a clock years ahead: its month, no gap", []time.Time{m(2099, 2)},
			[]time.Time{m(2026, 11), m(2026, 12), m(2027, 1), m(2099, 2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := monthsToCreate(now, 2, tc.held); !slices.EqualFunc(got, tc.want, time.Time.Equal) {
				t.Fatalf("got %v\nwant %v", got, tc.want)
			}
		})
	}
}
