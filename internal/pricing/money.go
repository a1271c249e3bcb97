// Package pricing prices LLM calls exactly from a model catalogue.
//
// Money never passes through floating point. Rates are int64 atto-USD per
// token (1 USD = 1e18 atto), parsed from the decimal text the provider or the
// LiteLLM file publishes; costs are computed with 128-bit intermediates and
// returned as int64 nano-USD (1 USD = 1e9 nano), rounded half-up.
package pricing

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Scales of the two integer money units.
const (
	AttoPerUSD  = 1_000_000_000_000_000_000 // rates: atto-USD per token
	NanoPerUSD  = 1_000_000_000             // costs: nano-USD
	AttoPerNano = AttoPerUSD / NanoPerUSD
)

// MaxRateAtto is the sanity bound on a per-token rate: $1 per token.
const MaxRateAtto = AttoPerUSD

// Errors returned by the parsers; wrap-checked with errors.Is.
var (
	ErrSyntax   = errors.New("not a decimal number")
	ErrNegative = errors.New("negative amount")
	ErrRange    = errors.New("amount out of range")
	ErrInexact  = errors.New("more precise than 1e-18 USD")
)

// ParseUSD parses a non-negative decimal USD amount ("0.000003", "3.75e-06",
// "1.5E-05", ".5") into atto-USD exactly. It rejects signs other than '+',
// NaN and Inf spellings, values above math.MaxInt64 atto (~$9.22) and values
// with precision finer than one atto rather than rounding them.
func ParseUSD(s string) (int64, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return 0, err
	}
	v, err := d.scaled(18, false)
	if err != nil {
		return 0, fmt.Errorf("pricing: parse %q: %w", s, err)
	}
	return v, nil
}

// ParseRate parses a per-token USD rate like ParseUSD and also enforces the
// sanity bound of at most $1 per token.
func ParseRate(s string) (int64, error) {
	v, err := ParseUSD(s)
	if err != nil {
		return 0, err
	}
	if v > MaxRateAtto {
		return 0, fmt.Errorf("pricing: rate %q: %w (above $1 per token)", s, ErrRange)
	}
	return v, nil
}

// ParseCostNano parses a client-sent cost (decimal USD text, exponent allowed,
// e.g. "1.2e-3") into nano-USD, rounding half-up at the ninth decimal. The
// cost is stored as sent, so sub-nano digits are the only thing lost.
func ParseCostNano(s string) (int64, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return 0, err
	}
	v, err := d.scaled(9, true)
	if err != nil {
		return 0, fmt.Errorf("pricing: parse cost %q: %w", s, err)
	}
	return v, nil
}

// FormatUSD renders nano-USD as JSON-number text in USD with no trailing
// zeros: 24749850 → "0.02474985", 1500000000 → "1.5", 0 → "0".
func FormatUSD(nano int64) string { return formatScaled(nano, 9) }

// FormatRatePer1K renders a per-token rate in atto-USD as USD per 1000
// tokens, exactly: 3e12 atto/token ($3/MTok) → "0.003". The API shows per-1k
// rates; shifting the decimal point avoids overflowing int64.
func FormatRatePer1K(atto int64) string { return formatScaled(atto, 15) }

// FormatRatePerMillion renders a per-token rate in atto-USD as USD per
// million tokens: 3e12 → "3".
func FormatRatePerMillion(atto int64) string { return formatScaled(atto, 12) }

// formatScaled prints v / 10^scale as a plain decimal without exponent.
func formatScaled(v int64, scale int) string {
	neg := v < 0
	var u uint64
	if neg {
		u = uint64(-(v + 1)) + 1 // safe for MinInt64
	} else {
		u = uint64(v)
	}
	digits := fmt.Sprintf("%0*d", scale+1, u)
	intPart, frac := digits[:len(digits)-scale], strings.TrimRight(digits[len(digits)-scale:], "0")
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out
}

// decimal is digits × 10^exp with digits free of leading and trailing zeros
// (empty digits means zero).
type decimal struct {
	digits string
	exp    int
}

// parseDecimal accepts [+]digits[.digits][(e|E)[+|-]digits], surrounding
// spaces trimmed. Anything else (including "-", "NaN", "Inf", hex) is refused.
func parseDecimal(s string) (decimal, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "-") {
		return decimal{}, fmt.Errorf("pricing: parse %q: %w", s, ErrNegative)
	}
	t = strings.TrimPrefix(t, "+")
	mant, expText, hasExp := strings.Cut(strings.ToLower(t), "e")
	intText, fracText, _ := strings.Cut(mant, ".")
	if intText+fracText == "" || !allDigits(intText) || !allDigits(fracText) {
		return decimal{}, fmt.Errorf("pricing: parse %q: %w", s, ErrSyntax)
	}
	exp := 0
	if hasExp {
		e, err := parseExponent(expText)
		if err != nil {
			return decimal{}, fmt.Errorf("pricing: parse %q: %w", s, err)
		}
		exp = e
	}
	digits := strings.TrimLeft(intText+fracText, "0")
	exp -= len(fracText)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	if trimmed == "" {
		exp = 0
	}
	return decimal{digits: trimmed, exp: exp}, nil
}

// parseExponent reads a signed exponent, saturating far beyond any value that
// can matter (an int64 holds at most 19 digits) so huge exponents cannot wrap.
func parseExponent(s string) (int, error) {
	neg := strings.HasPrefix(s, "-")
	if neg || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	if len(s) == 0 || !allDigits(s) {
		return 0, ErrSyntax
	}
	e := 0
	for _, c := range s {
		if e < 1_000_000 {
			e = e*10 + int(c-'0')
		}
	}
	if neg {
		e = -e
	}
	return e, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// scaled returns the value × 10^scale as an int64. Digits that fall below the
// unit are an error unless round is set, in which case they round half-up.
func (d decimal) scaled(scale int, round bool) (int64, error) {
	if d.digits == "" {
		return 0, nil
	}
	shift := d.exp + scale
	keep := d.digits
	roundUp := false
	if shift < 0 {
		drop := -shift
		if !round {
			return 0, ErrInexact // digits has no trailing zeros: dropping any is lossy
		}
		if drop > len(keep) {
			return 0, nil // first dropped digit is an implicit 0
		}
		roundUp = keep[len(keep)-drop] >= '5'
		keep, shift = keep[:len(keep)-drop], 0
	}
	if len(keep)+shift > 19 {
		return 0, ErrRange
	}
	var v uint64
	for i := 0; i < len(keep); i++ {
		v = v*10 + uint64(keep[i]-'0')
	}
	for ; shift > 0; shift-- {
		v *= 10
	}
	if roundUp {
		v++
	}
	if v > math.MaxInt64 {
		return 0, ErrRange
	}
	return int64(v), nil
}

// perMillion parses a USD-per-million-tokens literal into atto per token,
// exactly (the built-in table is written per million tokens).
func perMillion(s string) (int64, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return 0, err
	}
	d.exp -= 6
	if d.digits == "" {
		d.exp = 0
	}
	v, err := d.scaled(18, false)
	if err != nil {
		return 0, fmt.Errorf("pricing: per-million rate %q: %w", s, err)
	}
	if v > MaxRateAtto {
		return 0, fmt.Errorf("pricing: per-million rate %q: %w", s, ErrRange)
	}
	return v, nil
}

// roundedAtto parses decimal USD into atto rounding half-up below one atto.
func roundedAtto(s string) (int64, error) {
	d, err := parseDecimal(s)
	if err != nil {
		return 0, err
	}
	return d.scaled(18, true)
}
