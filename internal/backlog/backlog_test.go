package backlog

import (
	"testing"
	"time"
)

func snap(m Merger, projects map[string]int64) Snapshot {
	var s Snapshot
	for p, n := range projects {
		s.Add(m, p, ProjectLag{Backlog: n, Seconds: float64(n) / 1000})
	}
	return s
}

func TestAdmit(t *testing.T) {
	limits := Limits{Rollups: 1000, Runs: 100}
	for _, c := range []struct {
		name    string
		snap    Snapshot
		project string
		ok      bool
		retry   time.Duration
	}{
		{"nothing waits", Snapshot{}, "a", true, 0},
		{"under the bound", snap(Rollups, map[string]int64{"a": 1000}), "a", true, 0},
		{"over the bound, alone", snap(Rollups, map[string]int64{"a": 1001}), "a", false, time.Second},
		{"the flooding project waits", snap(Rollups, map[string]int64{"a": 1400, "b": 10}), "a", false, 3 * time.Second},
		{"the bystander is served", snap(Rollups, map[string]int64{"a": 1400, "b": 10}), "b", true, 0},
		{"a project with nothing waiting is served", snap(Rollups, map[string]int64{"a": 1400}), "c", true, 0},
		{"two at their share both wait", snap(Rollups, map[string]int64{"a": 600, "b": 600}), "b", false, time.Second},
		{"far over: at most MaxRetryAfter", snap(Rollups, map[string]int64{"a": 1_000_000}), "a", false, MaxRetryAfter},
		{"the run merger has its own bound", snap(Runs, map[string]int64{"a": 101}), "a", false, time.Second},
		{"the alert drain is not bounded", snap(Alerts, map[string]int64{"a": 1 << 40}), "a", true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := limits.Admit(c.snap, c.project)
			if d.OK != c.ok || d.RetryAfter != c.retry {
				t.Fatalf("Admit = %+v, want ok %v, retry %s", d, c.ok, c.retry)
			}
		})
	}
	if d := (Limits{}).Admit(snap(Rollups, map[string]int64{"a": 1 << 40}), "a"); !d.OK {
		t.Fatalf("no limits refused: %+v", d)
	}
	var g *Gate
	if !g.Admit("a").OK {
		t.Fatal("a nil gate refused")
	}
}

func TestSnapshotAddSumsAndKeepsTheOldest(t *testing.T) {
	var s Snapshot
	s.Add(Runs, "a", ProjectLag{Backlog: 3, Seconds: 2})
	s.Add(Runs, "b", ProjectLag{Backlog: 4, Seconds: 5})
	s.Add(Runs, "a", ProjectLag{Backlog: 1, Seconds: 1})
	if l := s.Lags[Runs]; l.Backlog != 8 || l.Seconds != 5 || s.Project(Runs, "a") != (ProjectLag{Backlog: 4, Seconds: 2}) {
		t.Fatalf("%+v", l)
	}
	if s.Project(Rollups, "a") != (ProjectLag{}) {
		t.Fatal("a merger without rows has a lag")
	}
}

// Calls stored between two snapshots count against the bound at once, and
// the next snapshot replaces them; the snapshot handed out earlier is not
// changed under its reader.
func TestGateCountsStoredCallsUntilTheNextSnapshot(t *testing.T) {
	g := &Gate{Limits: Limits{Rollups: 1000}}
	g.Set(snap(Rollups, map[string]int64{"a": 900}))
	before := g.Snapshot()
	if !g.Admit("a").OK {
		t.Fatal("refused under the bound")
	}
	g.Stored("a", 200, 3)
	if g.Snapshot().Project(Runs, "a").Backlog != 3 {
		t.Fatalf("marked runs not counted: %+v", g.Snapshot().Lags[Runs])
	}
	if d := g.Admit("a"); d.OK || d.Backlog != 1100 {
		t.Fatalf("after 200 stored calls: %+v", d)
	}
	if before.Lags[Rollups].Backlog != 900 || before.Project(Rollups, "a").Backlog != 900 {
		t.Fatalf("an earlier snapshot changed: %+v", before.Lags[Rollups])
	}
	// A reading that began before the batch was stored may have missed
	// it: the batch still counts on top of it. One begun after counts it.
	missed := snap(Rollups, map[string]int64{"a": 100})
	missed.Taken = time.Now().Add(-time.Hour)
	g.Set(missed)
	if got := g.Snapshot().Project(Rollups, "a").Backlog; got != 300 {
		t.Fatalf("after a reading begun before the batch: %d calls, want 100 + 200", got)
	}
	later := snap(Rollups, map[string]int64{"a": 100})
	later.Taken = time.Now()
	g.Set(later)
	if got := g.Snapshot().Project(Rollups, "a").Backlog; got != 100 || !g.Admit("a").OK {
		t.Fatalf("after a reading begun after the batch: %d calls", got)
	}
	var nilGate *Gate
	nilGate.Stored("a", 1, 1)
}
