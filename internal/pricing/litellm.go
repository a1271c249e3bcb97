package pricing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Skip is one entry of a LiteLLM file that was not imported, and why.
type Skip struct {
	Model  string
	Reason string
}

// LiteLLM rate keys. output_cost_per_reasoning_token is deliberately not
// read: our output tokens already include reasoning, so reasoning is priced at
// the output rate (the two are equal for every model that publishes both).
const (
	keyInput   = "input_cost_per_token"
	keyOutput  = "output_cost_per_token"
	keyRead    = "cache_read_input_token_cost"
	keyWrite   = "cache_creation_input_token_cost"
	keyWrite1h = "cache_creation_input_token_cost_above_1hr"
)

// textModes are the LiteLLM modes priced per text token; an entry without a
// mode is accepted when it has token rates.
var textModes = map[string]bool{"chat": true, "completion": true, "responses": true}

// ParseLiteLLM reads a LiteLLM model_prices_and_context_window.json document.
// Numbers are decoded as json.Number, so rates are parsed from their decimal
// text exactly. An entry is skipped, with a reason, when it is not priced per
// text token (image, audio, embedding, realtime modes; per-second, per-image
// or per-character prices only), lacks input or output token rates, has both
// at zero (LiteLLM's placeholder for an unknown price), or has any cost that
// is negative, not a finite number, or a per-token rate above $1; the rest of
// the file still imports. A cache rate of zero is read as "not published",
// so such tokens are billed at the input rate rather than for free. err is
// set only when the document itself is not a JSON object.
func ParseLiteLLM(data []byte) (entries []Entry, skipped []Skip, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("pricing: LiteLLM file is not a JSON object: %w", err)
	}
	names := make([]string, 0, len(top))
	for name := range top {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		e, reason := parseLiteLLMEntry(name, top[name])
		if reason != "" {
			skipped = append(skipped, Skip{Model: name, Reason: reason})
			continue
		}
		entries = append(entries, e)
	}
	return entries, skipped, nil
}

// CheckMassDrop refuses a catalogue update that would drop more than half of
// the current models: a truncated or wrong file must not wipe out prices.
func CheckMassDrop(current, next int) error {
	if current > 0 && 2*(current-next) > current {
		return fmt.Errorf("pricing: update would drop %d of %d models (more than half); refused", current-next, current)
	}
	return nil
}

func parseLiteLLMEntry(name string, raw json.RawMessage) (Entry, string) {
	if strings.TrimSpace(name) == "" {
		return Entry{}, "empty model name"
	}
	if name == "sample_spec" {
		return Entry{}, "format specimen, not a model"
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return Entry{}, "not a JSON object"
	}
	// Bounds first: a corrupt rate anywhere makes the whole entry suspect.
	costs := map[string]int64{}
	for k, v := range m {
		if !strings.Contains(k, "cost") || v == nil {
			continue
		}
		atto, reason := costValue(k, v)
		if reason != "" {
			return Entry{}, reason
		}
		costs[k] = atto
	}
	mode, _ := m["mode"].(string)
	_, hasIn := costs[keyInput]
	_, hasOut := costs[keyOutput]
	unit := ""
	if !hasIn || !hasOut {
		unit = otherUnit(costs)
	}
	switch {
	case mode != "" && !textModes[mode] && unit != "":
		return Entry{}, fmt.Sprintf("mode %q is not priced per text token (priced %s)", mode, unit)
	case mode != "" && !textModes[mode]:
		return Entry{}, fmt.Sprintf("mode %q is not priced per text token", mode)
	case unit != "":
		return Entry{}, "priced " + unit + " only, not per token"
	case !hasIn || !hasOut:
		return Entry{}, "no input_cost_per_token or output_cost_per_token"
	case costs[keyInput] == 0 && costs[keyOutput] == 0:
		return Entry{}, "input and output rates are both zero (price unknown)"
	}
	if mode == "" {
		mode = "chat"
	}
	e := Entry{
		Model:           strings.TrimSpace(name),
		Provider:        canonicalProvider(m["litellm_provider"]),
		Mode:            mode,
		Base:            ratesFrom(costs, ""),
		MaxInputTokens:  intValue(m["max_input_tokens"]),
		MaxOutputTokens: intValue(m["max_output_tokens"]),
		Source:          "litellm",
	}
	if e.MaxOutputTokens == 0 {
		e.MaxOutputTokens = intValue(m["max_tokens"])
	}
	e.DeprecationDate, _ = m["deprecation_date"].(string)
	tier, reason := tierFrom(costs)
	if reason != "" {
		return Entry{}, reason
	}
	e.LongContext = tier
	return e, ""
}

