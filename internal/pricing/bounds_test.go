package pricing

import (
	"errors"
	"math"
	"math/big"
	"testing"
)

// TestBoundsHoldEverySum proves the arithmetic behind the bounds: a call at
// every bound is priced exactly, and a project's total at its bound, plus
// the largest call, plus a second column at its bound, stays in int64.
func TestBoundsHoldEverySum(t *testing.T) {
	// The dearest call the rate bound allows: every token at $1.
	e := Entry{Model: "m", Base: Rates{Input: MaxRateAtto, Output: MaxRateAtto}}
	b := e.Price(Usage{Input: MaxCallTokens, Output: MaxCallTokens})
	if b.Overflow || b.Total != 2*MaxCallTokens*NanoPerUSD {
		t.Fatalf("call at the token and rate bounds: %+v, want exactly 2e18 nano", b)
	}
	if err := b.Check(); !errors.Is(err, ErrBound) {
		t.Errorf("a 2e9 USD call must be refused by the cost bound, got %v", err)
	}
	// Sums: each in big.Int, compared with int64's maximum.
	maxI := new(big.Int).SetInt64(math.MaxInt64)
	for _, c := range []struct {
		name  string
		terms []int64
	}{
		{"project total + one more call", []int64{MaxProjectTotal, MaxCallCostNano}},
		{"two columns at the project bound (cost + savings)", []int64{MaxProjectTotal, MaxProjectTotal - 1}},
		{"tokens: project bound + input + output + total of one call", []int64{MaxProjectTotal, MaxCallTokens, MaxCallTokens, 2 * MaxCallTokens}},
		{"a call's five priced parts at 1e9 tokens × $1", []int64{MaxCallTokens * NanoPerUSD, MaxCallTokens * NanoPerUSD}},
	} {
		sum := new(big.Int)
		for _, v := range c.terms {
			sum.Add(sum, big.NewInt(v))
		}
		if sum.Cmp(maxI) > 0 {
			t.Errorf("%s: %s does not fit int64", c.name, sum)
		}
	}
}

func TestCallBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		ok   bool
	}{
		{"tokens at the bound", CheckTokens(MaxCallTokens), true},
		{"tokens above", CheckTokens(MaxCallTokens + 1), false},
		{"2^53-1 tokens", CheckTokens(1<<53 - 1), false},
		{"negative tokens", CheckTokens(-1), false},
		{"cost at the bound", CheckCost(MaxCallCostNano), true},
		{"cost above", CheckCost(MaxCallCostNano + 1), false},
		{"max int64 cost", CheckCost(math.MaxInt64), false},
		{"savings at the bound", Savings{Read: MaxCallCostNano, WritePremium: MaxCallCostNano}.Check(), true},
		{"premium above", Savings{WritePremium: MaxCallCostNano + 1}.Check(), false},
	} {
		if (c.err == nil) != c.ok {
			t.Errorf("%s: got %v", c.name, c.err)
		}
		if c.err != nil && !errors.Is(c.err, ErrBound) {
			t.Errorf("%s: %v does not wrap ErrBound", c.name, c.err)
		}
	}
	// gpt-4o at 2^53-1 input tokens, the absurd call: refused, not clamped.
	e := Entry{Base: Rates{Input: 2_500_000_000_000, Output: 10_000_000_000_000}}
	b := e.Price(Usage{Input: 1<<53 - 1})
	if b.Check() == nil {
		t.Errorf("2^53-1 input tokens on gpt-4o: %+v accepted", b)
	}
}
