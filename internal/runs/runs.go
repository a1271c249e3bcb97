// Package runs computes what one traced run (a project's calls sharing a
// trace_id) amounts to: its totals, the depth and position of every span,
// its per-step and per-tool sums and the identical calls it repeated. It
// is pure: the store feeds it a run's calls and keeps the result, so the
// ingest path, re-pricing and the rebuild all agree by construction.
package runs

import (
	"cmp"
	"slices"
	"time"
)

// Call is one stored call of a run, as the run computation needs it.
type Call struct {
	EventID      string
	AgentName    string
	Model        string
	Timestamp    time.Time
	SpanID       string // "" when the call carries none: its event_id stands in
	ParentSpanID string
	Workflow     string
	StepName     string
	ToolName     string
	RequestHash  string
	InputTokens  int64
	TotalTokens  int64
	CostNano     int64
	LatencyMS    *int64
	Success      bool
}

// Summary is a run's totals: what the runs table keeps per run.
type Summary struct {
	// AgentName is the agent of the run's first call.
	AgentName string
	// Workflow is the first non-empty workflow by (timestamp, event_id).
	Workflow     string
	FirstTS      time.Time
	FirstEventID string
	// LastEnd is the latest timestamp + latency_ms of the run's calls.
	LastEnd      time.Time
	Calls        int64
	CostNano     int64
	ToolCalls    int64
	FailedCalls  int64
	SuccessCalls int64
	Tokens       int64
	MaxDepth     int64
	// Steps counts the distinct non-empty step names.
	Steps int64
}

// DurationMS is the run's span from its first call to its latest end.
func (s Summary) DurationMS() int64 { return s.LastEnd.Sub(s.FirstTS).Milliseconds() }

// Span is one call with its place in the run.
type Span struct {
	Call
	// Span is SpanID, or EventID when the call carries no span id.
	Span string
	// Depth counts the call's ancestors found among the run's spans.
	Depth int64
	// StepIndex is the 0-based position by (timestamp, event_id).
	StepIndex int64
}

// Group sums the calls of one step or one tool of a run.
type Group struct {
	Name         string
	Calls        int64
	CostNano     int64
	Tokens       int64
	LatencySum   int64
	LatencyCount int64
	SuccessCalls int64
	// ToolCalls counts the calls that carry a tool_name; Models are the
	// distinct models of the calls, sorted (the agent detail's step facts).
	ToolCalls int64
	Models    []string
}

// Repeat is a group of two or more identical calls of one run.
type Repeat struct {
	Workflow, StepName, ToolName, Model string
	InputTokens                         int64
	RequestHash                         string
	Occurrences                         int64
	SpendNano                           int64
	// WastedNano is the spend less the first occurrence's cost.
	WastedNano int64
	FirstSeen  time.Time
}

// Run is everything computed from one run's calls.
type Run struct {
	Summary
	Spans   []Span
	Steps   []Group
	Tools   []Group
	Repeats []Repeat
}

// Build computes a run from its calls (any order, at least one).
func Build(calls []Call) Run {
	sorted := slices.Clone(calls)
	slices.SortFunc(sorted, func(a, b Call) int {
		if c := a.Timestamp.Compare(b.Timestamp); c != 0 {
			return c
		}
		return cmp.Compare(a.EventID, b.EventID)
	})
	var r Run
	r.Spans = spans(sorted)
	r.Summary = summarize(r.Spans)
	r.Steps = groups(sorted, func(c Call) string { return c.StepName })
	r.Tools = groups(sorted, func(c Call) string { return c.ToolName })
	r.Repeats = repeats(sorted)
	return r
}

