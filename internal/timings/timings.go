// Package timings summarises measured durations for the benchmarks and
// timing tests: a median, a percentile, and the overhead of one kind of
// request over another measured in pairs.
package timings

import (
	"cmp"
	"slices"
	"time"
)

// Percentile is the nearest-rank p-th percentile (1–100) of sorted, which
// must be sorted and not empty: the smallest value with at least p % of
// the values at or below it.
func Percentile[T cmp.Ordered](sorted []T, p int) T {
	return sorted[max((len(sorted)*p+99)/100-1, 0)]
}

// Median is the upper median of ds (the element at len/2 once sorted);
// ds is left as it is. It panics on an empty slice.
func Median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// Overhead is what one kind of request costs over a plain one, from
// requests measured in pairs (each sent beside a plain one), so that the
// machine's drift, other work on its cores, cancels out of each
// difference.
type Overhead struct {
	// Plain and Other are the medians of each side.
	Plain, Other time.Duration
	// Diff is the median of the paired differences (other − plain).
	Diff time.Duration
	// Percent is Diff over the median plain request, in percent.
	Percent float64
}

// Paired measures the overhead from plain[i] and other[i], measured side
// by side; the slices have the same length, at least one.
func Paired(plain, other []time.Duration) Overhead {
	diffs := make([]time.Duration, len(other))
	for i := range other {
		diffs[i] = other[i] - plain[i]
	}
	o := Overhead{Plain: Median(plain), Other: Median(other), Diff: Median(diffs)}
	o.Percent = 100 * float64(o.Diff) / float64(o.Plain)
	return o
}

// Metrics takes benchmark metrics, as *testing.B does.
type Metrics interface {
	ReportMetric(n float64, unit string)
}

// Report gives m the overhead's three metrics: each side's median in µs
// per batch ("µs/batch-plain", "µs/batch-" + other) and the overhead in
// percent ("%overhead").
func (o Overhead) Report(m Metrics, other string) {
	m.ReportMetric(float64(o.Plain.Microseconds()), "µs/batch-plain")
	m.ReportMetric(float64(o.Other.Microseconds()), "µs/batch-"+other)
	m.ReportMetric(o.Percent, "%overhead")
}
