package reconcile

import (
	"fmt"
	"math/big"

	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/providers"
)

// Causes of a gap between the provider's figures and llmcost's.
const (
	// CauseMissingCalls: the provider counted tokens llmcost never saw.
	CauseMissingCalls = "missing_calls"
	// CauseExtraCalls: llmcost recorded calls the provider's report for
	// this connection does not hold (calls outside its scope, another
	// organisation's key).
	CauseExtraCalls = "extra_calls"
	// CausePrice: the same tokens, another cost: a rate differs.
	CausePrice = "price"
	// CauseUnpricedModel: llmcost could not price some of the calls.
	CauseUnpricedModel = "unpriced_model"
	// CauseDiscount: the provider billed some tokens in a batch or flex
	// tier (half price) or in the priority tier (which Anthropic's cost
	// report leaves out); llmcost prices every call at standard rates.
	CauseDiscount = "discount"
	// CauseNotFinal: the provider has not finished counting the day.
	CauseNotFinal = "not_final"
	// CauseOtherCharges: provider charges tied to no model (web search,
	// code execution, storage) that no call carries.
	CauseOtherCharges = "other_charges"
)

// Tolerances of one row: figures this close are taken as matching.
const (
	// TokenTolerancePPM: a token class within 0.1 % matches.
	TokenTolerancePPM = 1_000
	// MinGapNano: a cost difference under a tenth of a cent is no gap,
	// whatever the percentage.
	MinGapNano = 1_000_000
)

// ProviderFigures are the provider's figures of one row.
type ProviderFigures struct {
	Tokens providers.Tokens
	// TierTokens are the tokens of each non-standard tier.
	TierTokens map[string]int64
	// CostNano is the cost; HasCost is false when it is not known (the
	// cost report could not be narrowed to the scope).
	CostNano int64
	HasCost  bool
	// ClassCost is the cost of each token class, when the provider splits
	// it (Anthropic always; OpenAI by line item).
	ClassCost map[string]int64
}

// LLMCostFigures are llmcost's figures of one row, flat-plan calls left out.
type LLMCostFigures struct {
	Tokens        providers.Tokens
	CostNano      int64
	Calls         int64
	UnpricedCalls int64
}

// Input is one row to classify.
type Input struct {
	Model    string
	Provider ProviderFigures
	LLMCost  LLMCostFigures
	// Rates are llmcost's rates of the model that day; nil when it has none.
	Rates *pricing.Rates
	// Final is whether the provider's report of the day is final.
	Final       bool
	ToleranceBP int
}

// RateGap names the rate that differs on a price gap, per million tokens.
type RateGap struct {
	Class           string
	ProviderPerMTok string
	LLMCostPerMTok  string
}

// Gap is the classification of one row.
type Gap struct {
	Cause  string // "" within tolerance
	Detail string
	Rate   *RateGap
}

// Classify names the cause of a row's gap, in order: within tolerance
// (no cause), a day not final, calls llmcost could not price, tokens
// short or over, a discounted tier, then a price.
func Classify(in Input) Gap {
	p, l := in.Provider, in.LLMCost
	short, over, class := tokenGap(p.Tokens, l.Tokens)
	costGap := p.HasCost && !withinCost(p.CostNano, l.CostNano, in.ToleranceBP)
	if !short && !over && !costGap {
		return Gap{}
	}
	switch {
	case in.Model == "" && p.CostNano != 0 && l.Calls == 0:
		return Gap{Cause: CauseOtherCharges, Detail: "provider charges tied to no model (tools, storage); no call carries them"}
	case !in.Final:
		return Gap{Cause: CauseNotFinal, Detail: "the provider has not finished counting this day; the next sync fetches it again"}
	case l.UnpricedCalls > 0:
		return Gap{Cause: CauseUnpricedModel, Detail: fmt.Sprintf("%d of llmcost's %d calls of %s have no price in its catalogue",
			l.UnpricedCalls, l.Calls, in.Model)}
	case short:
		return Gap{Cause: CauseMissingCalls, Detail: fmt.Sprintf("the provider counted %d %s tokens, llmcost %d: calls llmcost never saw",
			get(p.Tokens, class), class, get(l.Tokens, class))}
	case over:
		return Gap{Cause: CauseExtraCalls, Detail: fmt.Sprintf("llmcost recorded %d %s tokens, the provider %d: calls outside this connection's scope",
			get(l.Tokens, class), class, get(p.Tokens, class))}
	}
	if tier, n := discounted(p.TierTokens); n > 0 && p.CostNano < l.CostNano {
		return Gap{Cause: CauseDiscount, Detail: fmt.Sprintf("%d tokens ran in the %s tier, which the provider bills below "+
			"the standard rates llmcost applies", n, tier)}
	}
	g := Gap{Cause: CausePrice, Detail: "the same tokens cost another amount: a rate differs"}
	if r := rateGap(p, l, in.Rates); r != nil {
		g.Rate = r
		g.Detail = fmt.Sprintf("the %s rate differs: the provider billed $%s per million tokens, llmcost applies $%s",
			r.Class, r.ProviderPerMTok, r.LLMCostPerMTok)
	}
	return g
}

