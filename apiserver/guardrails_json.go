package apiserver

import (
	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/postgres"
)

func guardrailJSON(g postgres.GuardrailRow) wire.Guardrail {
	out := wire.Guardrail{ID: g.ID, CreatedAt: ts(g.CreatedAt), UpdatedAt: ts(g.UpdatedAt),
		PolicyGuardrail: wire.PolicyGuardrail{AgentName: g.AgentName, AllowedTools: g.AllowedTools, ReadOnly: g.ReadOnly,
			AllowedModels: g.AllowedModels, MaxToolCallsPerRun: g.MaxToolCallsPerRun, Enabled: g.Enabled}}
	if g.MaxCostPerRunNano != nil {
		m := money(*g.MaxCostPerRunNano)
		out.MaxCostPerRunUSD = &m
	}
	return out
}
