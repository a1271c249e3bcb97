package bench

import (
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
)

// TestOlderSlices: growing 10 M calls over 90 days to 25 M adds two older
// slices back to back before the base, the first as long as the base, the
// second half as long with half the calls and sessions (the same daily
// rate), each under its own seed and id prefix, every spec valid.
func TestOlderSlices(t *testing.T) {
	base := benchdata.Default
	anchor := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	got := olderSlices(base, anchor, 25_000_000)
	if len(got) != 2 {
		t.Fatalf("%d slices, want 2", len(got))
	}
	end, total := base.DayStart(anchor, 0), base.Events
	seeds, prefixes := map[uint64]bool{base.Seed: true, sampleSpec(scaleConfig{sample: 1}, 1).Seed: true}, map[string]bool{}
	for i, s := range got {
		if err := s.spec.Validate(); err != nil {
			t.Fatalf("slice %d: %v", i, err)
		}
		if !s.anchor.Equal(end) {
			t.Fatalf("slice %d ends at %s, want %s (where the younger one starts)", i, s.anchor, end)
		}
		if seeds[s.spec.Seed] || prefixes[s.spec.Prefix] || s.spec.Prefix == "" {
			t.Fatalf("slice %d: seed %d or prefix %q taken", i, s.spec.Seed, s.spec.Prefix)
		}
		seeds[s.spec.Seed], prefixes[s.spec.Prefix] = true, true
		end, total = s.spec.DayStart(s.anchor, 0), total+s.spec.Events
	}
	if total != 25_000_000 {
		t.Fatalf("%d calls in all", total)
	}
	if s := got[0].spec; s.Events != 10_000_000 || s.Days != 90 || s.Sessions != 10_000 {
		t.Fatalf("first slice %+v", s)
	}
	if s := got[1].spec; s.Events != 5_000_000 || s.Days != 45 || s.Sessions != 5_000 {
		t.Fatalf("second slice %+v", s)
	}
	if olderSlices(base, anchor, base.Events) != nil {
		t.Fatal("slices added to a project already at its size")
	}
}

func TestTableGroup(t *testing.T) {
	for name, want := range map[string]string{
		"events": "events", "rollup_hour": "rollups", "rollup_tag_day": "rollups", "agent_key_hour": "rollups",
		"agent_last_seen": "rollups", "runs": "run tables", "runs_pending": "run tables", "run_steps": "run tables",
		"run_tool_all_day": "run tables", "outcomes": "run tables", "projects": "other", "events_refused": "other",
	} {
		if got := tableGroup(name); got != want {
			t.Errorf("tableGroup(%s) = %s, want %s", name, got, want)
		}
	}
}

// TestScaleRows: the ingest row holds the larger size to 0.9 of the
// smaller's merged rate, a report's p95 row to 1.2 times its p95 and to
// its absolute target, and disk rows are per million calls.
func TestScaleRows(t *testing.T) {
	timingOf := func(name string, p95 time.Duration) timing {
		m := map[string]time.Duration{"24h": p95, "7d": p95, "90d": p95}
		return timing{name: name, served: true, p50: m, p95: m}
	}
	a := scalePhase{calls: 1_000_000, sample: 1000, acked: time.Second, merged: time.Second, copyRate: 2000,
		disk: map[string]int64{"events": 700 << 20}, reports: []timing{timingOf("overview", 40*time.Millisecond),
			timingOf("traces ?agent_name", 10*time.Millisecond)}}
	z := a
	z.calls, z.merged = 3_000_000, 1100*time.Millisecond
	z.disk = map[string]int64{"events": 2400 << 20}
	z.reports = []timing{timingOf("overview", 46*time.Millisecond), timingOf("traces ?agent_name", 13*time.Millisecond)}
	rows := map[string]scaleRow{}
	for _, r := range scaleRows(a, z) {
		rows[r.metric] = r
	}
	for metric, want := range map[string]scaleRow{
		"ingest over HTTP until merged (calls/s)":       {from: "1000", to: "909", ratio: "0.91", verdict: "✔"},
		"disk per million calls: events (MB)":           {from: "700", to: "800", ratio: "1.14"},
		"p95 overview 90d (ms)":                         {from: "40.0", to: "46.0", ratio: "1.15", target: "≤ 1.2×, ≤ 50 ms", verdict: "✔"},
		"p95 traces ?agent_name 24h (ms)":               {from: "10.0", to: "13.0", ratio: "1.30", target: "≤ 1.2×", verdict: "✘"},
		"disk per million calls: all tables (MB)":       {from: "700", to: "800", ratio: "1.14"},
		"raw COPY of the same rows (rows/s)":            {from: "2000", to: "2000", ratio: "1.00"},
		"ingest over HTTP until acknowledged (calls/s)": {from: "1000", to: "1000", ratio: "1.00"},
	} {
		got, ok := rows[metric]
		if !ok {
			t.Fatalf("no row %q", metric)
		}
		if got.from != want.from || got.to != want.to || got.ratio != want.ratio || got.verdict != want.verdict ||
			(want.target != "" && got.target != want.target) {
			t.Errorf("%s: %+v, want %+v", metric, got, want)
		}
	}
	z.reports[0] = timingOf("overview", 51*time.Millisecond)
	a.reports[0] = timingOf("overview", 50*time.Millisecond)
	for _, r := range scaleRows(a, z) {
		if r.metric == "p95 overview 7d (ms)" && r.verdict != "✘" {
			t.Errorf("51 ms after 50 ms passed the 50 ms target: %+v", r)
		}
	}
}

func TestUntilMinute(t *testing.T) {
	start := time.Date(2026, 11, 29, 7, 12, 30, 0, time.UTC)
	for now, want := range map[time.Time]time.Duration{
		start: 0, start.Add(3 * time.Hour): 0,
		start.Add(5 * time.Minute):              55 * time.Minute,
		start.Add(2*time.Hour + 59*time.Minute): time.Minute,
		start.Add(-10 * time.Second):            10 * time.Second,
	} {
		if got := untilMinute(now, start); got != want {
			t.Errorf("untilMinute(%s, %s) = %s, want %s", now.Format("15:04:05"), start.Format("15:04:05"), got, want)
		}
	}
}

// comparePages keeps the statements run at least five times at both sizes
// and puts the largest growth of pages per call first; a statement's head
// is its first comment line and its SQL without comments.
func TestComparePages(t *testing.T) {
	a := map[int64]statementPages{1: {"SELECT 1", 10, 100}, 2: {"-- The top sessions\n-- more\nSELECT x\n  FROM y", 10, 1000},
		3: {"SELECT rare", 4, 40}, 4: {"SELECT gone", 10, 10}}
	z := map[int64]statementPages{1: {"SELECT 1", 20, 220}, 2: {"-- The top sessions\n-- more\nSELECT x\n  FROM y", 5, 1500},
		3: {"SELECT rare", 10, 400}}
	got := comparePages(a, z)
	if len(got) != 2 {
		t.Fatalf("%d statements compared, want 2 (seen 5 times at both sizes): %+v", len(got), got)
	}
	if got[0].head != "The top sessions ¦ SELECT x FROM y" || got[0].small != 100 || got[0].large != 300 || got[0].calls != 5 {
		t.Errorf("first: %+v, want the sessions' statement, 100 → 300 pages per call", got[0])
	}
	if got[1].head != "SELECT 1" || got[1].small != 10 || got[1].large != 11 {
		t.Errorf("second: %+v, want SELECT 1, 10 → 11", got[1])
	}
}
