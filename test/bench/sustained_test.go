package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/llmcost/llmcost/extension/costapiextension"
	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/postgres/pgserver"
)

// Knobs of make bench-sustained, all optional.
const (
	// envSustainedEvents is how many calls project A streams (default
	// 10,000,000, the size the targets are stated for; 200000 makes a run of
	// a few minutes).
	envSustainedEvents = "LLMCOST_BENCH_SUSTAINED_EVENTS"
	// envSustainedClients is how many clients stream them (default 4).
	envSustainedClients = "LLMCOST_BENCH_SUSTAINED_CLIENTS"
	// envSustainedBystander is how many calls project B holds before A
	// starts (default 200,000).
	envSustainedBystander = "LLMCOST_BENCH_SUSTAINED_BYSTANDER"
	// envSustainedBystanderDays is how many days B's calls span, ending
	// now (default 90, A's span): at 5, A back-fills months no project
	// had calls of, whose partitions do not exist yet.
	envSustainedBystanderDays = "LLMCOST_BENCH_SUSTAINED_BYSTANDER_DAYS"
	// envSustainedCopy is how many of A's rows the COPY reference copies
	// (default 2,000,000: COPY's rate hardly depends on the count, and
	// copying all ten million would add minutes for nothing).
	envSustainedCopy = "LLMCOST_BENCH_SUSTAINED_COPY"
	// envSustainedAfter is how many times each report is timed right after
	// the stream stops (default 10).
	envSustainedAfter = "LLMCOST_BENCH_SUSTAINED_AFTER_RUNS"
	// envSustainedLagBound is the merge-lag bound in seconds the lag is
	// judged against (unset: printed without a verdict).
	envSustainedLagBound = "LLMCOST_BENCH_SUSTAINED_LAG_BOUND"
	// envSustainedReadEvery is how often each report reader starts a read
	// while A streams (a Go duration, default 200ms; 0 reads back to back).
	// Two dashboards refreshing a report five times a second each are
	// already more than a team's browsers do; a reader looping with no
	// pause measured mostly its own load (it took the cores the mergers
	// needed, and each read waited behind the previous ones' backends).
	envSustainedReadEvery = "LLMCOST_BENCH_SUSTAINED_READ_EVERY"
	// envSustainedRate paces A's stream at that many calls a second
	// (default 0: as fast as the server acknowledges, which saturates the
	// machine's cores). A paced run shows the reads while a given rate
	// streams in, beside the saturating run's.
	envSustainedRate = "LLMCOST_BENCH_SUSTAINED_RATE"
	// envSustainedKeep=1 keeps the run's database for inspection; by
	// default it is dropped at the end (ten million calls take gigabytes).
	envSustainedKeep = "LLMCOST_BENCH_SUSTAINED_KEEP"
)

// sustainedDatabase is the benchmark's database on its own cluster
// (<bench dir>/sustained), made afresh for each run.
const sustainedDatabase = "bench_sustained"

// drainTimeout bounds the wait for the mergers to catch up after the stream.
const drainTimeout = 60 * time.Minute

// sustainedConfig is the run's knobs, read from the environment.
type sustainedConfig struct {
	events, clients, bystander, bystanderDays, copyRows, afterRuns int
	lagBound                                                       float64 // seconds; 0 when unset
	rate                                                           float64 // A's calls a second; 0: unpaced
	readEvery                                                      time.Duration
	// backlogBound is each merger's backlog bound as the server runs it
	// (the server's defaults, or LLMCOST_MAX_MERGE_BACKLOG and
	// LLMCOST_MAX_RUN_BACKLOG when set for the run).
	backlogBound map[string]int64
}

// spec is project A's calls: the default dataset's shape, cfg.events of
// them.
func (c sustainedConfig) spec() benchdata.Spec {
	s := benchdata.Default
	s.Events = c.events
	return s
}

func sustainedConfigFromEnv(b *testing.B) sustainedConfig {
	num := func(name string, def int) int { return envInt(b, name, def) }
	c := sustainedConfig{events: num(envSustainedEvents, 10_000_000), clients: num(envSustainedClients, 4),
		bystander: num(envSustainedBystander, 200_000), bystanderDays: num(envSustainedBystanderDays, benchdata.Default.Days), copyRows: num(envSustainedCopy, 2_000_000),
		afterRuns: num(envSustainedAfter, 10)}
	if v := os.Getenv(envSustainedLagBound); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 {
			b.Fatalf("%s=%q: want seconds", envSustainedLagBound, v)
		}
		c.lagBound = f
	}
	if v := os.Getenv(envSustainedRate); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 {
			b.Fatalf("%s=%q: want calls a second (0: unpaced)", envSustainedRate, v)
		}
		c.rate = f
	}
	c.readEvery = 200 * time.Millisecond
	if v := os.Getenv(envSustainedReadEvery); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			b.Fatalf("%s=%q: want a duration such as 200ms, or 0", envSustainedReadEvery, v)
		}
		c.readEvery = d
	}
	c.copyRows = min(c.copyRows, c.events)
	c.backlogBound = map[string]int64{"rollups": int64(num("LLMCOST_MAX_MERGE_BACKLOG", costapiextension.DefaultMaxMergeBacklog)),
		"runs": int64(num("LLMCOST_MAX_RUN_BACKLOG", costapiextension.DefaultMaxRunBacklog))}
	return c
}