// costValue parses one cost field: a JSON number, or a numeric string.
func costValue(key string, v any) (int64, string) {
	var text string
	switch t := v.(type) {
	case json.Number:
		text = string(t)
	case string:
		text = t
	default:
		return 0, "" // objects such as search_context_cost_per_query
	}
	atto, err := ParseUSD(text)
	if errors.Is(err, ErrInexact) {
		// Float artefacts such as 1.6666666666666667e-07 carry digits below
		// one atto; rounding there moves a bill by under $1e-6 per 1e12 tokens.
		atto, err = roundedAtto(text)
	}
	switch {
	case errors.Is(err, ErrNegative):
		return 0, fmt.Sprintf("%s is negative (%s)", key, text)
	case err != nil:
		return 0, fmt.Sprintf("%s is not a finite number in range (%s)", key, text)
	case strings.Contains(key, "token") && atto > MaxRateAtto:
		return 0, fmt.Sprintf("%s is above $1 per token (%s)", key, text)
	}
	return atto, ""
}

// otherUnit names the non-token price unit of an entry that has no token rates.
func otherUnit(costs map[string]int64) string {
	for _, unit := range []string{"per_second", "per_image", "per_character", "per_pixel", "per_query"} {
		for k := range costs {
			if strings.Contains(k, unit) {
				return strings.ReplaceAll(unit, "_", " ")
			}
		}
	}
	return ""
}

// ratesFrom maps the base keys plus suffix ("" or "_above_200k_tokens").
func ratesFrom(costs map[string]int64, suffix string) Rates {
	var r Rates
	r.Input = costs[keyInput+suffix]
	r.Output = costs[keyOutput+suffix]
	r.CacheRead, r.HasCacheRead = published(costs, keyRead+suffix)
	r.CacheWrite, r.HasCacheWrite = published(costs, keyWrite+suffix)
	r.CacheWrite1h, r.HasCacheWrite1h = published(costs, keyWrite1h+suffix)
	return r
}

// published treats a zero cache rate as unpublished: LiteLLM writes 0 where
// a provider bills cache writes as plain input (DeepSeek), and a free cache
// read would overstate savings.
func published(costs map[string]int64, key string) (int64, bool) {
	v := costs[key]
	return v, v > 0
}

// tierFrom finds "<rate key>_above_<N>k_tokens" keys and builds the tier.
// Keys with a further suffix (_priority, _flex) belong to other service
// tiers and are ignored. Two different thresholds cannot be represented.
func tierFrom(costs map[string]int64) (*Tier, string) {
	thresholds := map[int64]string{}
	for k := range costs {
		for _, base := range []string{keyInput, keyOutput, keyRead, keyWrite1h, keyWrite} {
			rest, ok := strings.CutPrefix(k, base+"_above_")
			if !ok {
				continue
			}
			num, ok := strings.CutSuffix(rest, "k_tokens")
			n, err := strconv.ParseInt(num, 10, 64)
			if ok && err == nil && n > 0 && n < 1e9 {
				thresholds[n*1000] = "_above_" + num + "k_tokens"
			}
			break // keyWrite1h is tried before its prefix keyWrite
		}
	}
	if len(thresholds) > 1 {
		return nil, "more than one long-context tier"
	}
	for threshold, suffix := range thresholds {
		r := ratesFrom(costs, suffix)
		if r.Input == 0 && r.Output == 0 && !r.HasCacheRead && !r.HasCacheWrite && !r.HasCacheWrite1h {
			return nil, ""
		}
		return &Tier{ThresholdTokens: threshold, Rates: r}, ""
	}
	return nil, ""
}

// canonicalProvider folds LiteLLM's provider routes for Google and OpenAI
// into the vendor name; other values are kept as they are.
func canonicalProvider(v any) string {
	p, _ := v.(string)
	switch {
	case p == "gemini" || strings.HasPrefix(p, "vertex_ai-language-models"):
		return "google"
	case p == "text-completion-openai":
		return "openai"
	}
	return p
}

// intValue reads an integral JSON number; anything else is 0 (unknown).
func intValue(v any) int64 {
	n, ok := v.(json.Number)
	if !ok {
		return 0
	}
	i, err := n.Int64()
	if err != nil || i < 0 {
		return 0
	}
	return i
}
