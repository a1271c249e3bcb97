package wire

import "encoding/json"

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
	ProviderCost      *Money         `json:"provider_cost"`
	LLMCostCost       Money          `json:"llmcost_cost"`
	Difference        *Money         `json:"difference"`
	DifferencePercent *float64       `json:"difference_percent"`
	Cause             *string        `json:"cause"`
	Detail            *string        `json:"detail"`
	Rate              *ReconRate     `json:"rate"`
	Tokens            ReconTokenPair `json:"tokens"`
}

// ReconCause is how many rows a cause explains, and how much.
type ReconCause struct {
	Cause      string `json:"cause"`
	Rows       int    `json:"rows"`
	Difference Money  `json:"difference"`
}

// ReconProvider is one connection's share of the window.
type ReconProvider struct {
	Provider          string   `json:"provider"`
	ProviderCost      Money    `json:"provider_cost"`
	LLMCostCost       Money    `json:"llmcost_cost"`
	Difference        Money    `json:"difference"`
	DifferencePercent *float64 `json:"difference_percent"`
	// UncomparedCost is llmcost's cost on days whose provider cost is not
	// known (an API key scope on Anthropic).
	UncomparedCost           Money       `json:"uncompared_llmcost_cost"`
	ExcludedSubscriptionCost Money       `json:"excluded_subscription_cost"`
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
	ProviderCost             Money           `json:"provider_cost"`
	LLMCostCost              Money           `json:"llmcost_cost"`
	Difference               Money           `json:"difference"`
	DifferencePercent        *float64        `json:"difference_percent"`
	UncomparedCost           Money           `json:"uncompared_llmcost_cost"`
	ExcludedSubscriptionCost Money           `json:"excluded_subscription_cost"`
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
