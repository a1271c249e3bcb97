package apiserver

import (
	"net/http"
	"slices"

	"github.com/gorilla/mux"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/agentview"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/apierr"
	"github.com/llmcost/llmcost/internal/postgres"
	"github.com/llmcost/llmcost/internal/runs"
)

// analyticsAgentDetail is GET /v1/analytics/agents/{agent_name}: the
// agent's summary row and every section a person needs to act on it
// (reports.AgentDetail). 404 when the agent made no call in the window.
func (s *Server) analyticsAgentDetail(r *http.Request) (wire.AgentDetail, error) {
	agent := mux.Vars(r)["agent_name"]
	rng, err := analytics.ParseRange(r.URL.Query().Get("range"), analytics.AllRanges)
	if err != nil {
		return wire.AgentDetail{}, err
	}
	// One agent's detail takes no tag filter, as no spend report takes one
	// with agent_name: the tag rollups keep no breakdown per agent.
	if tag, err := s.parseTagFilter(r.Context(), callerOf(r).ProjectID, r.URL.Query()); err != nil {
		return wire.AgentDetail{}, err
	} else if tag.key != "" {
		return wire.AgentDetail{}, apierr.Field(postgres.TagDimPrefix+tag.key, "a tag filter does not combine with an agent's detail")
	}
	d, err := s.reports().AgentDetail(r.Context(), callerOf(r).ProjectID, agent, rng)
	if err != nil {
		return wire.AgentDetail{}, err
	}
	out := wire.AgentDetail{Summary: summaryRow(d.Summary),
		ByModel: dimensionRows(d.ByModel), ByTool: dimensionRows(d.ByTool), ByUser: dimensionRows(d.ByUser),
		BySession: dimensionRows(d.BySession), ByWorkflow: dimensionRows(d.ByWorkflow),
		Latency: wire.AgentLatency{P50: d.Latency.P50, P95: d.Latency.P95, P99: d.Latency.P99, Avg: d.Latency.Avg,
			SampleSize: d.Latency.SampleSize},
		Steps: agentStepRows(d.Steps), RepeatedWork: repeatedRows(d.RepeatedWork), Traces: traceRows(d.Traces),
		Outcomes: outcomesSummary(d.Outcomes),
		TailCost: wire.AgentTailCost{Threshold: money(d.TailCost.ThresholdNano), Runs: d.TailCost.Runs,
			Cost: money(d.TailCost.CostNano), SharePercent: d.TailCost.SharePercent}}
	if d.Compliance != nil {
		c := agentCompliance(*d.Compliance)
		out.Compliance = &c
	}
	if d.Distribution != nil {
		dist := distribution(*d.Distribution)
		out.Distribution = &dist
	}
	summary := []wire.AgentSummaryRow{out.Summary}
	err = s.addAgentAnomalies(r.Context(), callerOf(r).ProjectID, analytics.Window(rng, s.Now()), summary)
	out.Summary = summary[0]
	return out, err
}

// agentStepRows turns the per-run step figures into step rows.
func agentStepRows(steps []postgres.AgentStep) []wire.AgentStepRow {
	out := make([]wire.AgentStepRow, len(steps))
	for i, st := range steps {
		models := st.Models
		if models == nil {
			models = []string{}
		}
		costs := st.RunCosts
		if !slices.IsSorted(costs) {
			costs = slices.Sorted(slices.Values(costs))
		}
		out[i] = wire.AgentStepRow{StepName: st.StepName, Tool: st.Tool, Models: models, Runs: st.Runs, Calls: st.Calls,
			CallsPerRun: analytics.Mean(st.Calls, st.Runs), MaxCallsPerRun: st.MaxCallsPerRun,
			TotalCost: money(st.CostNano), SuccessRate: analytics.Percent(st.SuccessCalls, st.Calls)}
		if len(costs) > 0 {
			med, p95 := money(runs.RoundNano(runs.Percentile(costs, 50))), money(runs.RoundNano(runs.Percentile(costs, 95)))
			out[i].MedianCostPerRun, out[i].P95CostPerRun = &med, &p95
		}
	}
	return out
}

// outcomesSummary is the record of the agent's summed run outcomes.
func outcomesSummary(o agentview.Outcomes) wire.OutcomesSummary {
	out := wire.OutcomesSummary{Runs: o.Runs, Succeeded: o.Succeeded, Failed: o.Failed, Unknown: o.Unknown,
		CostOnSuccess: money(o.CostOnSuccessNano), CostOnFailure: money(o.CostOnFailureNano), SuccessRate: o.SuccessRate}
	if o.CostPerSuccessNano != nil {
		n := money(*o.CostPerSuccessNano)
		out.CostPerSuccess = &n
	}
	return out
}
