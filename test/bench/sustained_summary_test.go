package bench

import "github.com/llmcost/llmcost/internal/timings"

// printSummary lists the sustained checks with their verdicts, ahead of the
// tables they come from, so a run is judged at a glance.
func (r *sustainedRun) printSummary(o *mdOut) {
	o.printf("\n| Sustained-load check | Result | Verdict |\n|---|---|---|\n")
	if r.streamErr == nil {
		at, merged := r.mergedAt()
		rate := float64(r.sent) / at.Seconds()
		switch {
		case !merged:
			o.printf("| merged rate ≥ %d calls/s and ≥ %.1f of COPY | not drained | **MISS** |\n", targetMergedRate, targetMergedRatio)
		default:
			o.printf("| merged rate ≥ %d calls/s | %.0f calls/s | %s |\n", targetMergedRate, rate, verdict(rate >= targetMergedRate))
			o.printf("| merged rate ≥ %.1f of raw COPY | %.2f | %s |\n", targetMergedRatio, rate/r.copyRate, verdict(rate/r.copyRate >= targetMergedRatio))
		}
		o.printf("| every acknowledged call stored once | %d of %d | %s |\n", r.stored, r.sent, verdict(r.stored == r.sent))
	}
	stats := lagStats(r.samples, r.toLastAck)
	worst := 0.0
	for _, s := range stats {
		worst = max(worst, s.maxLag)
	}
	if r.cfg.lagBound > 0 {
		o.printf("| merge lag ≤ %.0f s throughout ingest | worst %.1f s | %s |\n", r.cfg.lagBound, worst, verdict(worst <= r.cfg.lagBound))
	}
	for _, name := range []string{"rollups", "runs"} {
		b, s := r.cfg.backlogBound[name], stats[name]
		o.printf("| %s backlog within the server's bound throughout ingest (≤ %d, + %d admitted in flight) | max %d, p95 %d (oldest %.1f s) | %s |\n",
			name, b, r.inFlight(), s.maxBacklog, s.p95Backlog, s.maxLag, verdict(s.n > 0 && s.maxBacklog <= b+r.inFlight()))
	}
	for _, rp := range [][2]string{{"A", phaseDuring}, {"A", phaseAfter}, {"B", phaseDuring}, {"B", phaseAfter}} {
		within, timed := r.reportsWithin(rp[0], rp[1])
		what := map[string]string{"A": "A's (the back-filler)", "B": "B's (the bystander)"}[rp[0]]
		o.printf("| every report of %s within target, %s | %d of %d | %s |\n", what, rp[1], within, timed, verdict(within == timed && timed > 0))
	}
	if s := r.reads.sorted("budget-state", phaseDuring, "budget-state", ""); len(s) > 0 {
		p99 := timings.Percentile(s, 99)
		o.printf("| budget-state p99 ≤ %d ms, %d pollers, during ingest | %s ms | %s |\n", targetBudgetP99.Milliseconds(),
			budgetPollers, ms(p99), verdict(p99 <= targetBudgetP99))
	}
	var n5xx int
	for _, rp := range readerPhases {
		n, nErr := r.reads.count5xx(rp[0], rp[1])
		n5xx += n + nErr
	}
	o.printf("| no 5xx (nor transport error) on any read | %d | %s |\n", n5xx, verdict(n5xx == 0))
}

// reportsWithin counts the (report, range) pairs a reader timed in a
// phase and those whose p95 is within target.
func (r *sustainedRun) reportsWithin(reader, phase string) (within, timed int) {
	for _, rd := range reportReads() {
		s := r.reads.sorted(reader, phase, rd.name, rd.rng)
		target, has := reportTarget(rd.name)
		if len(s) == 0 || !has {
			continue
		}
		timed++
		if timings.Percentile(s, 95) <= target {
			within++
		}
	}
	return within, timed
}
