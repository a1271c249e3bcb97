package analytics

import (
	"math/big"
	"sort"
	"time"
)

// Sums are the additive figures of a set of calls, as the rollups keep
// them. Money is nano-USD.
type Sums struct {
	Calls            int64
	InputTokens      int64
	OutputTokens     int64
	CachedTokens     int64
	CacheWriteTokens int64 // five-minute and one-hour writes
	TotalTokens      int64
	CostNano         int64
	SubscriptionNano int64
	LatencySum       int64
	LatencyCount     int64
	SuccessCalls     int64
	UnpricedCalls    int64
	ReadSavingsNano  int64
	WritePremiumNano int64
	EventsWithCache  int64
	// The agent view's figures (migration 0013): cost of failed calls,
	// calls with a trace_id, calls whose output exceeded 16 and 256 tokens.
	FailedCostNano     int64
	TracedCalls        int64
	OutputOver16Calls  int64
	OutputOver256Calls int64
}

// Add adds o to s.
func (s *Sums) Add(o Sums) {
	s.Calls += o.Calls
	s.InputTokens += o.InputTokens
	s.OutputTokens += o.OutputTokens
	s.CachedTokens += o.CachedTokens
	s.CacheWriteTokens += o.CacheWriteTokens
	s.TotalTokens += o.TotalTokens
	s.CostNano += o.CostNano
	s.SubscriptionNano += o.SubscriptionNano
	s.LatencySum += o.LatencySum
	s.LatencyCount += o.LatencyCount
	s.SuccessCalls += o.SuccessCalls
	s.UnpricedCalls += o.UnpricedCalls
	s.ReadSavingsNano += o.ReadSavingsNano
	s.WritePremiumNano += o.WritePremiumNano
	s.EventsWithCache += o.EventsWithCache
	s.FailedCostNano += o.FailedCostNano
	s.TracedCalls += o.TracedCalls
	s.OutputOver16Calls += o.OutputOver16Calls
	s.OutputOver256Calls += o.OutputOver256Calls
}

// Keyed are the sums of one key (an agent, a model, a user…).
type Keyed struct {
	Key string
	Sums
}

// SortByCost orders rows by cost descending, then key ascending (byte
// order), the order of every array report.
func SortByCost(rows []Keyed) {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].CostNano != rows[j].CostNano {
			return rows[i].CostNano > rows[j].CostNano
		}
		return rows[i].Key < rows[j].Key
	})
}

// Total sums every row.
func Total(rows []Keyed) Sums {
	var s Sums
	for _, r := range rows {
		s.Add(r.Sums)
	}
	return s
}

// Point is the sums of one time-series bucket.
type Point struct {
	Bucket time.Time
	Sums
}

// ZeroFill returns one point per bucket of buckets, oldest first: the
// points found (matched by bucket start) and zeros elsewhere.
func ZeroFill(buckets []time.Time, found []Point) []Point {
	byStart := make(map[int64]Sums, len(found))
	for _, p := range found {
		s := byStart[p.Bucket.UnixNano()]
		s.Add(p.Sums)
		byStart[p.Bucket.UnixNano()] = s
	}
	out := make([]Point, len(buckets))
	for i, b := range buckets {
		out[i] = Point{Bucket: b, Sums: byStart[b.UnixNano()]}
	}
	return out
}

// Ratio returns num ÷ den × scale rounded half away from zero to two
// decimals, computed exactly; nil when den is 0 (a rate over nothing).
func Ratio(num, den, scale int64) *float64 {
	if den == 0 {
		return nil
	}
	return Round2(new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(num), big.NewInt(scale)), big.NewInt(den)))
}

// Round2 is r rounded half away from zero to two decimals; nil for nil.
func Round2(r *big.Rat) *float64 {
	if r == nil {
		return nil
	}
	f := float64(RoundHalfAway(new(big.Rat).Mul(r, big.NewRat(100, 1))).Int64()) / 100
	return &f
}

// Percent is num ÷ den as a percentage with two decimals, nil over nothing.
func Percent(num, den int64) *float64 { return Ratio(num, den, 100) }

// Mean is sum ÷ count with two decimals, nil over nothing.
func Mean(sum, count int64) *float64 { return Ratio(sum, count, 1) }

// DivNano divides nano-USD by a count, rounded half away from zero to the
// nano-dollar; ok is false when count is 0.
func DivNano(nano, count int64) (int64, bool) {
	if count == 0 {
		return 0, false
	}
	q := RoundHalfAway(new(big.Rat).SetFrac(big.NewInt(nano), big.NewInt(count)))
	return q.Int64(), true
}

// RoundHalfAway rounds r half away from zero to an integer, exactly: the
// one rounding of every report, run figures included.
func RoundHalfAway(r *big.Rat) *big.Int {
	num, den := new(big.Int).Abs(r.Num()), r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Mul(m, big.NewInt(2)).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if r.Sign() < 0 {
		q.Neg(q)
	}
	return q
}
