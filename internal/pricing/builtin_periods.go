package pricing

import (
	"fmt"
	"time"
)

// periodRow is one dated or time-of-day price of a built-in model, rates in
// USD per million tokens as decimal text ("" = not published). from and
// until are RFC 3339 times or dates (UTC midnight), "" = open; window is
// "HH:MM-HH:MM" in UTC, "" = all day.
type periodRow struct {
	from, until, window     string
	weekdays                bool
	label                   string
	in, out, read, w5m, w1h string
	tier                    *tierRow
}

// DeepSeek's published schedule (https://api-docs.deepseek.com/quick_start/pricing):
//   - V4 launched on 2026-04-24 (deepseek-chat and deepseek-reasoner served
//     by V4 Flash from then, until they were retired after 2026-07-24
//     15:59 UTC); cache hits cost a tenth of the launch price from 12:15
//     UTC on 2026-04-26;
//   - from 16:00 UTC on 2026-08-16 peak hours are 01:00–04:00 and
//     06:00–10:00 UTC (09:00–12:00 and 14:00–18:00 Beijing time), every day
//     for the first week, then on weekdays only from 16:00 UTC on 2026-08-22
//     (00:00 Beijing on Sunday 23 August); off-peak is half the peak rate;
//   - Chinese public holidays are off-peak all day (deepseekHolidays);
//   - on 2026-09-10 04:00 UTC V4.1-Flash (deepseek-flash) cut the Flash
//     price and the legacy deepseek-v4-flash name is billed as it.
const (
	deepseekV4Start      = "2026-04-24"
	deepseekCacheCut     = "2026-04-26T12:15:00Z"
	deepseekPeakStart    = "2026-08-16T16:00:00Z"
	deepseekWeekdayStart = "2026-08-22T16:00:00Z"
	deepseekFlashStart   = "2026-09-10T04:00:00Z"
)

// deepseekHolidays are the weekday Chinese public holidays since DeepSeek
// bills them off-peak (its pricing page's footnote, read on 2026-09-21):
// Mid-Autumn Festival and National Day 2026, as Beijing dates. The 2027
// calendar is to be added when published.
var deepseekHolidays = []string{"2026-09-25", "2026-10-01", "2026-10-02", "2026-10-05", "2026-10-06", "2026-10-07"}

// peakOffPeak returns an all-day off-peak period, the two peak windows at
// twice its rates (every day for the first week, weekdays from then on),
// and the holidays' all-day off-peak periods, in force from from until until.
func peakOffPeak(from, until, in, out, read, peakIn, peakOut, peakRead string) []periodRow {
	rows := []periodRow{{from: from, until: until, label: "off-peak", in: in, out: out, read: read}}
	peak := func(from, until string, weekdays bool) {
		for _, w := range []string{"01:00-04:00", "06:00-10:00"} {
			rows = append(rows, periodRow{from: from, until: until, window: w, weekdays: weekdays, label: "peak",
				in: peakIn, out: peakOut, read: peakRead})
		}
	}
	if from < deepseekWeekdayStart {
		peak(from, deepseekWeekdayStart, false)
		from = deepseekWeekdayStart
	}
	peak(from, until, true)
	for _, d := range deepseekHolidays {
		start, end := beijingDay(d)
		if (until == "" || start < until) && end > from {
			rows = append(rows, periodRow{from: start, until: end, label: "off-peak (public holiday)", in: in, out: out, read: read})
		}
	}
	return rows
}

// beijingDay is the UTC span of a Beijing calendar date (UTC+8).
func beijingDay(date string) (from, until string) {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		panic(err)
	}
	return d.Add(-8 * time.Hour).Format(time.RFC3339), d.Add(16 * time.Hour).Format(time.RFC3339)
}

// deepseekLaunchCache is V4's cache-hit price before the cut of 2026-04-26.
func deepseekLaunchCache(in, out, read string) periodRow {
	return periodRow{from: deepseekV4Start, until: deepseekCacheCut, label: "launch cache price", in: in, out: out, read: read}
}

