package pricing

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"testing"
)

func sampleEntries() []Entry {
	return []Entry{
		{Model: "model-b", Provider: "p", Mode: "chat", Base: Rates{Input: 10, Output: 20}, Source: "test"},
		{Model: "model-a", Provider: "p", Mode: "chat", Base: Rates{Input: 1, Output: 2},
			LongContext: &Tier{ThresholdTokens: 100, Rates: Rates{Input: 3, Output: 4}}, Source: "test"},
		{Model: "old-model", Provider: "p", Mode: "chat", Base: Rates{Input: 5, Output: 5},
			DeprecationDate: "2026-01-01", Replacement: "model-a", Source: "test"},
	}
}

func TestVersion(t *testing.T) {
	if v := Builtin().Version(); !regexp.MustCompile(`^builtin-2026-11-[0-9a-f]{8}$`).MatchString(v) {
		t.Errorf("builtin version %q, want builtin-2026-11-<8 hex>", v)
	}
	a := NewCatalogue(sampleEntries(), "test")
	rev := sampleEntries()
	slices.Reverse(rev)
	if b := NewCatalogue(rev, "test"); a.Version() != b.Version() {
		t.Errorf("order changed the version: %s vs %s", a.Version(), b.Version())
	}
	changed := sampleEntries()
	changed[0].Base.Output++
	if c := NewCatalogue(changed, "test"); c.Version() == a.Version() {
		t.Error("a changed rate kept the version")
	}
	tier := sampleEntries()
	tier[1].LongContext.ThresholdTokens++
	if c := NewCatalogue(tier, "test"); c.Version() == a.Version() {
		t.Error("a changed tier threshold kept the version")
	}
	if c := NewCatalogue(sampleEntries(), "other"); c.Version()[:6] != "other-" || c.Source() != "other" {
		t.Errorf("source not in version: %s", c.Version())
	}
}

func TestCatalogueImmutable(t *testing.T) {
	in := sampleEntries()
	c := NewCatalogue(in, "test")
	in[1].LongContext.Rates.Input = 999 // the caller's slice is not shared
	e, _ := c.Lookup("model-a")
	e.LongContext.Rates.Input = 777 // nor is a looked-up entry
	for _, got := range c.Entries() {
		got.LongContext = nil
	}
	again, _ := c.Lookup("model-a")
	if again.LongContext == nil || again.LongContext.Rates.Input != 3 {
		t.Errorf("catalogue changed through a copy: %+v", again.LongContext)
	}
}

func TestEntriesSortedAndDeduplicated(t *testing.T) {
	dup := append(sampleEntries(), Entry{Model: "MODEL-A", Base: Rates{Input: 7, Output: 7}}, Entry{Model: " "})
	c := NewCatalogue(dup, "test")
	names := []string{}
	for _, e := range c.Entries() {
		names = append(names, e.Model)
	}
	if !slices.Equal(names, []string{"model-a", "model-b", "old-model"}) || c.Len() != 3 {
		t.Errorf("entries = %v, want sorted unique names", names)
	}
	if e, _ := c.Lookup("model-a"); e.Base.Input != 7 {
		t.Errorf("later duplicate must win, got input %d", e.Base.Input)
	}
	b := Builtin().Entries()
	if !sort.SliceIsSorted(b, func(i, j int) bool { return b[i].Model < b[j].Model }) {
		t.Error("builtin entries not sorted")
	}
}