// sustainedRun is everything one run measured, for printing.
type sustainedRun struct {
	cfg                 sustainedConfig
	started, ended      time.Time
	anchor              time.Time // project A's dataset ends here, when its stream started
	loadStart, loadEnd  string
	bystanderTook       time.Duration
	stats               streamStats
	sent, stored        int64
	toLastAck           time.Duration
	drained             map[string]time.Duration // since the stream started
	samples             []lagSample
	lagSource           string
	lagErrs             []string
	reads               *readLog
	copyRate            float64
	copied              int
	budgetSet           string
	budgetStateAtTheEnd string
	procCores           []float64     // per procGroups, while A streamed
	streamErr           error         // the stream stopped on an answer other than 200 or 503
	benchCPU            time.Duration // this process's and the streaming child's CPU while A streamed: the load generator's share of the cores
	busyCores           float64       // the machine's busy cores while A streamed
	serverCores         float64       // llmcost's own process (HTTP, decoding, pricing) while A streamed
	statements          []string      // pg_stat_statements' top statements while A streamed, when asked for
	serverLog           string        // the end of llmcost's log (warnings and errors), read once it stopped
}

// tail is the last n bytes of s, from a line's start.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// processCPU is the user and system CPU so far of this process and of its
// children that have ended (the streaming child, once waited for).
func processCPU() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// BenchmarkSustained is make bench-sustained: project A streams
// LLMCOST_BENCH_SUSTAINED_EVENTS calls of the default dataset through
// POST /v1/events/batch from concurrent clients, as fast as the server
// acknowledges them, while the mergers run as in production; meanwhile
// the merge lag is sampled, every report of A and of a bystander project B
// is read in a loop, and 50 clients poll A's budget state once a second.
// Right after the last acknowledgement every report is timed again while
// the mergers drain, and the time to drain is measured; then the same rows
// are copied raw for the reference rate. Everything is printed as Markdown
// and written to <bench dir>/sustained-<time>.md.
func BenchmarkSustained(b *testing.B) {
	cfg := sustainedConfigFromEnv(b)
	for range b.N {
		r := runSustained(b, cfg)
		out := &mdOut{}
		r.print(out)
		path := filepath.Join(benchDir(), "sustained-"+r.started.Format("20060102T150405Z")+".md")
		if err := os.WriteFile(path, out.buf.Bytes(), 0o644); err != nil {
			b.Errorf("writing %s: %v", path, err)
		} else {
			fmt.Printf("\nwritten to %s\n", path)
		}
		for _, f := range r.failures() {
			b.Error(f)
		}
	}
}

// runSustained runs the benchmark once and returns its figures.
func runSustained(b *testing.B, cfg sustainedConfig) *sustainedRun {
	ctx := context.Background()
	r := &sustainedRun{cfg: cfg, started: time.Now().UTC(), loadStart: benchdata.LoadAverage(), reads: newReadLog()}
	dir := filepath.Join(benchDir(), "sustained")
	server, err := pgserver.Start(ctx, pgserver.Options{DataDir: dir, Settings: sustainedSettings(), StartTimeout: 10 * time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := server.Stop(context.Background()); err != nil {
			b.Errorf("stopping the bench PostgreSQL: %v", err)
		}
	})
	if err := postgres.RecreateDatabase(ctx, withDatabase(server.URL(), "postgres"), sustainedDatabase); err != nil {
		b.Fatal(err)
	}
	if os.Getenv(envSustainedKeep) != "1" {
		b.Cleanup(func() { dropDatabase(b, server.URL(), sustainedDatabase) })
	}
	dbURL := withDatabase(server.URL(), sustainedDatabase)
	srv := startLLMCost(b, dbURL)
	defer srv.stop()
	projA, keyA, tokenA := srv.registerAccount(b)
	projB, keyB := srv.register(b)
	r.budgetSet = setBudget(srv, projA, tokenA)
	db, err := postgres.OpenBulk(ctx, dbURL, 2)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()

	// Project B, the bystander: a small history, merged before A starts.
	t := time.Now()
	bSpec := benchdata.Default
	bSpec.Seed, bSpec.Events, bSpec.Days = benchdata.Default.Seed+1, cfg.bystander, cfg.bystanderDays
	var bStats streamStats
	if err := stream(srv, keyB, bSpec, projB, time.Now().UTC(), cfg.clients, 0, &bStats); err != nil {
		b.Fatalf("project B's calls: %v\nserver log:\n%s", err, tail(srv.output.String(), 3000))
	}
	waitMerged(b, db, projB)
	waitRunsMerged(b, db, projB)
	r.bystanderTook = time.Since(t)
	fmt.Printf("project B: %d calls sent and merged in %s (%d 503s)\n", bStats.acked.Load(), r.bystanderTook.Round(time.Second), bStats.retries.Load())

	r.streamA(b, srv, db, dbURL, projA, keyA, keyB)
	if r.streamErr != nil {
		srv.stop()
		r.serverLog = tail(srv.output.String(), 3000)
		r.ended, r.loadEnd = time.Now().UTC(), benchdata.LoadAverage()
		return r
	}

	// The COPY reference, on a quiet server: llmcost stopped, its mergers
	// done, the same rows stamped with a third project's id.
	projC, _ := srv.register(b)
	srv.stop()
	r.serverLog = tail(srv.output.String(), 3000)
	r.copied, r.copyRate = copyReference(b, db, cfg.spec(), cfg.copyRows, projC, r.anchor)
	r.ended, r.loadEnd = time.Now().UTC(), benchdata.LoadAverage()
	return r
}

