package apiserver

import (
	"context"
	"net/http"
	"sort"
	"time"

	"github.com/llmcost/llmcost/apiserver/wire"
	"github.com/llmcost/llmcost/internal/alerts"
	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
)

const day = 24 * time.Hour

// compliance is GET /v1/guardrails/compliance (range, default 7d) over
// [now − range, now), the window of every report (start_time, end_time);
// breach_series has one entry per UTC day the window touches.
func (s *Server) compliance(r *http.Request) (wire.Compliance, error) {
	rng, err := analytics.ParseRange(r.URL.Query().Get("range"), analytics.AllRanges)
	if err != nil {
		return wire.Compliance{}, err
	}
	cr, err := s.readCompliance(r.Context(), callerOf(r).ProjectID, rng, nil)
	if err != nil {
		return wire.Compliance{}, err
	}
	out := wire.Compliance{Agents: make([]wire.AgentCompliance, len(cr.rows)), ToolTags: make([]wire.ToolTag, len(cr.tags)),
		StartTime: ts(cr.from), EndTime: ts(cr.now)}
	for i, t := range cr.tags {
		out.ToolTags[i] = wire.ToolTag{ToolName: t.ToolName, Access: string(t.Access)}
	}
	out.TotalCalls, out.ToolTrackedCalls = cr.data.ProjectCalls, cr.data.ToolCalls
	for i, g := range cr.rows {
		out.Agents[i] = agentCompliance(g, cr.pol, cr.data, cr.from, cr.to)
	}
	return out, nil
}

// complianceRead is what judging the guardrails over a range reads: the
// guardrails, the tool tags and the usage over [from, to), to = now.
type complianceRead struct {
	rows     []postgres.GuardrailRow
	tags     []postgres.ToolTag
	pol      guardrail.Policy
	data     postgres.ComplianceData
	from, to time.Time
	now      time.Time
}

// readCompliance reads the compliance of the project's guardrails over
// rng; only (when not nil) keeps the guardrails of those agents.
func (s *Server) readCompliance(ctx context.Context, project string, rng analytics.Range, only map[string]bool) (complianceRead, error) {
	now := s.Now().UTC()
	cr := complianceRead{from: now.Add(-rng.Duration()), to: now, now: now,
		pol: guardrail.Policy{Tags: map[string]guardrail.Access{}}}
	rows, err := s.DB.Guardrails(ctx, project)
	if err != nil {
		return cr, err
	}
	for _, g := range rows {
		if only == nil || only[g.AgentName] {
			cr.rows = append(cr.rows, g)
		}
	}
	if cr.tags, err = s.DB.ToolTags(ctx, project); err != nil {
		return cr, err
	}
	for _, t := range cr.tags {
		cr.pol.Tags[t.ToolName] = t.Access
	}
	agents := make([]string, len(cr.rows))
	for i, g := range cr.rows {
		agents[i] = g.AgentName
	}
	cr.data, err = s.DB.ReadCompliance(ctx, project, agents, cr.from, cr.to)
	return cr, err
}

// agentData is one agent's share of the compliance read.
type agentData struct {
	tools, models map[string]*guardrail.Usage
	daily         map[time.Time][2][]guardrail.Usage // tools, models per day
	runs          []guardrail.Run
	dailyRuns     map[time.Time][]guardrail.Run
}

func splitAgent(agent string, d postgres.ComplianceData) agentData {
	a := agentData{tools: map[string]*guardrail.Usage{}, models: map[string]*guardrail.Usage{},
		daily: map[time.Time][2][]guardrail.Usage{}, dailyRuns: map[time.Time][]guardrail.Run{}}
	for _, u := range d.Usage {
		if u.Agent != agent {
			continue
		}
		m, idx := a.tools, 0
		if u.Dim == "model" {
			m, idx = a.models, 1
		}
		if m[u.Key] == nil {
			m[u.Key] = &guardrail.Usage{Key: u.Key, LastSeen: d.LastSeen[[3]string{agent, u.Dim, u.Key}]}
		}
		m[u.Key].Calls += u.Calls
		m[u.Key].CostNano += u.CostNano
		dd := a.daily[u.Day]
		dd[idx] = append(dd[idx], guardrail.Usage{Key: u.Key, Calls: u.Calls, CostNano: u.CostNano})
		a.daily[u.Day] = dd
	}
	for _, r := range d.Runs {
		if r.Agent == agent {
			a.runs = append(a.runs, r.Run)
			dd := r.LastSeen.Truncate(day)
			a.dailyRuns[dd] = append(a.dailyRuns[dd], r.Run)
		}
	}
	return a
}

