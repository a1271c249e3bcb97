package otlpconv

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/llmcost/llmcost/internal/pricing"
)

// decimalRE admits plain non-negative decimals with an optional short
// exponent (JS String() writes "1.2e-7"). The exponent is capped so that a
// hostile "1e999999999" cannot make big.Rat allocate a huge number.
var decimalRE = regexp.MustCompile(`^\+?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?$`)

var (
	nanoPerUnit = big.NewRat(1_000_000_000, 1)
	half        = big.NewRat(1, 2)
)

// cost reads a client-sent USD amount as nano-USD. ok is false when the
// value is absent, unparseable or negative: the caller then drops the cost
// and keeps the event (§7). A well-formed amount above the per-call bound
// (pricing.MaxCallCostNano) is err: the record is rejected, since storing
// it would poison the project's sums and dropping it would bill the call
// at the catalogue's price without saying so.
func (a attrs) cost(key string) (nano int64, ok bool, err error) {
	v, present := a.get(key)
	if !present {
		return 0, false, nil
	}
	var s string
	switch v.Type() {
	case pcommon.ValueTypeStr:
		s = strings.TrimSpace(v.Str())
	case pcommon.ValueTypeInt:
		s = strconv.FormatInt(v.Int(), 10)
	case pcommon.ValueTypeDouble:
		// The shortest round-trip form is the decimal the producer meant.
		s = strconv.FormatFloat(v.Double(), 'g', -1, 64)
	default:
		return 0, false, nil
	}
	nano, ok = decimalToNano(s)
	if (ok && pricing.CheckCost(nano) != nil) || (!ok && decimalRE.MatchString(s)) {
		// decimalRE admits no sign: a well-formed amount fails only by size.
		return 0, false, fmt.Errorf("cost above llmcost's bound of %s USD per call (%s=%.32s)",
			pricing.FormatUSD(pricing.MaxCallCostNano), key, s)
	}
	return nano, ok, nil
}

// decimalToNano converts a decimal string to nano-units exactly, rounding
// half up, so "0.02474985" is 24749850 with no float error.
func decimalToNano(s string) (int64, bool) {
	if !decimalRE.MatchString(s) {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, false
	}
	r.Mul(r, nanoPerUnit)
	r.Add(r, half)
	// r is non-negative, so truncating division is floor.
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if !q.IsInt64() {
		return 0, false
	}
	return q.Int64(), true
}