// withinCost: the difference is under MinGapNano or under tolerance of
// the provider's cost.
func withinCost(provider, llm int64, toleranceBP int) bool {
	diff := abs(provider - llm)
	if diff < MinGapNano {
		return true
	}
	limit := new(big.Int).Mul(big.NewInt(abs(provider)), big.NewInt(int64(toleranceBP)))
	return new(big.Int).Mul(big.NewInt(diff), big.NewInt(10_000)).Cmp(limit) <= 0
}

// classes in the order a gap is reported.
var classes = []string{providers.ClassInput, providers.ClassOutput, providers.ClassCacheRead,
	providers.ClassCacheWrite5m, providers.ClassCacheWrite1h}

func get(t providers.Tokens, class string) int64 {
	switch class {
	case providers.ClassInput:
		return t.Input
	case providers.ClassOutput:
		return t.Output
	case providers.ClassCacheRead:
		return t.CacheRead
	case providers.ClassCacheWrite5m:
		return t.CacheWrite5m
	case providers.ClassCacheWrite1h:
		return t.CacheWrite1h
	}
	return 0
}

// tokenGap finds a class the provider counted more of (short) or, with
// none, one llmcost counted more of (over), beyond TokenTolerancePPM.
func tokenGap(p, l providers.Tokens) (short, over bool, class string) {
	for _, c := range classes {
		pv, lv := get(p, c), get(l, c)
		if (pv-lv)*1_000_000 > pv*TokenTolerancePPM {
			return true, false, c
		}
	}
	for _, c := range classes {
		pv, lv := get(p, c), get(l, c)
		if (lv-pv)*1_000_000 > pv*TokenTolerancePPM {
			return false, true, c
		}
	}
	return false, false, ""
}

func discounted(tiers map[string]int64) (string, int64) {
	for _, t := range []string{providers.TierBatch, providers.TierFlex, providers.TierPriority} {
		if tiers[t] > 0 {
			return t, tiers[t]
		}
	}
	return "", 0
}

// rateGap compares, class by class, what the provider billed with what
// llmcost's rate gives for the same tokens, and names the class of the
// largest difference.
func rateGap(p ProviderFigures, l LLMCostFigures, rates *pricing.Rates) *RateGap {
	if rates == nil || len(p.ClassCost) == 0 {
		return nil
	}
	var best *RateGap
	var bestDiff int64
	for _, c := range classes {
		tokens := get(p.Tokens, c)
		cost, ok := p.ClassCost[c]
		if tokens == 0 || !ok {
			continue
		}
		rate := classRate(*rates, c)
		expected := nanoOf(tokens, rate)
		if d := abs(cost - expected); d >= MinGapNano && d > bestDiff {
			bestDiff = d
			best = &RateGap{Class: c, ProviderPerMTok: perMTok(cost, tokens), LLMCostPerMTok: pricing.FormatRatePerMillion(rate)}
		}
	}
	return best
}

func classRate(r pricing.Rates, class string) int64 {
	switch class {
	case providers.ClassInput:
		return r.Input
	case providers.ClassOutput:
		return r.Output
	case providers.ClassCacheRead:
		return r.CacheRead
	case providers.ClassCacheWrite5m:
		return r.CacheWrite
	case providers.ClassCacheWrite1h:
		return r.CacheWrite1h
	}
	return 0
}

// nanoOf is tokens × atto-USD rate in nano-USD, rounded half up.
func nanoOf(tokens, rateAtto int64) int64 {
	v := new(big.Int).Mul(big.NewInt(tokens), big.NewInt(rateAtto))
	v.Add(v, big.NewInt(pricing.AttoPerNano/2))
	return v.Quo(v, big.NewInt(pricing.AttoPerNano)).Int64()
}

// perMTok is cost over tokens as USD per million tokens, to the atto.
func perMTok(costNano, tokens int64) string {
	// nano/token × 1e6 tokens / 1e9 = USD per MTok; as atto per token:
	// costNano × 1e9 / tokens.
	v := new(big.Int).Mul(big.NewInt(costNano), big.NewInt(pricing.AttoPerNano))
	v.Quo(v, big.NewInt(tokens))
	return pricing.FormatRatePerMillion(v.Int64())
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
