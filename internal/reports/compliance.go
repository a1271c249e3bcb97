package reports

import (
	"context"
	"sort"
	"time"

	"github.com/llmcost/llmcost/internal/analytics"
	"github.com/llmcost/llmcost/internal/guardrail"
	"github.com/llmcost/llmcost/internal/postgres"
)

const day = 24 * time.Hour

// Compliance is the project's guardrails judged over [From, To), To being
// now: every report's window, as the project's retention keeps it.
type Compliance struct {
	From, To time.Time
	Tags     []postgres.ToolTag
	// ProjectCalls and ToolTrackedCalls are the project's, every agent
	// included, guarded or not.
	ProjectCalls, ToolTrackedCalls int64
	// Agents are in the order the store lists the guardrails.
	Agents []AgentCompliance
}

// AgentCompliance is one guardrail judged against its agent's usage.
type AgentCompliance struct {
	Guardrail                 postgres.GuardrailRow
	TotalCalls, TotalCostNano int64
	RunsSeen                  int64
	TrackedToolCalls          int64
	// ObservedTools and ObservedModels are sorted by name; Tools and Models
	// by calls, most first, then name.
	ObservedTools, ObservedModels []string
	Tools                         []ToolUsage
	Models                        []ModelUsage
	UnknownAccessTools            []string
	// RunStats is nil without runs.
	RunStats *guardrail.Stats
	Breaches []guardrail.Breach
	// Series has one entry per UTC day the window touches.
	Series []BreachDay
	// Status is disabled, breach or compliant.
	Status string
	// runs are the agent's runs, which the breach cost reads again.
	runs []guardrail.Run
}

// ToolUsage is one tool an agent used, its tagged access and the breach
// it is ("" for none, and for every tool of a disabled guardrail).
type ToolUsage struct {
	guardrail.Usage
	Access guardrail.Access
	Breach guardrail.Kind
}

// ModelUsage is one model an agent used and whether its guardrail permits it.
type ModelUsage struct {
	guardrail.Usage
	Permitted bool
}

// BreachDay is how many breaching calls and runs over a limit one UTC day
// held, each day judged on its own.
type BreachDay struct {
	Day   time.Time
	Count int64
}

// Compliance judges the project's guardrails over rng; only (when not
// nil) keeps the guardrails of those agents, so the agent view reads no
// other agent's usage.
func (rs *Reports) Compliance(ctx context.Context, project string, rng analytics.Range, only map[string]bool) (Compliance, error) {
	ret, err := rs.DB.Retention(ctx, project)
	if err != nil {
		return Compliance{}, err
	}
	// Per-agent hourly tool rows may be missing where the raw calls
	// expired (postgres.WindowQuery's HoursOutliveCalls): a window that
	// reaches there starts at its whole UTC day.
	now := rs.Now().UTC()
	w := analytics.Retained(analytics.Window(rng, now), ret.RawExpiredBefore(now), ret.RollupExpiredBefore(now), true)
	out := Compliance{From: w.Start, To: w.End}
	guardrails, err := rs.DB.Guardrails(ctx, project)
	if err != nil {
		return out, err
	}
	var rows []postgres.GuardrailRow
	for _, g := range guardrails {
		if only == nil || only[g.AgentName] {
			rows = append(rows, g)
		}
	}
	if out.Tags, err = rs.DB.ToolTags(ctx, project); err != nil {
		return out, err
	}
	pol := guardrail.Policy{Tags: map[string]guardrail.Access{}}
	for _, t := range out.Tags {
		pol.Tags[t.ToolName] = t.Access
	}
	agents := make([]string, len(rows))
	for i, g := range rows {
		agents[i] = g.AgentName
	}
	data, err := rs.DB.ReadCompliance(ctx, project, agents, out.From, out.To)
	if err != nil {
		return out, err
	}
	out.ProjectCalls, out.ToolTrackedCalls = data.ProjectCalls, data.ToolCalls
	out.Agents = make([]AgentCompliance, len(rows))
	for i, g := range rows {
		out.Agents[i] = JudgeAgent(g, pol, data, out.From, out.To)
	}
	return out, nil
}

// agentData is one agent's share of the compliance read.
type agentData struct {
	tools, models map[string]*guardrail.Usage
	daily         map[time.Time][2][]guardrail.Usage // tools, models per day
	runs          []guardrail.Run
	dailyRuns     map[time.Time][]guardrail.Run
}

// splitAgent is agent's share of a read of every guarded agent: its usage
// summed over the window and per day, and its runs, all and per day of
// their last call.
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

// sortedUsage lists the usage by calls, most first, then by key, so equal
// counts come out in one order on every read.
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

// JudgeAgent judges row's guardrail against its agent's usage in d over
// [from, to): the whole window, and each UTC day on its own for the
// series. A disabled guardrail is judged too (its breaches show what it
// would catch) but marks no tool as a breach.
func JudgeAgent(row postgres.GuardrailRow, pol guardrail.Policy, d postgres.ComplianceData, from, to time.Time) AgentCompliance {
	g := row.Guardrail
	a := splitAgent(g.AgentName, d)
	tools, models := sortedUsage(a.tools), sortedUsage(a.models)
	out := AgentCompliance{Guardrail: row, TotalCalls: d.Totals[g.AgentName][0], TotalCostNano: d.Totals[g.AgentName][1],
		RunsSeen: int64(len(a.runs)), ObservedTools: []string{}, ObservedModels: []string{},
		Tools: make([]ToolUsage, 0, len(tools)), Models: make([]ModelUsage, 0, len(models)),
		UnknownAccessTools: guardrail.UnknownAccess(g, pol, tools), RunStats: guardrail.RunStats(a.runs),
		Breaches: guardrail.JudgeUsage(g, pol, tools, models, a.runs), runs: a.runs}
	for _, u := range tools {
		out.TrackedToolCalls += u.Calls
		out.ObservedTools = append(out.ObservedTools, u.Key)
		tu := ToolUsage{Usage: u, Access: pol.ToolAccess(u.Key)}
		if g.Enabled {
			tu.Breach = guardrail.ToolBreach(g, tu.Access, u.Key)
		}
		out.Tools = append(out.Tools, tu)
	}
	for _, u := range models {
		out.ObservedModels = append(out.ObservedModels, u.Key)
		out.Models = append(out.Models, ModelUsage{Usage: u, Permitted: guardrail.ModelPermitted(g, u.Key)})
	}
	sort.Strings(out.ObservedTools)
	sort.Strings(out.ObservedModels)
	for t := from.Truncate(day); t.Before(to); t = t.Add(day) {
		dd := a.daily[t]
		n := guardrail.Count(guardrail.JudgeUsage(g, pol, dd[0], dd[1], a.dailyRuns[t]))
		out.Series = append(out.Series, BreachDay{Day: t, Count: n})
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
