package pricing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Price file formats the sync and the import accept.
const (
	FormatLiteLLM = "litellm"      // model_prices_and_context_window.json: an object of models
	FormatGenAI   = "genai-prices" // pydantic/genai-prices prices/data.json: an array of providers
)

// DetectFormat tells the two price file formats apart by their top-level
// JSON value: an array is genai-prices, anything else is read as LiteLLM.
func DetectFormat(data []byte) string {
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '[' {
		return FormatGenAI
	}
	return FormatLiteLLM
}

// ParseAny parses a price file in either format and reports which it was.
func ParseAny(data []byte) (entries []Entry, skipped []Skip, format string, err error) {
	format = DetectFormat(data)
	if format == FormatGenAI {
		entries, skipped, err = ParseGenAI(data)
	} else {
		entries, skipped, err = ParseLiteLLM(data)
	}
	return entries, skipped, format, err
}

// genaiProviders maps the genai-prices provider ids llmcost prices to our
// provider names. Other providers (hosts reselling models at their own
// prices, aggregators) are skipped: their model ids collide with the
// vendors'.
var genaiProviders = map[string]string{
	"anthropic": "anthropic", "openai": "openai", "google": "google",
	"mistral": "mistral", "deepseek": "deepseek", "x-ai": "xai",
}

type genaiProvider struct {
	ID     string       `json:"id"`
	Models []genaiModel `json:"models"`
}

type genaiModel struct {
	ID            string          `json:"id"`
	Match         json.RawMessage `json:"match"`
	ContextWindow int64           `json:"context_window"`
	Prices        json.RawMessage `json:"prices"`
}

type genaiConditional struct {
	Constraint *struct {
		StartDate string `json:"start_date"`
		StartTime string `json:"start_time"`
		EndTime   string `json:"end_time"`
	} `json:"constraint"`
	Prices map[string]json.RawMessage `json:"prices"`
}

// ParseGenAI reads Pydantic's genai-prices data file. Prices per million
// tokens are parsed from their decimal text; a list of conditional prices
// becomes the entry's base rates (the first, unconstrained one) and its
// periods (start dates; daily start_time/end_time windows in UTC); tiered
// prices become the long-context tier (one threshold per model). Models of
// other providers, without token prices, with a per-request fee, or with
// more than one tier are skipped with a reason.
func ParseGenAI(data []byte) ([]Entry, []Skip, error) {
	var providers []genaiProvider
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&providers); err != nil {
		return nil, nil, fmt.Errorf("pricing: genai-prices file is not a JSON array of providers: %w", err)
	}
	var entries []Entry
	var skipped []Skip
	for _, p := range providers {
		ours, ok := genaiProviders[p.ID]
		for _, m := range p.Models {
			name := strings.ToLower(strings.TrimSpace(m.ID))
			switch {
			case !ok:
				skipped = append(skipped, Skip{Model: p.ID + "/" + m.ID, Reason: "provider " + p.ID + " is not synced from genai-prices"})
				continue
			case ours == "google" && !strings.HasPrefix(name, "gemini"):
				skipped = append(skipped, Skip{Model: p.ID + "/" + m.ID, Reason: "another vendor's model resold by google"})
				continue
			}
			e, reason := genaiEntry(ours, m)
			if reason != "" {
				skipped = append(skipped, Skip{Model: m.ID, Reason: reason})
				continue
			}
			entries = append(entries, e)
		}
	}
	return entries, skipped, nil
}

func genaiEntry(provider string, m genaiModel) (Entry, string) {
	name := strings.ToLower(strings.TrimSpace(m.ID))
	if name == "" {
		return Entry{}, "empty model id"
	}
	var conds []genaiConditional
	if t := bytes.TrimSpace(m.Prices); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &conds); err != nil || len(conds) == 0 {
			return Entry{}, "prices is not a list of conditional prices"
		}
	} else {
		var one genaiConditional
		if err := json.Unmarshal(t, &one.Prices); err != nil {
			return Entry{}, "prices is not an object"
		}
		conds = []genaiConditional{one}
	}
	e := Entry{Model: name, Provider: provider, Mode: "chat", MaxInputTokens: m.ContextWindow,
		Source: FormatGenAI, Aliases: genaiAliases(name, m.Match)}
	for i, c := range conds {
		base, tier, reason := genaiRates(c.Prices)
		if reason != "" {
			return Entry{}, reason
		}
		if i == 0 {
			e.Base, e.LongContext = base, tier
			continue
		}
		p := Period{Base: base, LongContext: tier}
		if c.Constraint != nil {
			if err := genaiConstraint(&p, c.Constraint.StartDate, c.Constraint.StartTime, c.Constraint.EndTime); err != nil {
				return Entry{}, err.Error()
			}
		}
		e.Periods = append(e.Periods, p)
	}
	return e, ""
}

