package pricing

import (
	"strings"
	"testing"
	"time"
)

// erratum is a rate where the July 2026 LiteLLM snapshot disagrees with the
// provider's published price. The test requires the fixture to still carry
// the wrong value (so a fixed fixture forces the erratum out) and checks the
// built-in value instead. Values are USD per million tokens, "" = unpublished.
type erratum struct {
	model, field  string // field: in, out, read, w5m, w1h, or tier.<same>
	fixture, ours string
	why           string
}

var fixtureErrata = []erratum{
	// Anthropic's pricing page: Claude Haiku 3 1h writes $0.50, Opus 3 $30
	// (2× input); the snapshot has Sonnet's $6 pasted into both.
	{"claude-3-haiku-20240307", "w1h", "6", "0.5", "1h write is 2× the $0.25 input"},
	{"claude-3-opus-20240229", "w1h", "6", "30", "1h write is 2× the $15 input"},
	// Long-context rates stack with cache multipliers: Sonnet 4 above 200k
	// writes a 1h cache at 2 × $6 = $12, as the snapshot has for Sonnet 4.5.
	{"claude-sonnet-4-20250514", "tier.w1h", "", "12", "snapshot omits the tier's 1h write"},
	// OpenAI's pricing page lists no cached-input rate for the pro models
	// (https://platform.openai.com/docs/pricing: "-"); cached tokens are
	// billed as input. The snapshot carries a 10% rate.
	{"gpt-5.4-pro", "read", "3", "", "no cached-input rate published"},
	{"gpt-5.4-pro", "tier.read", "6", "", "no cached-input rate published"},
	{"gpt-5.5-pro", "read", "3", "", "no cached-input rate published"},
	{"gpt-5.5-pro", "tier.read", "6", "", "no cached-input rate published"},
	// DeepSeek served deepseek-chat and deepseek-reasoner with V4 Flash from
	// its launch on 2026-04-24 ($0.14/$0.28, cache hits $0.0028 from 04-26);
	// the snapshot still has V3.2's $0.28/$0.42/$0.028.
	{"deepseek-chat", "in", "0.28", "0.14", "V4 Flash price since 2026-04-24"},
	{"deepseek-chat", "out", "0.42", "0.28", "V4 Flash price since 2026-04-24"},
	{"deepseek-chat", "read", "0.028", "0.0028", "V4 Flash price since 2026-04-26"},
	{"deepseek-reasoner", "in", "0.28", "0.14", "V4 Flash price since 2026-04-24"},
	{"deepseek-reasoner", "out", "0.42", "0.28", "V4 Flash price since 2026-04-24"},
	{"deepseek-reasoner", "read", "0.028", "0.0028", "V4 Flash price since 2026-04-26"},
	// xAI lists Grok 4.5's cached input at $0.30 (and $0.60 from 200k
	// prompt tokens; https://docs.x.ai/docs/models); the snapshot has $0.50,
	// which is Grok 4.6's rate.
	{"grok-4.5", "read", "0.5", "0.3", "cached input is $0.30"},
}

// fixtureMissingTiers are long-context tiers the snapshot lacks. xAI bills
// every rate of Grok 4.5, 4.3, 4.20 and Build 0.1 at twice the base once
// the prompt reaches 200k tokens (https://docs.x.ai/docs/models: models
// listed with two rows, "< 200k" and "≥ 200k prompt tokens"). The test
// requires the fixture to still lack them.
var fixtureMissingTiers = map[string]Tier{
	"grok-4.3":                     xaiTier("2.5", "5", "0.4"),
	"grok-4.5":                     xaiTier("4", "12", "0.6"),
	"grok-4.20-0309-reasoning":     xaiTier("2.5", "5", "0.4"),
	"grok-4.20-0309-non-reasoning": xaiTier("2.5", "5", "0.4"),
	"grok-4.20-multi-agent-0309":   xaiTier("2.5", "5", "0.4"),
	"grok-build-0.1":               xaiTier("2", "4", "0.4"),
}

// xaiTier is an xAI tier from 200,000 prompt tokens (rates per MTok).
func xaiTier(in, out, read string) Tier {
	r, err := rowRates(in, out, read, "", "")
	if err != nil {
		panic(err)
	}
	return Tier{ThresholdTokens: 199_999, Rates: r}
}

// fixtureDate is when the LiteLLM snapshot was taken: built-in entries are
// compared with it at the rates they had then (Claude Sonnet 5 was at its
// introductory price, DeepSeek had no peak hours yet).
var fixtureDate = time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)

// retiredSince are deprecation dates the July snapshot predates.
var retiredSince = map[string]bool{"deepseek-chat": true, "deepseek-reasoner": true, "gemini-3.5-flash": true}

// asOfFixture is a built-in entry as the snapshot would show it.
func asOfFixture(e Entry) Entry {
	e, _ = e.At(fixtureDate)
	e.Periods, e.Aliases = nil, nil
	if retiredSince[e.Model] {
		e.DeprecationDate, e.Replacement = "", ""
	}
	return e
}

// rateField returns the rate and its published flag addressed by field.
func rateField(t *testing.T, e *Entry, field string) (*int64, *bool) {
	t.Helper()
	r := &e.Base
	if f, ok := strings.CutPrefix(field, "tier."); ok {
		if e.LongContext == nil {
			t.Fatalf("%s: no tier for %s", e.Model, field)
		}
		r, field = &e.LongContext.Rates, f
	}
	switch field {
	case "in":
		return &r.Input, nil
	case "out":
		return &r.Output, nil
	case "read":
		return &r.CacheRead, &r.HasCacheRead
	case "w5m":
		return &r.CacheWrite, &r.HasCacheWrite
	case "w1h":
		return &r.CacheWrite1h, &r.HasCacheWrite1h
	}
	t.Fatalf("unknown erratum field %q", field)
	return nil, nil
}

