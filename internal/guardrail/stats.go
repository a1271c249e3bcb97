package guardrail

import (
	"slices"
	"sort"
)

// Stats summarise the runs of an agent: tool calls and cost (nano-USD)
// per run, nearest-rank percentiles.
type Stats struct {
	Runs                                     int64
	P50ToolCalls, P95ToolCalls, MaxToolCalls int64
	P50Cost, P95Cost, MaxCost                int64
}

// RunStats is nil without runs.
func RunStats(runs []Run) *Stats {
	if len(runs) == 0 {
		return nil
	}
	tools, cost := make([]int64, len(runs)), make([]int64, len(runs))
	for i, r := range runs {
		tools[i], cost[i] = r.ToolCalls, r.CostNano
	}
	slices.Sort(tools)
	slices.Sort(cost)
	return &Stats{Runs: int64(len(runs)),
		P50ToolCalls: rank(tools, 50), P95ToolCalls: rank(tools, 95), MaxToolCalls: tools[len(tools)-1],
		P50Cost: rank(cost, 50), P95Cost: rank(cost, 95), MaxCost: cost[len(cost)-1]}
}

// rank is the nearest-rank percentile of sorted values.
func rank(sorted []int64, pct int) int64 {
	i := (pct*len(sorted) + 99) / 100
	return sorted[max(i, 1)-1]
}

// UnknownAccess lists the tools a read-only guardrail saw that have no tag:
// they are not judged for writing, and compliance names them so someone
// tags them.
func UnknownAccess(g Guardrail, p Policy, tools []Usage) []string {
	out := []string{}
	if !g.ReadOnly {
		return out
	}
	for _, u := range tools {
		if p.ToolAccess(u.Key) == Unknown {
			out = append(out, u.Key)
		}
	}
	sort.Strings(out)
	return out
}

// Count is how many breaching calls and runs over a limit bs hold.
func Count(bs []Breach) int64 {
	var n int64
	for _, b := range bs {
		n += b.Count
	}
	return n
}