// streamA streams project A's calls with the readers, pollers and lag
// sampler running, then times the reports right after while the mergers
// drain, and checks every call is stored once.
func (r *sustainedRun) streamA(b *testing.B, srv *llmcost, db *postgres.DB, dbURL, projA, keyA, keyB string) {
	ctx := context.Background()
	spec := r.cfg.spec()
	var phase atomic.Value
	phase.Store(phaseDuring)
	pollCtx, stopPolls := context.WithCancel(ctx)
	readCtx, stopReads := context.WithCancel(ctx)
	var pollers, readers sync.WaitGroup
	pollers.Go(func() { pollBudget(pollCtx, srv, projA, keyA, &phase, r.reads) })
	pollers.Go(func() { probeWakeups(pollCtx, &phase, r.reads) })
	readers.Go(func() { readCycling(readCtx, srv, keyA, "A", phaseDuring, r.cfg.readEvery, r.reads) })
	readers.Go(func() { readCycling(readCtx, srv, keyB, "B", phaseDuring, r.cfg.readEvery, r.reads) })
	resetStatements, readStatements := statementProfile(dbURL)
	resetStatements()
	cpu0, ticks0 := processCPU(), readCPUTicks(srv.cmd.Process.Pid)
	procs := startProcSampler(srv.cmd.Process.Pid)
	start := time.Now()
	r.anchor = start.UTC()
	sampler := startLagSampler(srv, dbURL, start, r.stats.acked.Load, r.reads)
	fmt.Printf("project A: streaming %d calls from %d clients\n", r.cfg.events, r.cfg.clients)
	err := streamInChild(srv, keyA, spec, projA, r.anchor, r.cfg.clients, r.cfg.rate, &r.stats)
	r.toLastAck = time.Since(start) // when no batch was acknowledged at all
	if last := r.stats.lastAck.Load(); last != 0 {
		r.toLastAck = time.Unix(0, last).Sub(start)
	}
	r.benchCPU = processCPU() - cpu0
	r.busyCores, r.serverCores = cpuShare(ticks0, readCPUTicks(srv.cmd.Process.Pid), time.Since(start))
	r.procCores = procs.stopAndSum()
	r.statements = readStatements()
	phase.Store(phaseAfter)
	stopReads()
	readers.Wait()
	if err != nil {
		// Stop here, but print what was measured so far: the lag and the
		// reads up to the failure say why.
		stopPolls()
		pollers.Wait()
		r.samples = sampler.finish()
		r.lagSource, r.lagErrs = sampler.source, sampler.errs
		r.sent = r.stats.acked.Load()
		r.streamErr = fmt.Errorf("project A's calls: %w (%d acknowledged)", err, r.sent)
		return
	}
	horizon, err := db.MergeHorizon(ctx)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("project A: last batch acknowledged after %s; timing the reports while the mergers drain\n", r.toLastAck.Round(time.Second))

	var drain sync.WaitGroup
	drain.Go(func() { r.drained = waitDrained(srv, db, horizon, start, drainTimeout) })
	var after sync.WaitGroup
	after.Go(func() { readEach(srv, keyA, "A", phaseAfter, r.cfg.afterRuns, r.reads) })
	after.Go(func() { readEach(srv, keyB, "B", phaseAfter, r.cfg.afterRuns, r.reads) })
	after.Wait()
	drain.Wait()
	stopPolls()
	pollers.Wait()
	r.samples = sampler.finish()
	r.lagSource, r.lagErrs = sampler.source, sampler.errs
	r.sent = r.stats.acked.Load()
	if r.stored, err = db.CountEvents(ctx, projA); err != nil {
		b.Fatal(err)
	}
	_, raw, _ := srv.do("GET", "/v1/projects/"+projA+"/budget-state", keyA, nil)
	r.budgetStateAtTheEnd = string(raw)
}

// setBudget gives project A a budget of 1,000 USD with the default
// thresholds, so its calls cross them and the alert drain has work, as in
// production (an API key may not set it: the owner's session does); it
// answers what happened, for the output.
func setBudget(srv *llmcost, projectID, token string) string {
	status, raw, err := srv.do("PUT", "/v1/projects/"+projectID+"/budget", token, []byte(`{"budget": 1000}`))
	if err != nil || status != 200 {
		return fmt.Sprintf("not set (%d %v %.200s)", status, err, raw)
	}
	return "1,000 USD, thresholds 50/80/100 %, mode warn"
}
