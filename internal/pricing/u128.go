package pricing

import (
	"math"
	"math/bits"
)

// u128 is an unsigned 128-bit accumulator for atto-USD amounts: tokens
// (< 2^63) times a rate (< 2^63) needs up to 126 bits, so a handful of
// products cannot overflow it in practice; carry-out is still detected.
type u128 struct {
	hi, lo   uint64
	overflow bool
}

// addMul adds a×b.
func (x *u128) addMul(a, b uint64) {
	h, l := bits.Mul64(a, b)
	var c uint64
	x.lo, c = bits.Add64(x.lo, l, 0)
	x.hi, c = bits.Add64(x.hi, h, c)
	if c != 0 {
		x.overflow = true
	}
}

// add adds y.
func (x *u128) add(y u128) {
	var c uint64
	x.lo, c = bits.Add64(x.lo, y.lo, 0)
	x.hi, c = bits.Add64(x.hi, y.hi, c)
	x.overflow = x.overflow || y.overflow || c != 0
}

// less reports x < y.
func (x u128) less(y u128) bool {
	return x.hi < y.hi || (x.hi == y.hi && x.lo < y.lo)
}

// sub returns x − y, requiring x ≥ y.
func (x u128) sub(y u128) u128 {
	lo, b := bits.Sub64(x.lo, y.lo, 0)
	hi, _ := bits.Sub64(x.hi, y.hi, b)
	return u128{hi: hi, lo: lo, overflow: x.overflow || y.overflow}
}

// nano converts atto to nano-USD rounded half-up. ok is false when the value
// does not fit an int64 (or the accumulator overflowed); the result is then
// 0, never a clamped amount: the caller refuses the call (Breakdown.Check).
func (x u128) nano() (int64, bool) {
	if x.overflow || x.hi >= AttoPerNano {
		return 0, false // quotient would not fit 64 bits
	}
	q, r := bits.Div64(x.hi, x.lo, AttoPerNano)
	if r >= AttoPerNano/2 {
		q++
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

// s128 is a signed amount kept as two unsigned sums, for savings that can go
// negative (a write premium larger than the read savings).
type s128 struct{ pos, neg u128 }

// addMul adds tokens × rateDiff where rateDiff may be negative.
func (x *s128) addMul(tokens uint64, rateDiff int64) {
	if rateDiff >= 0 {
		x.pos.addMul(tokens, uint64(rateDiff))
	} else {
		x.neg.addMul(tokens, uint64(-rateDiff))
	}
}

// sub subtracts y.
func (x *s128) sub(y s128) {
	x.pos.add(y.neg)
	x.neg.add(y.pos)
}

// nano converts to nano-USD, rounding half away from zero so that a value and
// its negation round to opposite numbers.
func (x s128) nano() (int64, bool) {
	if !x.pos.less(x.neg) {
		return x.pos.sub(x.neg).nano()
	}
	v, ok := x.neg.sub(x.pos).nano()
	return -v, ok
}
