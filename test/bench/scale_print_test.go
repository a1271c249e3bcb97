package bench

import (
	"fmt"
	"strings"
)

// Targets of the scale check (issue "A billion calls"): ingest at the
// larger size at least targetScaleIngest of ingest at the smaller, every
// report's p95 at most targetScaleP95 times its p95 at the smaller and
// within its absolute target (reportTarget); the server's resident memory
// during ingest flat, read as a peak at most targetScaleRSS times the
// smaller size's.
const (
	targetScaleIngest = 0.9
	targetScaleP95    = 1.2
	targetScaleRSS    = 1.2
)

// scaleRow is one line of the final table.
type scaleRow struct {
	metric          string
	from, to, ratio string
	target          string
	verdict         string // ✔, ✘, or empty without a target
}

func mark(ok bool) string {
	if ok {
		return "✔"
	}
	return "✘"
}

// scaleRows compares the two sizes: ingest, memory, disk per million calls
// by table group, then every report's p95 in every range.
func scaleRows(a, z scalePhase) []scaleRow {
	f0 := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	ratio := func(x, y float64) string { return fmt.Sprintf("%.2f", y/x) }
	rows := []scaleRow{
		{"ingest over HTTP until merged (calls/s)", f0(a.mergedRate()), f0(z.mergedRate()), ratio(a.mergedRate(), z.mergedRate()),
			fmt.Sprintf("≥ %.1f×", targetScaleIngest), mark(z.mergedRate() >= targetScaleIngest*a.mergedRate())},
		{"ingest over HTTP until acknowledged (calls/s)", f0(a.ackedRate()), f0(z.ackedRate()), ratio(a.ackedRate(), z.ackedRate()), "–", ""},
		{"raw COPY of the same rows (rows/s)", f0(a.copyRate), f0(z.copyRate), ratio(a.copyRate, z.copyRate), "–", ""},
		{"merged / COPY", fmt.Sprintf("%.2f", a.mergedRate()/a.copyRate), fmt.Sprintf("%.2f", z.mergedRate()/z.copyRate), "", "–", ""},
	}
	if a.rss.sampled && z.rss.sampled {
		mb := func(v int64) string { return f0(float64(v) / (1 << 20)) }
		rows = append(rows, scaleRow{"llmcost's resident memory, peak during ingest (MB)", mb(a.rss.peak), mb(z.rss.peak),
			ratio(float64(a.rss.peak), float64(z.rss.peak)), fmt.Sprintf("flat: ≤ %.1f×", targetScaleRSS),
			mark(float64(z.rss.peak) <= targetScaleRSS*float64(a.rss.peak))})
	}
	rows = append(rows, scaleRow{"events' partitions (months, DEFAULT, the months ahead)", fmt.Sprint(a.partitions),
		fmt.Sprint(z.partitions), "", "–", ""})
	var totalA, totalZ float64
	perMillion := func(p scalePhase, bytes int64) float64 { return float64(bytes) / (1 << 20) / (float64(p.calls) / 1e6) }
	for _, g := range tableGroups {
		x, y := perMillion(a, a.disk[g]), perMillion(z, z.disk[g])
		totalA, totalZ = totalA+x, totalZ+y
		rows = append(rows, scaleRow{"disk per million calls: " + g + " (MB)", f0(x), f0(y), ratio(x, y), "–", ""})
	}
	rows = append(rows, scaleRow{"disk per million calls: all tables (MB)", f0(totalA), f0(totalZ), ratio(totalA, totalZ), "–", ""})
	for i, t := range a.reports {
		if i >= len(z.reports) || z.reports[i].name != t.name || !t.served || !z.reports[i].served {
			continue
		}
		abs, hasAbs := reportTarget(t.name)
		for _, rng := range ranges {
			x, y := t.p95[rng], z.reports[i].p95[rng]
			target, ok := fmt.Sprintf("≤ %.1f×", targetScaleP95), float64(y) <= targetScaleP95*float64(x)
			if hasAbs {
				target += fmt.Sprintf(", ≤ %d ms", abs.Milliseconds())
				ok = ok && y <= abs
			}
			rows = append(rows, scaleRow{fmt.Sprintf("p95 %s %s (ms)", t.name, rng), ms(x), ms(y),
				ratio(float64(x), float64(y)), target, mark(ok)})
		}
	}
	return rows
}

// printScale prints the final table and a count of its verdicts.
func printScale(cfg scaleConfig, a, z scalePhase) {
	fmt.Printf("\n## make bench-scale: %d → %d calls (%d-call HTTP sample at each size, %d clients)\n\n", cfg.from, cfg.to,
		cfg.sample, cfg.clients)
	fmt.Printf("Reports timed from %s UTC at the smaller size, from %s UTC at the larger.\n\n", a.timed.Format("15:04:05"),
		z.timed.Format("15:04:05"))
	fmt.Printf("| Metric | at %d calls | at %d calls | ratio | target | |\n|---|---|---|---|---|---|\n", a.calls, z.calls)
	counts := map[string]int{}
	var missed []string
	for _, r := range scaleRows(a, z) {
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", r.metric, r.from, r.to, r.ratio, r.target, r.verdict)
		counts[r.verdict]++
		if r.verdict == "✘" {
			missed = append(missed, r.metric)
		}
	}
	fmt.Printf("\n%d ✔, %d ✘", counts["✔"], counts["✘"])
	if len(missed) > 0 {
		fmt.Printf(": %s", strings.Join(missed, "; "))
	}
	fmt.Println("\n(every report's p50 and p95 at each size: the two Report tables above)")
}
