package agentview

import (
	"strings"

	"github.com/llmcost/llmcost/internal/pricing"
)

// Ladder is the documented downgrade ladder: each model's next cheaper
// sibling of the same provider that serves the same kind of call. Only
// these steps are ever suggested; a step whose models are missing from the
// catalogue, belong to different providers, or would not be cheaper for
// the calls at hand is skipped (docs/agent-view.md lists the ladder).
var Ladder = map[string]string{
	// Anthropic: opus → sonnet → haiku, within a generation.
	"claude-opus-5":     "claude-sonnet-5",
	"claude-sonnet-5":   "claude-haiku-4-5",
	"claude-opus-4-8":   "claude-sonnet-4-6",
	"claude-opus-4-7":   "claude-sonnet-4-6",
	"claude-opus-4-6":   "claude-sonnet-4-6",
	"claude-opus-4-5":   "claude-sonnet-4-5",
	"claude-opus-4-1":   "claude-sonnet-4-5",
	"claude-sonnet-4-6": "claude-haiku-4-5",
	"claude-sonnet-4-5": "claude-haiku-4-5",
	// OpenAI: full → mini → nano within a family.
	"gpt-5.4":      "gpt-5.4-mini",
	"gpt-5.4-mini": "gpt-5.4-nano",
	"gpt-5":        "gpt-5-mini",
	"gpt-5-mini":   "gpt-5-nano",
	"gpt-5.1":      "gpt-5-mini",
	"gpt-5.2":      "gpt-5-mini",
	"gpt-4.1":      "gpt-4.1-mini",
	"gpt-4.1-mini": "gpt-4.1-nano",
	"gpt-4o":       "gpt-4o-mini",
	"o3":           "o4-mini",
	// Google: pro → flash → flash-lite.
	"gemini-3.1-pro-preview": "gemini-3-flash",
	"gemini-3-pro-preview":   "gemini-3-flash",
	"gemini-3.5-flash":       "gemini-3.5-flash-lite",
	"gemini-3-flash":         "gemini-3.1-flash-lite",
}

// Tokens are the summed tokens of a set of calls. Cached and CacheWrite
// are parts of Input; CacheWrite is priced as five-minute writes.
type Tokens struct {
	Input, Output, Cached, CacheWrite int64
}

// PriceAt prices summed tokens at a model's base rates, in nano-USD. Base
// rates (no long-context tier, no dated period) because a tier applies per
// call and cannot be judged on a sum; ok is false on overflow.
func PriceAt(e pricing.Entry, t Tokens) (int64, bool) {
	base := e
	base.LongContext = nil
	base.Periods = nil
	b := base.Price(pricing.Usage{Input: t.Input, Output: t.Output, Cached: t.Cached, CacheWrite: t.CacheWrite})
	return b.Total, !b.Overflow
}

// Sibling resolves a model to its catalogue entry and the entry of its
// ladder step, when both exist and share a provider.
func Sibling(cat *pricing.Catalogue, model string) (from, to pricing.Entry, ok bool) {
	if cat == nil {
		return from, to, false
	}
	from, ok = cat.Lookup(model)
	if !ok {
		return from, to, false
	}
	next, ok := Ladder[strings.ToLower(from.Model)]
	if !ok {
		return from, to, false
	}
	to, ok = cat.Lookup(next)
	if !ok || !strings.EqualFold(to.Provider, from.Provider) {
		return from, to, false
	}
	return from, to, true
}

// DowngradeSaving is what the calls of one model (costNano as billed,
// their summed tokens) would have saved at the model's ladder sibling:
// costNano minus the same tokens priced at the sibling. ok is false when
// there is no sibling or it would not be cheaper.
func DowngradeSaving(cat *pricing.Catalogue, model string, costNano int64, t Tokens) (Downgrade, bool) {
	from, to, ok := Sibling(cat, model)
	if !ok {
		return Downgrade{}, false
	}
	at, ok := PriceAt(to, t)
	if !ok || at >= costNano {
		return Downgrade{}, false
	}
	return Downgrade{From: from.Model, To: to.Model, SavingsNano: costNano - at}, true
}