func genaiConstraint(p *Period, date, start, end string) error {
	var err error
	if date != "" {
		if p.From, err = time.Parse(time.DateOnly, date); err != nil {
			return fmt.Errorf("start_date %q is not a date", date)
		}
	}
	if start != "" || end != "" {
		p.HasWindow = true
		if p.DayStart, err = ParseClock(start); err != nil {
			return fmt.Errorf("start_time %q is not a time of day", start)
		}
		if p.DayEnd, err = ParseClock(end); err != nil {
			return fmt.Errorf("end_time %q is not a time of day", end)
		}
	}
	return nil
}

// genaiRates reads one ModelPrice: input_mtok, output_mtok,
// cache_read_mtok and cache_write_mtok, each a number or tiered prices.
func genaiRates(prices map[string]json.RawMessage) (Rates, *Tier, string) {
	if _, ok := prices["requests_kcount"]; ok {
		return Rates{}, nil, "priced per request as well as per token"
	}
	var r, t Rates
	var threshold int64
	fields := []struct {
		key       string
		base, top *int64
		has, thas *bool
	}{
		{"input_mtok", &r.Input, &t.Input, nil, nil},
		{"output_mtok", &r.Output, &t.Output, nil, nil},
		{"cache_read_mtok", &r.CacheRead, &t.CacheRead, &r.HasCacheRead, &t.HasCacheRead},
		{"cache_write_mtok", &r.CacheWrite, &t.CacheWrite, &r.HasCacheWrite, &t.HasCacheWrite},
	}
	for _, f := range fields {
		raw, ok := prices[f.key]
		if !ok {
			continue
		}
		base, tiers, reason := genaiPrice(f.key, raw)
		if reason != "" {
			return Rates{}, nil, reason
		}
		*f.base = base
		if f.has != nil {
			*f.has = base > 0 // zero is "not published", as in LiteLLM files
		}
		for start, v := range tiers {
			if threshold != 0 && threshold != start {
				return Rates{}, nil, "more than one long-context tier"
			}
			threshold = start
			*f.top = v
			if f.thas != nil {
				*f.thas = v > 0
			}
		}
	}
	switch {
	case r.Input == 0 && r.Output == 0:
		return Rates{}, nil, "no input_mtok or output_mtok (price unknown)"
	case r.Input > MaxRateAtto || r.Output > MaxRateAtto:
		return Rates{}, nil, "a rate is above $1 per token"
	}
	if threshold == 0 {
		return r, nil, ""
	}
	return r, &Tier{ThresholdTokens: threshold, Rates: t}, ""
}

// genaiPrice reads a number, or {base, tiers: [{start, price}]} with at most
// one tier, into atto-USD per token.
func genaiPrice(key string, raw json.RawMessage) (int64, map[int64]int64, string) {
	var tiered struct {
		Base  json.Number `json:"base"`
		Tiers []struct {
			Start int64       `json:"start"`
			Price json.Number `json:"price"`
		} `json:"tiers"`
	}
	text := string(bytes.TrimSpace(raw))
	var tiers map[int64]int64
	if strings.HasPrefix(text, "{") {
		if err := json.Unmarshal(raw, &tiered); err != nil {
			return 0, nil, key + " is not a price"
		}
		if len(tiered.Tiers) > 1 {
			return 0, nil, "more than one long-context tier"
		}
		text = string(tiered.Base)
		for _, t := range tiered.Tiers {
			v, err := perMillion(string(t.Price))
			if err != nil || t.Start <= 0 {
				return 0, nil, fmt.Sprintf("%s tier is not a valid price (%s)", key, t.Price)
			}
			tiers = map[int64]int64{t.Start: v}
		}
	}
	v, err := perMillion(text)
	if err != nil {
		return 0, nil, fmt.Sprintf("%s is not a non-negative decimal (%s)", key, text)
	}
	return v, tiers, ""
}

// genaiAliases collects the exact names ("equals" clauses) of a model's
// match rule, other than its id: the aliases its provider serves it under.
func genaiAliases(id string, match json.RawMessage) []Alias {
	var out []Alias
	seen := map[string]bool{id: true}
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var clause struct {
			Equals string            `json:"equals"`
			Or     []json.RawMessage `json:"or"`
		}
		if json.Unmarshal(raw, &clause) != nil {
			return
		}
		if n := strings.ToLower(clause.Equals); n != "" && !seen[n] && !strings.Contains(n, "/") {
			seen[n] = true
			out = append(out, Alias{Name: n})
		}
		for _, c := range clause.Or {
			walk(c)
		}
	}
	if len(match) > 0 {
		walk(match)
	}
	return out
}
