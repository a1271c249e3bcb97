// Package guardrail judges LLM calls against per-agent guardrails: which
// tools and models an agent may use, whether it may use write tools, and
// per-run limits on tool calls and cost. It is pure: the ingest hook feeds
// it a batch's calls and stored run totals, compliance feeds it usage read
// from the rollups; both get the same breaches.
package guardrail

import (
	"slices"
	"time"

	"github.com/llmcost/llmcost/internal/pricing"
)

// Kind is a breach kind (docs/guardrails.md "Breach kinds").
type Kind string

// The five breach kinds.
const (
	UndeclaredTool     Kind = "undeclared_tool"
	WriteInReadOnly    Kind = "write_in_readonly"
	UndeclaredModel    Kind = "undeclared_model"
	ToolCallsOverLimit Kind = "tool_calls_over_limit"
	RunCostOverLimit   Kind = "run_cost_over_limit"
)

// Access of a tool: a tag says read or write; a tool with no tag is unknown.
type Access string

// Tool access values.
const (
	Read    Access = "read"
	Write   Access = "write"
	Unknown Access = "unknown"
)

// Guardrail is one agent's rules. A nil list permits anything, an empty one
// nothing; a nil limit is no limit.
type Guardrail struct {
	AgentName          string
	AllowedTools       []string
	ReadOnly           bool
	AllowedModels      []string
	MaxToolCallsPerRun *int64
	MaxCostPerRunNano  *int64
	Enabled            bool
}

// Policy is what a project has in force: guardrails by agent and tool tags.
type Policy struct {
	Guardrails map[string]Guardrail
	Tags       map[string]Access
}

// Active is the enabled guardrail of agent, if any.
func (p Policy) Active(agent string) (Guardrail, bool) {
	g, ok := p.Guardrails[agent]
	return g, ok && g.Enabled
}

// ToolAccess is the tag of tool (Unknown without one).
func (p Policy) ToolAccess(tool string) Access {
	if a, ok := p.Tags[tool]; ok {
		return a
	}
	return Unknown
}

// ToolBreach is the kind of breach one call of tool is under g, or "".
// A tool outside allowed_tools is undeclared, whatever its tag; a
// write-tagged tool of a read-only agent is write_in_readonly; a tool
// with no tag is never judged for writing.
func ToolBreach(g Guardrail, access Access, tool string) Kind {
	if g.AllowedTools != nil && !slices.Contains(g.AllowedTools, tool) {
		return UndeclaredTool
	}
	if g.ReadOnly && access == Write {
		return WriteInReadOnly
	}
	return ""
}

// ModelPermitted reports whether g allows model, compared after the
// catalogue's name normalisation on both sides.
func ModelPermitted(g Guardrail, model string) bool {
	if g.AllowedModels == nil {
		return true
	}
	n := pricing.Normalize(model)
	for _, m := range g.AllowedModels {
		if pricing.Normalize(m) == n {
			return true
		}
	}
	return false
}

// Usage is how much an agent used one tool or model.
type Usage struct {
	Key      string
	Calls    int64
	CostNano int64
	LastSeen time.Time
}

// Run is the stored total of one run (calls sharing a trace_id) that
// carries a workflow.
type Run struct {
	TraceID   string
	ToolCalls int64
	CostNano  int64
	LastSeen  time.Time
}

// Breach is one kind of breach of one agent on one subject: the tool, the
// model, or the trace_id of the worst run. Count is breaching calls, or
// runs over the limit. Limit is nil for tool and model kinds, whose
// Observed is the call count; for per-run kinds Limit is the limit and
// Observed the worst run's value (nano-USD for cost).
type Breach struct {
	Agent    string
	Kind     Kind
	Subject  string
	Count    int64
	Limit    *int64
	Observed int64
	LastSeen time.Time
}

// Money reports whether Limit and Observed are nano-USD.
func (b Breach) Money() bool { return b.Kind == RunCostOverLimit }
