package reconcile

import (
	"math/big"
	"slices"
)

// Totals are compared costs: the provider's and llmcost's over the rows
// whose provider cost is known, and llmcost's over the others apart.
type Totals struct {
	ProviderNano   int64
	LLMCostNano    int64
	DifferenceNano int64
	// UncomparedNano is llmcost's cost on rows the provider's cost is not
	// known for (a cost report that cannot be narrowed to the scope).
	UncomparedNano int64
}

// CauseTotal is how many rows a cause explains, and how much.
type CauseTotal struct {
	Cause          string
	Rows           int
	DifferenceNano int64
}

// ProviderSummary is one connection's share of the report.
type ProviderSummary struct {
	Provider string
	Totals
	ToleranceBP int
	// WithinTolerance is whether the window's drift is within the
	// connection's tolerance.
	WithinTolerance bool
	// ExcludedNano is the cost of flat-plan calls, kept out.
	ExcludedNano int64
	DaysNotFinal int
}

// Summary is the whole report in a few numbers.
type Summary struct {
	Totals
	ExcludedNano int64
	Providers    []ProviderSummary
	ByCause      []CauseTotal
}

type summary struct {
	s        Summary
	byName   map[string]*ProviderSummary
	notFinal map[string]map[int64]bool
	causes   map[string]*CauseTotal
}

func newSummary(d Data) *summary {
	s := &summary{byName: map[string]*ProviderSummary{}, notFinal: map[string]map[int64]bool{}, causes: map[string]*CauseTotal{}}
	for _, c := range d.Connections {
		s.byName[c.Provider] = &ProviderSummary{Provider: c.Provider, ToleranceBP: c.ToleranceBP}
		s.notFinal[c.Provider] = map[int64]bool{}
	}
	return s
}

func (s *summary) excluded(provider string, nano int64) {
	s.byName[provider].ExcludedNano += nano
	s.s.ExcludedNano += nano
}

func (s *summary) add(r Row) {
	p := s.byName[r.Provider]
	if p == nil {
		return
	}
	if !r.Final {
		s.notFinal[r.Provider][r.Day.Unix()] = true
	}
	for _, t := range []*Totals{&p.Totals, &s.s.Totals} {
		if r.ProviderSide.HasCost {
			t.ProviderNano += r.ProviderSide.CostNano
			t.LLMCostNano += r.LLMCostSide.CostNano
			t.DifferenceNano += r.ProviderSide.CostNano - r.LLMCostSide.CostNano
		} else {
			t.UncomparedNano += r.LLMCostSide.CostNano
		}
	}
	if r.Gap.Cause != "" {
		c := s.causes[r.Gap.Cause]
		if c == nil {
			c = &CauseTotal{Cause: r.Gap.Cause}
			s.causes[r.Gap.Cause] = c
		}
		c.Rows++
		if diff, ok := r.DifferenceNano(); ok {
			c.DifferenceNano += diff
		}
	}
}

func (s *summary) finish() Summary {
	for _, p := range s.byName {
		p.DaysNotFinal = len(s.notFinal[p.Provider])
		p.WithinTolerance = withinDrift(p.DifferenceNano, p.ProviderNano, p.ToleranceBP)
		s.s.Providers = append(s.s.Providers, *p)
	}
	slices.SortFunc(s.s.Providers, func(a, b ProviderSummary) int {
		if a.Provider < b.Provider {
			return -1
		}
		return 1
	})
	for _, c := range []string{CauseMissingCalls, CauseExtraCalls, CausePrice, CauseUnpricedModel, CauseDiscount,
		CauseNotFinal, CauseOtherCharges} {
		if t := s.causes[c]; t != nil {
			s.s.ByCause = append(s.s.ByCause, *t)
		}
	}
	return s.s
}

// withinDrift: |difference| ≤ tolerance × the provider's cost.
func withinDrift(diff, provider int64, toleranceBP int) bool {
	d := new(big.Int).Mul(big.NewInt(abs(diff)), big.NewInt(10_000))
	return d.Cmp(new(big.Int).Mul(big.NewInt(abs(provider)), big.NewInt(int64(toleranceBP)))) <= 0
}

// Percent is part / whole × 100 for display, or false when whole is 0.
func Percent(part, whole int64) (float64, bool) {
	if whole == 0 {
		return 0, false
	}
	num := new(big.Int).Mul(big.NewInt(part), big.NewInt(100))
	r, _ := new(big.Rat).SetFrac(num, big.NewInt(whole)).Float64()
	return float64(int64(r*100+sign(r)*0.5)) / 100, true
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}
