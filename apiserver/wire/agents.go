package wire

// AgentSummaryRow is one item of /v1/analytics/agents/summary and the
// summary of an agent's detail: the agent row plus the agent view's fields.
type AgentSummaryRow struct {
	AgentRow
	SharePercent      *float64     `json:"share_percent"`
	PreviousCost      Money        `json:"previous_cost"`
	CostChangePercent *float64     `json:"cost_change_percent"`
	Models            []AgentModel `json:"models"`
	Runs              int64        `json:"runs"`
	CostPerRun        *Money       `json:"cost_per_run"`
	CallsPerRun       *float64     `json:"calls_per_run"`
	CachedShare       *float64     `json:"cached_share"`
	CacheSavings      Money        `json:"cache_savings"`
	FailedCalls       int64        `json:"failed_calls"`
	FailedCost        Money        `json:"failed_cost"`
	RepeatedCost      Money        `json:"repeated_cost"`
	RepeatedRuns      int64        `json:"repeated_runs"`
	Developers        int64        `json:"developers"`
	Sessions          int64        `json:"sessions"`
	FirstSeen         *string      `json:"first_seen"`
	LastSeen          *string      `json:"last_seen"`
	Daily             []AgentDay   `json:"daily"`
	Signal            AgentSignal  `json:"signal"`
	// Anomalies are the agent's anomalous days of the window, oldest
	// first (docs/api.md "Anomalies").
	Anomalies []AnomalyRow `json:"anomalies"`
}

// AgentModel is one model an agent used; cached_share is null when the
// model publishes no cache-read rate.
type AgentModel struct {
	Model       string   `json:"model"`
	Calls       int64    `json:"calls"`
	Cost        Money    `json:"cost"`
	CachedShare *float64 `json:"cached_share"`
}

// AgentDay is one UTC day of an agent's daily series (day is YYYY-MM-DD).
type AgentDay struct {
	Day        string `json:"day"`
	Cost       Money  `json:"cost"`
	Calls      int64  `json:"calls"`
	FailedCost Money  `json:"failed_cost"`
}

// AgentSignal is the one thing to look at; amount is null for untraced
// and none (and for classification without a cheaper sibling).
type AgentSignal struct {
	Kind   string `json:"kind"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
	Amount *Money `json:"amount"`
}

// AgentDetail is /v1/analytics/agents/{agent_name}.
type AgentDetail struct {
	Summary      AgentSummaryRow   `json:"summary"`
	Latency      AgentLatency      `json:"latency"`
	Steps        []AgentStepRow    `json:"steps"`
	ByModel      []DimensionRow    `json:"by_model"`
	ByTool       []DimensionRow    `json:"by_tool"`
	ByUser       []DimensionRow    `json:"by_user"`
	BySession    []DimensionRow    `json:"by_session"`
	ByWorkflow   []DimensionRow    `json:"by_workflow"`
	Distribution *Distribution     `json:"distribution"`
	TailCost     AgentTailCost     `json:"tail_cost"`
	RepeatedWork []RepeatedWorkRow `json:"repeated_work"`
	Traces       []TraceRow        `json:"traces"`
	Outcomes     OutcomesSummary   `json:"outcomes"`
	Compliance   *AgentCompliance  `json:"compliance"`
}

// AgentLatency are latency percentiles (ms) over the calls that carry
// latency_ms; null over none.
type AgentLatency struct {
	P50        *float64 `json:"p50"`
	P95        *float64 `json:"p95"`
	P99        *float64 `json:"p99"`
	Avg        *float64 `json:"avg"`
	SampleSize int64    `json:"sample_size"`
}

// AgentStepRow is one step name of the agent's runs, across workflows.
type AgentStepRow struct {
	StepName         string   `json:"step_name"`
	Tool             bool     `json:"tool"`
	Models           []string `json:"models"`
	Runs             int64    `json:"runs"`
	Calls            int64    `json:"calls"`
	CallsPerRun      *float64 `json:"calls_per_run"`
	MaxCallsPerRun   int64    `json:"max_calls_per_run"`
	TotalCost        Money    `json:"total_cost"`
	MedianCostPerRun *Money   `json:"median_cost_per_run"`
	P95CostPerRun    *Money   `json:"p95_cost_per_run"`
	SuccessRate      *float64 `json:"success_rate"`
}

// AgentTailCost is the tail of the agent's run-cost distribution: runs at
// or above the p95 threshold, their cost and its share of all runs' cost.
type AgentTailCost struct {
	Threshold    Money    `json:"threshold"`
	Runs         int64    `json:"runs"`
	Cost         Money    `json:"cost"`
	SharePercent *float64 `json:"share_percent"`
}

// OutcomesSummary counts runs by declared outcome and splits their cost.
type OutcomesSummary struct {
	Runs           int64    `json:"runs"`
	Succeeded      int64    `json:"succeeded"`
	Failed         int64    `json:"failed"`
	Unknown        int64    `json:"unknown"`
	CostOnSuccess  Money    `json:"cost_on_success"`
	CostOnFailure  Money    `json:"cost_on_failure"`
	CostPerSuccess *Money   `json:"cost_per_success"`
	SuccessRate    *float64 `json:"success_rate"`
}

// Optimization is one item of /v1/optimizations. agent_name and model say
// what it is about (model null for repeated_work and failed_spend).
type Optimization struct {
	Type                    string   `json:"type"`
	AgentName               string   `json:"agent_name"`
	Model                   *string  `json:"model"`
	Title                   string   `json:"title"`
	Description             string   `json:"description"`
	EstimatedSavingsMonthly Money    `json:"estimated_savings_monthly"`
	EstimatedSavingsPercent *float64 `json:"estimated_savings_percent"`
	Priority                string   `json:"priority"`
	ActionItems             []string `json:"action_items"`
}

// OptimizationSummary is /v1/optimizations/summary: totals of the list.
type OptimizationSummary struct {
	TotalPotentialSavingsMonthly Money    `json:"total_potential_savings_monthly"`
	TotalPotentialSavingsPercent *float64 `json:"total_potential_savings_percent"`
	SuggestionCount              int      `json:"suggestion_count"`
	HighPriorityCount            int      `json:"high_priority_count"`
}
