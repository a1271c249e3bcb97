package pricing

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func loadGenAIFixture(t *testing.T) []Entry {
	t.Helper()
	data, err := os.ReadFile("../../testdata/fixtures/pricing/genai-prices-subset-2026-11.json")
	if err != nil {
		t.Fatal(err)
	}
	entries, skipped, format, err := ParseAny(data)
	if err != nil || format != FormatGenAI {
		t.Fatalf("ParseAny: format %q, err %v", format, err)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Model] = s.Reason
	}
	if reasons["groq/llama-3.3-70b-versatile"] == "" || reasons["google/claude-opus-4-6"] == "" {
		t.Errorf("resellers must be skipped with a reason: %v", reasons)
	}
	return entries
}

func TestParseGenAIFixture(t *testing.T) {
	cat := NewCatalogue(loadGenAIFixture(t), "genai")
	luna, ok := cat.Lookup("gpt-5.6-luna")
	if !ok || len(luna.Periods) != 1 {
		t.Fatalf("gpt-5.6-luna: %+v", luna)
	}
	before, p1 := luna.At(time.Date(2026, 7, 29, 23, 0, 0, 0, time.UTC))
	after, p2 := luna.At(time.Date(2026, 7, 30, 0, 0, 0, 0, time.UTC))
	if before.Base.Input != mtok(t, "1") || after.Base.Input != mtok(t, "0.2") || p1 != BasePeriod || p2 != "2026-07-30T00:00:00Z.." ||
		after.LongContext == nil || after.LongContext.Output != mtok(t, "1.8") {
		t.Errorf("gpt-5.6-luna periods: %d %q / %d %q %+v", before.Base.Input, p1, after.Base.Input, p2, after.LongContext)
	}
	g, ok := cat.Lookup("grok-4")
	if !ok || g.Model != "grok-4-0709" || g.LongContext == nil || g.LongContext.ThresholdTokens != 128000 ||
		g.LongContext.Input != mtok(t, "6") || g.LongContext.HasCacheRead {
		t.Errorf("grok-4 alias and tier: %+v %+v", g, g.LongContext)
	}
	pro, _ := cat.Lookup("gpt-5.4-pro")
	if pro.Base.HasCacheRead {
		t.Error("gpt-5.4-pro publishes no cache-read rate")
	}
	ds, _ := cat.Lookup("deepseek-v4-flash")
	peak, id := ds.At(time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC))
	off, _ := ds.At(time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC))
	if peak.Base.Output != 2*off.Base.Output || id != "..@01:00-04:00" {
		t.Errorf("deepseek windows: peak %d (%s), off-peak %d", peak.Base.Output, id, off.Base.Output)
	}
}

func TestParseGenAIRefusals(t *testing.T) {
	if _, _, err := ParseGenAI([]byte(`{"not": "an array"}`)); err == nil {
		t.Error("an object is not a genai-prices file")
	}
	entries, skipped, err := ParseGenAI([]byte(`[{"id": "openai", "models": [
	  {"id": "a", "prices": {"input_mtok": -1, "output_mtok": 1}},
	  {"id": "b", "prices": {"input_mtok": {"base": 1, "tiers": [{"start": 1000, "price": 2}, {"start": 2000, "price": 3}]}, "output_mtok": 1}},
	  {"id": "c", "prices": {"input_mtok": 1, "output_mtok": 2, "requests_kcount": 5}},
	  {"id": "d", "prices": {}},
	  {"id": "e", "prices": [{"prices": {"input_mtok": 1, "output_mtok": 2}}, {"constraint": {"start_time": "25:00", "end_time": "02:00"}, "prices": {"input_mtok": 1, "output_mtok": 2}}]},
	  {"id": "ok", "prices": {"input_mtok": 1, "output_mtok": 2}}]}]`))
	if err != nil || len(entries) != 1 || entries[0].Model != "ok" || len(skipped) != 5 {
		t.Errorf("entries %+v skipped %+v err %v", entries, skipped, err)
	}
}

func TestPeriodActive(t *testing.T) {
	day := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, time.UTC) } // 23 Nov 2026 is a Monday
	wrap := Period{HasWindow: true, DayStart: 16*60 + 30, DayEnd: 30}
	peak := Period{HasWindow: true, DayStart: 60, DayEnd: 240, WeekdaysOnly: true,
		From: day(1, 0, 0), Until: day(30, 0, 0)}
	tests := []struct {
		p    Period
		ts   time.Time
		want bool
	}{
		{wrap, day(23, 16, 30), true}, {wrap, day(23, 0, 29), true}, {wrap, day(23, 0, 30), false},
		{peak, day(23, 1, 0), true}, {peak, day(23, 3, 59), true}, {peak, day(23, 4, 0), false},
		{peak, day(22, 2, 0), false}, // Sunday
		{peak, day(30, 2, 0), false}, // until is exclusive
	}
	for i, tt := range tests {
		if got := tt.p.Active(tt.ts); got != tt.want {
			t.Errorf("%d: Active(%s) = %v", i, tt.ts, got)
		}
	}
}

