package providers

import (
	"strconv"
	"strings"

	"github.com/llmcost/llmcost/internal/pricing"
)

// amountNano parses a decimal amount exactly into nano-USD: digits below a
// nano-dollar round half-up (the only loss, under half a nano-dollar per
// line), never through a float. centsExp is the power of ten the amount
// is written in: 0 for dollars, -2 for Anthropic's cents. A leading minus
// (a credit line) is kept.
func amountNano(s string, centsExp string) (int64, error) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if centsExp != "" {
		if strings.ContainsAny(s, "eE") {
			// Fold the shift into the exponent the amount already has.
			mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
			s = mant + "e" + addExp(exp, centsExp)
		} else {
			s += "e" + centsExp
		}
	}
	v, err := pricing.ParseCostNano(s)
	if neg {
		v = -v
	}
	return v, err
}

// addExp adds two decimal exponents written as text; an unreadable one
// is left for the parser to refuse.
func addExp(a, b string) string {
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return a + "?"
	}
	return strconv.Itoa(x + y)
}
