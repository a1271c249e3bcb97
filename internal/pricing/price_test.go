package pricing

import (
	"math"
	"testing"
	"time"
)

func builtinEntry(t testing.TB, model string) Entry {
	t.Helper()
	e, ok := Builtin().Lookup(model)
	if !ok {
		t.Fatalf("builtin catalogue has no %q", model)
	}
	e, _ = e.At(fixtureDate) // the rates these golden figures were checked at
	return e
}

// Golden costs, worked by hand in USD per million tokens (MTok); 1 USD =
// 1e9 nano. Every part below is exact, so each nano figure is the USD
// amount × 1e9.
func TestPriceGolden(t *testing.T) {
	tests := []struct {
		name  string
		model string
		at    time.Time // zero: fixtureDate
		u     Usage
		want  Breakdown // Rates not compared
	}{
		{
			// 1000×$3 + 500×$15 per MTok = $0.003 + $0.0075 = $0.0105.
			name: "sonnet 4.5 plain", model: "claude-sonnet-4-5",
			u:    Usage{Input: 1000, Output: 500},
			want: Breakdown{Input: 3_000_000, Output: 7_500_000, Total: 10_500_000},
		},
		{
			// uncached 100000−60000−20000−10000 = 10000 × $3 = $0.03;
			// cached 60000 × $0.30 = $0.018; 5m 20000 × $3.75 = $0.075;
			// 1h 10000 × $6 = $0.06 (writes $0.135); output 2000 × $15 = $0.03.
			// Total $0.213.
			name: "sonnet 4.5 cached read + 5m + 1h writes", model: "claude-sonnet-4-5",
			u:    Usage{Input: 100_000, Cached: 60_000, CacheWrite: 20_000, CacheWrite1h: 10_000, Output: 2_000},
			want: Breakdown{Input: 30_000_000, CacheRead: 18_000_000, CacheWrite: 135_000_000, Output: 30_000_000, Total: 213_000_000},
		},
		{
			// Above 200k the WHOLE call moves to the tier: uncached 40000 × $6 =
			// $0.24; cached 200000 × $0.60 = $0.12; 5m 10000 × $7.50 = $0.075;
			// output 1000 × $22.50 = $0.0225. Total $0.4575.
			name: "sonnet 4.5 above 200k", model: "claude-sonnet-4-5",
			u:    Usage{Input: 250_000, Cached: 200_000, CacheWrite: 10_000, Output: 1_000},
			want: Breakdown{Input: 240_000_000, CacheRead: 120_000_000, CacheWrite: 75_000_000, Output: 22_500_000, Total: 457_500_000, LongContext: true},
		},
		{
			// Tier 1h write: uncached 200000 × $6 = $1.2; 1h 100000 × $12 = $1.2.
			name: "sonnet 4.5 above 200k 1h write", model: "claude-sonnet-4-5",
			u:    Usage{Input: 300_000, CacheWrite1h: 100_000},
			want: Breakdown{Input: 1_200_000_000, CacheWrite: 1_200_000_000, Total: 2_400_000_000, LongContext: true},
		},
		{
			// Claude Code worked example (fixtures/otlp/README.md): 6 × $3 +
			// 18452 × $0.30 + 1287 × $3.75 + 958 × $15 per MTok =
			// $0.000018 + $0.0055356 + $0.00482625 + $0.01437 = $0.02474985.
			name: "claude code worked example", model: "claude-sonnet-4-5-20250929",
			u:    Usage{Input: 19_745, Cached: 18_452, CacheWrite: 1_287, Output: 958},
			want: Breakdown{Input: 18_000, CacheRead: 5_535_600, CacheWrite: 4_826_250, Output: 14_370_000, Total: 24_749_850},
		},
		{
			// gpt-5, Codex numbers: input 14210 with 12800 cached, output 644 of
			// which 384 reasoning (inside output, never added again).
			// 1410 × $1.25 = $0.0017625; 12800 × $0.125 = $0.0016;
			// 644 × $10 = $0.00644. Total $0.0098025.
			name: "gpt-5 cached, reasoning inside output", model: "gpt-5",
			u:    Usage{Input: 14_210, Cached: 12_800, Output: 644},
			want: Breakdown{Input: 1_762_500, CacheRead: 1_600_000, Output: 6_440_000, Total: 9_802_500},
		},
		{
			// gpt-4.1: 5200 × $2 = $0.0104; 10000 × $0.50 = $0.005;
			// 240 × $8 = $0.00192. Total $0.01732.
			name: "gpt-4.1 cached", model: "gpt-4.1",
			u:    Usage{Input: 15_200, Cached: 10_000, Output: 240},
			want: Breakdown{Input: 10_400_000, CacheRead: 5_000_000, Output: 1_920_000, Total: 17_320_000},
		},
		{
			// gpt-5.4 above 272k: 200000 × $5 = $1; 100000 × $0.50 = $0.05;
			// 1000 × $22.50 = $0.0225. Total $1.0725.
			name: "gpt-5.4 above 272k", model: "gpt-5.4",
			u:    Usage{Input: 300_000, Cached: 100_000, Output: 1_000},
			want: Breakdown{Input: 1_000_000_000, CacheRead: 50_000_000, Output: 22_500_000, Total: 1_072_500_000, LongContext: true},
		},
		{
			// Gemini 2.5 Pro above 200k: 50000 × $2.50 = $0.125;
			// 250000 × $0.25 = $0.0625; 5000 × $15 = $0.075. Total $0.2625.
			name: "gemini 2.5 pro above 200k cached", model: "gemini-2.5-pro",
			u:    Usage{Input: 300_000, Cached: 250_000, Output: 5_000},
			want: Breakdown{Input: 125_000_000, CacheRead: 62_500_000, Output: 75_000_000, Total: 262_500_000, LongContext: true},
		},
		{
			// Gemini CLI fixture call below 200k: 4941 × $1.25 = $0.00617625;
			// 19870 × $0.125 = $0.00248375; 2015 × $10 = $0.02015. Total $0.02881.
			name: "gemini 2.5 pro below 200k cached", model: "gemini-2.5-pro",
			u:    Usage{Input: 24_811, Cached: 19_870, Output: 2_015},
			want: Breakdown{Input: 6_176_250, CacheRead: 2_483_750, Output: 20_150_000, Total: 28_810_000},
		},
		{
			// Tier without a cache-read rate falls back to the base one:
			// grok-4 above 128k before its retirement: 100000 × $6 = $0.6;
			// 100000 × $0.75 (base) = $0.075; 1000 × $30 = $0.03. Total $0.705.
			name: "tier falls back to base cache read", model: "grok-4-0709", at: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
			u:    Usage{Input: 200_000, Cached: 100_000, Output: 1_000},
			want: Breakdown{Input: 600_000_000, CacheRead: 75_000_000, Output: 30_000_000, Total: 705_000_000, LongContext: true},
		},
		{
			// No cache rates at all: every prompt token at $5.
			// 2000 + 8000 cached = 10000 × $5 = $0.05; 100 × $15 = $0.0015.
			name: "no cache rates: cached at input rate", model: "gpt-4o-2024-05-13",
			u:    Usage{Input: 10_000, Cached: 8_000, Output: 100},
			want: Breakdown{Input: 10_000_000, CacheRead: 40_000_000, Output: 1_500_000, Total: 51_500_000},
		},
		{
			// Mistral bills cached tokens at 10% of input and publishes no write
			// rate: 4000 × $0.50 + 4000 × $0.05 + 2000 × $0.50 (writes at the
			// input rate) + 1000 × $1.50 = $0.0047.
			name: "no write rate: writes at input rate", model: "mistral-large-2512",
			u:    Usage{Input: 10_000, Cached: 4_000, CacheWrite: 2_000, Output: 1_000},
			want: Breakdown{Input: 2_000_000, CacheRead: 200_000, CacheWrite: 1_000_000, Output: 1_500_000, Total: 4_700_000},
		},
		{
			// Half-up on sub-nano parts: 4 cached × $0.003625/MTok = 14.5 nano → 15.
			name: "half-up rounding", model: "deepseek-v4-pro",
			u:    Usage{Input: 4, Cached: 4},
			want: Breakdown{CacheRead: 15, Total: 15},
		},
		{
			// Sub-nano cache rate: 1 × 2.8 nano → 3, plus 1 × 140 nano; the
			// exact total 142.8 → 143.
			name: "sub-nano rate", model: "deepseek-v4-flash",
			u:    Usage{Input: 2, Cached: 1},
			want: Breakdown{Input: 140, CacheRead: 3, Total: 143},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := builtinEntry(t, tt.model)
			if !tt.at.IsZero() {
				e, _ = Builtin().Lookup(tt.model)
				e, _ = e.At(tt.at)
			}
			got := e.Price(tt.u)
			got.Rates = Rates{}
			if got != tt.want {
				t.Errorf("Price(%+v)\n got %+v\nwant %+v", tt.u, got, tt.want)
			}
			if FormatUSD(got.Total) == "" {
				t.Error("empty format")
			}
		})
	}
}

