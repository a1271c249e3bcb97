package forecast

import (
	"math"
	"math/bits"
	"slices"
)

// Median is the middle of vs (the mean of the two middle values, rounded
// down, for an even count); 0 for none. vs is not changed.
func Median(vs []int64) int64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	a, b := s[n/2-1], s[n/2]
	return a + (b-a)/2 // no overflow for amounts of one sign
}

// Percentile is the nearest-rank p-th percentile of vs (the smallest value
// at least p percent of the values are at or below); 0 for none.
func Percentile(vs []int64, p int) int64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	rank := (p*len(s) + 99) / 100 // ceil(p/100 × n)
	return s[min(max(rank, 1), len(s))-1]
}

// MulDiv is a × b / c rounded down for a, b ≥ 0 and c > 0, saturating at
// the largest int64: money times a small ratio never overflows on the way.
func MulDiv(a, b, c int64) int64 {
	if a <= 0 || b <= 0 || c <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi >= uint64(c) {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, uint64(c))
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// addSat adds non-negative amounts, saturating at the largest int64: a
// projection of absurd daily amounts stays ordered instead of wrapping.
func addSat(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
