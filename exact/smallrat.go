package exact

import "math/big"

// Small fractions: int64 numerators and denominators bounded by
// SmallLimit, for hot loops (a reference summed over every prefix of
// every string) where big.Rat's allocations dominate. A caller keeps a
// running fraction here while it fits and moves to big.Rat the first
// time an operation reports false; SetSmall then builds the result once,
// already in lowest terms.

// SmallLimit bounds the magnitude of every numerator and denominator the
// small-fraction functions take or return, so that the product of two of
// them, and the sum of two such products, cannot overflow int64.
const SmallLimit = 1<<31 - 1

// AddSmall returns a/b + c/d in lowest terms, for b, d > 0; ok is false,
// and the result meaningless, when an operand or the result leaves
// ±SmallLimit.
func AddSmall(a, b, c, d int64) (num, den int64, ok bool) {
	if max(a, -a, b, c, -c, d) > SmallLimit {
		return 0, 0, false
	}
	n, m := a*d+c*b, b*d
	g := GCD64(n, m)
	n, m = n/g, m/g
	if max(n, -n, m) > SmallLimit {
		return 0, 0, false
	}
	return n, m, true
}

// MulSmall returns x·y; ok is false when x or y leaves ±SmallLimit (the
// product itself may exceed it: it is only ever a denominator handed to
// SetSmall).
func MulSmall(x, y int64) (prod int64, ok bool) {
	if max(x, -x, y, -y) > SmallLimit {
		return 0, false
	}
	return x * y, true
}

// GCD64 returns the greatest common divisor of |a| and b, for b ≥ 0 (a
// denominator); GCD64(a, 0) is |a|.
func GCD64(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// SetSmall sets z to n/d, for d > 0, and returns z. It writes the reduced
// numerator and denominator directly, with no big.Rat arithmetic; for
// n = 0 it leaves z as it is, so z must be a zero Rat (which then
// allocates nothing).
func SetSmall(z *big.Rat, n, d int64) *big.Rat {
	if n == 0 {
		return z
	}
	g := GCD64(n, d)
	z.SetInt64(n / g)
	if d/g != 1 {
		// SetInt64 stored the denominator 1, so Denom is a reference to
		// it; (n/g)/(d/g) is in lowest terms, as a Rat must be.
		z.Denom().SetInt64(d / g)
	}
	return z
}
