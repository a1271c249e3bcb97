package pricing

import (
	"errors"
	"fmt"
)

// Bounds on what one call and one project may hold (docs/api.md, "Bounds").
// They are far above any real call, so that only a buggy or hostile client
// meets them, and low enough that every sum llmcost keeps fits an int64:
//
//   - MaxCallTokens: the largest context windows published today are about
//     10 M tokens (Llama 4 Scout; Gemini 2 M) and the largest outputs about
//     128 k: 10^9 is a hundred times the first. With every count at most
//     10^9 and every rate at most $1 per token (MaxRateAtto), a call's
//     catalogue price is at most 2×10^9 USD, which int64 nano-USD holds, so
//     pricing itself can never overflow.
//   - MaxCallCostNano: the dearest call a published price list allows today
//     (a 10 M-token prompt at $150 per million plus 128 k output tokens at
//     $600 per million) costs about $1,600; a million dollars is six hundred
//     times that. A cost, catalogue cost or cache saving above it is refused.
//   - MaxProjectTotal: what a project's calls may sum to, per quantity (money
//     in nano-USD, tokens, latency in ms), over its whole life: 2^62, half of
//     int64, so that any report, rollup, run or month of one project fits,
//     and so does the sum of two of its columns. In money that is about
//     $4.6 billion; at $10 M a month a project needs 38 years to reach it.
const (
	MaxCallTokens   int64 = 1_000_000_000
	MaxCallCostNano int64 = 1_000_000 * NanoPerUSD
	MaxProjectTotal int64 = 1 << 62
)

// ErrBound is wrapped by every error of a value beyond a bound above.
var ErrBound = errors.New("beyond llmcost's bound")

// CheckCost returns an error naming the bound when nano (a client-sent or
// computed cost, in nano-USD) is negative or above MaxCallCostNano.
func CheckCost(nano int64) error {
	if nano < 0 || nano > MaxCallCostNano {
		return fmt.Errorf("%w: must be between 0 and %s USD per call", ErrBound, FormatUSD(MaxCallCostNano))
	}
	return nil
}

// Check refuses a breakdown that cannot be stored exactly: a result beyond
// int64 (only possible for counts above MaxCallTokens) or a total above
// MaxCallCostNano. Nothing is ever clamped: such a call is refused.
func (b Breakdown) Check() error {
	if b.Overflow {
		return fmt.Errorf("%w: the catalogue price of this call does not fit a 64-bit nano-USD amount", ErrBound)
	}
	if b.Total > MaxCallCostNano {
		return fmt.Errorf("%w: the catalogue price of this call, %s USD, is above %s USD per call (check its token counts)",
			ErrBound, FormatUSD(b.Total), FormatUSD(MaxCallCostNano))
	}
	return nil
}

// Check refuses cache savings or a write premium beyond MaxCallCostNano
// (either way), so that a project's savings sum as safely as its costs.
func (s Savings) Check() error {
	for _, v := range []int64{s.Read, s.WritePremium} {
		if v > MaxCallCostNano || v < -MaxCallCostNano {
			return fmt.Errorf("%w: the cache savings of this call are beyond %s USD (check its token counts)",
				ErrBound, FormatUSD(MaxCallCostNano))
		}
	}
	return nil
}

// CheckTokens returns an error naming the bound when n is negative or
// above MaxCallTokens.
func CheckTokens(n int64) error {
	if n < 0 || n > MaxCallTokens {
		return fmt.Errorf("%w: must be between 0 and %d per call", ErrBound, MaxCallTokens)
	}
	return nil
}