var deepseekFlashPeriods = append(append([]periodRow{deepseekLaunchCache("0.14", "0.28", "0.028")},
	peakOffPeak(deepseekPeakStart, deepseekFlashStart, "0.22", "0.66", "0.007", "0.44", "1.32", "0.014")...),
	peakOffPeak(deepseekFlashStart, "", "0.15", "0.6", "0.003", "0.3", "1.2", "0.006")...)

// deepseekLegacyPeriods price deepseek-chat and deepseek-reasoner: the V3.2
// rate (the row) until V4's launch, then V4 Flash's rates, which also
// price any call stamped after their retirement.
var deepseekLegacyPeriods = append([]periodRow{
	servedBy("deepseek-flash", "served by deepseek-v4-flash", deepseekCacheCut, deepseekPeakStart),
}, deepseekFlashPeriods...)

// servedBy is a period, from from until until, at the row rates of the
// built-in model that serves a retired name, so the two cannot drift apart.
func servedBy(model, label, from, until string) periodRow {
	for _, r := range builtinRows {
		if r.model == model {
			return periodRow{from: from, until: until, label: label, in: r.in, out: r.out, read: r.read, w5m: r.w5m, w1h: r.w1h, tier: r.tier}
		}
	}
	panic("pricing: no built-in row " + model)
}

// gpt56SolPeriods: Sol's promotional price from its announcement, at 19:34
// UTC on 2026-08-21 (OpenAI's post of that time, quoted with its time in
// https://github.com/pwrdrvr/PwrAgent/pull/1868, says "starting today"):
// before it the published price was $5/$30, and no source says calls
// earlier that day were billed at the new one.
var gpt56SolPeriods = []periodRow{{from: "2026-08-21T19:34:00Z", label: "promotional price", in: "4", out: "20", read: "0.4", w5m: "5",
	tier: &tierRow{272000, "8", "30", "0.8", "10", ""}}}

// geminiFlashIntro is the Flash introductory price from from until 2027.
func geminiFlashIntro(from string) periodRow {
	return periodRow{from: from, until: "2027-01-01", label: "introductory price", in: "0.75", out: "3.75", read: "0.075"}
}

// routedFlash prices a retired Gemini Flash as the model its requests are
// routed to from from: that model's introductory price until 2027, then
// its row rates.
func routedFlash(from, to string) []periodRow {
	intro := geminiFlashIntro(from)
	intro.label = "served by " + to + " (introductory price)"
	return []periodRow{intro, servedBy(to, "served by "+to, "2027-01-01", "")}
}

var gemini4Intro = periodRow{until: "2026-12-01", label: "introductory price", in: "2", out: "10", read: "0.1"}

// xaiRetired prices a retired Grok name as grok-4.3 from its retirement.
var xaiRetired = []periodRow{servedBy("grok-4.3", "served by grok-4.3", "2026-05-15T19:00:00Z", "")}

