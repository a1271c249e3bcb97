package reconcile

import (
	"strings"
	"testing"

	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/providers"
)

// sonnet: $3 input, $15 output, $0.30 cache read, $3.75 and $6 writes per
// million tokens, in atto-USD per token.
var sonnet = pricing.Rates{Input: 3e12, Output: 15e12, CacheRead: 3e11, CacheWrite: 375e10, CacheWrite1h: 6e12}

var tokens = providers.Tokens{Input: 1_000_000, Output: 100_000, CacheRead: 2_000_000}

// costOf is what sonnet's rates give for tokens, by class.
func costOf(t providers.Tokens) (int64, map[string]int64) {
	m := map[string]int64{"input": nanoOf(t.Input, sonnet.Input), "output": nanoOf(t.Output, sonnet.Output),
		"cache_read": nanoOf(t.CacheRead, sonnet.CacheRead)}
	return m["input"] + m["output"] + m["cache_read"], m
}

func TestClassify(t *testing.T) {
	total, byClass := costOf(tokens) // $3 + $1.5 + $0.6 = $5.1
	prov := ProviderFigures{Tokens: tokens, CostNano: total, HasCost: true, ClassCost: byClass}
	llm := LLMCostFigures{Tokens: tokens, CostNano: total, Calls: 100}
	dearOutput := func() ProviderFigures {
		p := prov
		p.ClassCost = map[string]int64{"input": byClass["input"], "output": byClass["output"] * 2, "cache_read": byClass["cache_read"]}
		p.CostNano = total + byClass["output"]
		return p
	}
	cases := []struct {
		name   string
		in     Input
		cause  string
		detail string
	}{
		{"matching", Input{Model: "m", Provider: prov, LLMCost: llm, Rates: &sonnet, Final: true, ToleranceBP: 200}, "", ""},
		{"within tolerance", Input{Model: "m", Provider: withCost(prov, total+total/100), LLMCost: llm, Rates: &sonnet, Final: true, ToleranceBP: 200}, "", ""},
		{"under a tenth of a cent", Input{Model: "m", Provider: withCost(prov, total+999_999), LLMCost: llm, Final: true}, "", ""},
		{"tokens within 0.1 %", Input{Model: "m", Provider: prov,
			LLMCost: LLMCostFigures{Tokens: providers.Tokens{Input: 999_500, Output: 100_000, CacheRead: 2_000_000}, CostNano: total},
			Final:   true, ToleranceBP: 200}, "", ""},
		{"a missing day", Input{Model: "m", Provider: prov, LLMCost: LLMCostFigures{}, Final: true, ToleranceBP: 200},
			CauseMissingCalls, "the provider counted 1000000 input tokens, llmcost 0"},
		{"calls short", Input{Model: "m", Provider: prov,
			LLMCost: LLMCostFigures{Tokens: providers.Tokens{Input: 900_000, Output: 90_000, CacheRead: 2_000_000}, CostNano: total * 9 / 10, Calls: 90},
			Final:   true, ToleranceBP: 200}, CauseMissingCalls, "input tokens"},
		{"calls outside the scope", Input{Model: "m", Provider: ProviderFigures{HasCost: true}, LLMCost: llm, Final: true, ToleranceBP: 200},
			CauseExtraCalls, "llmcost recorded 1000000 input tokens, the provider 0"},
		{"not final comes first", Input{Model: "m", Provider: prov, LLMCost: LLMCostFigures{}, Final: false, ToleranceBP: 200},
			CauseNotFinal, "not finished counting"},
		{"unpriced", Input{Model: "m", Provider: prov, LLMCost: LLMCostFigures{Tokens: tokens, Calls: 100, UnpricedCalls: 100},
			Final: true, ToleranceBP: 200}, CauseUnpricedModel, "100 of llmcost's 100 calls of m have no price"},
		{"batch", Input{Model: "m", Provider: func() ProviderFigures {
			p := withCost(prov, total/2)
			p.TierTokens = map[string]int64{"batch": 3_100_000}
			return p
		}(), LLMCost: llm, Rates: &sonnet, Final: true, ToleranceBP: 200}, CauseDiscount, "3100000 tokens ran in the batch tier"},
		{"output rate", Input{Model: "m", Provider: dearOutput(), LLMCost: llm, Rates: &sonnet, Final: true, ToleranceBP: 200},
			CausePrice, "the output rate differs: the provider billed $30 per million tokens, llmcost applies $15"},
		{"price without classes", Input{Model: "m", Provider: ProviderFigures{Tokens: tokens, CostNano: total * 2, HasCost: true},
			LLMCost: llm, Rates: &sonnet, Final: true, ToleranceBP: 200}, CausePrice, "a rate differs"},
		{"cost unknown, tokens match", Input{Model: "m", Provider: ProviderFigures{Tokens: tokens}, LLMCost: llm, Final: true}, "", ""},
		{"charges of no model", Input{Provider: ProviderFigures{CostNano: 50_000_000, HasCost: true}, Final: true, ToleranceBP: 200},
			CauseOtherCharges, "tied to no model"},
	}
	for _, c := range cases {
		g := Classify(c.in)
		if g.Cause != c.cause || !strings.Contains(g.Detail, c.detail) {
			t.Errorf("%s: got %q (%s), want %q (…%s…)", c.name, g.Cause, g.Detail, c.cause, c.detail)
		}
	}
	if g := Classify(Input{Model: "m", Provider: dearOutput(), LLMCost: llm, Rates: &sonnet, Final: true}); g.Rate == nil ||
		*g.Rate != (RateGap{Class: "output", ProviderPerMTok: "30", LLMCostPerMTok: "15"}) {
		t.Errorf("rate gap %+v", g.Rate)
	}
}

func withCost(p ProviderFigures, nano int64) ProviderFigures {
	p.CostNano = nano
	return p
}