func summarize(spans []Span) Summary {
	var s Summary
	if len(spans) == 0 {
		return s
	}
	s.AgentName, s.FirstTS, s.FirstEventID = spans[0].AgentName, spans[0].Timestamp, spans[0].EventID
	steps := map[string]bool{}
	for _, sp := range spans {
		c := sp.Call
		if s.Workflow == "" {
			s.Workflow = c.Workflow
		}
		end := c.Timestamp
		if c.LatencyMS != nil {
			end = end.Add(time.Duration(*c.LatencyMS) * time.Millisecond)
		}
		if end.After(s.LastEnd) {
			s.LastEnd = end
		}
		s.Calls++
		s.CostNano += c.CostNano
		s.Tokens += c.TotalTokens
		if c.ToolName != "" {
			s.ToolCalls++
		}
		if c.Success {
			s.SuccessCalls++
		} else {
			s.FailedCalls++
		}
		if c.StepName != "" {
			steps[c.StepName] = true
		}
		s.MaxDepth = max(s.MaxDepth, sp.Depth)
	}
	s.Steps = int64(len(steps))
	return s
}

// spans places sorted calls: step index and depth (ancestors found among
// the run's spans; a parent chain that loops stops where it would repeat).
func spans(sorted []Call) []Span {
	parent := make(map[string]string, len(sorted))
	out := make([]Span, len(sorted))
	for i, c := range sorted {
		id := c.SpanID
		if id == "" {
			id = c.EventID
		}
		out[i] = Span{Call: c, Span: id, StepIndex: int64(i)}
		if _, seen := parent[id]; !seen {
			parent[id] = c.ParentSpanID
		}
	}
	for i := range out {
		out[i].Depth = Depth(out[i].Span, parent)
	}
	return out
}

// Depth counts span's ancestors in parent (span → parent span id), stopping
// at a parent that is not a stored span or that would close a loop.
func Depth(span string, parent map[string]string) int64 {
	seen := map[string]bool{span: true}
	var d int64
	for cur := parent[span]; cur != ""; cur = parent[cur] {
		if _, stored := parent[cur]; !stored || seen[cur] {
			break
		}
		seen[cur] = true
		d++
	}
	return d
}

// groups sums sorted calls by a non-empty name, sorted by name.
func groups(sorted []Call, name func(Call) string) []Group {
	idx := map[string]int{}
	var out []Group
	for _, c := range sorted {
		n := name(c)
		if n == "" {
			continue
		}
		i, ok := idx[n]
		if !ok {
			i = len(out)
			idx[n] = i
			out = append(out, Group{Name: n})
		}
		g := &out[i]
		g.Calls++
		g.CostNano += c.CostNano
		g.Tokens += c.TotalTokens
		if c.LatencyMS != nil {
			g.LatencySum += *c.LatencyMS
			g.LatencyCount++
		}
		if c.Success {
			g.SuccessCalls++
		}
		if c.ToolName != "" {
			g.ToolCalls++
		}
		if !slices.Contains(g.Models, c.Model) {
			g.Models = append(g.Models, c.Model)
		}
	}
	for i := range out {
		slices.Sort(out[i].Models)
	}
	slices.SortFunc(out, func(a, b Group) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

type repeatKey struct {
	workflow, step, tool, model string
	input                       int64
	hash                        string
}

// repeats groups sorted calls that are identical (workflow, step, tool,
// model, input tokens and request hash; no hash matches only no hash) and
// keeps the groups of two or more, in order of first occurrence.
func repeats(sorted []Call) []Repeat {
	idx := map[repeatKey]int{}
	var all []Repeat
	for _, c := range sorted {
		k := repeatKey{c.Workflow, c.StepName, c.ToolName, c.Model, c.InputTokens, c.RequestHash}
		i, ok := idx[k]
		if !ok {
			i = len(all)
			idx[k] = i
			all = append(all, Repeat{Workflow: c.Workflow, StepName: c.StepName, ToolName: c.ToolName,
				Model: c.Model, InputTokens: c.InputTokens, RequestHash: c.RequestHash, FirstSeen: c.Timestamp})
		} else {
			all[i].WastedNano += c.CostNano
		}
		all[i].Occurrences++
		all[i].SpendNano += c.CostNano
	}
	return slices.DeleteFunc(all, func(r Repeat) bool { return r.Occurrences < 2 })
}
