package pricing

import (
	"testing"
	"time"
)

// pinned is one documented price: model (as a client sends it), the time
// of the call, and rates in USD per million tokens ("" = not published,
// "-" = not checked).
type pinned struct {
	model           string
	at              time.Time
	in, out, read   string
	period, resolve string // expected price_period ("" = none) and entry
}

var (
	nov23mon02 = time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC)
	nov23mon14 = time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	nov21sat02 = time.Date(2026, 11, 21, 2, 0, 0, 0, time.UTC)
	today      = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
)

func checkPinned(t *testing.T, tests []pinned) {
	t.Helper()
	for _, p := range tests {
		e, ok := Builtin().Lookup(p.model)
		if !ok {
			t.Errorf("%s: not in the built-in catalogue", p.model)
			continue
		}
		if p.resolve != "" && e.Model != p.resolve {
			t.Errorf("%s resolves to %s, want %s", p.model, e.Model, p.resolve)
		}
		at, period := e.At(p.at)
		if p.period != "-" && period != p.period {
			t.Errorf("%s at %s: period %q, want %q", p.model, p.at, period, p.period)
		}
		r := at.Base
		if r.Input != mtok(t, p.in) || r.Output != mtok(t, p.out) {
			t.Errorf("%s at %s: in %d out %d, want %s / %s per MTok", p.model, p.at, r.Input, r.Output, p.in, p.out)
		}
		if p.read != "-" && (r.HasCacheRead != (p.read != "") || r.CacheRead != mtok(t, p.read)) {
			t.Errorf("%s at %s: cache read %d (published %v), want %q", p.model, p.at, r.CacheRead, r.HasCacheRead, p.read)
		}
	}
}

// https://platform.claude.com/docs/en/about-claude/pricing: Sonnet 5 stays
// at $2/$10 (the increase planned for 2026-09-01 was cancelled on
// 2026-08-10); Opus 5.5 and Sonnet 5.5 cache hits at 0.05× input (the
// page's footnote; Sonnet 5.5 from 2026-10-07, as kurofune/claudit v1.9.2
// and TheKrush/PromptFuel v1.0.23 date the cut); Haiku 5.5 priced by
// prompt length above 100k.
func TestAnthropicPublishedPrices(t *testing.T) {
	checkPinned(t, []pinned{
		{"claude-sonnet-5", time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), "2", "10", "0.2", "", ""},
		{"claude-sonnet-5", today, "2", "10", "0.2", "", ""},
		{"claude-opus-5-5", today, "4", "20", "0.2", "", ""},
		{"claude-sonnet-5-5", time.Date(2026, 10, 6, 12, 0, 0, 0, time.UTC), "2", "10", "0.2", BasePeriod, ""},
		{"claude-sonnet-5-5", time.Date(2026, 10, 7, 0, 0, 0, 0, time.UTC), "2", "10", "0.1", "2026-10-07T00:00:00Z..", ""},
		{"claude-sonnet-5-5", today, "2", "10", "0.1", "2026-10-07T00:00:00Z..", ""},
		{"claude-haiku-5-5", today, "0.1", "0.5", "0.01", "", ""},
		{"claude-mythos-5-1", today, "10", "50", "0.25", "", ""},
		{"claude-haiku-4-5", today, "1", "5", "0.1", "", ""},
		{"claude-opus-4", today, "15", "75", "1.5", "", "claude-opus-4-20250514"},
	})
	e, _ := Builtin().Lookup("claude-opus-4-6")
	before, _ := e.At(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	after, _ := e.At(today)
	if before.LongContext == nil || after.LongContext != nil {
		t.Error("opus 4.6: long-context tier until 2026-03-13 only")
	}
	// Sonnet 4.5: long-context rates for prompts exceeding 200k tokens.
	s45, _ := Builtin().Lookup("claude-sonnet-4-5")
	if _, tier := s45.EffectiveRates(200_000); tier {
		t.Error("sonnet 4.5 at 200k: base rates")
	}
	if r, tier := s45.EffectiveRates(200_001); !tier || r.Input != mtok(t, "6") || r.CacheRead != mtok(t, "0.6") {
		t.Errorf("sonnet 4.5 above 200k: %+v", r)
	}
}

