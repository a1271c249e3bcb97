package agentview

import (
	"slices"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/runs"
)

// Latency holds the latency percentiles of an agent's calls that reported
// latency_ms (percentile_cont, exact, rounded half away from zero to two
// decimals); all nil over no sample.
type Latency struct {
	P50, P95, P99, Avg *float64
	SampleSize         int64
}

// LatencyOf computes the latency figures of the given latencies (ms).
func LatencyOf(ms []int64) Latency {
	out := Latency{SampleSize: int64(len(ms))}
	if len(ms) == 0 {
		return out
	}
	sorted := slices.Clone(ms)
	slices.Sort(sorted)
	out.P50 = analytics.Round2(runs.Percentile(sorted, 50))
	out.P95 = analytics.Round2(runs.Percentile(sorted, 95))
	out.P99 = analytics.Round2(runs.Percentile(sorted, 99))
	var sum int64
	for _, v := range sorted {
		sum += v
	}
	out.Avg = analytics.Mean(sum, int64(len(sorted)))
	return out
}

// TailCost is the tail of an agent's run-cost distribution: runs at or
// above the p95 threshold, their cost and its share of all runs' cost.
type TailCost struct {
	ThresholdNano int64
	Runs          int64
	CostNano      int64
	SharePercent  *float64
}

// TailOf reads the tail from a run-cost distribution (runs.Distribute).
func TailOf(d runs.Distribution) TailCost {
	return TailCost{ThresholdNano: d.P95, Runs: d.TailRuns, CostNano: d.TailCostNano,
		SharePercent: analytics.Percent(d.TailCostNano, d.TotalCostNano)}
}

// RunOutcomes are the outcome counts of a set of runs (one workflow row of
// the run tables); runs that declared nothing are the rest.
type RunOutcomes struct {
	Runs, CostNano, Succeeded, Failed, SuccessCostNano, FailureCostNano int64
}

// Outcomes is the outcomes summary of an agent's runs: undeclared runs are
// unknown, not failed; success_rate is over declared runs.
type Outcomes struct {
	Runs, Succeeded, Failed, Unknown     int64
	CostOnSuccessNano, CostOnFailureNano int64
	CostPerSuccessNano                   *int64 // all runs' cost ÷ successes
	SuccessRate                          *float64
}

// OutcomesOf sums the outcome rows of an agent's workflows into its
// summary (the same figures as the outcomes report, summed).
func OutcomesOf(rows []RunOutcomes) Outcomes {
	var t RunOutcomes
	for _, r := range rows {
		t.Runs += r.Runs
		t.CostNano += r.CostNano
		t.Succeeded += r.Succeeded
		t.Failed += r.Failed
		t.SuccessCostNano += r.SuccessCostNano
		t.FailureCostNano += r.FailureCostNano
	}
	out := Outcomes{Runs: t.Runs, Succeeded: t.Succeeded, Failed: t.Failed, Unknown: t.Runs - t.Succeeded - t.Failed,
		CostOnSuccessNano: t.SuccessCostNano, CostOnFailureNano: t.FailureCostNano,
		SuccessRate: analytics.Percent(t.Succeeded, t.Succeeded+t.Failed)}
	if per, ok := analytics.DivNano(t.CostNano, t.Succeeded); ok {
		out.CostPerSuccessNano = &per
	}
	return out
}
