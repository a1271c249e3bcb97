package pricing

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Catalogue is an immutable set of priced models, safe for concurrent use.
// Every accessor returns copies, so callers cannot change it.
type Catalogue struct {
	version string
	source  string
	entries []Entry        // sorted by key
	index   map[string]int // lower-cased model name → position in entries
	aliases map[string]int // lower-cased alias → position of its model
	undated map[string]int // undated name of a dated model → newest such model
	// suggested memoizes Suggest (model + "\x00" + n → names) for up to
	// maxSuggested queries: ingest asks it for every unknown model of every
	// batch, and each answer is an edit distance to every name (half a
	// percent of the machine during make bench-analytics' ingest).
	suggested  sync.Map
	nSuggested atomic.Int64
}

// maxSuggested bounds Suggest's memo, since clients choose the names.
const maxSuggested = 4096

// Deprecation is one announced model retirement.
type Deprecation struct {
	Model           string
	DeprecationDate string
	Replacement     string // may be empty
}

// NewCatalogue builds a catalogue from entries (a later entry with the same
// model name, compared case-insensitively, replaces an earlier one; entries
// without a name are ignored). source names where the prices came from
// ("builtin-2026-11", "litellm", "import") and prefixes the Version.
func NewCatalogue(entries []Entry, source string) *Catalogue {
	byKey := make(map[string]Entry, len(entries))
	for _, e := range entries {
		key := strings.ToLower(strings.TrimSpace(e.Model))
		if key == "" {
			continue
		}
		e.Model = key
		byKey[key] = cloneEntry(e)
	}
	c := &Catalogue{source: source, index: make(map[string]int, len(byKey)),
		aliases: map[string]int{}, undated: map[string]int{}}
	for _, e := range byKey {
		c.entries = append(c.entries, e)
	}
	sort.Slice(c.entries, func(i, j int) bool { return c.entries[i].Model < c.entries[j].Model })
	for i, e := range c.entries {
		c.index[e.Model] = i
	}
	c.indexNames()
	c.version = source + "-" + contentHash(c.entries)
	return c
}

// Merge returns a new catalogue holding base's entries overlaid by overlay:
// an overlay entry replaces the base entry of the same model. base may be nil.
// An overlay entry without aliases keeps the base entry's: a file that
// re-prices mistral-large-2512 must not make mistral-large-latest unknown.
func Merge(base *Catalogue, overlay []Entry, source string) *Catalogue {
	var all []Entry
	if base != nil {
		all = base.Entries()
		overlay = append([]Entry(nil), overlay...) // the caller's slice stays as it is
		for i, e := range overlay {
			if j, ok := base.index[strings.ToLower(strings.TrimSpace(e.Model))]; ok && len(e.Aliases) == 0 {
				e.Aliases = base.entries[j].Aliases
				overlay[i] = e
			}
		}
	}
	return NewCatalogue(append(all, overlay...), source)
}

// Version identifies the catalogue content: source plus the first 8 hex
// digits of a SHA-256 over every entry, so equal content gives equal
// versions. Events stamp it to record how they were priced.
func (c *Catalogue) Version() string { return c.version }

// Source is the source name the catalogue was built with.
func (c *Catalogue) Source() string { return c.source }

// Len is the number of models.
func (c *Catalogue) Len() int { return len(c.entries) }

// Entries returns every entry, sorted by model name.
func (c *Catalogue) Entries() []Entry {
	out := make([]Entry, len(c.entries))
	for i, e := range c.entries {
		out[i] = cloneEntry(e)
	}
	return out
}

// Deprecations lists the entries with an announced deprecation date, sorted
// by date and then model.
func (c *Catalogue) Deprecations() []Deprecation {
	var out []Deprecation
	for _, e := range c.entries {
		if e.DeprecationDate != "" {
			out = append(out, Deprecation{e.Model, e.DeprecationDate, e.Replacement})
		}
		for _, a := range e.Aliases {
			if _, shadowed := c.index[strings.ToLower(a.Name)]; a.Retired != "" && !shadowed {
				out = append(out, Deprecation{strings.ToLower(a.Name), a.Retired, e.Model})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].DeprecationDate != out[j].DeprecationDate {
			return out[i].DeprecationDate < out[j].DeprecationDate
		}
		return out[i].Model < out[j].Model
	})
	return out
}