// https://platform.openai.com/docs/pricing: o3 cut from $10/$40 to $2/$8
// on 2025-06-10; the pro models publish no cached-input rate ("-"), so
// cached tokens cost the input rate; gpt-3.5-turbo-0613 and -0301 kept
// their own $1.50/$2 (https://platform.openai.com/docs/deprecations; the
// legacy models table of https://platform.openai.com/docs/pricing) rather
// than the undated name's price.
func TestOpenAIPublishedPrices(t *testing.T) {
	checkPinned(t, []pinned{
		{"o3", time.Date(2025, 6, 9, 12, 0, 0, 0, time.UTC), "10", "40", "2.5", BasePeriod, ""},
		{"o3-2025-04-16", time.Date(2025, 6, 10, 0, 0, 0, 0, time.UTC), "2", "8", "0.5", "2025-06-10T00:00:00Z..", "o3"},
		{"gpt-5.4-pro", today, "30", "180", "", "", ""},
		{"gpt-5-pro", today, "15", "120", "", "", ""},
		{"gpt-5", today, "1.25", "10", "0.125", "", ""},
		{"gpt-3.5-turbo-0613", today, "1.5", "2", "", "", ""},
		{"gpt-3.5-turbo-0301", today, "1.5", "2", "", "", ""},
		// https://developers.openai.com/api/docs/models/gpt-5.6-luna (and
		// -terra, -sol): Luna and Terra cut on 2026-07-30, Sol and its
		// gpt-5.6 alias on 2026-08-21 from its announcement at 19:34 UTC
		// (https://github.com/pwrdrvr/PwrAgent/pull/1868 quotes OpenAI's
		// post of that time).
		{"gpt-5.6-luna", time.Date(2026, 7, 29, 12, 0, 0, 0, time.UTC), "1", "6", "0.1", BasePeriod, ""},
		{"gpt-5.6-luna", today, "0.2", "1.2", "0.02", "2026-07-30T00:00:00Z..", ""},
		{"gpt-5.6-terra", today, "2", "12", "0.2", "2026-07-30T00:00:00Z..", ""},
		{"gpt-5.6-sol", time.Date(2026, 8, 20, 23, 0, 0, 0, time.UTC), "5", "30", "0.5", BasePeriod, ""},
		{"gpt-5.6-sol", time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC), "5", "30", "0.5", BasePeriod, ""},
		{"gpt-5.6-sol", time.Date(2026, 8, 21, 19, 33, 59, 0, time.UTC), "5", "30", "0.5", BasePeriod, ""},
		{"gpt-5.6-sol", time.Date(2026, 8, 21, 19, 34, 0, 0, time.UTC), "4", "20", "0.4", "2026-08-21T19:34:00Z..", ""},
		{"gpt-5.6", time.Date(2026, 8, 21, 19, 0, 0, 0, time.UTC), "5", "30", "0.5", BasePeriod, "gpt-5.6"},
		{"gpt-5.6", today, "4", "20", "0.4", "2026-08-21T19:34:00Z..", ""},
		{"gpt-6.1-sol", today, "2", "10", "0.1", "", ""},
		{"gpt-6-luna", today, "0.1", "0.5", "0.01", "", ""},
	})
	// https://developers.openai.com/api/docs/models/gpt-5.4-pro: "prompts
	// with >272K input tokens are priced at 2x input and 1.5x output".
	e, _ := Builtin().Lookup("gpt-5.4-pro")
	if _, tier := e.EffectiveRates(272_000); tier {
		t.Error("gpt-5.4-pro at 272k: base rates")
	}
	r, tier := e.EffectiveRates(272_001)
	if !tier || r.Input != mtok(t, "60") || r.Output != mtok(t, "270") || r.HasCacheRead || r.CacheRead != r.Input {
		t.Errorf("gpt-5.4-pro above 272k: %+v (cached tokens at the tier's input rate)", r)
	}
	// Sol's promotional long-context rates: 2x input and cached input, 1.5x output.
	sol, _ := Builtin().Lookup("gpt-5.6-sol")
	sol, _ = sol.At(today)
	if r, tier := sol.EffectiveRates(300_000); !tier || r.Input != mtok(t, "8") || r.Output != mtok(t, "30") || r.CacheRead != mtok(t, "0.8") {
		t.Errorf("gpt-5.6-sol above 272k today: %+v", r)
	}
}

