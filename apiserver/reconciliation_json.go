package apiserver

import (
	"encoding/json"
	"github.com/llmcost/llmcost/apiserver/wire"

	"github.com/llmcost/llmcost/internal/providers"
	"github.com/llmcost/llmcost/internal/reconcile"
)

func reconTokens(t providers.Tokens) wire.ReconTokens {
	return wire.ReconTokens{Input: t.Input, CacheRead: t.CacheRead, CacheWrite5m: t.CacheWrite5m, CacheWrite1h: t.CacheWrite1h,
		Output: t.Output}
}

func percentOf(part, whole int64) *float64 {
	if p, ok := reconcile.Percent(part, whole); ok {
		return &p
	}
	return nil
}

func reconRow(r reconcile.Row) wire.ReconRow {
	out := wire.ReconRow{Day: r.Day.Format("2006-01-02"), Provider: r.Provider, Final: r.Final, Calls: r.LLMCostSide.Calls,
		LLMCostCost: money(r.LLMCostSide.CostNano),
		Tokens:      wire.ReconTokenPair{Provider: reconTokens(r.ProviderSide.Tokens), LLMCost: reconTokens(r.LLMCostSide.Tokens)}}
	if r.Model != "" {
		out.Model = &r.Model
	}
	if diff, ok := r.DifferenceNano(); ok {
		pc, d := money(r.ProviderSide.CostNano), money(diff)
		out.ProviderCost, out.Difference = &pc, &d
		out.DifferencePercent = percentOf(diff, r.ProviderSide.CostNano)
	}
	if g := r.Gap; g.Cause != "" {
		out.Cause, out.Detail = &g.Cause, &g.Detail
		if g.Rate != nil {
			out.Rate = &wire.ReconRate{Class: g.Rate.Class, ProviderPerMTok: json.Number(g.Rate.ProviderPerMTok),
				LLMCostPerMTok: json.Number(g.Rate.LLMCostPerMTok)}
		}
	}
	return out
}
