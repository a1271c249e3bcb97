package pricing

import (
	"sort"
	"strings"
	"time"
)

// SourceEntries are the parsed entries of one price source.
type SourceEntries struct {
	Name    string // "litellm", "genai-prices"
	Entries []Entry
}

// Disagreement is one rate on which two sources differ beyond the
// tolerance, compared at the same time and prompt size. Values are the
// applied rates (fallbacks included) in atto-USD per token, by source.
type Disagreement struct {
	Model  string
	Field  string // input, output, cache_read, cache_write, long_context.<same>
	Values map[string]int64
}

// DefaultTolerancePPM is the relative difference (parts per million of the
// larger rate) two sources may show and still agree: 0.5%, enough to absorb
// rounding in a published per-token figure, far below any real price change.
const DefaultTolerancePPM = 5_000

// Reconcile merges price sources. The first source is primary: its entries
// are taken as they are. A model another source also prices is compared
// with it at time at (base rates and, where either has one, above the
// long-context threshold); if any rate differs beyond tolPPM, the model is
// disputed: it keeps its entry in current (or stays out, if current has
// none) and the differences are returned. Where they agree and only the
// other source carries rate periods, its rates (base, tier, periods)
// replace the primary's, the primary's other fields kept. A model only a
// secondary source prices is added. Entries come back sorted by model.
func Reconcile(sources []SourceEntries, current *Catalogue, at time.Time, tolPPM int64) ([]Entry, []Disagreement) {
	if len(sources) == 0 {
		return nil, nil
	}
	merged := NewCatalogue(sources[0].Entries, sources[0].Name)
	byModel := map[string]Entry{}
	for _, e := range merged.Entries() {
		byModel[e.Model] = e
	}
	disputed := map[string]bool{}
	var dis []Disagreement
	for _, src := range sources[1:] {
		for _, other := range src.Entries {
			prim, res, ok := merged.Resolve(other.Model)
			if !ok || res.Via == "undated" || otherRelease(other.Model, prim.Model) {
				if _, taken := byModel[other.Model]; !taken {
					byModel[other.Model] = other
				}
				continue
			}
			d := compareEntries(prim, other, sources[0].Name, src.Name, at, tolPPM)
			if len(d) > 0 {
				dis = append(dis, d...)
				disputed[prim.Model] = true
				continue
			}
			if len(prim.Periods) == 0 && len(other.Periods) > 0 && !disputed[prim.Model] {
				prim.Base, prim.LongContext, prim.Periods = other.Base, other.LongContext, other.Periods
				byModel[prim.Model] = prim
			}
		}
	}
	for m := range disputed {
		delete(byModel, m)
		if current != nil {
			if e, ok := current.Lookup(m); ok && e.Model == m {
				byModel[m] = e
			}
		}
	}
	out := make([]Entry, 0, len(byModel))
	for _, e := range byModel {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	sort.Slice(dis, func(i, j int) bool {
		if dis[i].Model != dis[j].Model {
			return dis[i].Model < dis[j].Model
		}
		return dis[i].Field < dis[j].Field
	})
	return out, dis
}

// otherRelease reports that name is a dated release the primary source
// does not price, found only through its undated name (gpt-3.5-turbo-0613
// against gpt-3.5-turbo): a model of its own with its own price, not the
// same model priced differently.
func otherRelease(name, found string) bool {
	norm := normalizeKeepDate(strings.ToLower(strings.TrimSpace(name)))
	return norm != found && stripDate(norm) == found
}

// compareEntries compares the applied rates of two entries at time at, for
// a small prompt and just above each long-context threshold either has, so
// tiers at different thresholds (128k against 200k, or xAI's "from 200,000"
// against "above 200,000") disagree where they bill differently. A field
// is listed once, at the lowest prompt size where it differs.
func compareEntries(a, b Entry, an, bn string, at time.Time, tolPPM int64) []Disagreement {
	a, _ = a.At(at)
	b, _ = b.At(at)
	sizes := []int64{1}
	for _, t := range []*Tier{a.LongContext, b.LongContext} {
		if t != nil {
			sizes = append(sizes, t.ThresholdTokens+1)
		}
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	var out []Disagreement
	listed := map[string]bool{}
	for _, tokens := range sizes {
		prefix := ""
		if tokens > 1 {
			prefix = "long_context."
		}
		ra, _ := a.EffectiveRates(tokens)
		rb, _ := b.EffectiveRates(tokens)
		fields := []struct {
			name   string
			va, vb int64
		}{
			{"input", ra.Input, rb.Input}, {"output", ra.Output, rb.Output},
			{"cache_read", ra.CacheRead, rb.CacheRead}, {"cache_write", ra.CacheWrite, rb.CacheWrite},
		}
		for _, f := range fields {
			name := prefix + f.name
			if listed[name] || withinTolerance(f.va, f.vb, tolPPM) {
				continue
			}
			listed[name] = true
			out = append(out, Disagreement{Model: a.Model, Field: name,
				Values: map[string]int64{an: f.va, bn: f.vb}})
		}
	}
	return out
}

// withinTolerance reports |a−b| ≤ tol ppm of the larger, in integers
// (rates are below 1e18, so the products stay inside uint64 via u128).
func withinTolerance(a, b, tolPPM int64) bool {
	if a == b {
		return true
	}
	diff, big := a-b, max(a, b)
	if diff < 0 {
		diff = -diff
	}
	var lhs, rhs u128
	lhs.addMul(uint64(diff), 1_000_000)
	rhs.addMul(uint64(big), uint64(max(tolPPM, 0)))
	return !rhs.less(lhs)
}
