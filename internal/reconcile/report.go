package reconcile

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/llmcost/llmcost/internal/pricing"
	"github.com/llmcost/llmcost/internal/providers"
)

// FetchedDay is one day a connection's sync fetched, and when.
type FetchedDay struct {
	Provider  string
	Day       time.Time
	FetchedAt time.Time
	// Costs is false when the cost report could not be narrowed to the
	// connection's scope: that day's provider cost is unknown.
	Costs bool
}

// ProviderUsage is a stored usage row of one provider.
type ProviderUsage struct {
	Provider string
	providers.Usage
}

// ProviderCost is a stored cost row of one provider.
type ProviderCost struct {
	Provider string
	providers.Cost
}

// CallDay is llmcost's own record of one model's calls on one UTC day.
// Subscription marks flat-plan calls, kept out of the comparison.
type CallDay struct {
	Day           time.Time
	Model         string
	Subscription  bool
	Tokens        providers.Tokens
	CostNano      int64
	Calls         int64
	UnpricedCalls int64
}

// Connection is what the report needs of a connection.
type Connection struct {
	Provider    string
	ToleranceBP int
}

// Data is everything one report compares, for the days [From, To).
type Data struct {
	From, To    time.Time
	Connections []Connection
	Days        []FetchedDay
	Usage       []ProviderUsage
	Costs       []ProviderCost
	Calls       []CallDay
	Catalogue   *pricing.Catalogue
	// SettleAfter is how long after a day ends its report is final.
	SettleAfter time.Duration
}

// Row is one day, provider and model of the report.
type Row struct {
	Day      time.Time
	Provider string
	Model    string
	Final    bool
	// ProviderSide and LLMCostSide are the two accounts of the row.
	ProviderSide ProviderFigures
	LLMCostSide  LLMCostFigures
	Gap          Gap
}

// DifferenceNano is the provider's cost minus llmcost's; false when the
// provider's cost is not known.
func (r Row) DifferenceNano() (int64, bool) {
	return r.ProviderSide.CostNano - r.LLMCostSide.CostNano, r.ProviderSide.HasCost
}

type rowKey struct {
	day             time.Time
	provider, model string
}

// Build matches the provider's rows with llmcost's by day, provider and
// model (both named as the catalogue names them, so a dated provider name
// meets the alias a client sent) and classifies each row. Calls of a
// provider with no connection are left out; flat-plan calls are counted
// apart (Summary) and never compared.
func Build(d Data) ([]Row, Summary) {
	tol := map[string]int{}
	for _, c := range d.Connections {
		tol[c.Provider] = c.ToleranceBP
	}
	fetched := map[rowKey]FetchedDay{}
	for _, f := range d.Days {
		fetched[rowKey{day: f.Day.UTC(), provider: f.Provider}] = f
	}
	rows := map[rowKey]*Row{}
	row := func(day time.Time, provider, model string) *Row {
		k := rowKey{day.UTC(), provider, model}
		if rows[k] == nil {
			f, ok := fetched[rowKey{day: k.day, provider: provider}]
			rows[k] = &Row{Day: k.day, Provider: provider, Model: model,
				Final:        ok && !f.FetchedAt.Before(k.day.AddDate(0, 0, 1).Add(d.SettleAfter)),
				ProviderSide: ProviderFigures{HasCost: ok && f.Costs}}
		}
		return rows[k]
	}
	for _, u := range d.Usage {
		r := row(u.Day, u.Provider, d.canonical(u.Model))
		r.ProviderSide.Tokens = r.ProviderSide.Tokens.Add(u.Tokens)
		if u.Tier != providers.TierStandard {
			if r.ProviderSide.TierTokens == nil {
				r.ProviderSide.TierTokens = map[string]int64{}
			}
			t := u.Tokens
			r.ProviderSide.TierTokens[u.Tier] += t.Input + t.CacheRead + t.CacheWrite5m + t.CacheWrite1h + t.Output
		}
	}
	for _, c := range d.Costs {
		model := ""
		if c.Model != "" {
			model = d.canonical(c.Model)
		}
		r := row(c.Day, c.Provider, model)
		r.ProviderSide.CostNano += c.Nano
		if c.Class != "" {
			if r.ProviderSide.ClassCost == nil {
				r.ProviderSide.ClassCost = map[string]int64{}
			}
			r.ProviderSide.ClassCost[c.Class] += c.Nano
		}
	}
	sum := newSummary(d)
	for _, c := range d.Calls {
		provider := d.providerOf(c.Model)
		if _, connected := tol[provider]; !connected {
			continue
		}
		if c.Subscription {
			sum.excluded(provider, c.CostNano)
			continue
		}
		r := row(c.Day, provider, d.canonical(c.Model))
		r.LLMCostSide.Tokens = r.LLMCostSide.Tokens.Add(c.Tokens)
		r.LLMCostSide.CostNano += c.CostNano
		r.LLMCostSide.Calls += c.Calls
		r.LLMCostSide.UnpricedCalls += c.UnpricedCalls
	}
	out := make([]Row, 0, len(rows))
	for _, r := range rows {
		in := Input{Model: r.Model, Provider: r.ProviderSide, LLMCost: r.LLMCostSide, Final: r.Final, ToleranceBP: tol[r.Provider]}
		if e, ok := d.entry(r.Model); ok {
			at, _ := e.At(r.Day.Add(12 * time.Hour))
			in.Rates = &at.Base
		}
		r.Gap = Classify(in)
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Row) int {
		return cmp.Or(a.Day.Compare(b.Day), cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Model, b.Model))
	})
	for _, r := range out {
		sum.add(r)
	}
	return out, sum.finish()
}

// dated matches a release date a provider appends to a model's name.
var dated = regexp.MustCompile(`-(20\d{2}-?\d{2}-?\d{2})$`)

func (d Data) entry(model string) (pricing.Entry, bool) {
	if d.Catalogue == nil || model == "" {
		return pricing.Entry{}, false
	}
	e, _, ok := d.Catalogue.Resolve(model)
	return e, ok
}

// canonical is the catalogue's name of model; a model the catalogue does
// not know keeps its name without a trailing release date.
func (d Data) canonical(model string) string {
	if e, ok := d.entry(model); ok {
		return e.Model
	}
	return dated.ReplaceAllString(model, "")
}

// providerOf is the provider of a model llmcost recorded: the catalogue's,
// or for a model it does not know, the one its name belongs to.
func (d Data) providerOf(model string) string {
	if e, ok := d.entry(model); ok && KnownProvider(e.Provider) {
		return e.Provider
	}
	m := strings.ToLower(model)
	switch {
	case strings.HasPrefix(m, "claude"):
		return providers.Anthropic
	case strings.HasPrefix(m, "gpt-"), strings.HasPrefix(m, "chatgpt"), strings.HasPrefix(m, "o1"),
		strings.HasPrefix(m, "o3"), strings.HasPrefix(m, "o4"), strings.HasPrefix(m, "codex"):
		return providers.OpenAI
	}
	return ""
}
