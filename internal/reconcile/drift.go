package reconcile

import "time"

// Drift is one provider's month as the drift alert judges it: only the
// days the provider has finalised and whose cost it reported count, so a
// day still being counted never raises an alert.
type Drift struct {
	Provider       string
	Month          time.Time
	ProviderNano   int64
	LLMCostNano    int64
	DifferenceNano int64
	ToleranceBP    int
}

// Exceeded reports whether the drift is over the tolerance.
func (d Drift) Exceeded() bool {
	return d.ProviderNano != 0 && !withinDrift(d.DifferenceNano, d.ProviderNano, d.ToleranceBP)
}

// MonthDrift sums provider's final rows with a known cost.
func MonthDrift(rows []Row, provider string, month time.Time, toleranceBP int) Drift {
	d := Drift{Provider: provider, Month: month, ToleranceBP: toleranceBP}
	for _, r := range rows {
		if r.Provider != provider || !r.Final || !r.ProviderSide.HasCost {
			continue
		}
		d.ProviderNano += r.ProviderSide.CostNano
		d.LLMCostNano += r.LLMCostSide.CostNano
	}
	d.DifferenceNano = d.ProviderNano - d.LLMCostNano
	return d
}
