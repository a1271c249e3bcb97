package apiserver

import (
	"net/http"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/alerts"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/reports"
)

// compliance is GET /v1/guardrails/compliance (range, default 7d) over
// [now − range, now), the window of every report (start_time, end_time);
// breach_series has one entry per UTC day the window touches.
func (s *Server) compliance(r *http.Request) (wire.Compliance, error) {
	rng, err := analytics.ParseRange(r.URL.Query().Get("range"), analytics.AllRanges)
	if err != nil {
		return wire.Compliance{}, err
	}
	c, err := s.reports().Compliance(r.Context(), callerOf(r).ProjectID, rng, nil)
	if err != nil {
		return wire.Compliance{}, err
	}
	out := wire.Compliance{Agents: make([]wire.AgentCompliance, len(c.Agents)), ToolTags: make([]wire.ToolTag, len(c.Tags)),
		StartTime: ts(c.From), EndTime: ts(c.To), TotalCalls: c.ProjectCalls, ToolTrackedCalls: c.ToolTrackedCalls}
	for i, t := range c.Tags {
		out.ToolTags[i] = wire.ToolTag{ToolName: t.ToolName, Access: string(t.Access)}
	}
	for i, a := range c.Agents {
		out.Agents[i] = agentCompliance(a)
	}
	return out, nil
}

// agentCompliance is the record of one judged guardrail.
func agentCompliance(a reports.AgentCompliance) wire.AgentCompliance {
	g := a.Guardrail.Guardrail
	out := wire.AgentCompliance{AgentName: g.AgentName, ReadOnly: g.ReadOnly, AllowedTools: g.AllowedTools,
		AllowedModels: g.AllowedModels, MaxToolCallsPerRun: g.MaxToolCallsPerRun,
		MaxCostPerRunUSD: guardrailJSON(a.Guardrail).MaxCostPerRunUSD, TotalCalls: a.TotalCalls,
		TotalCost: money(a.TotalCostNano), RunsSeen: a.RunsSeen, TrackedToolCalls: a.TrackedToolCalls,
		ObservedTools: a.ObservedTools, ObservedModels: a.ObservedModels,
		ToolUsage: make([]wire.ToolUsage, len(a.Tools)), ModelUsage: make([]wire.ModelUsage, len(a.Models)),
		Breaches: make([]wire.BreachRecord, len(a.Breaches)), UnknownAccessTools: a.UnknownAccessTools, Status: a.Status}
	for i, u := range a.Tools {
		out.ToolUsage[i] = wire.ToolUsage{ToolName: u.Key, Calls: u.Calls, LastSeen: optTS(u.LastSeen), Access: string(u.Access)}
		if u.Breach != "" {
			k := string(u.Breach)
			out.ToolUsage[i].BreachKind = &k
		}
	}
	for i, m := range a.Models {
		out.ModelUsage[i] = wire.ModelUsage{Model: m.Key, Calls: m.Calls, Cost: money(m.CostNano), Permitted: m.Permitted}
	}
	if st := a.RunStats; st != nil {
		out.RunStats = &wire.RunStats{Runs: st.Runs, P50ToolCalls: st.P50ToolCalls, P95ToolCalls: st.P95ToolCalls,
			MaxToolCalls: st.MaxToolCalls, P50Cost: money(st.P50Cost), P95Cost: money(st.P95Cost), MaxCost: money(st.MaxCost)}
	}
	for i, b := range a.Breaches {
		out.Breaches[i] = breachRecord(b)
	}
	for _, d := range a.Series {
		out.BreachSeries = append(out.BreachSeries, wire.BreachPoint{Day: d.Day.Format(time.DateOnly), Count: d.Count})
	}
	return out
}

func breachRecord(b guardrail.Breach) wire.BreachRecord {
	out := wire.BreachRecord{Kind: string(b.Kind), Subject: b.Subject, Count: b.Count,
		Observed: alerts.Figure(b, b.Observed), LastSeen: optTS(b.LastSeen)}
	if b.Limit != nil {
		l := alerts.Figure(b, *b.Limit)
		out.Limit = &l
	}
	return out
}

func optTS(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := ts(t)
	return &s
}
