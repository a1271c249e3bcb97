package reports

import (
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
)

// TestReadsChooseTheCoarsestGrainTheirWindowAllows checks which rollups
// each analytics read decomposes its window into: raw events for 1h,
// weekly rollups for users, daily for other keys, and for the time series
// the grain its bucket width needs; the edge hours the cheaper way round,
// narrowed to one agent as over all.
func TestReadsChooseTheCoarsestGrainTheirWindowAllows(t *testing.T) {
	now := time.Date(2026, 6, 17, 13, 27, 5, 0, time.UTC)
	rs := &Reports{Now: func() time.Time { return now }}
	cases := []struct {
		name   string
		rng    analytics.Range
		dim    string // "" reads the series
		grain  analytics.Grain
		bucket time.Duration
	}{
		{"1h by agent reads events", analytics.Range1h, "agent", analytics.Raw, 0},
		{"1h by user reads events too", analytics.Range1h, "user", analytics.Raw, 0},
		{"24h by model reads days", analytics.Range24h, "model", analytics.Day, 0},
		{"90d by agent reads days", analytics.Range90d, "agent", analytics.Day, 0},
		{"90d by user reads weeks", analytics.Range90d, "user", analytics.Week, 0},
		{"1h series: 5-minute buckets from events", analytics.Range1h, "", analytics.Raw, 5 * time.Minute},
		{"24h series: hour buckets from hours", analytics.Range24h, "", analytics.Hour, time.Hour},
		{"30d series: day buckets from days", analytics.Range30d, "", analytics.Day, 24 * time.Hour},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := rs.Params("p1", "a1", c.rng, 7)
			if want := analytics.Window(c.rng, now); p.Window != want {
				t.Fatalf("window %v, want %v", p.Window, want)
			}
			q := p.Series()
			if c.dim != "" {
				q = p.ByKey(c.dim, 3)
				if q.Dim != c.dim || q.Limit != 3 {
					t.Errorf("dim %q limit %d, want %q 3", q.Dim, q.Limit, c.dim)
				}
			}
			if q.ProjectID != "p1" || q.AgentName != "a1" {
				t.Errorf("project %q agent %q, want p1 a1", q.ProjectID, q.AgentName)
			}
			want := analytics.Decompose(p.Window, c.grain)
			// At 13:27 both edge hours are read from their rollup rows,
			// one agent's as every agent's (per-agent rows are hourly).
			want = want.Complement(now, nil)
			if c.grain != analytics.Raw && (want.MinusHead.Empty() || want.MinusTail.Empty()) {
				t.Fatalf("grain %d at %s: edges %+v not complemented", c.grain, now, want)
			}
			if q.Segments != want {
				t.Errorf("segments %+v, want grain %d's %+v", q.Segments, c.grain, want)
			}
			if q.BucketWidth != c.bucket {
				t.Errorf("bucket width %v, want %v", q.BucketWidth, c.bucket)
			}
		})
	}
}

// TestFilledHasEveryBucketOfTheWindow checks that the series is zero-filled
// to the range's buckets and keeps the points read.
func TestFilledHasEveryBucketOfTheWindow(t *testing.T) {
	now := time.Date(2026, 6, 17, 13, 0, 0, 0, time.UTC)
	p := (&Reports{Now: func() time.Time { return now }}).Params("p", "", analytics.Range24h, 0)
	b := analytics.Buckets(p.Window, time.Hour)
	got := p.Filled([]analytics.Point{{Bucket: b[3], Sums: analytics.Sums{Calls: 2, CostNano: 5}}})
	if len(got) != len(b) {
		t.Fatalf("%d buckets, want %d", len(got), len(b))
	}
	for i, pt := range got {
		if want := int64(map[bool]int64{true: 2}[i == 3]); pt.Calls != want || !pt.Bucket.Equal(b[i]) {
			t.Errorf("bucket %d: %v calls %d, want %v calls %d", i, pt.Bucket, pt.Calls, b[i], want)
		}
	}
}
