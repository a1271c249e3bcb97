// Package backlog says how far llmcost's asynchronous mergers are behind
// ingest and whether a project's next batch may be stored now. Reports stay
// exact by reading what the mergers have not folded yet raw, so their
// speed depends on that backlog; ingest pushes back (503 with Retry-After)
// before it grows past a bound, and it pushes back on the projects that
// make it, so one project's back-fill is that project's wait. Pure: the
// store reads the figures, the extension refreshes them, the API asks.
package backlog

import (
	"sync"
	"time"
)

// Merger names one asynchronous merger.
type Merger string

// The mergers: the rollup merger (events into the analytics rollups,
// backlog in calls), the run merger (marked runs into the run tables,
// backlog in runs) and the alert drain (queued alerts, in queued rows).
const (
	Rollups Merger = "rollups"
	Runs    Merger = "runs"
	Alerts  Merger = "alerts"
)

// Mergers lists every merger, in the order they are shown.
var Mergers = []Merger{Rollups, Runs, Alerts}

// ProjectLag is one project's share of a merger's backlog.
type ProjectLag struct {
	// Backlog is the work waiting: calls, runs or queued rows.
	Backlog int64
	// Seconds is the age of the oldest item waiting.
	Seconds float64
}

// Lag is one merger's backlog over the deployment and per project.
type Lag struct {
	ProjectLag
	Projects map[string]ProjectLag
}

// Snapshot is every merger's lag at one instant.
type Snapshot struct {
	Taken time.Time
	Lags  map[Merger]Lag
}

// Add counts a project's backlog in merger m.
func (s *Snapshot) Add(m Merger, project string, p ProjectLag) {
	if s.Lags == nil {
		s.Lags = map[Merger]Lag{}
	}
	l := s.Lags[m]
	if l.Projects == nil {
		l.Projects = map[string]ProjectLag{}
	}
	old := l.Projects[project]
	l.Projects[project] = ProjectLag{Backlog: old.Backlog + p.Backlog, Seconds: max(old.Seconds, p.Seconds)}
	l.Backlog += p.Backlog
	l.Seconds = max(l.Seconds, p.Seconds)
	s.Lags[m] = l
}

// Project is the lag of one project in merger m (zero when it has none).
func (s Snapshot) Project(m Merger, project string) ProjectLag {
	return s.Lags[m].Projects[project]
}

// Limits bound the backlogs ingest lets build up; 0 leaves a merger
// unbounded.
type Limits struct {
	// Rollups bounds the calls stored and not yet merged into the rollups:
	// every report reads them raw.
	Rollups int64
	// Runs bounds the runs marked and not yet refreshed: a run report
	// refreshes its project's marked runs before it reads.
	Runs int64
}

func (l Limits) of(m Merger) int64 {
	switch m {
	case Rollups:
		return l.Rollups
	case Runs:
		return l.Runs
	}
	return 0
}

// Decision is whether a batch may be stored now.
type Decision struct {
	OK bool
	// Merger is the merger that is too far behind, with its deployment
	// backlog, the bound, and the project's share of the backlog.
	Merger                  Merger
	Backlog, Bound, Project int64
	// RetryAfter is when the client should send the batch again.
	RetryAfter time.Duration
}

// MaxRetryAfter caps the delay a refused client is asked to wait.
const MaxRetryAfter = 30 * time.Second

// Admit decides whether project may store a batch now. A merger whose
// deployment backlog is over its bound refuses the projects that hold at
// least an equal share of the bound (the bound divided among the projects
// with a backlog): the project that floods it waits, the others are still
// served, and the backlog falls back under the bound as the merger drains
// it. The refused client is asked to wait about as long as the merger
// needs for the project's excess (one second per half bound, at least
// one, at most MaxRetryAfter).
func (l Limits) Admit(s Snapshot, project string) Decision {
	for _, m := range Mergers {
		bound, lag := l.of(m), s.Lags[m]
		if bound <= 0 || lag.Backlog <= bound {
			continue
		}
		mine := lag.Projects[project].Backlog
		share := bound / int64(max(1, len(lag.Projects)))
		if mine == 0 || mine < share {
			continue
		}
		wait := time.Second + time.Duration(float64(mine-share)/float64(bound)*float64(2*time.Second))
		return Decision{Merger: m, Backlog: lag.Backlog, Bound: bound, Project: mine,
			RetryAfter: min(wait.Round(time.Second), MaxRetryAfter)}
	}
	return Decision{OK: true}
}

// Gate holds the latest snapshot for the ingest handlers to ask, plus what
// this instance stored since that snapshot was read: between two readings
// a burst would otherwise overshoot the bound by all it sent meanwhile.
type Gate struct {
	Limits Limits
	mu     sync.Mutex
	// snap is the last snapshot read plus stored.
	snap   Snapshot
	stored []storedBatch
}

// storedBatch is what one batch stored and marked, and when.
type storedBatch struct {
	at            time.Time
	project       string
	calls, marked int64
}

// Set replaces the snapshot. Its Taken must be when its reading began:
// what was stored since then is counted on top of it again, since the
// reading may have missed it (a snapshot taken before a batch committed
// and set after it), and what was stored before is in the reading.
func (g *Gate) Set(s Snapshot) {
	g.mu.Lock()
	defer g.mu.Unlock()
	kept := g.stored[:0]
	for _, b := range g.stored {
		if !b.at.Before(s.Taken) {
			kept = append(kept, b)
		}
	}
	g.snap, g.stored = s, kept
	for _, b := range kept {
		g.snap = withStored(g.snap, b)
	}
}

// Stored adds what a batch of project just stored (calls, for the rollup
// merger) and marked (runs, for the run merger) to their backlogs until a
// snapshot read after it counts them.
func (g *Gate) Stored(project string, calls, runs int64) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	b := storedBatch{at: time.Now(), project: project, calls: calls, marked: runs}
	g.stored = append(g.stored, b)
	g.snap = withStored(g.snap, b)
}

// withStored is s with b added, its maps copied: snapshots handed out
// earlier stay as they were.
func withStored(s Snapshot, b storedBatch) Snapshot {
	lags := make(map[Merger]Lag, len(s.Lags)+2)
	for m, l := range s.Lags {
		lags[m] = l
	}
	s.Lags = lags
	for m, n := range map[Merger]int64{Rollups: b.calls, Runs: b.marked} {
		if n <= 0 {
			continue
		}
		l := lags[m]
		projects := make(map[string]ProjectLag, len(l.Projects)+1)
		for p, v := range l.Projects {
			projects[p] = v
		}
		l.Projects = projects
		lags[m] = l
		s.Add(m, b.project, ProjectLag{Backlog: n})
	}
	return s
}

// Snapshot is the latest snapshot (empty before the first). It is
// shared: callers must not change its maps.
func (g *Gate) Snapshot() Snapshot {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.snap
}

// Admit decides on the latest snapshot; a nil gate admits everything.
func (g *Gate) Admit(project string) Decision {
	if g == nil {
		return Decision{OK: true}
	}
	return g.Limits.Admit(g.Snapshot(), project)
}