func TestSuggest(t *testing.T) {
	c := Builtin()
	tests := []struct {
		in    string
		first string // "" = no suggestion at all
	}{
		{"claude-sonet-4-5", "claude-sonnet-4-5"},
		{"gpt-5-mimi", "gpt-5-mini"},
		{"anthropic/claude-haiku-4.6", "claude-haiku-4-5"},
		{"gemini-2.5-prro", "gemini-2.5-pro"},
		{"mistral-large-latest", "mistral-large-2411"},
		{"totally-unrelated-model-name", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got := c.Suggest(tt.in, 3)
		if tt.first == "" {
			if len(got) != 0 {
				t.Errorf("Suggest(%q) = %v, want none", tt.in, got)
			}
			continue
		}
		if len(got) == 0 || got[0] != tt.first || len(got) > 3 {
			t.Errorf("Suggest(%q) = %v, want %q first, at most 3", tt.in, got, tt.first)
		}
	}
}

// TestSuggestMemo: a remembered answer equals a computed one, is the
// caller's to change, depends on n, and the memo stops growing at its bound
// without changing answers.
func TestSuggestMemo(t *testing.T) {
	c := NewCatalogue(Builtin().Entries(), "test")
	first := c.Suggest("claude-sonet-4-5", 3)
	if want := c.suggest("claude-sonet-4-5", 3); !slices.Equal(first, want) || len(first) == 0 {
		t.Fatalf("Suggest %v, computed %v", first, want)
	}
	first[0] = "changed"
	if again := c.Suggest("claude-sonet-4-5", 3); again[0] != "claude-sonnet-4-5" {
		t.Fatalf("the memo kept a caller's change: %v", again)
	}
	if one := c.Suggest("claude-sonet-4-5", 1); len(one) != 1 {
		t.Fatalf("n=1 after n=3: %v", one)
	}
	for i := range maxSuggested + 10 {
		c.Suggest(fmt.Sprintf("gpt-5-mimi-%d", i), 2)
	}
	if got, want := c.Suggest("gpt-5-mimi", 3), c.suggest("gpt-5-mimi", 3); !slices.Equal(got, want) || len(got) == 0 {
		t.Fatalf("past the bound: %v, computed %v", got, want)
	}
	n := 0
	c.suggested.Range(func(any, any) bool { n++; return true })
	if n > maxSuggested {
		t.Fatalf("memo holds %d answers, bound %d", n, maxSuggested)
	}
}

func TestDeprecations(t *testing.T) {
	d := Builtin().Deprecations()
	if len(d) < 5 {
		t.Fatalf("only %d deprecations", len(d))
	}
	for i := 1; i < len(d); i++ {
		if d[i-1].DeprecationDate > d[i].DeprecationDate {
			t.Errorf("not sorted by date: %v before %v", d[i-1], d[i])
		}
	}
	want := Deprecation{"gemini-3-pro-preview", "2026-03-26", "gemini-3.1-pro-preview"}
	if !slices.Contains(d, want) {
		t.Errorf("missing %+v", want)
	}
	for _, x := range d {
		if x.Replacement != "" {
			if _, ok := Builtin().Lookup(x.Replacement); !ok {
				t.Errorf("%s: replacement %q is not in the catalogue", x.Model, x.Replacement)
			}
		}
	}
}

func TestMergeOverlayWins(t *testing.T) {
	base := NewCatalogue(sampleEntries(), "base")
	over := []Entry{
		{Model: "model-b", Base: Rates{Input: 11, Output: 22}, Source: "import"},
		{Model: "model-c", Base: Rates{Input: 1, Output: 1}, Source: "import"},
	}
	m := Merge(base, over, "merged")
	if m.Len() != 4 {
		t.Errorf("merged has %d models, want 4", m.Len())
	}
	if e, _ := m.Lookup("model-b"); e.Base.Input != 11 || e.Source != "import" {
		t.Errorf("overlay did not win: %+v", e)
	}
	if e, ok := m.Lookup("model-a"); !ok || e.LongContext == nil {
		t.Error("base entry lost in the merge")
	}
	if e, _ := base.Lookup("model-b"); e.Base.Input != 10 {
		t.Error("Merge changed its base catalogue")
	}
	if got := ChangedModels(base, m); !slices.Equal(got, []string{"model-b", "model-c"}) {
		t.Errorf("ChangedModels = %v, want [model-b model-c]", got)
	}
	if got := ChangedModels(m, base); !slices.Equal(got, []string{"model-b", "model-c"}) {
		t.Errorf("ChangedModels reversed = %v (removal must count)", got)
	}
	if got := ChangedModels(base, Merge(nil, sampleEntries(), "x")); len(got) != 0 {
		t.Errorf("identical content reported changes: %v", got)
	}
}
