package reconcile

import (
	"testing"
	"time"
)

func TestMonthDrift(t *testing.T) {
	month := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	row := func(provider string, final, hasCost bool, p, l int64) Row {
		return Row{Provider: provider, Final: final, ProviderSide: ProviderFigures{CostNano: p, HasCost: hasCost},
			LLMCostSide: LLMCostFigures{CostNano: l}}
	}
	rows := []Row{
		row("anthropic", true, true, 100_000_000_000, 97_000_000_000),
		row("anthropic", false, true, 50_000_000_000, 0), // not final: left out
		row("anthropic", true, false, 0, 20_000_000_000), // cost unknown: left out
		row("openai", true, true, 10_000_000_000, 0),     // another provider
	}
	d := MonthDrift(rows, "anthropic", month, 200)
	if d.ProviderNano != 100_000_000_000 || d.DifferenceNano != 3_000_000_000 || !d.Exceeded() {
		t.Fatalf("%+v exceeded=%v", d, d.Exceeded())
	}
	if d.ToleranceBP = 300; d.Exceeded() {
		t.Fatal("3 % drift exceeds a 3 % tolerance")
	}
	if (Drift{ToleranceBP: 0}).Exceeded() {
		t.Fatal("a month with no provider cost exceeded")
	}
}
