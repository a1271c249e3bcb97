package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgserver"
)

// Knobs of make bench-scale, all optional.
const (
	// envScaleFrom is the project's size at the first measurement
	// (default 10,000,000: bench-analytics' dataset, reused when kept).
	envScaleFrom = "LLMCOST_BENCH_SCALE_FROM"
	// envScaleTo is its size at the second (default 30,000,000).
	envScaleTo = "LLMCOST_BENCH_SCALE_TO"
	// envScaleSample is how many calls are streamed over HTTP at each size
	// (default 1,000,000).
	envScaleSample = "LLMCOST_BENCH_SCALE_SAMPLE"
	// envScaleKeep=1 keeps the grown copy (<bench dir>/scale) for
	// inspection; by default it is removed at the end (30 M calls take
	// some 30 GB).
	envScaleKeep = "LLMCOST_BENCH_SCALE_KEEP"
	// envScaleAlign=0 times the reports at the larger size as soon as it
	// is there. By default they wait for the minute of the hour the
	// smaller size's started at: a window's partial first hour is read
	// raw (edgeNote), and /full at 24h took six times as long with 55
	// minutes of it as with 5, far more than the 1.2× the target allows.
	envScaleAlign = "LLMCOST_BENCH_SCALE_ALIGN"
	// envScaleMove=1 moves the base to the run's directory instead of
	// copying it, for a disk without room for both (the base's 18 GB):
	// the next run seeds the base again.
	envScaleMove = "LLMCOST_BENCH_SCALE_MOVE"
)

// scaleRunDir is the grown copy's directory under the bench dir.
const scaleRunDir = "scale"

// scaleConfig is the run's knobs, read from the environment.
type scaleConfig struct {
	from, to, sample, clients int
	align                     bool
}

func scaleConfigFromEnv(b *testing.B) scaleConfig {
	c := scaleConfig{from: envInt(b, envScaleFrom, 10_000_000), to: envInt(b, envScaleTo, 30_000_000),
		sample: envInt(b, envScaleSample, 1_000_000), clients: envInt(b, envSustainedClients, 4),
		align: os.Getenv(envScaleAlign) != "0"}
	if c.to <= c.from {
		b.Fatalf("%s (%d) must be more than %s (%d)", envScaleTo, c.to, envScaleFrom, c.from)
	}
	return c
}

// BenchmarkScale is make bench-scale: one project grows from
// LLMCOST_BENCH_SCALE_FROM to LLMCOST_BENCH_SCALE_TO calls in one run, and
// at each size a fixed sample of calls is streamed through POST
// /v1/events/batch (rate until merged, beside raw COPY of the same rows),
// every report is timed over HTTP, and the disk each table group takes per
// million calls is read; a final table compares the two sizes with the
// targets. The base at FROM is bench-analytics' kept dataset (seeded when
// missing) copied, so the kept one stays as it was; the growth is older
// months at the base's daily rate, loaded in bulk.
func BenchmarkScale(b *testing.B) {
	cfg := scaleConfigFromEnv(b)
	for range b.N {
		t0 := time.Now()
		run := openScaleRun(b, cfg)
		first := run.measure(b, 1, time.Time{})
		run.grow(b, cfg.to)
		alignTo := first.timed
		if !cfg.align {
			alignTo = time.Time{}
		}
		second := run.measure(b, 2, alignTo)
		printScale(cfg, first, second)
		printStatementPages(first.pages, second.pages)
		fmt.Printf("\nbench-scale took %s (growth %s)\n", time.Since(t0).Round(time.Second), run.grew.Round(time.Second))
	}
}

// scaleRun is the growing dataset: a copy of the base on its own server.
type scaleRun struct {
	cfg   scaleConfig
	ds    *dataset // the copy; ds.spec is the base's
	calls int64    // the project's calls: the base's, the samples', the growth's
	grew  time.Duration
}