func mtok(t *testing.T, s string) int64 {
	t.Helper()
	if s == "" {
		return 0
	}
	v, err := perMillion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBuiltinAgreesWithFixture compares every model present in both the
// built-in table and the LiteLLM snapshot: rates, tier, mode, provider,
// context limits and deprecation date.
func TestBuiltinAgreesWithFixture(t *testing.T) {
	fixture, _ := parseFixture(t)
	compared := 0
	for _, ours := range Builtin().Entries() {
		theirs, ok := fixture[ours.Model]
		if !ok {
			continue
		}
		ours = asOfFixture(ours)
		compared++
		if tier, ok := fixtureMissingTiers[ours.Model]; ok {
			if theirs.LongContext != nil {
				t.Errorf("%s: the fixture now has a tier: drop it from fixtureMissingTiers", ours.Model)
			}
			theirs.LongContext = &tier
		}
		for _, er := range fixtureErrata {
			if er.model != ours.Model {
				continue
			}
			v, has := rateField(t, &theirs, er.field)
			if *v != mtok(t, er.fixture) {
				t.Errorf("erratum %s %s: fixture now has %d atto, not %q: drop the erratum", er.model, er.field, *v, er.fixture)
			}
			*v = mtok(t, er.ours)
			if has != nil {
				*has = er.ours != ""
			}
		}
		ours.Source, theirs.Source = "", ""
		ours.Replacement = "" // LiteLLM has no replacement field
		if !sameEntry(ours, theirs) {
			t.Errorf("%s differs from the fixture\n builtin %+v tier %+v\n fixture %+v tier %+v",
				ours.Model, ours, ours.LongContext, theirs, theirs.LongContext)
		}
	}
	if compared < 80 {
		t.Errorf("only %d models compared; the table should cover the fixture's text models", compared)
	}
	for _, er := range fixtureErrata {
		if _, ok := fixture[er.model]; !ok {
			t.Errorf("erratum for %s, which the fixture no longer has", er.model)
		}
	}
}

func sameEntry(a, b Entry) bool {
	ta, tb := a.LongContext, b.LongContext
	a.LongContext, b.LongContext = nil, nil
	if entryKey(a) != entryKey(b) || (ta == nil) != (tb == nil) {
		return false
	}
	return ta == nil || *ta == *tb
}

// TestBuiltinResolvesFixtureNames checks that no fixture name is priced by
// the wrong entry through normalisation (e.g. gpt-3.5-turbo-1106 falling back
// to gpt-3.5-turbo, whose price is lower): whatever fixture name the built-in
// catalogue resolves must carry the fixture's rates.
func TestBuiltinResolvesFixtureNames(t *testing.T) {
	fixture, _ := parseFixture(t)
	errata := map[string]bool{}
	for _, er := range fixtureErrata {
		errata[er.model] = true
	}
	for m := range fixtureMissingTiers {
		errata[m] = true
	}
	resolved := 0
	for name, theirs := range fixture {
		ours, ok := Builtin().Lookup(name)
		if !ok || errata[ours.Model] {
			continue
		}
		ours = asOfFixture(ours)
		resolved++
		if ours.Base != theirs.Base || (ours.LongContext == nil) != (theirs.LongContext == nil) ||
			(ours.LongContext != nil && *ours.LongContext != *theirs.LongContext) {
			t.Errorf("%s resolves to %s with other rates\n builtin %+v\n fixture %+v", name, ours.Model, ours.Base, theirs.Base)
		}
	}
	if resolved < 100 {
		t.Errorf("only %d fixture names resolve", resolved)
	}
}

func TestBuiltinTable(t *testing.T) {
	seen := map[string]bool{}
	providers := map[string]int{}
	noCache := 0
	for _, r := range builtinRows {
		if seen[r.model] {
			t.Errorf("duplicate row %s", r.model)
		}
		seen[r.model] = true
		e, err := r.entry()
		if err != nil {
			t.Fatal(err)
		}
		if e.Source != "builtin" || e.Mode == "" || e.Model != strings.ToLower(e.Model) {
			t.Errorf("%s: bad entry %+v", r.model, e)
		}
		// A dated key beside its family name needs a reason to exist: a price
		// or a deprecation date of its own.
		if fam, ok := Builtin().Lookup(Normalize(e.Model)); ok && fam.Model != e.Model &&
			e.DeprecationDate == "" && sameEntry(Entry{Base: e.Base, LongContext: e.LongContext}, Entry{Base: fam.Base, LongContext: fam.LongContext}) {
			t.Errorf("%s duplicates %s", e.Model, fam.Model)
		}
		providers[e.Provider]++
		if !e.Base.HasCacheRead && !e.Base.HasCacheWrite {
			noCache++
		}
	}
	for _, p := range []string{"anthropic", "openai", "google", "mistral", "deepseek", "xai"} {
		if providers[p] < 4 {
			t.Errorf("provider %s has %d models", p, providers[p])
		}
	}
	if noCache < 5 {
		t.Errorf("%d models without cache rates; zero-savings pricing needs some", noCache)
	}
	if _, err := (row{model: "x", in: "1", out: "bad"}).entry(); err == nil {
		t.Error("a bad literal must fail")
	}
	if _, err := (row{model: "x", in: "1"}).entry(); err == nil {
		t.Error("a row without an output rate must fail")
	}
}
