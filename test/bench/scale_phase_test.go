package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
)

// scalePhase is what one size measured.
type scalePhase struct {
	calls         int64 // the project's calls when the reports and the disk were read, the sample included
	sample        int
	acked, merged time.Duration // from the sample's first batch to its last acknowledgement, and until merged
	copied        int
	copyRate      float64 // rows/s
	rss           rssRange
	reports       []timing
	timed         time.Time                // when the reports' timing started
	disk          map[string]int64         // bytes per table group
	partitions    int                      // events' partitions, DEFAULT and the months ahead included
	pages         map[int64]statementPages // with envScalePages, what each statement read during the reports
}

// Rates of the sample, calls per second.
func (p scalePhase) ackedRate() float64  { return float64(p.sample) / p.acked.Seconds() }
func (p scalePhase) mergedRate() float64 { return float64(p.sample) / p.merged.Seconds() }

// sampleSpec is the calls streamed at each size: the sustained
// benchmark's shape (the default dataset's agents, users, sessions and
// workflows over 90 days ending when the stream starts), cfg.sample of
// them, the same rows at both sizes but for their ids (prefix s1-, s2-),
// so none is a replay of another.
func sampleSpec(cfg scaleConfig, phase int) benchdata.Spec {
	s := benchdata.Default
	s.Events = cfg.sample
	s.Seed = benchdata.Default.Seed + 1
	s.Prefix = fmt.Sprintf("s%d-", phase)
	return s
}

// measure is one size's phase: the sample streamed from a child process
// through bin/llmcost with its mergers running, timed until acknowledged
// and until merged (rollups and runs), the server's resident memory
// sampled meanwhile; the disk per table group; every report timed as
// bench-analytics times them; then, llmcost stopped, raw COPY of the same
// rows into another project of the same database, removed afterwards.
// The reports start at alignTo's minute of the hour unless it is zero.
func (r *scaleRun) measure(b *testing.B, phase int, alignTo time.Time) scalePhase {
	ctx := context.Background()
	db, projectID := r.ds.db, r.ds.state.ProjectID
	spec := sampleSpec(r.cfg, phase)
	fmt.Printf("\n## At %d calls\n\nstreaming %d calls (%s) from %d clients; load average %s\n", r.calls, spec.Events,
		spec.Key(), r.cfg.clients, benchdata.LoadAverage())
	srv := startLLMCost(b, r.ds.server.URL())
	defer srv.stop()
	key := rotateKey(b, db, projectID)
	guardAgents(b, db, projectID)
	p := scalePhase{sample: spec.Events}
	stopRSS := sampleRSS(srv.cmd.Process.Pid)
	anchor := time.Now().UTC()
	var st streamStats
	if err := streamInChild(srv, key, spec, projectID, anchor, r.cfg.clients, 0, &st); err != nil {
		b.Fatalf("the sample: %v\nserver log:\n%s", err, tail(srv.output.String(), 3000))
	}
	p.acked = time.Unix(0, st.lastAck.Load()).Sub(anchor)
	waitMerged(b, db, projectID)
	waitRunsMerged(b, db, projectID)
	p.merged = time.Since(anchor)
	p.rss = stopRSS()
	// Every call in events is the project's: the other projects hold none
	// but the COPY's, removed below.
	var err error
	if p.calls, err = db.CountEvents(ctx, projectID); err != nil || p.calls != r.calls+int64(spec.Events) {
		b.Fatalf("the project holds %d calls after the sample, want %d + %d (%v)", p.calls, r.calls, spec.Events, err)
	}
	r.calls = p.calls
	fmt.Printf("ingest: %.0f calls/s acknowledged (%s), %.0f calls/s merged (%s); %d 503s; server RSS %s\n",
		p.ackedRate(), p.acked.Round(time.Millisecond), p.mergedRate(), p.merged.Round(time.Millisecond),
		st.retries.Load(), p.rss.text())
	p.disk = diskByGroup(b, r)
	parts, err := db.EventPartitions(ctx)
	if err != nil {
		b.Fatal(err)
	}
	p.partitions = len(parts)
	settle(b, r.ds)
	if !alignTo.IsZero() {
		wait := untilMinute(time.Now(), alignTo)
		fmt.Printf("waiting %s to time the reports from minute %02d as at the smaller size (%s=0 does not wait)\n",
			wait.Round(time.Second), alignTo.Minute(), envScaleAlign)
		time.Sleep(wait)
	}
	r.resetPages(b)
	p.timed = time.Now().UTC()
	p.reports = append(timeReports(b, srv, key, benchdata.AgentName(0)), timeCompliance(b, srv, key))
	p.pages = r.readPages(b)
	printTable(fmt.Sprintf("Report at %d calls", p.calls), ranges, p.reports)
	fmt.Println(edgeNote(p.timed, time.Now().UTC(), anchor))

	other, _ := srv.register(b)
	srv.stop()
	p.copied, p.copyRate = copyReference(b, db, spec, spec.Events, other, anchor)
	fmt.Printf("\ncopy:   %.0f rows/s raw COPY of the same %d rows into another project, llmcost stopped (merged / COPY %.2f)\n",
		p.copyRate, p.copied, p.mergedRate()/p.copyRate)
	// The copy's rows go, so that they are neither in the next size's disk
	// nor in its tables' statistics; the growth's VACUUM frees their space.
	if _, err := db.Pool.Exec(ctx, `DELETE FROM events WHERE project_id = $1`, other); err != nil {
		b.Fatal(err)
	}
	return p
}

// untilMinute is how long from now until the clock is next at start's
// minute and second of the hour: zero when it is there now.
func untilMinute(now, start time.Time) time.Duration {
	return (start.Sub(now)%time.Hour + time.Hour) % time.Hour
}

// text is the range in MB, or why there is none.
func (r rssRange) text() string {
	if !r.sampled {
		return "not sampled (no /proc)"
	}
	return fmt.Sprintf("%.0f MB before, %.0f MB peak", float64(r.before)/(1<<20), float64(r.peak)/(1<<20))
}

// Table groups of the disk figures, in print order.
var tableGroups = []string{"events", "rollups", "run tables", "other"}

// tableGroup is the group of a table: the raw calls (every partition,
// their indexes and TOAST); the rollups the spend reports and the agent
// view read; the run tables (runs, their steps, tools, repeats, day
// rollups, pending marks, and the outcomes, one per run); the rest.
func tableGroup(name string) string {
	switch {
	case name == "events":
		return "events"
	case strings.HasPrefix(name, "rollup_") || strings.HasPrefix(name, "agent_"):
		return "rollups"
	case strings.HasPrefix(name, "run_") || strings.HasPrefix(name, "runs") || name == "outcomes":
		return "run tables"
	}
	return "other"
}

// diskByGroup sums pg_total_relation_size over each group's tables (a
// partitioned one over its partitions: postgres.TableSizes).
func diskByGroup(b *testing.B, r *scaleRun) map[string]int64 {
	ctx := context.Background()
	sizes, err := r.ds.db.TableSizes(ctx)
	if err != nil {
		b.Fatal(err)
	}
	out := map[string]int64{}
	for _, s := range sizes {
		out[tableGroup(s.Name)] += s.Bytes
	}
	return out
}
