// Package benchdata generates the analytics benchmark's dataset: a
// deterministic, seeded month-scale history of one project's LLM calls with
// run structure (traces, spans, steps, tools, workflows) and run outcomes.
//
// It does no I/O (but LoadAverage, the host's load that benchmarks print
// beside their figures). Every call comes out priced exactly as the ingest path
// prices it (the cost processor's rules over the given catalogue), and every
// call can be rendered as the /v1/events/batch JSON that ingest turns into
// the very same row, so a bulk COPY of the generated events fills the events
// table as sending them over HTTP would.
package benchdata

import (
	"fmt"
	"time"
)

// Version names the generator's output: bump it whenever a change to this
// package changes the rows, so a stored dataset of an older version is not
// reused.
const Version = 3

// Spec sizes a dataset.
type Spec struct {
	// Seed makes the dataset reproducible: one seed, one dataset.
	Seed uint64
	// Events is the number of calls in all.
	Events int
	// Days is the history's length, ending at the anchor time.
	Days int
	// Agents, Users, Sessions and Workflows are the number of distinct values.
	Agents, Users, Sessions, Workflows int
	// Prefix, when set, begins every call's, run's and session's id, so
	// that several datasets generated into one project never share one:
	// older months that grow a history, calls streamed onto a seeded one.
	// Agents, users, workflows and teams are the project's, shared by all.
	Prefix string
}

// Default is the dataset the report targets are stated for: 10 M calls over
// 90 days, 50 agents, 20 models, 1,000 users, 10,000 one-day sessions, 30
// workflows, about a million runs.
var Default = Spec{Seed: 20261122, Events: 10_000_000, Days: 90, Agents: 50, Users: 1000, Sessions: 10_000, Workflows: 30}

// Key identifies the dataset a spec produces.
func (s Spec) Key() string {
	key := fmt.Sprintf("v%d-seed%d-%de-%dd-%da-%du-%ds-%dw", Version, s.Seed, s.Events, s.Days, s.Agents, s.Users, s.Sessions, s.Workflows)
	if s.Prefix != "" {
		key += "-p" + s.Prefix
	}
	return key
}

// Validate refuses a spec the generator cannot honour.
func (s Spec) Validate() error {
	switch {
	case s.Days < 1:
		return fmt.Errorf("days must be ≥ 1, got %d", s.Days)
	case s.Sessions < s.Days:
		return fmt.Errorf("sessions (%d) must be at least days (%d): a session is one day", s.Sessions, s.Days)
	case s.Agents < 1 || s.Users < 1 || s.Workflows < 1:
		return fmt.Errorf("agents, users and workflows must be ≥ 1")
	case s.Events < s.Days:
		return fmt.Errorf("events (%d) must be at least days (%d)", s.Events, s.Days)
	}
	return nil
}

// DayStart is the start of day slot d (0 is the oldest): slots are 24-hour
// periods ending at anchor, so the last one ends at anchor.
func (s Spec) DayStart(anchor time.Time, d int) time.Time {
	return anchor.Add(-time.Duration(s.Days-d) * 24 * time.Hour)
}

// dayEvents is how many calls day d holds: an even split, the remainder on
// the first days.
func (s Spec) dayEvents(d int) int {
	n := s.Events / s.Days
	if d < s.Events%s.Days {
		n++
	}
	return n
}

// daySessions is the half-open range of session numbers that live on day d.
func (s Spec) daySessions(d int) (lo, hi int) {
	return d * s.Sessions / s.Days, (d + 1) * s.Sessions / s.Days
}

// Models: real catalogue names, several with cache rates (Anthropic with
// five-minute and one-hour writes, others with reads only), some without any
// cache rate, and two the catalogue does not know, so unpriced calls exist.
var Models = []string{
	"claude-sonnet-4-5", "claude-opus-4-6", "claude-haiku-4-5", "claude-sonnet-4-6",
	"gpt-5.1", "gpt-5-mini", "gpt-4.1-mini", "gpt-4o-mini", "o4-mini",
	"gemini-2.5-flash", "gemini-2.5-pro", "deepseek-chat", "grok-4-fast-reasoning",
	"mistral-large-2512", "mistral-small-2506", "codestral-2508", "gpt-4-turbo", "gpt-3.5-turbo",
	"acme-internal-7b", "llama-3.3-70b-local",
}

// knownModels is how many of Models (the first ones) an agent may take as
// its main model; the unknown ones only appear as occasional calls.
const knownModels = 18

// Tools are the tool names of tool calls.
var Tools = []string{
	"web_search", "sql_query", "read_file", "write_file", "run_tests", "http_get",
	"send_email", "vector_search", "code_exec", "calendar", "crm_lookup", "ticket_update",
}

var agentRoles = []string{"support", "research", "coder", "reviewer", "planner",
	"summarizer", "triage", "sales", "analyst", "ops"}

var stepNames = []string{"plan", "retrieve", "draft", "critique", "revise", "call_tool",
	"verify", "summarize", "classify", "extract"}

var errorTexts = []string{"rate_limit_exceeded: 429 from provider", "timeout after 60s",
	"context_length_exceeded", "upstream 503", "tool returned invalid JSON"}

var outcomeLabels = []string{"resolved", "escalated", "abandoned", "merged", "answered"}

// TagKey is the chargeback tag every call carries in its metadata (the
// user's team), which the benchmark project declares.
const TagKey = "team"

// Teams is how many teams the users belong to (user u to team u mod Teams).
const Teams = 40

// TeamName is user u's team.
func TeamName(u int) string { return fmt.Sprintf("team-%02d", u%Teams) }

// AgentName is agent a's name.
func AgentName(a int) string {
	return fmt.Sprintf("%s-%02d", agentRoles[a%len(agentRoles)], a/len(agentRoles))
}

// WorkflowName is workflow w's name.
func WorkflowName(w int) string { return fmt.Sprintf("wf-%s-%02d", stepNames[w%len(stepNames)], w) }

// UserID is user u's id.
func UserID(u int) string { return fmt.Sprintf("user-%04d", u) }

// SessionID is session s's id.
func SessionID(s int) string { return fmt.Sprintf("sess-%05d", s) }

// TraceID is the trace id of run r of day slot d.
func TraceID(d, r int) string { return fmt.Sprintf("tr-%02d-%06d", d, r) }