func sortedUsage(m map[string]*guardrail.Usage) []guardrail.Usage {
	out := make([]guardrail.Usage, 0, len(m))
	for _, u := range m {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Calls != out[j].Calls {
			return out[i].Calls > out[j].Calls
		}
		return out[i].Key < out[j].Key
	})
	return out
}

func agentCompliance(row postgres.GuardrailRow, pol guardrail.Policy, d postgres.ComplianceData, from, to time.Time) wire.AgentCompliance {
	g := row.Guardrail
	a := splitAgent(g.AgentName, d)
	tools, models := sortedUsage(a.tools), sortedUsage(a.models)
	js := guardrailJSON(row)
	out := wire.AgentCompliance{AgentName: g.AgentName, ReadOnly: g.ReadOnly, AllowedTools: g.AllowedTools,
		AllowedModels: g.AllowedModels, MaxToolCallsPerRun: g.MaxToolCallsPerRun, MaxCostPerRunUSD: js.MaxCostPerRunUSD,
		TotalCalls: d.Totals[g.AgentName][0], TotalCost: money(d.Totals[g.AgentName][1]), RunsSeen: int64(len(a.runs)),
		ObservedTools: []string{}, ObservedModels: []string{}, ToolUsage: []wire.ToolUsage{}, ModelUsage: []wire.ModelUsage{},
		Breaches: []wire.BreachRecord{}, UnknownAccessTools: guardrail.UnknownAccess(g, pol, tools)}
	for _, u := range tools {
		out.TrackedToolCalls += u.Calls
		out.ObservedTools = append(out.ObservedTools, u.Key)
		tu := wire.ToolUsage{ToolName: u.Key, Calls: u.Calls, LastSeen: optTS(u.LastSeen), Access: string(pol.ToolAccess(u.Key))}
		if k := guardrail.ToolBreach(g, pol.ToolAccess(u.Key), u.Key); k != "" && g.Enabled {
			s := string(k)
			tu.BreachKind = &s
		}
		out.ToolUsage = append(out.ToolUsage, tu)
	}
	for _, u := range models {
		out.ObservedModels = append(out.ObservedModels, u.Key)
		out.ModelUsage = append(out.ModelUsage, wire.ModelUsage{Model: u.Key, Calls: u.Calls, Cost: money(u.CostNano),
			Permitted: guardrail.ModelPermitted(g, u.Key)})
	}
	sort.Strings(out.ObservedTools)
	sort.Strings(out.ObservedModels)
	if st := guardrail.RunStats(a.runs); st != nil {
		out.RunStats = &wire.RunStats{Runs: st.Runs, P50ToolCalls: st.P50ToolCalls, P95ToolCalls: st.P95ToolCalls,
			MaxToolCalls: st.MaxToolCalls, P50Cost: money(st.P50Cost), P95Cost: money(st.P95Cost), MaxCost: money(st.MaxCost)}
	}
	for _, b := range guardrail.JudgeUsage(g, pol, tools, models, a.runs) {
		out.Breaches = append(out.Breaches, breachRecord(b))
	}
	for t := from.Truncate(day); t.Before(to); t = t.Add(day) {
		dd := a.daily[t]
		n := guardrail.Count(guardrail.JudgeUsage(g, pol, dd[0], dd[1], a.dailyRuns[t]))
		out.BreachSeries = append(out.BreachSeries, wire.BreachPoint{Day: t.Format(time.DateOnly), Count: n})
	}
	switch {
	case !g.Enabled:
		out.Status = "disabled"
	case len(out.Breaches) > 0:
		out.Status = "breach"
	default:
		out.Status = "compliant"
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
