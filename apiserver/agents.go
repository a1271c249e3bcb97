package apiserver

import (
	"net/http"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/agentview"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/reports"
)

// The agent view (docs/agent-view.md "Summary row" and "Detail"): the
// reports layer reads and combines it (reports.AgentView); here are its
// parameters and its records.

// Limits of the agents summary.
const (
	defaultSummaryLimit = 50
	maxSummaryLimit     = 200
)

// analyticsAgentSummary is GET /v1/analytics/agents/summary.
func (s *Server) analyticsAgentSummary(r *http.Request) ([]wire.AgentSummaryRow, error) {
	rng, err := analytics.ParseRange(r.URL.Query().Get("range"), analytics.AllRanges)
	if err != nil {
		return nil, err
	}
	limit, err := intParam(r.URL.Query().Get("limit"), "limit", defaultSummaryLimit, 1, maxSummaryLimit)
	if err != nil {
		return nil, err
	}
	project := callerOf(r).ProjectID
	tag, err := s.parseTagFilter(r.Context(), project, r.URL.Query())
	if err != nil {
		return nil, err
	}
	v, err := s.reports().AgentView(r.Context(), project, "", reports.TagFilter{Key: tag.key, Value: tag.value}, rng, limit)
	if err != nil {
		return nil, err
	}
	rows := make([]wire.AgentSummaryRow, len(v.Rows))
	for i, row := range v.Rows {
		rows[i] = summaryRow(row)
	}
	if tag.key != "" {
		// The anomaly rule judges agents over all their calls, not a tag's.
		for i := range rows {
			rows[i].Anomalies = []wire.AnomalyRow{}
		}
		return rows, nil
	}
	return rows, s.addAgentAnomalies(r.Context(), project, v.Window, rows)
}

// summaryRow is the record of one agent's summary row.
func summaryRow(in reports.AgentRow) wire.AgentSummaryRow {
	a, runs := in.Sums, in.Runs
	row := wire.AgentSummaryRow{AgentRow: agentRows([]analytics.Keyed{a})[0],
		SharePercent: analytics.Percent(a.CostNano, in.ProjectCostNano), PreviousCost: money(in.PreviousCostNano),
		CostChangePercent: agentview.ChangePercent(a.CostNano, in.PreviousCostNano), Models: make([]wire.AgentModel, len(in.Models)),
		Runs: runs.Runs, CostPerRun: perRun(runs.CostNano, runs.Runs), CallsPerRun: analytics.Mean(runs.Calls, runs.Runs),
		CachedShare: analytics.Percent(a.CachedTokens, a.InputTokens), CacheSavings: money(a.ReadSavingsNano - a.WritePremiumNano),
		FailedCalls: a.Calls - a.SuccessCalls, FailedCost: money(a.FailedCostNano), RepeatedCost: money(runs.RepeatedNano),
		RepeatedRuns: runs.RepeatedRuns, Developers: in.Facts.Developers, Sessions: in.Facts.Sessions,
		FirstSeen: optTS(in.Facts.FirstSeen), LastSeen: optTS(in.Facts.LastSeen), Daily: make([]wire.AgentDay, len(in.Days))}
	for i, m := range in.Models {
		row.Models[i] = wire.AgentModel{Model: m.Key, Calls: m.Calls, Cost: money(m.CostNano), CachedShare: m.CachedShare}
	}
	for i, d := range in.Days {
		row.Daily[i] = wire.AgentDay{Day: d.Day.Format(time.DateOnly), Cost: money(d.CostNano), Calls: d.Calls,
			FailedCost: money(d.FailedCostNano)}
	}
	sig := in.Signal
	row.Signal = wire.AgentSignal{Kind: sig.Kind, Title: sig.Title, Detail: sig.Detail}
	if sig.AmountNano != nil {
		n := money(*sig.AmountNano)
		row.Signal.Amount = &n
	}
	return row
}