// Suggest returns up to n catalogue names close to model, best first, for a
// "did you mean" hint on an unknown model: ranked by edit distance to the
// normalised name, then by longest shared prefix. Names too far from the
// query are left out, so an unrelated name yields no suggestion.
func (c *Catalogue) Suggest(model string, n int) []string {
	key := model + "\x00" + strconv.Itoa(n)
	if v, ok := c.suggested.Load(key); ok {
		return slices.Clone(v.([]string))
	}
	out := c.suggest(model, n)
	if c.nSuggested.Add(1) <= maxSuggested {
		c.suggested.Store(key, slices.Clone(out))
	}
	return out
}

// suggest is Suggest without the memo.
func (c *Catalogue) suggest(model string, n int) []string {
	q := Normalize(model)
	if q == "" || n <= 0 {
		return nil
	}
	type cand struct {
		name         string
		dist, prefix int
	}
	var cands []cand
	limit := max(2, len(q)/3)
	for _, e := range c.entries {
		d := min(EditDistance(q, e.Model), EditDistance(q, stripDate(e.Model)))
		p := commonPrefix(q, e.Model)
		if d <= limit || (p >= 6 && p*2 >= len(q)) {
			cands = append(cands, cand{e.Model, d, p})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		if a.prefix != b.prefix {
			return a.prefix > b.prefix
		}
		return a.name < b.name
	})
	out := make([]string, 0, min(n, len(cands)))
	for _, k := range cands[:min(n, len(cands))] {
		out = append(out, k.name)
	}
	return out
}

// ChangedModels lists, sorted, the models added, removed or changed between
// two catalogues (any field but Source), for the sync and import reports.
func ChangedModels(old, next *Catalogue) []string {
	seen := map[string]bool{}
	var out []string
	mark := func(m string) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	for _, e := range next.entries {
		i, ok := old.index[e.Model]
		if !ok || entryKey(old.entries[i]) != entryKey(e) {
			mark(e.Model)
		}
	}
	for _, e := range old.entries {
		if _, ok := next.index[e.Model]; !ok {
			mark(e.Model)
		}
	}
	sort.Strings(out)
	return out
}

func cloneEntry(e Entry) Entry {
	if e.LongContext != nil {
		t := *e.LongContext
		e.LongContext = &t
	}
	if e.Periods != nil {
		ps := make([]Period, len(e.Periods))
		for i, p := range e.Periods {
			if p.LongContext != nil {
				t := *p.LongContext
				p.LongContext = &t
			}
			ps[i] = p
		}
		e.Periods = ps
	}
	if e.Aliases != nil {
		e.Aliases = append([]Alias(nil), e.Aliases...)
	}
	return e
}

// entryKey serialises every priced and displayed field but Source.
func entryKey(e Entry) string {
	var b strings.Builder
	writeEntry(&b, e)
	return b.String()
}

func writeEntry(w io.Writer, e Entry) {
	rates := func(r Rates) string {
		return fmt.Sprintf("%d,%d,%d:%t,%d:%t,%d:%t", r.Input, r.Output,
			r.CacheRead, r.HasCacheRead, r.CacheWrite, r.HasCacheWrite, r.CacheWrite1h, r.HasCacheWrite1h)
	}
	tier := func(t *Tier) string {
		if t == nil {
			return "-"
		}
		return fmt.Sprintf("%d>%s", t.ThresholdTokens, rates(t.Rates))
	}
	fmt.Fprintf(w, "%s|%s|%s|%s|%s|%d|%d|%s|%s", e.Model, e.Provider, e.Mode,
		rates(e.Base), tier(e.LongContext), e.MaxInputTokens, e.MaxOutputTokens, e.DeprecationDate, e.Replacement)
	// Entries without periods or aliases hash as before, so versions of
	// catalogues that have none do not change.
	for _, p := range e.Periods {
		fmt.Fprintf(w, "|p:%s/%s/%s/%s", p.ID(), p.Label, rates(p.Base), tier(p.LongContext))
	}
	for _, a := range e.Aliases {
		fmt.Fprintf(w, "|a:%s/%s", a.Name, a.Retired)
	}
	fmt.Fprintln(w)
}

func contentHash(entries []Entry) string {
	h := sha256.New()
	for _, e := range entries {
		writeEntry(h, e)
		fmt.Fprintf(h, "source=%s\n", e.Source)
	}
	return hex.EncodeToString(h.Sum(nil)[:4])
}

// EditDistance is the Levenshtein distance between two names: close model
// names here, close field names in batch validation.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
