package wire

import (
	"fmt"
	"strings"

	"github.com/llmcost/llmcost/internal/pricing"
)

// Money is an amount in nano-USD (10⁻⁹ USD), the unit the store sums in.
// On the wire it is a JSON number of USD written exactly from the integer
// (1500000000 → 1.5), so an answer never carries a float's rounding, and a
// client that decodes into Money gets the integer back without parsing a
// string into a float.
type Money int64

// USD is the amount in dollars as a float, for drawing and display only:
// sums and comparisons stay on the integer.
func (m Money) USD() float64 { return float64(m) / 1e9 }

// String is the exact decimal USD text the API writes ("0.02474985").
func (m Money) String() string { return pricing.FormatUSD(int64(m)) }

// MarshalJSON writes the exact decimal USD as a JSON number.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(pricing.FormatUSD(int64(m))), nil }

// UnmarshalJSON reads a JSON number of USD with at most nine decimals. An
// amount may be negative (net cache savings when writes cost more than
// reads saved), which costs themselves never are.
func (m *Money) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" { // as encoding/json leaves a value it cannot set
		return nil
	}
	neg := strings.HasPrefix(s, "-")
	nano, err := pricing.ParseCostNano(strings.TrimPrefix(s, "-"))
	if err != nil {
		return fmt.Errorf("wire: money %s: %w", b, err)
	}
	if neg {
		nano = -nano
	}
	*m = Money(nano)
	return nil
}