func TestClaudeCodeExampleFormatsAsSent(t *testing.T) {
	b := builtinEntry(t, "claude-sonnet-4-5").Price(Usage{Input: 19_745, Cached: 18_452, CacheWrite: 1_287, Output: 958})
	if got := FormatUSD(b.Total); got != "0.02474985" {
		t.Fatalf("total = %s, want 0.02474985 (Claude Code's cost_usd)", got)
	}
}

func TestTotalRoundedOnce(t *testing.T) {
	// 0.4 nano input + 0.4 nano output: each part rounds to 0, the exact
	// total 0.8 rounds to 1. Summing rounded parts would lose the call.
	e := Entry{Base: Rates{Input: 4e8, Output: 4e8}}
	if b := e.Price(Usage{Input: 1, Output: 1}); b.Input != 0 || b.Output != 0 || b.Total != 1 {
		t.Errorf("Price = %+v, want parts 0 and total 1", b)
	}
}

func TestTierBoundary(t *testing.T) {
	e := builtinEntry(t, "claude-sonnet-4-5")
	// Exactly 200000 is not above the threshold: 200000 × $3 = $0.60.
	if b := e.Price(Usage{Input: 200_000}); b.LongContext || b.Total != 600_000_000 {
		t.Errorf("at threshold: %+v, want base rates, total 600000000", b)
	}
	// One more token moves the whole call: 200001 × $6 = $1.200006.
	if b := e.Price(Usage{Input: 200_001}); !b.LongContext || b.Total != 1_200_006_000 {
		t.Errorf("above threshold: %+v, want tier rates, total 1200006000", b)
	}
	// Sonnet 4.6 has no long-context premium: 300000 × $3 = $0.90.
	if b := builtinEntry(t, "claude-sonnet-4-6").Price(Usage{Input: 300_000}); b.LongContext || b.Total != 900_000_000 {
		t.Errorf("sonnet 4.6 at 300k: %+v, want total 900000000 with no tier", b)
	}
}

