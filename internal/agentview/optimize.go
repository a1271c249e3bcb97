package agentview

import (
	"fmt"
	"sort"

	"github.com/llmcost/llmcost/internal/pricing"
)

// Suggestion types.
const (
	TypeModelDowngrade = "model_downgrade"
	TypePromptCache    = "prompt_cache"
	TypeRepeatedWork   = "repeated_work"
	TypeFailedSpend    = "failed_spend"
)

// ShortOutputMax is the largest output, in tokens, of calls counted as
// "short outputs" that a cheaper sibling would do (besides classification).
const ShortOutputMax = 256

// PromptCacheMinTokens is the repeated prompt volume below which a cache
// suggestion is not worth making.
const PromptCacheMinTokens = 1024

// ModelUsage is one agent's use of one model over the 30-day window.
type ModelUsage struct {
	Model    string
	Calls    int64
	CostNano int64
	Tokens   Tokens
	// OutputOver16Calls and OutputOver256Calls count the calls whose
	// output exceeded ClassificationMaxOutput and ShortOutputMax tokens.
	OutputOver16Calls, OutputOver256Calls int64
	// RepeatedPromptTokens are the input tokens of calls whose prompt
	// repeats an earlier call's prompt of the window.
	RepeatedPromptTokens int64
}

// AgentUsage is one agent's 30-day figures. Money is nano-USD.
type AgentUsage struct {
	Agent        string
	CostNano     int64
	Models       []ModelUsage
	RepeatedCost int64
	RepeatedRuns int64
	FailedCalls  int64
	FailedCost   int64
}

// Suggestion is one optimisation with its monthly (30-day) saving.
type Suggestion struct {
	Type               string
	Agent              string
	Model              string // empty for repeated_work and failed_spend
	Title              string
	Description        string
	SavingsMonthlyNano int64
	SavingsPercent     *float64 // of the agent's spend
	Priority           string
	ActionItems        []string
}

// Suggest returns the suggestions for the agents' 30-day figures, largest
// saving first (then agent, type, model in byte order).
func Suggest(cat *pricing.Catalogue, agents []AgentUsage) []Suggestion {
	var out []Suggestion
	for _, a := range agents {
		for _, m := range a.Models {
			if s, ok := downgrade(cat, a, m); ok {
				out = append(out, s)
			}
			if s, ok := promptCache(cat, a, m); ok {
				out = append(out, s)
			}
		}
		if a.RepeatedCost > 0 {
			out = append(out, finish(a, Suggestion{Type: TypeRepeatedWork, SavingsMonthlyNano: a.RepeatedCost,
				Title:       fmt.Sprintf("%s repeats identical calls inside runs", a.Agent),
				Description: fmt.Sprintf("Identical calls repeated inside %d run(s) cost $%s in 30 days.", a.RepeatedRuns, pricing.FormatUSD(a.RepeatedCost)),
				ActionItems: []string{"Memoise identical calls (same model, prompt and tools) within a run.",
					"Find the loop or retry that re-issues the call in the agent's traces and stop it."}}))
		}
		if a.FailedCost > 0 {
			out = append(out, finish(a, Suggestion{Type: TypeFailedSpend, SavingsMonthlyNano: a.FailedCost,
				Title:       fmt.Sprintf("%s pays for failed calls", a.Agent),
				Description: fmt.Sprintf("%d failed call(s) still billed $%s in 30 days.", a.FailedCalls, pricing.FormatUSD(a.FailedCost)),
				ActionItems: []string{"Group the failed calls by error and fix the most frequent cause.",
					"Retry only transient errors, with backoff and a retry limit."}}))
		}
	}
	sortSuggestions(out)
	return out
}