// builtinPeriods are the dated and time-of-day prices of built-in models;
// the row in builtinRows holds the rates in force before the first period.
var builtinPeriods = map[string][]periodRow{
	// Sonnet 5.5's cache hits dropped from 0.1× to 0.05× input on
	// 2026-10-07. The rate is Anthropic's pricing page
	// (https://platform.claude.com/docs/en/about-claude/pricing), as quoted:
	// the row "Claude Sonnet 5.5 | $2 | $2.50 | $4 | $0.10 | $10" and the
	// footnote "Cache hits and refreshes on Claude Opus 5.5 and Claude
	// Sonnet 5.5 are priced at 0.05x the base input price". The date is
	// from two price tables that applied the cut (kurofune/claudit v1.9.2,
	// TheKrush/PromptFuel v1.0.23); the hour is not known, so the whole
	// day is priced at 0.05×.
	//
	// Sonnet 5 has no period: the $3/$15 planned for 2026-09-01 was
	// cancelled on 2026-08-10 and $2/$10 made its standard price.
	"claude-sonnet-5-5": {{from: "2026-10-07", label: "cache hits at 0.05x", in: "2", out: "10", read: "0.1", w5m: "2.5", w1h: "4"}},
	// OpenAI cut GPT-5.6 Luna by 80% and Terra by 20% on 2026-07-30, and
	// Sol (the gpt-5.6 alias) to $4/$20 on 2026-08-21, "promotional pricing
	// available at least through November 21, 2026"; no end was announced
	// by 2026-11-22, so the period is open (docs/pricing.md, item 14).
	// https://developers.openai.com/api/docs/models/gpt-5.6-sol
	"gpt-5.6-luna":  {{from: "2026-07-30", label: "price cut", in: "0.2", out: "1.2", read: "0.02", w5m: "0.25", tier: &tierRow{272000, "0.4", "1.8", "0.04", "0.5", ""}}},
	"gpt-5.6-terra": {{from: "2026-07-30", label: "price cut", in: "2", out: "12", read: "0.2", w5m: "2.5", tier: &tierRow{272000, "4", "18", "0.4", "5", ""}}},
	"gpt-5.6-sol":   gpt56SolPeriods,
	// Google's introductory prices: Gemini 3.6, 3.7 and 3.8 Flash at half
	// the standard rate through 2026-12-31 (3.6 Flash from 2026-08-13; its
	// launch weeks were listed at the standard rate), Gemini 4 Argon and
	// Carbon until 2026-11-30. https://ai.google.dev/gemini-api/docs/pricing
	"gemini-3.6-flash": {geminiFlashIntro("2026-08-13")},
	"gemini-3.7-flash": {geminiFlashIntro("")},
	"gemini-3.8-flash": {geminiFlashIntro("")},
	// Google's changelog of 2026-10-08: gemini-3.5-flash "was retired and
	// replaced by gemini-3.6-flash ... requests to gemini-3.5-flash are
	// automatically routed to gemini-3.6-flash" (likewise 3.7 Flash to 3.8
	// Flash, at the same price, so no period). The changelog does not say
	// which price they are billed at; they are priced as the model that
	// serves them, as xAI bills its retired names.
	"gemini-3.5-flash": routedFlash("2026-10-08", "gemini-3.6-flash"),
	"gemini-4-argon":   {gemini4Intro},
	"gemini-4-carbon":  {gemini4Intro},
	"gpt-5.6":          gpt56SolPeriods,
	// The 1M context window left beta on 2026-03-13 at the standard price:
	// the long-context tier ends that day.
	"claude-opus-4-6":   {{from: "2026-03-13", label: "1M context at standard price", in: "5", out: "25", read: "0.5", w5m: "6.25", w1h: "10"}},
	"claude-sonnet-4-6": {{from: "2026-03-13", label: "1M context at standard price", in: "3", out: "15", read: "0.3", w5m: "3.75", w1h: "6"}},
	// OpenAI cut o3 by 80% on 2025-06-10.
	"o3":                {{from: "2025-06-10", label: "price cut", in: "2", out: "8", read: "0.5"}},
	"deepseek-flash":    deepseekFlashPeriods,
	"deepseek-chat":     deepseekLegacyPeriods,
	"deepseek-reasoner": deepseekLegacyPeriods,
	"deepseek-v4-pro": append([]periodRow{deepseekLaunchCache("0.435", "0.87", "0.03625")},
		peakOffPeak(deepseekPeakStart, "", "0.66", "1.98", "0.022", "1.32", "3.96", "0.044")...),
	// xAI retired Grok 4, 4 Fast, 4.1 Fast and 3 on 2026-05-15 at 19:00 UTC:
	// their names are redirected to grok-4.3 and "billed at grok-4.3
	// pricing" (https://docs.x.ai/developers/migration/may-15-retirement).
	"grok-4-0709":                 xaiRetired,
	"grok-4-fast-reasoning":       xaiRetired,
	"grok-4-fast-non-reasoning":   xaiRetired,
	"grok-4-1-fast-reasoning":     xaiRetired,
	"grok-4-1-fast-non-reasoning": xaiRetired,
	"grok-3":                      xaiRetired,
}

