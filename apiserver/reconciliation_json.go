package apiserver

import (
	"encoding/json"

	"github.com/llmcost/llmcost/internal/providers"
	"github.com/llmcost/llmcost/internal/reconcile"
)

// The reconciliation report's records. Money is a JSON number written from
// exact nano-USD; difference is the provider's cost minus llmcost's (what
// the bill holds that llmcost does not show), difference_percent is of the
// provider's cost.

// ReconTokens are tokens by class; input is the uncached prompt.
type ReconTokens struct {
	Input        int64 `json:"input"`
	CacheRead    int64 `json:"cache_read"`
	CacheWrite5m int64 `json:"cache_write_5m"`
	CacheWrite1h int64 `json:"cache_write_1h"`
	Output       int64 `json:"output"`
}

// ReconTokenPair sets the provider's tokens beside llmcost's.
type ReconTokenPair struct {
	Provider ReconTokens `json:"provider"`
	LLMCost  ReconTokens `json:"llmcost"`
}

// ReconRate names the rate of a price gap, in USD per million tokens.
type ReconRate struct {
	Class           string      `json:"class"`
	ProviderPerMTok json.Number `json:"provider_per_mtok"`
	LLMCostPerMTok  json.Number `json:"llmcost_per_mtok"`
}

// ReconRow is one day, provider and model. model is null for provider
// charges tied to no model; provider_cost is null when the provider's cost
// report could not be narrowed to the connection's scope.
type ReconRow struct {
	Day               string         `json:"day"`
	Provider          string         `json:"provider"`
	Model             *string        `json:"model"`
	Final             bool           `json:"final"`
	Calls             int64          `json:"calls"`
	ProviderCost      *json.Number   `json:"provider_cost"`
	LLMCostCost       json.Number    `json:"llmcost_cost"`
	Difference        *json.Number   `json:"difference"`
	DifferencePercent *float64       `json:"difference_percent"`
	Cause             *string        `json:"cause"`
	Detail            *string        `json:"detail"`
	Rate              *ReconRate     `json:"rate"`
	Tokens            ReconTokenPair `json:"tokens"`
}

// ReconCause is how many rows a cause explains, and how much.
type ReconCause struct {
	Cause      string      `json:"cause"`
	Rows       int         `json:"rows"`
	Difference json.Number `json:"difference"`
}

// ReconProvider is one connection's share of the window.
type ReconProvider struct {
	Provider          string      `json:"provider"`
	ProviderCost      json.Number `json:"provider_cost"`
	LLMCostCost       json.Number `json:"llmcost_cost"`
	Difference        json.Number `json:"difference"`
	DifferencePercent *float64    `json:"difference_percent"`
	// UncomparedCost is llmcost's cost on days whose provider cost is not
	// known (an API key scope on Anthropic).
	UncomparedCost           json.Number `json:"uncompared_llmcost_cost"`
	ExcludedSubscriptionCost json.Number `json:"excluded_subscription_cost"`
	TolerancePercent         json.Number `json:"tolerance_percent"`
	WithinTolerance          bool        `json:"within_tolerance"`
	DaysNotFinal             int         `json:"days_not_final"`
	SyncStatus               string      `json:"sync_status"`
	LastSyncAt               *string     `json:"last_sync_at"`
	LastSyncError            *string     `json:"last_sync_error"`
}

// ReconSummary is GET /v1/reconciliation/summary.
type ReconSummary struct {
	From                     string          `json:"from"`
	To                       string          `json:"to"`
	ProviderCost             json.Number     `json:"provider_cost"`
	LLMCostCost              json.Number     `json:"llmcost_cost"`
	Difference               json.Number     `json:"difference"`
	DifferencePercent        *float64        `json:"difference_percent"`
	UncomparedCost           json.Number     `json:"uncompared_llmcost_cost"`
	ExcludedSubscriptionCost json.Number     `json:"excluded_subscription_cost"`
	ByCause                  []ReconCause    `json:"by_cause"`
	Providers                []ReconProvider `json:"providers"`
}

// ReconReport is GET /v1/reconciliation.
type ReconReport struct {
	From    string       `json:"from"`
	To      string       `json:"to"`
	Rows    []ReconRow   `json:"rows"`
	Summary ReconSummary `json:"summary"`
}

func reconTokens(t providers.Tokens) ReconTokens {
	return ReconTokens{Input: t.Input, CacheRead: t.CacheRead, CacheWrite5m: t.CacheWrite5m, CacheWrite1h: t.CacheWrite1h,
		Output: t.Output}
}

func percentOf(part, whole int64) *float64 {
	if p, ok := reconcile.Percent(part, whole); ok {
		return &p
	}
	return nil
}

func reconRow(r reconcile.Row) ReconRow {
	out := ReconRow{Day: r.Day.Format("2006-01-02"), Provider: r.Provider, Final: r.Final, Calls: r.LLMCostSide.Calls,
		LLMCostCost: money(r.LLMCostSide.CostNano),
		Tokens:      ReconTokenPair{Provider: reconTokens(r.ProviderSide.Tokens), LLMCost: reconTokens(r.LLMCostSide.Tokens)}}
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
			out.Rate = &ReconRate{Class: g.Rate.Class, ProviderPerMTok: json.Number(g.Rate.ProviderPerMTok),
				LLMCostPerMTok: json.Number(g.Rate.LLMCostPerMTok)}
		}
	}
	return out
}
