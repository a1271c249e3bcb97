package apiserver

import (
	"encoding/json"

	"github.com/llmcost/llmcost/internal/postgres"
)

// GuardrailRequest is the body of PUT …/guardrails: every field but
// agent_name optional, omitted ones take their defaults.
type GuardrailRequest struct {
	AgentName          string       `json:"agent_name"`
	AllowedTools       []string     `json:"allowed_tools"`
	ReadOnly           bool         `json:"read_only"`
	AllowedModels      []string     `json:"allowed_models"`
	MaxToolCallsPerRun *int64       `json:"max_tool_calls_per_run"`
	MaxCostPerRunUSD   *json.Number `json:"max_cost_per_run_usd"`
	Enabled            *bool        `json:"enabled"`
}

// PolicyGuardrail is a guardrail without id and timestamps (the policy read).
type PolicyGuardrail struct {
	AgentName          string       `json:"agent_name"`
	AllowedTools       []string     `json:"allowed_tools"`
	ReadOnly           bool         `json:"read_only"`
	AllowedModels      []string     `json:"allowed_models"`
	MaxToolCallsPerRun *int64       `json:"max_tool_calls_per_run"`
	MaxCostPerRunUSD   *json.Number `json:"max_cost_per_run_usd"`
	Enabled            bool         `json:"enabled"`
}

// Guardrail is one agent's guardrail as the API answers it
// (docs/guardrails.md "Guardrails").
type Guardrail struct {
	ID string `json:"id"`
	PolicyGuardrail
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// ToolTag tags a tool read or write (docs/guardrails.md "Guardrails").
type ToolTag struct {
	ToolName string `json:"tool_name"`
	Access   string `json:"access"`
}

// PolicyBudget is the budget part of the policy read.
type PolicyBudget struct {
	Enabled      bool         `json:"enabled"`
	Mode         *string      `json:"mode"`
	Currency     string       `json:"currency"`
	Budget       *json.Number `json:"budget"`
	SpendMTD     json.Number  `json:"spend_mtd"`
	Exhausted    bool         `json:"exhausted"`
	PeriodEndsAt string       `json:"period_ends_at"`
}

// PolicyRead is GET /v1/guardrails/policy.
type PolicyRead struct {
	Guardrails []PolicyGuardrail `json:"guardrails"`
	ToolTags   map[string]string `json:"tool_tags"`
	Budget     PolicyBudget      `json:"budget"`
	AsOf       string            `json:"as_of,omitempty"`
}

func guardrailJSON(g postgres.GuardrailRow) Guardrail {
	out := Guardrail{ID: g.ID, CreatedAt: ts(g.CreatedAt), UpdatedAt: ts(g.UpdatedAt),
		PolicyGuardrail: PolicyGuardrail{AgentName: g.AgentName, AllowedTools: g.AllowedTools, ReadOnly: g.ReadOnly,
			AllowedModels: g.AllowedModels, MaxToolCallsPerRun: g.MaxToolCallsPerRun, Enabled: g.Enabled}}
	if g.MaxCostPerRunNano != nil {
		m := money(*g.MaxCostPerRunNano)
		out.MaxCostPerRunUSD = &m
	}
	return out
}
