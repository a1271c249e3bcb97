package pricing

import (
	"sort"
	"strings"
	"time"
)

// The agreement check (docs/pricing.md "Agreement with independent
// catalogues") prices the same calls with a catalogue and with a reference
// price file, as the estimator does: the name a client sends resolved by
// the catalogue, the rates in force at the call's time on each side, the
// totals compared to the nano-dollar. The committed test runs it on the
// fixtures; cmd/pricecheck runs it on any price file (make price-check).

// Shape is one usage shape of the agreement check.
type Shape struct {
	Name  string
	Usage Usage
}

// AgreementShapes are the four usage shapes checked: plain, cache
// read, cache write, and a prompt over 200k tokens (some of it cached).
var AgreementShapes = []Shape{
	{"plain", Usage{Input: 12_345, Output: 678}},
	{"cache read", Usage{Input: 50_000, Cached: 40_000, Output: 1_000}},
	{"cache write", Usage{Input: 30_000, CacheWrite: 20_000, Output: 500}},
	{"over 200k", Usage{Input: 250_000, Cached: 100_000, Output: 2_000}},
}

// AgreementProviders are the six providers the check covers; a reference
// file's other providers (resellers, clouds) are left out.
var AgreementProviders = map[string]bool{"anthropic": true, "openai": true, "google": true,
	"mistral": true, "deepseek": true, "xai": true}

// CallTime is a named call time of the check; an empty name adds no suffix
// to the call's key.
type CallTime struct {
	Name string
	At   time.Time
}

// Difference is one call the two sides price differently.
type Difference struct {
	// Name is the reference entry's name or one of its aliases, as a
	// client would send it; Entry is the catalogue entry it resolved to.
	Name, Entry string
	// Shape and Time name the call's shape and time.
	Shape, Time string
	// Ours and Theirs are the two totals in nano-USD.
	Ours, Theirs int64
}

// Key is "<name>/<shape>[@<time>]", naming the call.
func (d Difference) Key() string { return d.Name + "/" + d.Shape + suffix(d.Time) }

func suffix(time string) string {
	if time == "" {
		return ""
	}
	return "@" + time
}

// Agreement is the outcome of an agreement check.
type Agreement struct {
	Calls, Agreeing int
	// PerProvider counts calls and agreeing calls by provider.
	PerProvider map[string][2]int // agreeing, calls
	// Differences are sorted by Key.
	Differences []Difference
}

// Percent is the share of agreeing calls, 0 when there is none.
func (a Agreement) Percent() float64 {
	if a.Calls == 0 {
		return 0
	}
	return float64(a.Agreeing) * 100 / float64(a.Calls)
}

// Compare runs the agreement check of c against ref: every entry of the
// six providers, under its name and each of its aliases that c resolves,
// priced in each shape at each time. Names c does not know are skipped
// (a catalogue's coverage is not its agreement).
func (c *Catalogue) Compare(ref []Entry, times []CallTime) Agreement {
	a := Agreement{PerProvider: map[string][2]int{}}
	for _, e := range ref {
		if !AgreementProviders[e.Provider] {
			continue
		}
		names := []string{e.Model}
		for _, al := range e.Aliases {
			names = append(names, al.Name)
		}
		for _, name := range names {
			ours, ok := c.Lookup(name)
			if !ok {
				continue
			}
			for _, t := range times {
				o, _ := ours.At(t.At)
				r, _ := e.At(t.At)
				for _, s := range AgreementShapes {
					a.add(e.Provider, Difference{Name: strings.ToLower(name), Entry: ours.Model, Shape: s.Name,
						Time: t.Name, Ours: o.Price(s.Usage).Total, Theirs: r.Price(s.Usage).Total})
				}
			}
		}
	}
	sort.SliceStable(a.Differences, func(i, j int) bool { return a.Differences[i].Key() < a.Differences[j].Key() })
	return a
}

func (a *Agreement) add(provider string, d Difference) {
	n := a.PerProvider[provider]
	n[1]++
	a.Calls++
	if d.Ours == d.Theirs {
		n[0]++
		a.Agreeing++
	} else {
		a.Differences = append(a.Differences, d)
	}
	a.PerProvider[provider] = n
}