func downgrade(cat *pricing.Catalogue, a AgentUsage, m ModelUsage) (Suggestion, bool) {
	classify := m.Calls >= ClassificationMinCalls && m.OutputOver16Calls == 0
	if !classify && (m.Calls == 0 || m.OutputOver256Calls > 0) {
		return Suggestion{}, false
	}
	d, ok := DowngradeSaving(cat, m.Model, m.CostNano, m.Tokens)
	if !ok {
		return Suggestion{}, false
	}
	why := fmt.Sprintf("its outputs never exceed %d tokens", ShortOutputMax)
	if classify {
		why = "its calls are classification-like"
	}
	return finish(a, Suggestion{Type: TypeModelDowngrade, Model: d.From, SavingsMonthlyNano: d.SavingsNano,
		Title: fmt.Sprintf("Move %s from %s to %s", a.Agent, d.From, d.To),
		Description: fmt.Sprintf("%d calls of %s on %s cost $%s in 30 days and %s; the same tokens on %s cost $%s less.",
			m.Calls, a.Agent, d.From, pricing.FormatUSD(m.CostNano), why, d.To, pricing.FormatUSD(d.SavingsNano)),
		ActionItems: []string{
			fmt.Sprintf("Replay a sample of %s's calls on %s and compare the answers.", a.Agent, d.To),
			fmt.Sprintf("Switch %s to %s when the answers agree.", a.Agent, d.To),
			fmt.Sprintf("Add %s to the agent's guardrail allowed models.", d.To)}}), true
}

func promptCache(cat *pricing.Catalogue, a AgentUsage, m ModelUsage) (Suggestion, bool) {
	if cat == nil || m.Tokens.Cached > 0 || m.RepeatedPromptTokens < PromptCacheMinTokens {
		return Suggestion{}, false
	}
	e, ok := cat.Lookup(m.Model)
	if !ok || !e.Base.HasCacheRead {
		return Suggestion{}, false
	}
	e.LongContext, e.Periods = nil, nil
	t := m.RepeatedPromptTokens
	saving := e.Savings(pricing.Usage{Input: t, Cached: t}).Read
	if saving <= 0 {
		return Suggestion{}, false
	}
	return finish(a, Suggestion{Type: TypePromptCache, Model: e.Model, SavingsMonthlyNano: saving,
		Title: fmt.Sprintf("Cache %s's repeated prompts on %s", a.Agent, e.Model),
		Description: fmt.Sprintf("%d prompt tokens repeated on %s with no cache reads; read from the cache they would cost $%s less.",
			t, e.Model, pricing.FormatUSD(saving)),
		ActionItems: []string{"Put the stable part of the prompt (system prompt, tools, documents) first.",
			fmt.Sprintf("Enable prompt caching for %s (cache breakpoints or the provider's automatic caching).", e.Model),
			"Check the cache report for cached tokens after the change."}}), true
}

// finish fills the agent, the percent of its spend and the priority.
func finish(a AgentUsage, s Suggestion) Suggestion {
	s.Agent = a.Agent
	s.SavingsPercent = percent(s.SavingsMonthlyNano, a.CostNano)
	s.Priority = Priority(s.SavingsMonthlyNano, a.CostNano)
	return s
}

func sortSuggestions(s []Suggestion) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if a.SavingsMonthlyNano != b.SavingsMonthlyNano {
			return a.SavingsMonthlyNano > b.SavingsMonthlyNano
		}
		if a.Agent != b.Agent {
			return a.Agent < b.Agent
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Model < b.Model
	})
}

// Summary totals the suggestions; the percent is of the project's spend
// over the same 30 days. Totals are the sum of the suggestions.
type Summary struct {
	TotalSavingsNano  int64
	TotalPercent      *float64
	SuggestionCount   int
	HighPriorityCount int
}

// Summarise totals suggestions against the project's 30-day spend.
func Summarise(s []Suggestion, projectSpendNano int64) Summary {
	var out Summary
	for _, x := range s {
		out.TotalSavingsNano += x.SavingsMonthlyNano
		if x.Priority == PriorityHigh {
			out.HighPriorityCount++
		}
	}
	out.SuggestionCount = len(s)
	out.TotalPercent = percent(out.TotalSavingsNano, projectSpendNano)
	return out
}
