package agentview

import (
	"testing"

	"github.com/llmcost/llmcost/internal/runs"
)

func TestLatencyOf(t *testing.T) {
	if l := LatencyOf(nil); l.SampleSize != 0 || l.P50 != nil || l.Avg != nil {
		t.Fatalf("empty: %+v", l)
	}
	// percentile_cont over 10,20,…,100 (unsorted input): p50 55, p95 95.5, p99 99.1.
	l := LatencyOf([]int64{100, 10, 90, 20, 80, 30, 70, 40, 60, 50})
	if l.SampleSize != 10 || *l.P50 != 55 || *l.P95 != 95.5 || *l.P99 != 99.1 || *l.Avg != 55 {
		t.Fatalf("%+v p50 %v p95 %v p99 %v avg %v", l, *l.P50, *l.P95, *l.P99, *l.Avg)
	}
}

func TestTailOf(t *testing.T) {
	costs := make([]int64, 20)
	for i := range costs {
		costs[i] = int64(i+1) * 1000
	}
	d := runs.Distribute(costs, 6)
	tail := TailOf(d)
	// p95 of 1000…20000 is 19050; runs ≥ it: 20000 only; share 20000/210000.
	if tail.ThresholdNano != 19050 || tail.Runs != 1 || tail.CostNano != 20000 || *tail.SharePercent != 9.52 {
		t.Fatalf("%+v share %v", tail, *tail.SharePercent)
	}
}

func TestOutcomesOf(t *testing.T) {
	got := OutcomesOf([]RunOutcomes{
		{Runs: 5, CostNano: 500, Succeeded: 2, Failed: 1, SuccessCostNano: 200, FailureCostNano: 100},
		{Runs: 3, CostNano: 301, Succeeded: 1, Failed: 0, SuccessCostNano: 101},
	})
	if got.Runs != 8 || got.Succeeded != 3 || got.Failed != 1 || got.Unknown != 4 || got.CostOnSuccessNano != 301 ||
		got.CostOnFailureNano != 100 || *got.CostPerSuccessNano != 267 || *got.SuccessRate != 75 {
		t.Fatalf("%+v per %v rate %v", got, *got.CostPerSuccessNano, *got.SuccessRate)
	}
	none := OutcomesOf([]RunOutcomes{{Runs: 2, CostNano: 10}})
	if none.Unknown != 2 || none.Failed != 0 || none.CostPerSuccessNano != nil || none.SuccessRate != nil {
		t.Fatalf("undeclared runs are unknown, not failed: %+v", none)
	}
}
