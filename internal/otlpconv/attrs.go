package otlpconv

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/llmcost/llmcost/internal/pricing"
)

// maxCount bounds a token count: llmcost's per-call bound (docs/api.md,
// "Bounds"), far above any real call, which keeps pricing exact and a
// project's sums within int64. maxLatency bounds latency the same way.
const (
	maxCount   = pricing.MaxCallTokens
	maxLatency = 1_000_000_000
)

// Validation failures of a token count (§7). Each rejects the record.
var (
	errNonNumeric = errors.New("non-numeric token count")
	errNonInteger = errors.New("non-integer token count")
	errNegative   = errors.New("negative token count")
	errTooLarge   = fmt.Errorf("token count above llmcost's bound of %d per call", maxCount)
	errNoModel    = errors.New("missing or empty model")
)

// attrs looks an attribute up on the log record first and on its resource
// second: the record wins, as the producer's per-event value is more specific.
type attrs struct{ rec, res pcommon.Map }

// get returns the first non-empty value stored under key.
func (a attrs) get(key string) (pcommon.Value, bool) {
	if v, ok := a.rec.Get(key); ok && v.Type() != pcommon.ValueTypeEmpty {
		return v, true
	}
	if v, ok := a.res.Get(key); ok && v.Type() != pcommon.ValueTypeEmpty {
		return v, true
	}
	return pcommon.NewValueEmpty(), false
}

// has reports whether any of keys is present.
func (a attrs) has(keys ...string) bool {
	for _, k := range keys {
		if _, ok := a.get(k); ok {
			return true
		}
	}
	return false
}

// str renders a scalar attribute as text. Maps, slices and bytes yield ""
// so that no structured payload (prompts, tool arguments) is ever copied.
func (a attrs) str(key string) string {
	v, ok := a.get(key)
	if !ok {
		return ""
	}
	switch v.Type() {
	case pcommon.ValueTypeStr, pcommon.ValueTypeInt, pcommon.ValueTypeDouble, pcommon.ValueTypeBool:
		return v.AsString()
	}
	return ""
}

// first returns the first non-empty str among keys.
func (a attrs) first(keys ...string) string {
	for _, k := range keys {
		if s := a.str(k); s != "" {
			return s
		}
	}
	return ""
}

// optInt leniently reads an informational integer (latency, status code):
// anything unusable, such as Claude's "undefined" status, becomes nil
// instead of rejecting the record.
func (a attrs) optInt(keys ...string) *int64 {
	for _, k := range keys {
		v, ok := a.get(k)
		if !ok {
			continue
		}
		n, err := intValue(v)
		if err == errNonInteger {
			n, err = int64(math.Round(floatOf(v))), nil
		}
		if err != nil || n < 0 || n > maxLatency {
			return nil // informational: an absurd value is unknown, not a rejection
		}
		return &n
	}
	return nil
}

// floatOf returns the numeric value of a Str or Double known to parse.
func floatOf(v pcommon.Value) float64 {
	if v.Type() == pcommon.ValueTypeDouble {
		return v.Double()
	}
	f, _ := strconv.ParseFloat(strings.TrimSpace(v.Str()), 64)
	return f
}

// intValue reads an integer from any encoding producers use: a decimal
// string (Claude Code, Codex), an int (JS number or Rust/Collector string,
// both decoded by pdata) or an integral double.
func intValue(v pcommon.Value) (int64, error) {
	switch v.Type() {
	case pcommon.ValueTypeInt:
		return v.Int(), nil
	case pcommon.ValueTypeDouble:
		return floatToInt(v.Double())
	case pcommon.ValueTypeStr:
		s := strings.TrimSpace(v.Str())
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, errNonNumeric
		}
		return floatToInt(f)
	}
	return 0, errNonNumeric
}

// floatToInt accepts only integral, finite doubles such as 1200.0.
func floatToInt(f float64) (int64, error) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return 0, errNonNumeric
	case f != math.Trunc(f):
		return 0, errNonInteger
	case math.Abs(f) > float64(maxCount):
		return 0, errTooLarge
	}
	return int64(f), nil
}

// counter reads token counts and keeps the first validation failure, so a
// mapper reads every field in straight-line code and checks once.
type counter struct {
	a   attrs
	err error
}

// get returns the count under key, 0 when absent or on failure.
func (c *counter) get(key string) int64 {
	v, ok := c.a.get(key)
	if !ok || (v.Type() == pcommon.ValueTypeStr && strings.TrimSpace(v.Str()) == "") {
		return 0
	}
	n, err := intValue(v)
	switch {
	case err != nil:
	case n < 0:
		err = errNegative
	case n > maxCount:
		err = errTooLarge
	}
	if err != nil {
		c.fail(err, key, v)
		return 0
	}
	return n
}

// first returns the count under the first present key (a name and its
// deprecated aliases).
func (c *counter) first(keys ...string) int64 {
	for _, k := range keys {
		if c.a.has(k) {
			return c.get(k)
		}
	}
	return 0
}

// fail records the first failure with the offending key and raw value.
func (c *counter) fail(err error, key string, v pcommon.Value) {
	if c.err != nil {
		return
	}
	raw := v.AsString()
	if len(raw) > 32 {
		raw = raw[:32] + "…"
	}
	if v.Type() == pcommon.ValueTypeStr {
		raw = strconv.Quote(raw)
	}
	c.err = fmt.Errorf("%w (%s=%s)", err, key, raw)
}
