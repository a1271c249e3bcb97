// Package analytics holds the parameters and pure calculations of the spend
// reports: ranges and windows, the decomposition of a window into raw and
// rollup segments, time-series buckets with zero-fill, and the rounding of
// rates and averages. No I/O.
package analytics

import (
	"strconv"
	"strings"
	"time"

	"github.com/llmcost/llmcost/internal/apierr"
)

// Range is a report's look-back: one of 1h, 24h, 7d, 30d, 90d.
type Range string

// The ranges every report takes (docs/analytics.md "Endpoints").
const (
	Range1h  Range = "1h"
	Range24h Range = "24h"
	Range7d  Range = "7d"
	Range30d Range = "30d"
	Range90d Range = "90d"
)

// DefaultRange applies when the range parameter is absent.
const DefaultRange = Range7d

// AllRanges are accepted by every report but the overview.
var AllRanges = []Range{Range1h, Range24h, Range7d, Range30d, Range90d}

// OverviewRanges are accepted by the overview.
var OverviewRanges = []Range{Range24h, Range7d, Range30d, Range90d}

var durations = map[Range]time.Duration{
	Range1h: time.Hour, Range24h: 24 * time.Hour, Range7d: 7 * 24 * time.Hour,
	Range30d: 30 * 24 * time.Hour, Range90d: 90 * 24 * time.Hour,
}

// Duration is the range's length.
func (r Range) Duration() time.Duration { return durations[r] }

// BucketWidth is the time-series bucket of the range: 5 minutes for 1h,
// an hour for 24h and 7d, a day for 30d and 90d.
func (r Range) BucketWidth() time.Duration {
	switch r {
	case Range1h:
		return 5 * time.Minute
	case Range24h, Range7d:
		return time.Hour
	}
	return 24 * time.Hour
}

// ParseRange reads the range parameter: empty is the default, anything
// outside allowed (case-sensitive: "24H" is refused) is a 422 naming the
// parameter and the allowed values.
func ParseRange(v string, allowed []Range) (Range, error) {
	if v == "" {
		return DefaultRange, nil
	}
	names := make([]string, len(allowed))
	for i, r := range allowed {
		if string(r) == v {
			return r, nil
		}
		names[i] = string(r)
	}
	return "", apierr.Field("range", "must be one of "+strings.Join(names, ", ")).
		WithHint("for example ?range=7d")
}

// Limits of array reports.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// ParseLimit reads the limit parameter: default 100, an integer 1–1000.
func ParseLimit(v string) (int, error) {
	if v == "" {
		return DefaultLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxLimit {
		return 0, apierr.Field("limit", "must be an integer from 1 to 1000")
	}
	return n, nil
}

// Dimensions of /v1/analytics/by/{dimension}.
var Dimensions = []string{"user", "session", "workflow", "tool", "model", "agent", "billing"}

// ValidDimension reports whether d is a dimension of by/{dimension}.
func ValidDimension(d string) bool {
	for _, x := range Dimensions {
		if x == d {
			return true
		}
	}
	return false
}