// https://ai.google.dev/gemini-api/docs/pricing: Gemini 3.6, 3.7 and 3.8
// Flash "$0.75 through December 31, 2026. $1.50 starting January 1, 2027";
// Gemini 4 Argon $2/$10 until November 30, then $4/$20.
func TestGooglePublishedPrices(t *testing.T) {
	checkPinned(t, []pinned{
		{"gemini-2.5-pro", today, "1.25", "10", "0.125", "", ""},
		{"gemini-3.6-flash", time.Date(2026, 8, 12, 12, 0, 0, 0, time.UTC), "1.5", "7.5", "0.15", BasePeriod, ""},
		{"gemini-3.6-flash", today, "0.75", "3.75", "0.075", "2026-08-13T00:00:00Z..2027-01-01T00:00:00Z", ""},
		{"gemini-3.7-flash", today, "0.75", "3.75", "0.075", "..2027-01-01T00:00:00Z", ""},
		{"gemini-3.8-flash", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), "1.5", "7.5", "0.15", BasePeriod, ""},
		// Retired on 2026-10-08, its requests routed to gemini-3.6-flash
		// (https://ai.google.dev/gemini-api/docs/changelog).
		{"gemini-3.5-flash", time.Date(2026, 10, 7, 23, 0, 0, 0, time.UTC), "1.5", "9", "0.15", BasePeriod, ""},
		{"gemini-3.5-flash", time.Date(2026, 10, 8, 0, 0, 0, 0, time.UTC), "0.75", "3.75", "0.075", "2026-10-08T00:00:00Z..2027-01-01T00:00:00Z", ""},
		{"google/gemini-3.5-flash", today, "0.75", "3.75", "0.075", "2026-10-08T00:00:00Z..2027-01-01T00:00:00Z", "gemini-3.5-flash"},
		{"gemini-3.5-flash", time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC), "1.5", "7.5", "0.15", "2027-01-01T00:00:00Z..", ""},
		{"gemini-4-argon", today, "2", "10", "0.1", "..2026-12-01T00:00:00Z", ""},
		{"gemini-4-argon", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), "4", "20", "0.2", BasePeriod, ""},
		{"gemini-4-hydrogen", today, "1.5", "7.5", "0.075", "", ""},
		{"models/gemini-2.5-flash", today, "0.3", "2.5", "0.03", "", "gemini-2.5-flash"},
	})
	e, _ := Builtin().Lookup("gemini-2.5-pro")
	if r, tier := e.EffectiveRates(200_001); !tier || r.Input != mtok(t, "2.5") || r.Output != mtok(t, "15") {
		t.Errorf("gemini-2.5-pro above 200k: %+v", r)
	}
}

// https://mistral.ai/pricing#api-pricing and https://docs.mistral.ai/getting-started/models/:
// cached input at 10% of input; -latest names point at the current release.
func TestMistralPublishedPrices(t *testing.T) {
	checkPinned(t, []pinned{
		{"mistral-large-latest", today, "0.5", "1.5", "0.05", "", "mistral-large-2512"},
		{"mistral/codestral-latest", today, "0.3", "0.9", "0.03", "", "codestral-2508"},
		{"mistral-medium-latest", today, "1.5", "7.5", "0.15", "", "mistral-medium-2604"},
		{"mistral-medium-2508", today, "0.4", "2", "0.04", "", ""},
		{"mistral-small-latest", today, "0.15", "0.6", "0.015", "", "mistral-small-2603"},
		{"ministral-8b-latest", today, "0.15", "0.15", "0.015", "", "ministral-8b-2512"},
		{"ministral-3b-latest", today, "0.1", "0.1", "0.01", "", "ministral-3b-2512"},
		// https://docs.mistral.ai/models/mistral-nemo-12b-24-07: $0.15/$0.15
		// (not the $0.30 some catalogues list); retired 2026-07-31.
		{"open-mistral-nemo", today, "0.15", "0.15", "0.015", "", ""},
		{"mistral-nemo", today, "0.15", "0.15", "0.015", "", "open-mistral-nemo"},
		// Magistral Medium at $2/$5, not Medium 3.5's $1.50/$7.50.
		{"magistral-medium-latest", today, "2", "5", "0.2", "", "magistral-medium-2509"},
	})
	// The bare mistral-small is no alias of Small 4 (Mistral renamed it
	// open-mixtral-8x7b in 2024): unpriced rather than priced as Small 4.
	if e, ok := Builtin().Lookup("mistral-small"); ok {
		t.Errorf("mistral-small resolves to %s", e.Model)
	}
	if e, _ := Builtin().Lookup("open-mistral-nemo"); e.DeprecationDate != "2026-07-31" || e.Replacement != "ministral-8b-2512" {
		t.Errorf("open-mistral-nemo lifecycle: %q %q", e.DeprecationDate, e.Replacement)
	}
	for _, e := range Builtin().Entries() {
		if e.Provider == "mistral" && (!e.Base.HasCacheRead || e.Base.CacheRead*10 != e.Base.Input) {
			t.Errorf("%s: cache read %d is not 10%% of input %d", e.Model, e.Base.CacheRead, e.Base.Input)
		}
	}
}