func TestReconcile(t *testing.T) {
	litellm, _, err := ParseLiteLLM([]byte(`{
	  "gpt-5": {"input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 1.25e-07, "litellm_provider": "openai", "mode": "chat"},
	  "o3": {"input_cost_per_token": 2e-06, "output_cost_per_token": 8e-06, "litellm_provider": "openai", "mode": "chat"},
	  "gpt-4.1": {"input_cost_per_token": 3e-06, "output_cost_per_token": 8e-06, "litellm_provider": "openai", "mode": "chat"}}`))
	if err != nil {
		t.Fatal(err)
	}
	genai := loadGenAIFixture(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	merged, dis := Reconcile([]SourceEntries{{"litellm", litellm}, {"genai-prices", genai}}, Builtin(), now, DefaultTolerancePPM)
	cat := NewCatalogue(merged, "sync")
	// gpt-4.1: input $3 vs $2 → disputed, keeps the built-in price.
	if e, _ := cat.Lookup("gpt-4.1"); e.Base.Input != mtok(t, "2") || e.Source != "builtin" {
		t.Errorf("disputed gpt-4.1 must keep its current price: %+v", e)
	}
	found := false
	for _, d := range dis {
		if d.Model == "gpt-4.1" && d.Field == "input" && d.Values["litellm"] == mtok(t, "3") && d.Values["genai-prices"] == mtok(t, "2") {
			found = true
		}
		if d.Model == "gpt-5" {
			t.Errorf("gpt-5 agrees: %+v", d)
		}
	}
	if !found {
		t.Errorf("gpt-4.1 input disagreement not listed: %+v", dis)
	}
	// o3 agrees now (and LiteLLM publishes no cache-read while genai does:
	// 0.5 vs the 2 input fallback is a disagreement on cache_read).
	if e, ok := cat.Lookup("o3"); !ok || e.Source != "builtin" {
		t.Errorf("o3 cache_read differs between the sources, so it keeps its price: %+v", e)
	}
	// Models only the second source prices are added with their periods.
	if e, ok := cat.Lookup("deepseek-flash"); !ok || e.Source != FormatGenAI || len(e.Periods) != 2 {
		t.Errorf("deepseek-flash from genai-prices: %+v", e)
	}
	// Within tolerance: 0.4% apart agrees, 0.6% does not.
	if !withinTolerance(1_000_000, 1_004_000, DefaultTolerancePPM) || withinTolerance(1_000_000, 1_006_000, DefaultTolerancePPM) {
		t.Error("tolerance bounds")
	}
}

// TestCompareEntriesAtEachThreshold: two sources whose tiers double the same
// rates at different thresholds bill a prompt between them differently, so
// they disagree; equal tiers agree; a tier against none disagrees above it.
func TestCompareEntriesAtEachThreshold(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	base, _ := rowRates("2", "6", "0.3", "", "")
	double, _ := rowRates("4", "12", "0.6", "", "")
	entry := func(threshold int64) Entry {
		e := Entry{Model: "grok-4.5", Base: base}
		if threshold > 0 {
			e.LongContext = &Tier{ThresholdTokens: threshold, Rates: double}
		}
		return e
	}
	tests := []struct {
		name   string
		a, b   int64 // thresholds, 0 = no tier
		fields []string
	}{
		{"same threshold", 200_000, 200_000, nil},
		{"from 200,000 against above 200,000", 199_999, 200_000,
			[]string{"long_context.input", "long_context.output", "long_context.cache_read", "long_context.cache_write"}},
		{"128k against 200k", 128_000, 200_000,
			[]string{"long_context.input", "long_context.output", "long_context.cache_read", "long_context.cache_write"}},
		{"tier against none", 200_000, 0,
			[]string{"long_context.input", "long_context.output", "long_context.cache_read", "long_context.cache_write"}},
	}
	for _, tc := range tests {
		var got []string
		for _, d := range compareEntries(entry(tc.a), entry(tc.b), "a", "b", now, DefaultTolerancePPM) {
			got = append(got, d.Field)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.fields) {
			t.Errorf("%s: disagreements %v, want %v", tc.name, got, tc.fields)
		}
	}
}

// TestReconcileKeepsDatedReleasesApart: a dated release one source prices
// (gpt-3.5-turbo-0613 at $1.50/$2) is not the other source's undated model
// (gpt-3.5-turbo at $0.50/$1.50) priced differently: no disagreement, and
// each name keeps its own price.
func TestReconcileKeepsDatedReleasesApart(t *testing.T) {
	litellm, _, err := ParseLiteLLM([]byte(`{"gpt-3.5-turbo": {"input_cost_per_token": 5e-07, "output_cost_per_token": 1.5e-06, "litellm_provider": "openai", "mode": "chat"}}`))
	if err != nil {
		t.Fatal(err)
	}
	genai, _, err := ParseGenAI([]byte(`[{"id": "openai", "models": [
	  {"id": "gpt-3.5-turbo-0613", "match": {"equals": "gpt-3.5-turbo-0613"}, "prices": {"input_mtok": 1.5, "output_mtok": 2}}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	merged, dis := Reconcile([]SourceEntries{{"litellm", litellm}, {"genai-prices", genai}}, Builtin(), now, DefaultTolerancePPM)
	if len(dis) != 0 {
		t.Errorf("no disagreement expected: %+v", dis)
	}
	cat := NewCatalogue(merged, "sync")
	if e, _ := cat.Lookup("gpt-3.5-turbo"); e.Base.Input != mtok(t, "0.5") || e.Source != FormatLiteLLM {
		t.Errorf("gpt-3.5-turbo: %+v", e)
	}
	if e, _ := cat.Lookup("gpt-3.5-turbo-0613"); e.Model != "gpt-3.5-turbo-0613" || e.Base.Input != mtok(t, "1.5") {
		t.Errorf("gpt-3.5-turbo-0613: %+v", e)
	}
}
