package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/benchdata"
)

// BenchmarkAnalytics is make bench-analytics: it seeds (or reuses) the
// 10 M-event project, measures ingest with rollups beside raw COPY, times a
// naive GROUP BY over raw events, then serves the seeded database with
// bin/llmcost and times every report and dashboard page over HTTP, streams
// a week of calls through the calls export (rows per second, the server's
// resident memory), and prints the disk each table takes. Figures go to stdout as Markdown tables.
func BenchmarkAnalytics(b *testing.B) {
	spec := specFromEnv(b)
	t0 := time.Now()
	ds := openDataset(b, analyticsDataset, spec)
	fmt.Printf("dataset ready in %s: %s\n", time.Since(t0).Round(time.Second), spec.Key())
	for range b.N {
		if os.Getenv(envReportsOnly) != "1" {
			measureIngestAndNaive(b, ds)
			settle(b, ds)
		}
		if os.Getenv(envIngestOnly) == "1" {
			continue
		}
		srv := startLLMCost(b, ds.server.URL())
		key := rotateKey(b, ds.db, ds.state.ProjectID)
		timed := time.Now().UTC()
		ts := timeReports(b, srv, key, benchdata.AgentName(0))
		reportsEnd := time.Now().UTC()
		detail := timeTraceDetail(b, srv, key, benchdata.TraceID(spec.Days-1, 0))
		agents := timeAgentView(b, srv, key, benchdata.AgentName(0))
		pages := timePages(b, srv, dashSession(b, srv, ds.db, ds.state.ProjectID), ds.state.ProjectID, benchdata.TraceID(spec.Days-1, 0))
		export := timeCallsExport(b, srv, key, ds.state.Anchor)
		// Last, and removed again: with breaching guardrails the agent view
		// also judges them and prices each breach (postgres.BreachCost).
		guardAgents(b, ds.db, ds.state.ProjectID)
		ts = append(ts, timeCompliance(b, srv, key))
		guarded := timeAgentView(b, srv, key, benchdata.AgentName(0))
		unguardAgents(b, ds.db, ds.state.ProjectID)
		srv.stop()
		printTable("Report", ranges, ts)
		fmt.Println(edgeNote(timed, reportsEnd, ds.state.Anchor))
		// The optimisations (no range, 30 days) fill the 30d column.
		printTable("Agent view and optimisations", agentViewRanges, agents)
		printTable("The same with breaching guardrails", agentViewRanges, guarded)
		printPages(pages)
		if detail.served {
			fmt.Printf("\ntraces/{trace_id} (one run's detail, no range): p50 %s ms, p95 %s ms\n",
				ms(detail.p50[""]), ms(detail.p95[""]))
		}
		printExport(export)
		b.ReportMetric(float64(export.rows)/export.took.Seconds(), "export_rows/s")
		b.ReportMetric(float64(export.rss.peak)/(1<<20), "export_peak_rss_MB")
		b.ReportMetric(float64(worstP95(ts, "90d").Microseconds())/1000, "worst_p95_90d_ms")
		printSizes(b, ds)
	}
}

// measureIngestAndNaive prints the ingest comparison and the naive GROUP BY
// over raw events.
func measureIngestAndNaive(b *testing.B, ds *dataset) {
	load := benchdata.LoadAverage()
	ing, ackRatio, mergedRatio := ingestRuns(b, ds)
	fmt.Printf("\ningest:  median %.0f events/s through /v1/events/batch until the last batch is acknowledged (%d clients, %d-event batches)\n",
		ing.Ingest, ingestClients, ingestBatch)
	fmt.Printf("merged:  %.0f events/s until the merger has folded the last batch into the rollups\n", ing.Merged)
	fmt.Printf("runs:    %.0f events/s until the run merger has refreshed the last run (a second after its last batch)\n", ing.Runs)
	fmt.Printf("copy:    %.0f events/s raw COPY of the same rows into events alone, llmcost stopped\n", ing.Copy)
	fmt.Printf("ratio:   %.2f of COPY acknowledged (%.2f–%.2f), %.2f merged (%.2f–%.2f) (medians and ranges of %d runs; load average %s before the first)\n",
		ackRatio.med, ackRatio.lo, ackRatio.hi, mergedRatio.med, mergedRatio.lo, mergedRatio.hi, ingestRepeats, load)
	b.ReportMetric(ackRatio.med, "ingest/copy")
	b.ReportMetric(mergedRatio.med, "merged/copy")
	naive := timeNaive(b, ds)
	fmt.Printf("naive:   GROUP BY agent_name over raw events (no rollups), median of 3: 90d %s ms, 7d %s ms, 24h %s ms\n",
		ms(naive["90d"]), ms(naive["7d"]), ms(naive["24h"]))
}

