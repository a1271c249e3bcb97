package guardrail

import (
	"sort"
	"time"
)

// JudgeUsage is the breaches of g given the tools (tool calls only) and
// models (every call) an agent used and its runs' totals. A disabled
// guardrail has none. Breaches come ordered by kind, then subject.
func JudgeUsage(g Guardrail, p Policy, tools, models []Usage, runs []Run) []Breach {
	if !g.Enabled {
		return nil
	}
	var out []Breach
	for _, u := range tools {
		if k := ToolBreach(g, p.ToolAccess(u.Key), u.Key); k != "" {
			out = append(out, Breach{Agent: g.AgentName, Kind: k, Subject: u.Key, Count: u.Calls,
				Observed: u.Calls, LastSeen: u.LastSeen})
		}
	}
	for _, u := range models {
		if !ModelPermitted(g, u.Key) {
			out = append(out, Breach{Agent: g.AgentName, Kind: UndeclaredModel, Subject: u.Key,
				Count: u.Calls, Observed: u.Calls, LastSeen: u.LastSeen})
		}
	}
	if b, ok := runBreach(g, ToolCallsOverLimit, g.MaxToolCallsPerRun, runs,
		func(r Run) int64 { return r.ToolCalls }); ok {
		out = append(out, b)
	}
	if b, ok := runBreach(g, RunCostOverLimit, g.MaxCostPerRunNano, runs,
		func(r Run) int64 { return r.CostNano }); ok {
		out = append(out, b)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return kindOrder[out[i].Kind] < kindOrder[out[j].Kind]
		}
		return out[i].Subject < out[j].Subject
	})
	return out
}

var kindOrder = map[Kind]int{UndeclaredTool: 0, WriteInReadOnly: 1, UndeclaredModel: 2,
	ToolCallsOverLimit: 3, RunCostOverLimit: 4}

// runBreach counts the runs whose value exceeds limit; the subject is the
// worst run (ties: the latest, then the smallest trace_id).
func runBreach(g Guardrail, k Kind, limit *int64, runs []Run, value func(Run) int64) (Breach, bool) {
	if limit == nil {
		return Breach{}, false
	}
	var b Breach
	var worst *Run
	for i := range runs {
		r := &runs[i]
		if value(*r) <= *limit {
			continue
		}
		b.Count++
		if worst == nil || worse(value(*r), value(*worst), *r, *worst) {
			worst = r
		}
	}
	if worst == nil {
		return Breach{}, false
	}
	l := *limit
	return Breach{Agent: g.AgentName, Kind: k, Subject: worst.TraceID, Count: b.Count, Limit: &l,
		Observed: value(*worst), LastSeen: worst.LastSeen}, true
}

func worse(v, w int64, r, o Run) bool {
	if v != w {
		return v > w
	}
	if !r.LastSeen.Equal(o.LastSeen) {
		return r.LastSeen.After(o.LastSeen)
	}
	return r.TraceID < o.TraceID
}

// Call is one stored LLM call as the ingest hook sees it.
type Call struct {
	Agent, Model, Tool string
	TS                 time.Time
}

// JudgeBatch is the breaches of a batch: tool and model breaches of its
// calls, and per-run breaches of the stored totals of the runs it touched
// (runs by agent), so a run that only goes over the limit once a later
// batch adds to it breaches then.
func JudgeBatch(p Policy, calls []Call, runs map[string][]Run) []Breach {
	tools, models := map[string]map[string]*Usage{}, map[string]map[string]*Usage{}
	for _, c := range calls {
		if _, ok := p.Active(c.Agent); !ok {
			continue
		}
		if c.Tool != "" {
			addUsage(tools, c.Agent, c.Tool, c.TS)
		}
		addUsage(models, c.Agent, c.Model, c.TS)
	}
	var out []Breach
	for _, agent := range sortedAgents(p) {
		g, _ := p.Active(agent)
		out = append(out, JudgeUsage(g, p, flatten(tools[agent]), flatten(models[agent]), runs[agent])...)
	}
	return out
}

func addUsage(m map[string]map[string]*Usage, agent, key string, ts time.Time) {
	if m[agent] == nil {
		m[agent] = map[string]*Usage{}
	}
	u := m[agent][key]
	if u == nil {
		u = &Usage{Key: key}
		m[agent][key] = u
	}
	u.Calls++
	if ts.After(u.LastSeen) {
		u.LastSeen = ts
	}
}

func flatten(m map[string]*Usage) []Usage {
	out := make([]Usage, 0, len(m))
	for _, u := range m {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func sortedAgents(p Policy) []string {
	out := make([]string, 0, len(p.Guardrails))
	for a, g := range p.Guardrails {
		if g.Enabled {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}
