package runs

import (
	"math/big"
	"slices"

	"github.com/llmcost/llmcost/internal/analytics"
)

// Bucket is one histogram bucket of per-run costs, bounds in nano-USD
// rounded to the nano-dollar: [Lower, Upper), the tail [Lower, Upper].
type Bucket struct {
	Lower, Upper int64
	Count        int64
	IsTail       bool
}

// Distribution describes per-run costs (nano-USD): continuous percentiles
// (PostgreSQL percentile_cont), the tail (runs ≥ p95) and a histogram.
type Distribution struct {
	Runs               int64
	P50, P95, P99, Max int64 // rounded half away from zero to the nano-dollar
	TailRuns           int64
	TailCostNano       int64
	TotalCostNano      int64
	Histogram          []Bucket
	p50exact, p99exact *big.Rat
}

// TailRatio is p99 ÷ p50 (exact percentiles), nil when p50 is 0.
func (d Distribution) TailRatio() *big.Rat {
	if d.p50exact == nil || d.p50exact.Sign() == 0 {
		return nil
	}
	return new(big.Rat).Quo(d.p99exact, d.p50exact)
}

// Percentile is percentile_cont(pct/100) over sorted values, exactly.
func Percentile(sorted []int64, pct int64) *big.Rat {
	n := int64(len(sorted))
	if n == 0 {
		return new(big.Rat)
	}
	pos := pct * (n - 1) // position × 100
	lo, frac := pos/100, pos%100
	v := new(big.Rat).SetInt64(sorted[lo])
	if frac == 0 || lo+1 >= n {
		return v
	}
	step := new(big.Rat).SetFrac64(frac, 100)
	step.Mul(step, new(big.Rat).SetInt64(sorted[lo+1]-sorted[lo]))
	return v.Add(v, step)
}

// RoundNano rounds r half away from zero to an integer (nano-USD), with
// the reports' one rounding.
func RoundNano(r *big.Rat) int64 { return analytics.RoundHalfAway(r).Int64() }

// Distribute computes the distribution of costs with buckets buckets: the
// first buckets−1 split [min, p95) evenly, the last is [p95, max], the tail.
func Distribute(costs []int64, buckets int) Distribution {
	sorted := slices.Clone(costs)
	slices.Sort(sorted)
	d := Distribution{Runs: int64(len(sorted))}
	if len(sorted) == 0 {
		return d
	}
	p95 := Percentile(sorted, 95)
	d.p50exact, d.p99exact = Percentile(sorted, 50), Percentile(sorted, 99)
	d.P50, d.P95, d.P99, d.Max = RoundNano(d.p50exact), RoundNano(p95), RoundNano(d.p99exact), sorted[len(sorted)-1]
	lo := sorted[0]
	width := new(big.Rat).Sub(p95, new(big.Rat).SetInt64(lo))
	width.Quo(width, new(big.Rat).SetInt64(int64(buckets-1)))
	d.Histogram = make([]Bucket, buckets)
	for i := range buckets - 1 {
		d.Histogram[i].Lower = RoundNano(boundary(lo, width, i))
		d.Histogram[i].Upper = RoundNano(boundary(lo, width, i+1))
	}
	d.Histogram[buckets-1] = Bucket{Lower: d.P95, Upper: d.Max, IsTail: true}
	for _, v := range sorted {
		d.TotalCostNano += v
		rv := new(big.Rat).SetInt64(v)
		if rv.Cmp(p95) >= 0 {
			d.TailRuns++
			d.TailCostNano += v
			d.Histogram[buckets-1].Count++
			continue
		}
		// v < p95 implies width > 0: index = floor((v − min) ÷ width).
		off := new(big.Rat).Sub(rv, new(big.Rat).SetInt64(lo))
		off.Quo(off, width)
		i := new(big.Int).Quo(off.Num(), off.Denom()).Int64()
		d.Histogram[min(i, int64(buckets-2))].Count++
	}
	return d
}

func boundary(lo int64, width *big.Rat, i int) *big.Rat {
	b := new(big.Rat).Mul(width, new(big.Rat).SetInt64(int64(i)))
	return b.Add(b, new(big.Rat).SetInt64(lo))
}