// ingestRepeats is how many times the ingest comparison runs. The ratio
// swings with the host more than with the code (the same binary's runs
// within minutes spread by a factor of two, COPY alone too:
// docs/performance.md), so the medians and ranges are printed, of five
// runs rather than three.
const ingestRepeats = 5

// spread is the median and range of one figure over the runs.
type spread struct{ med, lo, hi float64 }

// spreadOf sorts v and answers its median (the upper one of an even
// count) and range.
func spreadOf(v []float64) spread {
	slices.Sort(v)
	return spread{med: v[len(v)/2], lo: v[0], hi: v[len(v)-1]}
}

// ingestRuns runs the ingest comparison ingestRepeats times, printing each
// run, and returns the median of each rate and the spread of the two
// ratios to COPY.
func ingestRuns(b *testing.B, ds *dataset) (med ingestResult, ackRatio, mergedRatio spread) {
	var ing, merged, runs, cp, ri, rm []float64
	for i := range ingestRepeats {
		r := measureIngest(b, ds)
		fmt.Printf("ingest run %d: %.0f events/s acknowledged, %.0f merged, %.0f runs merged, %.0f COPY (%.2f, %.2f, %.2f of COPY)\n",
			i+1, r.Ingest, r.Merged, r.Runs, r.Copy, r.Ingest/r.Copy, r.Merged/r.Copy, r.Runs/r.Copy)
		ing, merged, runs, cp = append(ing, r.Ingest), append(merged, r.Merged), append(runs, r.Runs), append(cp, r.Copy)
		ri, rm = append(ri, r.Ingest/r.Copy), append(rm, r.Merged/r.Copy)
	}
	m := func(v []float64) float64 { return spreadOf(v).med }
	return ingestResult{Ingest: m(ing), Merged: m(merged), Runs: m(runs), Copy: m(cp)}, spreadOf(ri), spreadOf(rm)
}

// timeNaive times the naive per-agent spend query over raw events, three
// times per range, and returns the medians.
func timeNaive(b *testing.B, ds *dataset) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, r := range ranges {
		window := map[string]time.Duration{"24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "90d": 90 * 24 * time.Hour}[r]
		took := make([]time.Duration, 3)
		for i := range took {
			start := time.Now()
			if _, err := ds.db.NaiveSpendByAgent(context.Background(), ds.state.ProjectID, time.Now().Add(-window)); err != nil {
				b.Fatal(err)
			}
			took[i] = time.Since(start)
		}
		slices.Sort(took)
		out[r] = took[1]
	}
	return out
}

func worstP95(ts []timing, r string) time.Duration {
	var worst time.Duration
	for _, t := range ts {
		if t.served {
			worst = max(worst, t.p95[r])
		}
	}
	return worst
}

// printSizes lists every table of at least 1 MB with its total size
// (indexes and TOAST included).
func printSizes(b *testing.B, ds *dataset) {
	sizes, err := ds.db.TableSizes(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("\n| Table | Size (MB, with indexes) | Rows (estimate) |\n|---|---|---|\n")
	for _, s := range sizes {
		if s.Bytes >= 1<<20 {
			fmt.Printf("| %s | %.0f | %d |\n", s.Name, float64(s.Bytes)/(1<<20), s.Rows)
		}
	}
}