// openScaleRun opens (or seeds) the base at cfg.from calls, stops it,
// copies its cluster to <bench dir>/scale and serves the copy.
func openScaleRun(b *testing.B, cfg scaleConfig) *scaleRun {
	ctx := context.Background()
	spec := benchdata.Default
	spec.Events = cfg.from
	if err := spec.Validate(); err != nil {
		b.Fatal(err)
	}
	// At bench-analytics' size its kept dataset is the base; another size
	// keeps its own, so a small run never reseeds the 10 M one.
	name := analyticsDataset
	if cfg.from != benchdata.Default.Events {
		name = "scale-base"
	}
	base := openDataset(b, name, spec)
	base.db.Close()
	if err := base.server.Stop(ctx); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(benchDir(), scaleRunDir)
	t := time.Now()
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	how := "copied"
	if os.Getenv(envScaleMove) == "1" {
		how = "moved"
		if err := os.Rename(filepath.Join(benchDir(), name), dir); err != nil {
			b.Fatalf("moving the base: %v", err)
		}
	} else if out, err := exec.Command("cp", "-a", "--reflink=auto", filepath.Join(benchDir(), name), dir).CombinedOutput(); err != nil {
		// cp -a keeps the cluster's owner (the server's user when run as
		// root); --reflink shares the blocks where the file system can.
		b.Fatalf("copying the base: %v\n%s", err, out)
	}
	if err := os.Remove(filepath.Join(dir, "dataset.json")); err != nil {
		b.Fatal(err)
	}
	if os.Getenv(envScaleKeep) != "1" {
		b.Cleanup(func() { _ = os.RemoveAll(dir) })
	}
	fmt.Printf("base %s to %s in %s\n", how, dir, time.Since(t).Round(time.Second))
	run := &scaleRun{cfg: cfg, ds: &dataset{spec: spec, state: base.state}, calls: int64(spec.Events)}
	var err error
	if run.ds.server, err = pgserver.Start(ctx, pgserver.Options{DataDir: dir, Settings: scaleServerSettings(b),
		StartTimeout: 10 * time.Minute}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := run.ds.server.Stop(context.Background()); err != nil {
			b.Errorf("stopping the bench PostgreSQL: %v", err)
		}
	})
	if run.ds.db, err = postgres.OpenBulk(ctx, run.ds.server.URL(), 4); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(run.ds.db.Close)
	run.partitionBase(b)
	return run
}

// partitionBase gives the base's months their partitions when it was
// seeded without (by an older loader: its calls then sit in DEFAULT), as
// the server's first partition run would, but before anything is timed.
func (r *scaleRun) partitionBase(b *testing.B) {
	ctx := context.Background()
	t := time.Now()
	n, err := ensurePartitions(ctx, r.ds.db, r.ds.spec.DayStart(r.ds.state.Anchor, 0), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if n == 0 {
		return
	}
	if _, err := r.ds.db.Pool.Exec(ctx, `VACUUM (ANALYZE) events`); err != nil {
		b.Fatal(err)
	}
	fmt.Printf("base: %d partitions created (calls moved out of DEFAULT) and VACUUM (ANALYZE) events in %s\n", n,
		time.Since(t).Round(time.Second))
}

// grow adds older months to the project until it holds to calls plus the
// samples streamed so far, with llmcost stopped, by the bulk loader.
func (r *scaleRun) grow(b *testing.B, to int) {
	t := time.Now()
	older := olderSlices(r.ds.spec, r.ds.state.Anchor, to)
	first := older[len(older)-1]
	fmt.Printf("\ngrowing from %d to %d calls: %d older slices of history, back to %s\n", r.ds.spec.Events, to, len(older),
		first.spec.DayStart(first.anchor, 0).Format("2006-01-02"))
	bulkLoad(b, r.ds.db, r.ds.state.ProjectID, older)
	for _, s := range older {
		r.calls += int64(s.spec.Events)
	}
	r.grew = time.Since(t)
	fmt.Printf("grown in %s\n", r.grew.Round(time.Second))
}

// olderSlices are the stretches of history before base's (which ends at
// anchor) that bring the project from base.Events to to calls at base's
// daily rate, as a deployment's history grows: each as long as base's (the
// oldest shorter), its sessions in proportion, ending where the next
// younger one starts, each with its own seed and id prefix.
func olderSlices(base benchdata.Spec, anchor time.Time, to int) []historySlice {
	var out []historySlice
	end := base.DayStart(anchor, 0)
	for k, left := 1, to-base.Events; left > 0; k++ {
		s := base
		s.Events = min(left, base.Events)
		s.Days = max(1, (base.Days*s.Events+base.Events/2)/base.Events)
		s.Sessions = max(s.Days, base.Sessions*s.Days/base.Days)
		s.Seed = base.Seed + 1 + uint64(k) // +1 is the samples' (sampleSpec)
		s.Prefix = fmt.Sprintf("h%d-", k)
		out = append(out, historySlice{spec: s, anchor: end})
		end = s.DayStart(end, 0)
		left -= s.Events
	}
	return out
}
