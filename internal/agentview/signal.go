// Package agentview holds the pure calculations of the agent view and of
// the optimisation suggestions (docs/agent-view.md "Summary row",
// "Signals", "Optimisations"). It reads no database: the store hands it sums.
package agentview

import (
	"fmt"

	"github.com/llmcost/llmcost/internal/pricing"
)

// Signal kinds in priority order: the first that holds wins.
const (
	KindBreach         = "breach"
	KindRepeatedWork   = "repeated_work"
	KindFailedSpend    = "failed_spend"
	KindClassification = "classification"
	KindUntraced       = "untraced"
	KindNone           = "none"
)

// ClassificationMinCalls and ClassificationMaxOutput define a
// classification-like agent: at least that many calls, none of which
// produced more output tokens than the maximum.
const (
	ClassificationMinCalls  = 100
	ClassificationMaxOutput = 16
)

// SignalInput is what the signal of one agent is judged on, over the window.
// Money is nano-USD.
type SignalInput struct {
	CostNano    int64
	Calls       int64
	TracedCalls int64 // calls carrying a trace_id
	// OutputOver16Calls are the calls whose output exceeded
	// ClassificationMaxOutput tokens (a rollup count: none means "never").
	OutputOver16Calls int64
	Breaches          int64 // guardrail breaches in the window
	BreachCostNano    int64 // cost of the breaching calls
	RepeatedCost      int64
	RepeatedRuns      int64
	FailedCalls       int64
	FailedCost        int64
	// Cheaper is the cheapest same-provider sibling's saving over the
	// agent's calls; nil when the ladder has none for its models.
	Cheaper *Downgrade
}

// Downgrade is the saving of pricing a set of calls at a cheaper model.
type Downgrade struct {
	From, To    string
	SavingsNano int64
}

// Signal is the one thing to look at for an agent. AmountNano is the money
// at stake, nil for untraced and none.
type Signal struct {
	Kind       string
	Title      string
	Detail     string
	AmountNano *int64
}

// ChooseSignal returns the first signal that holds, in the order of
// docs/agent-view.md "Signals".
func ChooseSignal(in SignalInput) Signal {
	switch {
	case in.Breaches > 0:
		return withAmount(KindBreach, in.BreachCostNano,
			fmt.Sprintf("%d guardrail breach(es) in this window", in.Breaches),
			fmt.Sprintf("Calls that broke the agent's guardrail cost $%s. Review the compliance record and tighten the agent's tools, models or per-run limits.",
				pricing.FormatUSD(in.BreachCostNano)))
	case above(in.RepeatedCost, in.CostNano, 20):
		return withAmount(KindRepeatedWork, in.RepeatedCost,
			fmt.Sprintf("Repeated work is %s of spend", percentText(in.RepeatedCost, in.CostNano)),
			fmt.Sprintf("Identical calls repeated inside %d run(s) cost $%s. Cache the results of identical calls within a run, or stop the loop that repeats them.",
				in.RepeatedRuns, pricing.FormatUSD(in.RepeatedCost)))
	case above(in.FailedCost, in.CostNano, 50):
		return withAmount(KindFailedSpend, in.FailedCost,
			fmt.Sprintf("Failed calls are %s of spend", percentText(in.FailedCost, in.CostNano)),
			fmt.Sprintf("%d failed call(s) still billed $%s. Fix the cause of the failures or stop retrying them blindly.",
				in.FailedCalls, pricing.FormatUSD(in.FailedCost)))
	case in.Calls >= ClassificationMinCalls && in.OutputOver16Calls == 0:
		return classification(in)
	case in.Calls > 0 && in.TracedCalls == 0:
		return Signal{Kind: KindUntraced, Title: "No call carries a trace",
			Detail: "Send a trace_id (and span ids) with each call so runs, repeated work and outcomes can be reported for this agent."}
	default:
		return Signal{Kind: KindNone, Title: "Nothing to act on",
			Detail: "No breach, waste or cheaper model stands out in this window."}
	}
}

func classification(in SignalInput) Signal {
	title := fmt.Sprintf("Classification-like: %d calls, output never above %d tokens", in.Calls, ClassificationMaxOutput)
	if in.Cheaper == nil {
		return Signal{Kind: KindClassification, Title: title,
			Detail: "This agent only emits short labels; a smaller model of the same provider is likely to do."}
	}
	return withAmount(KindClassification, in.Cheaper.SavingsNano, title,
		fmt.Sprintf("The same tokens on %s instead of %s would have cost $%s less. Evaluate %s on a sample of these calls and switch.",
			in.Cheaper.To, in.Cheaper.From, pricing.FormatUSD(in.Cheaper.SavingsNano), in.Cheaper.To))
}

func withAmount(kind string, amount int64, title, detail string) Signal {
	a := amount
	return Signal{Kind: kind, Title: title, Detail: detail, AmountNano: &a}
}

// above reports part > whole/divisor exactly (part × divisor > whole), for
// non-negative integers without overflow: an integer exceeds a real x
// exactly when it exceeds floor(x).
func above(part, whole, divisor int64) bool {
	if part <= 0 {
		return false
	}
	return part > whole/divisor
}

// percentText writes part ÷ whole as a percentage with two decimals.
func percentText(part, whole int64) string {
	p := percent(part, whole)
	if p == nil {
		return "0%"
	}
	return fmt.Sprintf("%.2f%%", *p)
}
