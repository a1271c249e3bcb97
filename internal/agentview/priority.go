package agentview

import (
	"math/big"

	"github.com/llmcost/llmcost/internal/analytics"
)

// Suggestion priorities.
const (
	PriorityHigh   = "high"
	PriorityMedium = "medium"
	PriorityLow    = "low"
)

// HighMonthlyNano is the monthly saving that makes a suggestion high
// priority whatever the agent's spend: $100.
const HighMonthlyNano int64 = 100_000_000_000

// Priority ranks a monthly saving against the agent's monthly spend: high
// at ≥ 20% of it or ≥ $100, medium at ≥ 5%, else low. Compared exactly.
func Priority(savingsNano, agentSpendNano int64) string {
	switch {
	case savingsNano >= HighMonthlyNano || atLeastPercent(savingsNano, agentSpendNano, 20):
		return PriorityHigh
	case atLeastPercent(savingsNano, agentSpendNano, 5):
		return PriorityMedium
	default:
		return PriorityLow
	}
}

// atLeastPercent reports part ≥ pct% of whole (part × 100 ≥ whole × pct) in
// big integers, so no product overflows. Nothing is a share of no spend.
func atLeastPercent(part, whole, pct int64) bool {
	if whole <= 0 || part <= 0 {
		return false
	}
	l := new(big.Int).Mul(big.NewInt(part), big.NewInt(100))
	r := new(big.Int).Mul(big.NewInt(whole), big.NewInt(pct))
	return l.Cmp(r) >= 0
}

// percent is part ÷ whole × 100 rounded half-up to two decimals, nil over
// nothing (the reports' rule).
func percent(part, whole int64) *float64 { return analytics.Percent(part, whole) }
