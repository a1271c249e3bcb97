package agentview

import (
	"testing"

	"github.com/llmcost/llmcost/internal/pricing"
)

func TestPriority(t *testing.T) {
	cases := []struct {
		saving, spend int64
		want          string
	}{
		{200, 1000, PriorityHigh},                   // exactly 20%
		{199, 1000, PriorityMedium},                 // just under
		{50, 1000, PriorityMedium},                  // exactly 5%
		{49, 1000, PriorityLow},                     // just under
		{HighMonthlyNano, 1 << 62, PriorityHigh},    // $100 a month whatever the share
		{HighMonthlyNano - 1, 1 << 62, PriorityLow}, // a nano short
		{10, 0, PriorityLow},                        // no spend, no share
		{1 << 61, 1 << 62, PriorityHigh},            // no overflow
	}
	for _, c := range cases {
		if got := Priority(c.saving, c.spend); got != c.want {
			t.Errorf("Priority(%d, %d) = %s, want %s", c.saving, c.spend, got, c.want)
		}
	}
}

// Sonnet 4.5 is $3 in / $15 out per million, Haiku 4.5 $1 / $5: 1 M input
// and 1,000 output tokens cost $3.015 on Sonnet and $1.005 on Haiku, so the
// saving is $2.010 exactly (worked by hand, not by the code under test).
func TestModelDowngradeSavingsAreTheSameTokensAtTheSibling(t *testing.T) {
	cat := pricing.Builtin()
	a := AgentUsage{Agent: "triage", CostNano: 3_015_000_000, Models: []ModelUsage{{
		Model: "claude-sonnet-4-5", Calls: 100, CostNano: 3_015_000_000,
		Tokens: Tokens{Input: 1_000_000, Output: 1_000}}}}
	got := Suggest(cat, []AgentUsage{a})
	if len(got) != 1 {
		t.Fatalf("suggestions %+v", got)
	}
	s := got[0]
	if s.Type != TypeModelDowngrade || s.Agent != "triage" || s.Model != "claude-sonnet-4-5" {
		t.Fatalf("suggestion %+v", s)
	}
	if s.SavingsMonthlyNano != 2_010_000_000 {
		t.Fatalf("savings %d, want 2010000000", s.SavingsMonthlyNano)
	}
	if s.SavingsPercent == nil || *s.SavingsPercent != 66.67 || s.Priority != PriorityHigh {
		t.Fatalf("percent %v priority %s", s.SavingsPercent, s.Priority)
	}
	if len(s.ActionItems) != 3 || s.Title != "Move triage from claude-sonnet-4-5 to claude-haiku-4-5" {
		t.Fatalf("title %q items %q", s.Title, s.ActionItems)
	}
}

func TestDowngradeNeedsShortOutputsAndACheaperSibling(t *testing.T) {
	cat := pricing.Builtin()
	long := ModelUsage{Model: "gpt-4o", Calls: 500, CostNano: 1_000_000_000, OutputOver16Calls: 500, OutputOver256Calls: 1,
		Tokens: Tokens{Input: 100_000, Output: 50_000}}
	noLadder := ModelUsage{Model: "claude-haiku-4-5", Calls: 500, CostNano: 1_000_000_000,
		Tokens: Tokens{Input: 100_000, Output: 500}}
	unknown := ModelUsage{Model: "in-house-7b", Calls: 500, CostNano: 1_000_000_000}
	// Billed below the sibling's price (a client-sent cost): no saving, no suggestion.
	cheapAlready := ModelUsage{Model: "gpt-4o", Calls: 500, CostNano: 1,
		Tokens: Tokens{Input: 100_000, Output: 500}}
	got := Suggest(cat, []AgentUsage{{Agent: "a", CostNano: 4_000_000_001,
		Models: []ModelUsage{long, noLadder, unknown, cheapAlready}}})
	if len(got) != 0 {
		t.Fatalf("want no suggestion, got %+v", got)
	}
	if _, _, ok := Sibling(cat, "gpt-4o"); !ok {
		t.Fatal("gpt-4o must have its ladder sibling in the built-in catalogue")
	}
}

// Every ladder step names catalogue models of one provider, the cheaper
// one cheaper on both input and output: the documented ladder stays true.
func TestLadderStepsAreCheaperSameProviderModels(t *testing.T) {
	cat := pricing.Builtin()
	for from, to := range Ladder {
		f, fok := cat.Lookup(from)
		s, sok := cat.Lookup(to)
		if !fok || !sok {
			t.Errorf("%s → %s: not in the catalogue", from, to)
			continue
		}
		if f.Provider != s.Provider || s.Base.Input >= f.Base.Input || s.Base.Output >= f.Base.Output {
			t.Errorf("%s → %s: provider %s/%s, rates %d/%d → %d/%d", from, to,
				f.Provider, s.Provider, f.Base.Input, f.Base.Output, s.Base.Input, s.Base.Output)
		}
	}
}

// gpt-4o: $2.50 input, $1.25 cached per million; 2 M repeated prompt tokens
// read from the cache save $2.50.
func TestPromptCacheAndWasteSuggestions(t *testing.T) {
	cat := pricing.Builtin()
	a := AgentUsage{Agent: "writer", CostNano: 100_000_000_000, RepeatedCost: 3_000_000_000, RepeatedRuns: 4,
		FailedCalls: 2, FailedCost: 4_000_000_000,
		Models: []ModelUsage{{Model: "gpt-4o", Calls: 40, CostNano: 100_000_000_000, OutputOver16Calls: 40, OutputOver256Calls: 40,
			Tokens: Tokens{Input: 3_000_000, Output: 500_000}, RepeatedPromptTokens: 2_000_000}}}
	cached := a
	cached.Agent = "cached"
	cached.RepeatedCost, cached.FailedCost = 0, 0
	cached.Models = []ModelUsage{a.Models[0]}
	cached.Models[0].Tokens.Cached = 1
	got := Suggest(cat, []AgentUsage{a, cached})
	want := []struct {
		typ      string
		saving   int64
		priority string
	}{
		{TypeFailedSpend, 4_000_000_000, PriorityLow},
		{TypeRepeatedWork, 3_000_000_000, PriorityLow},
		{TypePromptCache, 2_500_000_000, PriorityLow},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d suggestions: %+v", len(got), got)
	}
	for i, w := range want {
		if got[i].Type != w.typ || got[i].SavingsMonthlyNano != w.saving || got[i].Priority != w.priority || got[i].Agent != "writer" {
			t.Errorf("#%d = %s %d %s %s, want %s %d %s", i, got[i].Type, got[i].SavingsMonthlyNano, got[i].Priority,
				got[i].Agent, w.typ, w.saving, w.priority)
		}
	}
	sum := Summarise(got, 200_000_000_000)
	if sum.TotalSavingsNano != 9_500_000_000 || sum.SuggestionCount != 3 || sum.HighPriorityCount != 0 ||
		sum.TotalPercent == nil || *sum.TotalPercent != 4.75 {
		t.Fatalf("summary %+v (percent %v)", sum, sum.TotalPercent)
	}
	if empty := Summarise(nil, 0); empty.TotalPercent != nil || empty.SuggestionCount != 0 {
		t.Fatalf("empty summary %+v", empty)
	}
}
