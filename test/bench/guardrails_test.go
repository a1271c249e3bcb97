package bench

import (
	"context"
	"net/url"
	"testing"

	"github.com/llmcost/llmcost/internal/benchdata"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
)

// guardedAgents is how many of the dataset's agents have a guardrail when
// the reports are timed: a team guards its busiest few, and compliance
// reads every guarded agent's use of tools and models and its runs.
const guardedAgents = 5

// guardAgents gives the first guardedAgents agents of projectID a
// guardrail with every kind of rule (an allowed tool and model list that
// leaves some out, per-run limits their longer runs pass), as its owner
// would set them in the dashboard, so compliance judges usage, runs and
// each day; written through the store, as the bench's key is.
func guardAgents(b *testing.B, db *postgres.DB, projectID string) {
	calls, cost := int64(20), int64(50_000_000) // 20 tool calls, 0.05 USD a run
	for a := range guardedAgents {
		g := guardrail.Guardrail{AgentName: benchdata.AgentName(a), AllowedTools: benchdata.Tools[:8],
			AllowedModels: benchdata.Models[:10], MaxToolCallsPerRun: &calls, MaxCostPerRunNano: &cost, Enabled: true}
		if _, _, err := db.PutGuardrail(context.Background(), projectID, g); err != nil {
			b.Fatal(err)
		}
	}
}

// unguardAgents removes the guardrails guardAgents gave, so the kept
// dataset is as seeded for the next run.
func unguardAgents(b *testing.B, db *postgres.DB, projectID string) {
	for a := range guardedAgents {
		if err := db.DeleteGuardrail(context.Background(), projectID, benchdata.AgentName(a)); err != nil {
			b.Fatal(err)
		}
	}
}

// timeCompliance times the guardrail compliance report (the project's,
// no agent filter) over every range.
func timeCompliance(b *testing.B, srv *llmcost, key string) timing {
	return timeRanges(b, srv, key, "guardrails/compliance", "/v1/guardrails/compliance", url.Values{})
}
