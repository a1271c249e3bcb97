package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/backlog"
	"github.com/llmcost/llmcost/internal/event"
)

// TestMergeStepsThroughABacklog builds a backlog of 40 batches, then merges
// it in slices of 100 calls: every step commits and moves the watermark
// (never the whole backlog at once), a step that fails (a statement
// timeout of a millisecond) leaves the watermark where it was and the next
// step merges that slice, the lag the gate reads falls with every step, and
// the rollups come out equal to a Go sum over the calls.
func TestMergeStepsThroughABacklog(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p, other := newProject(t, db), newProject(t, db)
	rng := rand.New(rand.NewPCG(27, 1))
	t0 := time.Date(2026, 5, 30, 22, 0, 0, 0, time.UTC)
	kept := map[string]event.Event{}
	for i := range 40 {
		batch := randomEvents(rng, p, 50, t0)
		for j := range batch {
			batch[j].EventID = fmt.Sprintf("b%d-%d", i, j)
			kept[batch[j].EventID] = batch[j]
		}
		if _, err := db.Write(ctx, batch, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Write(ctx, randomEvents(rng, other, 20, t0), nil); err != nil {
		t.Fatal(err)
	}
	lag, err := db.MergeLags(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := lag.Project(backlog.Rollups, p).Backlog; got != 2000 {
		t.Fatalf("lag before merging: %d calls of the project, want 2000", got)
	}
	horizon, err := db.MergeHorizon(ctx)
	if err != nil {
		t.Fatal(err)
	}

	db.MergeSlice, db.MergeTimeout = 100, time.Millisecond
	failed, err := db.MergeStep(ctx, horizon)
	if err == nil || failed.Steps != 0 {
		t.Fatalf("a step under a 1 ms statement timeout: %+v, %v; want a timeout", failed, err)
	}
	db.MergeTimeout = 0
	var watermarks []int64
	last := lag.Project(backlog.Rollups, p).Backlog
	for step := 0; ; step++ {
		res, err := db.MergeStep(ctx, horizon)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if res.Steps == 0 {
			break
		}
		if n := len(watermarks); n > 0 && res.Watermark <= watermarks[n-1] {
			t.Fatalf("step %d did not move the watermark: %d after %d", step, res.Watermark, watermarks[n-1])
		}
		watermarks = append(watermarks, res.Watermark)
		lag, err := db.MergeLags(ctx)
		if err != nil {
			t.Fatal(err)
		}
		now := lag.Project(backlog.Rollups, p).Backlog
		if now >= last && now != 0 {
			t.Fatalf("step %d: the project's lag went from %d to %d calls", step, last, now)
		}
		if last-now > 150 {
			t.Fatalf("step %d merged %d calls of a 100-call slice (batches of 50)", step, last-now)
		}
		last = now
	}
	if len(watermarks) < 15 {
		t.Fatalf("2,020 calls merged in %d steps of at most 100 calls", len(watermarks))
	}
	lag, err = db.MergeLags(ctx)
	if err != nil || lag.Lags[backlog.Rollups].Backlog != 0 {
		t.Fatalf("lag after the backlog: %+v, %v", lag.Lags[backlog.Rollups], err)
	}
	compareRollups(t, "after sliced merging", readRollups(t, db, p), expectRollups(kept))
}

// TestMergeRollupsStopsAtItsHorizon: MergeRollups merges what was stored
// before it was called, in slices, and returns.
func TestMergeRollupsStopsAtItsHorizon(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	p := newProject(t, db)
	for i := range 10 {
		if _, err := db.Write(ctx, []event.Event{call(p, fmt.Sprint("c", i), 10)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	db.MergeSlice = 3
	res, err := db.MergeRollups(ctx)
	if err != nil || res.Steps < 4 {
		t.Fatalf("merged %+v (%v): want the ten one-call batches in slices of three", res, err)
	}
	if n, err := db.TailEvents(ctx, p); err != nil || n != 0 {
		t.Fatalf("%d calls left in the tail (%v)", n, err)
	}
}