// builtinAliases are the other names providers document for built-in
// models: -latest and family aliases, and retired names now served by a
// successor (Retired set).
var builtinAliases = map[string][]Alias{
	"mistral-large-2512":  {{Name: "mistral-large-latest"}, {Name: "mistral-large"}},
	"mistral-medium-2604": {{Name: "mistral-medium-latest"}, {Name: "mistral-medium"}, {Name: "mistral-medium-3-5"}, {Name: "mistral-medium-3"}},
	// The bare mistral-small is not Small 4's: Mistral renamed it
	// open-mixtral-8x7b and deprecated it in February 2024, and its model
	// list names only mistral-small-latest for Small (docs/pricing.md).
	"mistral-small-2603":      {{Name: "mistral-small-latest"}},
	"magistral-medium-2509":   {{Name: "magistral-medium-latest"}},
	"magistral-small-2509":    {{Name: "magistral-small-latest"}},
	"codestral-2508":          {{Name: "codestral-latest"}, {Name: "codestral"}},
	"devstral-2512":           {{Name: "devstral-latest"}},
	"ministral-14b-2512":      {{Name: "ministral-14b-latest"}},
	"ministral-8b-2512":       {{Name: "ministral-8b-latest"}},
	"ministral-3b-2512":       {{Name: "ministral-3b-latest"}},
	"open-mistral-nemo":       {{Name: "mistral-nemo"}},
	"grok-4.6":                {{Name: "grok-4.6-latest"}},
	"grok-4.5":                {{Name: "grok-4.5-latest"}},
	"grok-4.3":                {{Name: "grok-4.3-latest"}},
	"grok-build-0.1":          {{Name: "grok-build"}},
	"grok-4-0709":             {{Name: "grok-4"}, {Name: "grok-4-latest"}},
	"grok-4-fast-reasoning":   {{Name: "grok-4-fast"}, {Name: "grok-4-fast-reasoning-latest"}},
	"grok-4-1-fast-reasoning": {{Name: "grok-4-1-fast"}, {Name: "grok-4-1-fast-reasoning-latest"}},
	"grok-code-fast-1":        {{Name: "grok-code-fast"}},
	"grok-3":                  {{Name: "grok-3-latest"}},
	"grok-3-mini":             {{Name: "grok-3-mini-latest"}},
	"deepseek-flash":          {{Name: "deepseek-v4-flash", Retired: "2026-09-10"}},
}

// periods parses a model's period rows.
func (r row) periods() ([]Period, error) {
	var out []Period
	for _, pr := range builtinPeriods[r.model] {
		p, err := pr.period()
		if err != nil {
			return nil, fmt.Errorf("pricing: builtin %s period %s: %w", r.model, pr.from, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func (pr periodRow) period() (Period, error) {
	base, err := rowRates(pr.in, pr.out, pr.read, pr.w5m, pr.w1h)
	if err != nil {
		return Period{}, err
	}
	p := Period{Label: pr.label, Base: base, WeekdaysOnly: pr.weekdays}
	if p.From, err = parseInstant(pr.from); err != nil {
		return Period{}, err
	}
	if p.Until, err = parseInstant(pr.until); err != nil {
		return Period{}, err
	}
	if pr.window != "" {
		p.HasWindow = true
		var a, b string
		if _, err := fmt.Sscanf(pr.window[:5]+" "+pr.window[6:], "%s %s", &a, &b); err != nil {
			return Period{}, err
		}
		if p.DayStart, err = ParseClock(a); err != nil {
			return Period{}, err
		}
		if p.DayEnd, err = ParseClock(b); err != nil {
			return Period{}, err
		}
	}
	if t := pr.tier; t != nil {
		tr, err := rowRates(t.in, t.out, t.read, t.w5m, t.w1h)
		if err != nil {
			return Period{}, err
		}
		p.LongContext = &Tier{ThresholdTokens: t.above, Rates: tr}
	}
	return p, nil
}

// parseInstant reads an RFC 3339 time or a date (UTC midnight); "" is zero.
func parseInstant(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	return time.Parse(time.DateOnly, s)
}
