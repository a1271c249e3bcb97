package reconcile

import (
	"testing"
	"time"

	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/providers"
)

func TestBuildMatchesAndKeepsOut(t *testing.T) {
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	settled := day.Add(72 * time.Hour)
	tk := providers.Tokens{Input: 1000, Output: 100}
	d := Data{From: day, To: day.AddDate(0, 0, 2), SettleAfter: 24 * time.Hour, Catalogue: pricing.Builtin(),
		Connections: []Connection{{Provider: "anthropic", ToleranceBP: 200}},
		Days:        []FetchedDay{{Provider: "anthropic", Day: day, FetchedAt: settled, Costs: false}},
		Usage: []ProviderUsage{{Provider: "anthropic", Usage: providers.Usage{Day: day, Model: "claude-sonnet-4-5-20250929",
			Tier: "standard", Tokens: tk}}},
		Calls: []CallDay{
			{Day: day, Model: "claude-sonnet-4-5", Tokens: tk, CostNano: 4_500, Calls: 1},
			{Day: day, Model: "claude-sonnet-4-5", Subscription: true, Tokens: tk, CostNano: 9_000, Calls: 3},
			{Day: day, Model: "gpt-4o", Tokens: tk, CostNano: 7, Calls: 1}, // no OpenAI connection
			// The next day was never fetched: llmcost's calls wait for it.
			{Day: day.AddDate(0, 0, 1), Model: "claude-haiku-4-5", Tokens: tk, CostNano: 1_500_000, Calls: 1},
		}}
	rows, sum := Build(d)
	if len(rows) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	if r.Model != "claude-sonnet-4-5" || r.ProviderSide.Tokens != tk || r.LLMCostSide.Calls != 1 || !r.Final ||
		r.ProviderSide.HasCost || r.Gap.Cause != "" {
		t.Fatalf("matched row %+v", r)
	}
	if rows[1].Gap.Cause != CauseNotFinal || rows[1].Final {
		t.Fatalf("unfetched day %+v", rows[1])
	}
	if sum.ExcludedNano != 9_000 || sum.UncomparedNano != 1_504_500 || sum.ProviderNano != 0 ||
		len(sum.Providers) != 1 || sum.Providers[0].DaysNotFinal != 1 {
		t.Fatalf("summary %+v", sum)
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		part, whole int64
		want        float64
		ok          bool
	}{{1, 3, 33.33, true}, {-2, 3, -66.67, true}, {5, 0, 0, false}, {1_000_000_000_000, 1_000_000_000_000, 100, true}} {
		if got, ok := Percent(c.part, c.whole); got != c.want || ok != c.ok {
			t.Errorf("Percent(%d, %d) = %v, %v", c.part, c.whole, got, ok)
		}
	}
}
