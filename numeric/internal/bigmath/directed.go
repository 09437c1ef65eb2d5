package bigmath

import (
	"math"
	"math/big"
)

// Dir is a rounding direction.
type Dir int8

const (
	Down Dir = -1 // toward −∞
	Up   Dir = 1  // toward +∞
)

func (d Dir) mode() big.RoundingMode {
	if d == Down {
		return big.ToNegativeInf
	}
	return big.ToPositiveInf
}

func newF(prec uint, d Dir) *big.Float {
	return new(big.Float).SetPrec(prec).SetMode(d.mode())
}

// MaxFloat is the largest finite big.Float with a prec-bit significand,
// (1 − 2^−prec) × 2^MaxExp.
//
// Note on big.Float.SetMantExp, used here and below: it copies the
// precision and rounding mode of its argument into the receiver, so
// new(big.Float).SetPrec(p).SetMantExp(x, k) does not round to p bits.
// Every scaling here is therefore done on a value that already has the
// intended precision, or followed by an explicit rounding.
func MaxFloat(prec uint) *big.Float {
	m := new(big.Float).SetPrec(prec + 1).SetInt64(1)
	m.Sub(m, pow2(-int(prec))) // 1 − 2^−prec, exact at prec+1 bits (and at prec)
	m.SetMantExp(m, big.MaxExp)
	return m.SetPrec(prec) // exact
}

// SmallestFloat is the smallest positive big.Float, 0.5 × 2^MinExp.
func SmallestFloat(prec uint) *big.Float {
	return pow2(big.MinExp - 1).SetPrec(prec)
}

// pow2 returns 2^k exactly (MinExp−1 ≤ k < MaxExp).
func pow2(k int) *big.Float {
	one := new(big.Float).SetPrec(1).SetInt64(1)
	return one.SetMantExp(one, k)
}

// fix repairs the two places where big.Float ignores the rounding mode:
// on exponent overflow it returns ±Inf and on underflow ±0, whatever the
// direction. A lower bound must not exceed the true value, nor an upper
// bound fall below it.
func fix(z *big.Float, d Dir) *big.Float {
	acc := z.Acc()
	switch {
	case d == Down && acc == big.Above:
		if z.IsInf() { // positive overflow
			return z.Set(MaxFloat(z.Prec()))
		}
		// A negative value underflowed to −0.
		return z.Neg(SmallestFloat(z.Prec()))
	case d == Up && acc == big.Below:
		if z.IsInf() { // negative overflow
			return z.Neg(MaxFloat(z.Prec()))
		}
		return z.Set(SmallestFloat(z.Prec()))
	}
	return z
}

// Round returns x rounded to prec bits in direction d.
func Round(x *big.Float, prec uint, d Dir) *big.Float {
	return fix(newF(prec, d).Set(x), d)
}

// Add returns x + y rounded in direction d. Callers never add infinities of
// opposite signs (lower endpoints are never +Inf, upper ones never −Inf).
func Add(x, y *big.Float, prec uint, d Dir) *big.Float {
	return fix(newF(prec, d).Add(x, y), d)
}

// Sub returns x − y rounded in direction d.
func Sub(x, y *big.Float, prec uint, d Dir) *big.Float {
	return fix(newF(prec, d).Sub(x, y), d)
}

// Mul returns x × y rounded in direction d, with 0 × ∞ = 0 as interval
// endpoints require (the infinity stands for an unbounded end, the zero is
// exact).
func Mul(x, y *big.Float, prec uint, d Dir) *big.Float {
	if (x.Sign() == 0 && y.IsInf()) || (y.Sign() == 0 && x.IsInf()) {
		return newF(prec, d)
	}
	return fix(newF(prec, d).Mul(x, y), d)
}

// Quo returns x / y rounded in direction d; y ≠ 0 and not both infinite.
func Quo(x, y *big.Float, prec uint, d Dir) *big.Float {
	return fix(newF(prec, d).Quo(x, y), d)
}

// MulPow2 returns x × 2^k rounded in direction d (exact unless the exponent
// range is exceeded).
func MulPow2(x *big.Float, k int, prec uint, d Dir) *big.Float {
	if x.Sign() == 0 || x.IsInf() {
		return newF(prec, d).Set(x)
	}
	z := newF(prec, d).Set(x) // round first (at most once, in direction d)
	return fix(z.SetMantExp(z, k), d)
}

// log2Bound returns an integer upper bound on log2|x| for finite nonzero x.
func log2Bound(x *big.Float) int {
	return x.MantExp(nil)
}

// f64 returns x as a float64, saturating to ±MaxFloat64 instead of ±Inf so
// that comparisons with thresholds stay meaningful.
func f64(x *big.Float) float64 {
	v, _ := x.Float64()
	if math.IsInf(v, 0) {
		return math.Copysign(math.MaxFloat64, v)
	}
	return v
}
