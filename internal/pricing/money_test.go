package pricing

import (
	"errors"
	"math"
	"testing"
)

func TestParseUSD(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr error
	}{
		{"3.75e-06", 3_750_000_000_000, nil},             // LiteLLM's Sonnet 5m write rate
		{"0.000003", 3_000_000_000_000, nil},             // same magnitude, plain text
		{"1.5E-05", 15_000_000_000_000, nil},             // upper-case exponent
		{"3e-06", 3_000_000_000_000, nil},                // no fraction digits
		{"2.8e-09", 2_800_000_000, nil},                  // DeepSeek cache read: below a nano-dollar
		{"3.625e-09", 3_625_000_000, nil},                // many significant digits
		{"0.000000000000000001", 1, nil},                 // exactly one atto
		{"1e-18", 1, nil},                                // one atto via exponent
		{"0.10000000000000000000", AttoPerUSD / 10, nil}, // trailing zeros beyond atto are exact
		{"1", AttoPerUSD, nil},                           // one dollar
		{"+0.5", AttoPerUSD / 2, nil},                    // explicit plus
		{".5", AttoPerUSD / 2, nil},                      // no integer digits
		{"5.", 5 * AttoPerUSD, nil},                      // no fraction digits after the point
		{"0", 0, nil},                                    // zero
		{"0.0", 0, nil},                                  // zero with fraction
		{"0e-500", 0, nil},                               // zero with a huge exponent
		{" 0.25 ", AttoPerUSD / 4, nil},                  // surrounding space
		{"9.223372036854775807", math.MaxInt64, nil},     // the int64 limit
		{"9.223372036854775808", 0, ErrRange},            // one atto past it
		{"1e400", 0, ErrRange},                           // JSON-legal but infinite as a float
		{"1e999999999999999999999", 0, ErrRange},         // exponent that would wrap an int
		{"1e-19", 0, ErrInexact},                         // below one atto
		{"0.0002833333333333333", 0, ErrInexact},         // 19 decimals: not exact in atto
		{"-1", 0, ErrNegative},
		{"-0", 0, ErrNegative},
		{"-3e-06", 0, ErrNegative},
		{"NaN", 0, ErrSyntax},
		{"Inf", 0, ErrSyntax},
		{"Infinity", 0, ErrSyntax},
		{"abc", 0, ErrSyntax},
		{"", 0, ErrSyntax},
		{".", 0, ErrSyntax},
		{"1e", 0, ErrSyntax},
		{"e5", 0, ErrSyntax},
		{"1e+-5", 0, ErrSyntax},
		{"0x10", 0, ErrSyntax},
		{"1,5", 0, ErrSyntax},
		{"1.2.3", 0, ErrSyntax},
	}
	for _, tt := range tests {
		got, err := ParseUSD(tt.in)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("ParseUSD(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseUSD(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseRateBound(t *testing.T) {
	if v, err := ParseRate("1"); err != nil || v != MaxRateAtto {
		t.Errorf("ParseRate(1) = %d, %v; $1 per token is the inclusive bound", v, err)
	}
	if _, err := ParseRate("1.000000000000000001"); !errors.Is(err, ErrRange) {
		t.Errorf("ParseRate just above $1: err = %v, want ErrRange", err)
	}
	if _, err := ParseRate("2.5"); !errors.Is(err, ErrRange) {
		t.Errorf("ParseRate(2.5): err = %v, want ErrRange", err)
	}
	if _, err := ParseRate("-1e-6"); !errors.Is(err, ErrNegative) {
		t.Errorf("ParseRate negative: err = %v, want ErrNegative", err)
	}
}

func TestParseCostNano(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr error
	}{
		{"0.02474985", 24_749_850, nil}, // Claude Code's cost_usd of the worked example
		{"1.2e-3", 1_200_000, nil},      // exponent form Claude Code may send
		{"0.075411", 75_411_000, nil},   // another Claude Code call
		{"0.0000000005", 1, nil},        // exactly half a nano rounds up
		{"0.00000000049999", 0, nil},    // below half rounds down
		{"0.0000000015", 2, nil},        // half-up, not half-even
		{"0.0000000000001", 0, nil},     // far below a nano
		{"12", 12 * NanoPerUSD, nil},    // whole dollars
		{"9223372036.854775807", math.MaxInt64, nil},
		{"9223372036.8547758075", 0, ErrRange}, // rounds past the limit
		{"1e10", 0, ErrRange},
		{"-0.1", 0, ErrNegative},
		{"NaN", 0, ErrSyntax},
		{"", 0, ErrSyntax},
	}
	for _, tt := range tests {
		got, err := ParseCostNano(tt.in)
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("ParseCostNano(%q) error = %v, want %v", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseCostNano(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatUSD(t *testing.T) {
	tests := []struct {
		nano int64
		want string
	}{
		{24_749_850, "0.02474985"},
		{0, "0"},
		{1, "0.000000001"},
		{NanoPerUSD, "1"},
		{1_500_000_000, "1.5"},
		{-500, "-0.0000005"},
		{-7_500_000, "-0.0075"},
		{math.MaxInt64, "9223372036.854775807"},
		{math.MinInt64, "-9223372036.854775808"},
	}
	for _, tt := range tests {
		if got := FormatUSD(tt.nano); got != tt.want {
			t.Errorf("FormatUSD(%d) = %q, want %q", tt.nano, got, tt.want)
		}
		if tt.nano >= 0 { // round trip through the client-cost parser
			if back, err := ParseCostNano(FormatUSD(tt.nano)); err != nil || back != tt.nano {
				t.Errorf("ParseCostNano(FormatUSD(%d)) = %d, %v", tt.nano, back, err)
			}
		}
	}
}

func TestFormatRates(t *testing.T) {
	tests := []struct {
		atto           int64
		per1K, perMTok string
	}{
		{3_000_000_000_000, "0.003", "3"},      // Sonnet input
		{3_750_000_000_000, "0.00375", "3.75"}, // Sonnet 5m write
		{2_800_000_000, "0.0000028", "0.0028"}, // DeepSeek v4 flash cache read
		{MaxRateAtto, "1000", "1000000"},       // $1 per token does not overflow
		{0, "0", "0"},
	}
	for _, tt := range tests {
		if got := FormatRatePer1K(tt.atto); got != tt.per1K {
			t.Errorf("FormatRatePer1K(%d) = %q, want %q", tt.atto, got, tt.per1K)
		}
		if got := FormatRatePerMillion(tt.atto); got != tt.perMTok {
			t.Errorf("FormatRatePerMillion(%d) = %q, want %q", tt.atto, got, tt.perMTok)
		}
	}
}

func TestPerMillion(t *testing.T) {
	for in, want := range map[string]int64{
		"3":      3_000_000_000_000,
		"0.0028": 2_800_000_000,
		"22.5":   22_500_000_000_000,
		"600":    600_000_000_000_000,
	} {
		if got, err := perMillion(in); err != nil || got != want {
			t.Errorf("perMillion(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := perMillion("0.0000000000001"); err == nil {
		t.Error("perMillion must refuse a rate finer than one atto per token")
	}
	if _, err := perMillion("1000001"); err == nil {
		t.Error("perMillion must refuse a rate above $1 per token")
	}
}