// https://api-docs.deepseek.com/quick_start/pricing: from 2026-08-16 16:00
// UTC peak hours are 01:00–04:00 and 06:00–10:00 UTC on weekdays, off-peak
// is half; from 2026-09-10 04:00 UTC deepseek-flash (V4.1 Flash) costs
// $0.15/$0.60 off-peak, $0.30/$1.20 peak, and the retired deepseek-v4-flash
// name is billed as it.
func TestDeepSeekPublishedPrices(t *testing.T) {
	checkPinned(t, []pinned{
		{"deepseek-flash", nov23mon02, "0.3", "1.2", "0.006", "2026-09-10T04:00:00Z..@01:00-04:00 Mon-Fri", ""},
		{"deepseek-flash", nov23mon14, "0.15", "0.6", "0.003", "2026-09-10T04:00:00Z..", ""},
		{"deepseek-v4-flash", nov23mon02, "0.3", "1.2", "0.006", "-", "deepseek-flash"},
		{"deepseek-v4-flash", time.Date(2026, 8, 20, 2, 0, 0, 0, time.UTC), "0.44", "1.32", "0.014", "-", ""},
		{"deepseek-v4-flash", time.Date(2026, 7, 15, 2, 0, 0, 0, time.UTC), "0.14", "0.28", "0.0028", BasePeriod, ""},
		{"deepseek-v4-pro", nov23mon02, "1.32", "3.96", "0.044", "-", ""},
		{"deepseek-v4-pro", nov23mon14, "0.66", "1.98", "0.022", "-", ""},
		{"deepseek-chat", time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), "0.28", "0.42", "0.028", BasePeriod, ""},
		{"deepseek-chat", time.Date(2026, 4, 25, 0, 0, 0, 0, time.UTC), "0.14", "0.28", "0.028", "2026-04-24T00:00:00Z..2026-04-26T12:15:00Z", ""},
		{"deepseek-chat", time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), "0.14", "0.28", "0.0028", "2026-04-26T12:15:00Z..2026-08-16T16:00:00Z", ""},
		{"deepseek-v4-pro", time.Date(2026, 4, 25, 0, 0, 0, 0, time.UTC), "0.435", "0.87", "0.03625", "-", ""},
		{"deepseek-chat", nov23mon14, "0.15", "0.6", "0.003", "-", ""},
	})
}

// The weekday rule: a Saturday at 02:00 UTC is off-peak, except in the
// first week of peak hours (weekends off-peak from 2026-08-22 16:00 UTC);
// a weekday public holiday (National Day, 1 October) is off-peak all day.
func TestDeepSeekWeekend(t *testing.T) {
	checkPinned(t, []pinned{
		{"deepseek-flash", nov21sat02, "0.15", "0.6", "0.003", "2026-09-10T04:00:00Z..", ""},
		{"deepseek-flash", time.Date(2026, 8, 22, 2, 0, 0, 0, time.UTC), "0.44", "1.32", "0.014", "2026-08-16T16:00:00Z..2026-08-22T16:00:00Z@01:00-04:00", ""},
		{"deepseek-flash", time.Date(2026, 8, 29, 2, 0, 0, 0, time.UTC), "0.22", "0.66", "0.007", "2026-08-16T16:00:00Z..2026-09-10T04:00:00Z", ""},
		{"deepseek-flash", time.Date(2026, 10, 1, 2, 0, 0, 0, time.UTC), "0.15", "0.6", "0.003", "2026-09-30T16:00:00Z..2026-10-01T16:00:00Z", ""},
		{"deepseek-v4-pro", time.Date(2026, 10, 7, 7, 0, 0, 0, time.UTC), "0.66", "1.98", "0.022", "2026-10-06T16:00:00Z..2026-10-07T16:00:00Z", ""},
		{"deepseek-v4-pro", time.Date(2026, 10, 8, 7, 0, 0, 0, time.UTC), "1.32", "3.96", "0.044", "2026-08-22T16:00:00Z..@06:00-10:00 Mon-Fri", ""},
	})
	e, _ := Builtin().Lookup("deepseek-flash")
	u := Usage{Input: 100_000, Cached: 60_000, Output: 5_000}
	peak, _ := e.At(nov23mon02)
	off, _ := e.At(nov23mon14)
	if p, o := peak.Price(u).Total, off.Price(u).Total; p != 2*o {
		t.Errorf("peak %d must be twice off-peak %d", p, o)
	}
}

