package wire

import "encoding/json"

// Compliance is GET /v1/guardrails/compliance.
type Compliance struct {
	Agents           []AgentCompliance `json:"agents"`
	ToolTags         []ToolTag         `json:"tool_tags"`
	StartTime        string            `json:"start_time"`
	EndTime          string            `json:"end_time"`
	TotalCalls       int64             `json:"total_calls"`
	ToolTrackedCalls int64             `json:"tool_tracked_calls"`
}

// AgentCompliance is one guarded agent's record.
type AgentCompliance struct {
	AgentName          string         `json:"agent_name"`
	Status             string         `json:"status"`
	ReadOnly           bool           `json:"read_only"`
	AllowedTools       []string       `json:"allowed_tools"`
	AllowedModels      []string       `json:"allowed_models"`
	MaxToolCallsPerRun *int64         `json:"max_tool_calls_per_run"`
	MaxCostPerRunUSD   *Money         `json:"max_cost_per_run_usd"`
	TotalCalls         int64          `json:"total_calls"`
	TotalCost          Money          `json:"total_cost"`
	TrackedToolCalls   int64          `json:"tracked_tool_calls"`
	RunsSeen           int64          `json:"runs_seen"`
	ObservedTools      []string       `json:"observed_tools"`
	ObservedModels     []string       `json:"observed_models"`
	ToolUsage          []ToolUsage    `json:"tool_usage"`
	ModelUsage         []ModelUsage   `json:"model_usage"`
	RunStats           *RunStats      `json:"run_stats"`
	BreachSeries       []BreachPoint  `json:"breach_series"`
	Breaches           []BreachRecord `json:"breaches"`
	UnknownAccessTools []string       `json:"unknown_access_tools"`
}

// ToolUsage is one tool an agent used.
type ToolUsage struct {
	ToolName   string  `json:"tool_name"`
	Calls      int64   `json:"calls"`
	LastSeen   *string `json:"last_seen"`
	Access     string  `json:"access"`
	BreachKind *string `json:"breach_kind"`
}

// ModelUsage is one model an agent used.
type ModelUsage struct {
	Model     string `json:"model"`
	Calls     int64  `json:"calls"`
	Cost      Money  `json:"cost"`
	Permitted bool   `json:"permitted"`
}

// RunStats summarise an agent's runs (calls inside a workflow).
type RunStats struct {
	Runs         int64 `json:"runs"`
	P50ToolCalls int64 `json:"p50_tool_calls"`
	P95ToolCalls int64 `json:"p95_tool_calls"`
	MaxToolCalls int64 `json:"max_tool_calls"`
	P50Cost      Money `json:"p50_cost"`
	P95Cost      Money `json:"p95_cost"`
	MaxCost      Money `json:"max_cost"`
}

// BreachPoint is one UTC day's breaching calls and runs.
type BreachPoint struct {
	Day   string `json:"day"`
	Count int64  `json:"count"`
}

// BreachRecord is one breach of the compliance record (docs/guardrails.md
// "Compliance").
type BreachRecord struct {
	Kind     string       `json:"kind"`
	Subject  string       `json:"subject"`
	Count    int64        `json:"count"`
	Limit    *json.Number `json:"limit"`
	Observed json.Number  `json:"observed"`
	LastSeen *string      `json:"last_seen"`
}