func TestEffectiveRatesFallbacks(t *testing.T) {
	e := Entry{Base: Rates{Input: 100, Output: 200, CacheWrite: 150, HasCacheWrite: true}}
	r, _ := e.EffectiveRates(10)
	if r.CacheRead != 100 || r.CacheWrite != 150 || r.CacheWrite1h != 150 {
		t.Errorf("fallbacks = %+v: want read at input (100), 1h at the 5m write rate (150)", r)
	}
	if r.HasCacheRead || r.HasCacheWrite1h || !r.HasCacheWrite {
		t.Errorf("Has flags must keep what is published: %+v", r)
	}
}

func TestSavings(t *testing.T) {
	tests := []struct {
		name  string
		model string
		u     Usage
		want  Savings
	}{
		// 60000 × ($3 − $0.30) = $0.162; 20000 × $0.75 + 10000 × $3 = $0.045.
		{"sonnet read and writes", "claude-sonnet-4-5",
			Usage{Input: 100_000, Cached: 60_000, CacheWrite: 20_000, CacheWrite1h: 10_000}, Savings{162_000_000, 45_000_000, 117_000_000}},
		// 18452 × $2.70 = $0.0498204; 1287 × $0.75 = $0.00096525.
		{"claude code example", "claude-sonnet-4-5",
			Usage{Input: 19_745, Cached: 18_452, CacheWrite: 1_287, Output: 958}, Savings{49_820_400, 965_250, 48_855_150}},
		// Writes never read: 10000 × $0.75 premium, net loss.
		{"writes only lose money", "claude-sonnet-4-5",
			Usage{Input: 10_000, CacheWrite: 10_000}, Savings{0, 7_500_000, -7_500_000}},
		// 19870 × ($1.25 − $0.125) = $0.02235375.
		{"gemini implicit cache", "gemini-2.5-pro",
			Usage{Input: 24_811, Cached: 19_870}, Savings{22_353_750, 0, 22_353_750}},
		// No published cache rates: no savings and no premium.
		{"no cache rates", "gpt-4o-2024-05-13",
			Usage{Input: 10_000, Cached: 8_000, CacheWrite: 1_000}, Savings{}},
		// Mistral cached input at 10%: 9000 × ($0.50 − $0.05) = $0.00405.
		{"mistral cached at 10%", "mistral-large-2512",
			Usage{Input: 10_000, Cached: 9_000}, Savings{4_050_000, 0, 4_050_000}},
	}
	for _, tt := range tests {
		if got := builtinEntry(t, tt.model).Savings(tt.u); got != tt.want {
			t.Errorf("%s: Savings = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestSavingsRoundsAwayFromZero(t *testing.T) {
	// Input 1 nano/token, write 1.5 nano/token: premium 0.5 nano → 1, net −1.
	e := Entry{Base: Rates{Input: 1e9, Output: 1e9, CacheWrite: 15e8, HasCacheWrite: true}}
	if got := e.Savings(Usage{Input: 1, CacheWrite: 1}); got != (Savings{0, 1, -1}) {
		t.Errorf("Savings = %+v, want {0 1 -1}", got)
	}
}

func TestPriceRobustUsage(t *testing.T) {
	e := builtinEntry(t, "claude-sonnet-4-5")
	// Negative counts are treated as zero.
	if b := e.Price(Usage{Input: -5, Output: -1}); b.Total != 0 {
		t.Errorf("negative usage priced %d, want 0", b.Total)
	}
	// Parts larger than the prompt (invalid; ingest rejects it): uncached is
	// zero, the parts are still charged: 100 × $0.30 = 30000 nano.
	if b := e.Price(Usage{Input: 10, Cached: 100}); b.Input != 0 || b.CacheRead != 30_000 {
		t.Errorf("over-full parts: %+v", b)
	}
}

func TestPriceOverflow(t *testing.T) {
	b := builtinEntry(t, "claude-opus-4-1").Price(Usage{Input: math.MaxInt64, Output: math.MaxInt64})
	if !b.Overflow || b.Total != 0 || b.Check() == nil {
		t.Errorf("absurd usage: %+v, want Overflow, no clamped total and a refusal", b)
	}
	if b := builtinEntry(t, "claude-opus-4-1").Price(Usage{Input: 1_000_000, Output: 128_000}); b.Overflow || b.Total != 24_600_000_000 {
		// 1M × $15 + 128000 × $75 = $15 + $9.60 = $24.60: above $9.22, the
		// int64 atto limit, which is why totals are kept in 128 bits.
		t.Errorf("large call: %+v, want total 24600000000", b)
	}
}

func BenchmarkPrice(b *testing.B) {
	e := builtinEntry(b, "claude-sonnet-4-5")
	u := Usage{Input: 19_745, Cached: 18_452, CacheWrite: 1_287, Output: 958}
	b.ReportAllocs()
	var sink int64
	for b.Loop() {
		sink += e.Price(u).Total
	}
	if sink == 0 {
		b.Fatal("no cost")
	}
}