// https://docs.x.ai/docs/models: Grok 4 doubles above 128k prompt tokens;
// Grok 4.6, 4.5, 4.3, 4.20 and Build 0.1 are listed with two rows, "< 200k"
// and "≥ 200k prompt tokens", every rate doubled ("requests whose prompt
// reaches 200k tokens are billed at the higher rate for all tokens in the
// request"); Grok 4.5's cached input is $0.30, Grok 4.6's $0.50. grok-4 and
// grok-4-fast are aliases of the dated and reasoning models.
func TestXAIPublishedPrices(t *testing.T) {
	checkPinned(t, []pinned{
		{"grok-4", time.Date(2026, 5, 15, 18, 59, 0, 0, time.UTC), "3", "15", "0.75", BasePeriod, "grok-4-0709"},
		{"xai/grok-4-fast", time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), "0.2", "0.5", "0.05", BasePeriod, "grok-4-fast-reasoning"},
		{"grok-4-1-fast", time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), "0.2", "0.5", "0.05", BasePeriod, "grok-4-1-fast-reasoning"},
		// Retired on 2026-05-15 19:00 UTC, served and billed as grok-4.3
		// (https://docs.x.ai/developers/migration/may-15-retirement).
		{"grok-4", today, "1.25", "2.5", "0.2", "2026-05-15T19:00:00Z..", "grok-4-0709"},
		{"grok-3", today, "1.25", "2.5", "0.2", "2026-05-15T19:00:00Z..", ""},
		{"grok-4.7", today, "2", "6", "0.5", "", ""},
		{"grok-4.6-latest", today, "2", "6", "0.5", "", "grok-4.6"},
		{"grok-4.5", today, "2", "6", "0.3", "", ""},
		{"grok-4.3-latest", today, "1.25", "2.5", "0.2", "", "grok-4.3"},
		{"grok-build", today, "1", "2", "0.2", "", "grok-build-0.1"},
	})
	e, _ := Builtin().Lookup("grok-4")
	e, _ = e.At(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))
	if r, tier := e.EffectiveRates(128_001); !tier || r.Input != mtok(t, "6") || r.Output != mtok(t, "30") {
		t.Errorf("grok-4 above 128k: %+v", r)
	}
	if _, tier := e.EffectiveRates(128_000); tier {
		t.Error("grok-4 at 128k: base rates")
	}
	for model, want := range map[string][3]string{
		"grok-4.6": {"4", "12", "1"}, "grok-4.5": {"4", "12", "0.6"}, "grok-4.3": {"2.5", "5", "0.4"},
		"grok-4.20-0309-reasoning": {"2.5", "5", "0.4"}, "grok-4.20-multi-agent-0309": {"2.5", "5", "0.4"},
		"grok-build-0.1": {"2", "4", "0.4"},
	} {
		e, _ := Builtin().Lookup(model)
		if _, tier := e.EffectiveRates(199_999); tier {
			t.Errorf("%s below 200k: base rates", model)
		}
		r, tier := e.EffectiveRates(200_000) // reaching 200k is enough
		if !tier || r.Input != mtok(t, want[0]) || r.Output != mtok(t, want[1]) || r.CacheRead != mtok(t, want[2]) {
			t.Errorf("%s at 200k: %+v, want %v", model, r, want)
		}
	}
	if _, res, _ := Builtin().Resolve("deepseek-v4-flash"); res.Via != "retired" || res.Retired != "2026-09-10" {
		t.Errorf("deepseek-v4-flash is a retired name: %+v", res)
	}
}
