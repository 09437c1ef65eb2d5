package bigmath

import (
	"math"
	"math/big"
	"sync"
)

// Sqrt returns √x (x ≥ 0, finite) correctly rounded to prec bits in mode,
// which may be any big.RoundingMode. It works on the exact integer square
// root of a scaled significand, so directed modes are as exact as nearest.
func Sqrt(x *big.Float, prec uint, mode big.RoundingMode) *big.Float {
	return SqrtTo(nil, x, prec, mode)
}

// SqrtTo is Sqrt into z (a new Float when z is nil), which may be x. Its
// intermediate integers are kept from one call to the next, so that a
// root allocates no more than big.Float.Sqrt does.
func SqrtTo(z, x *big.Float, prec uint, mode big.RoundingMode) *big.Float {
	if z == nil {
		z = new(big.Float)
	}
	if x.Sign() == 0 || x.IsInf() {
		return z.SetPrec(prec).SetMode(mode).Set(x)
	}
	s := sqrtScratches.Get().(*sqrtScratch)
	defer sqrtScratches.Put(s)
	m := &s.m
	e := s.intExp(x) // x = m × 2^e exactly
	// Scale m so that its root has at least prec+2 bits and e is even.
	shift := max(2*int(prec)+4-m.BitLen(), 0)
	if (e-shift)%2 != 0 {
		shift++
	}
	m.Lsh(m, uint(shift))
	e -= shift
	r := s.isqrt(m)
	exact := s.square.Mul(r, r).Cmp(m) == 0
	// The root lies in [r, r+1) and has at least prec+2 bits, so every
	// rounding boundary at prec bits is an even integer; r + 1/2 stands in
	// for any inexact root without changing the rounding.
	r.Lsh(r, 1)
	if !exact {
		r.SetBit(r, 0, 1)
	}
	t := s.t.SetPrec(uint(max(r.BitLen(), 1))).SetInt(r) // exact
	t.SetMantExp(t, e/2-1)                               // exact: t keeps its own precision
	// x is read: z may be x.
	return z.SetPrec(prec).SetMode(mode).Set(t) // the one rounding, in mode
}

// sqrtScratch holds SqrtTo's integers between calls.
type sqrtScratch struct {
	m, r, next, q, rem, square big.Int
	t                          big.Float
}

// isqrt returns ⌊√m⌋ for m > 0, in one of s's integers. It is
// big.Int.Sqrt's iteration (Brent and Zimmermann, Modern Computer
// Arithmetic, Algorithm 1.13: from a start at least ⌊√m⌋, z ← ⌊(z +
// ⌊m/z⌋)/2⌋ until z stops decreasing), with its quotients in s's
// integers instead of new ones, and a start from float64's root of m's
// leading bits instead of a power of two, which leaves two or three steps
// for the roots a 113-bit square root takes.
func (s *sqrtScratch) isqrt(m *big.Int) *big.Int {
	// m = m'·2^k + low with k even and m' < 2^106, so that float64(m') is
	// within a relative 2^−53 of m' and its root f within 2^−52 of √m'.
	// √m ≤ √(m' + 1)·2^(k/2) ≤ (√m' + 1)·2^(k/2), and ⌈f(1 + 2^−50)⌉ + 1
	// is at least √m' + 1 (either margin alone would be enough; the start
	// only needs to be at least ⌊√m⌋, and one more step costs little).
	k := max(m.BitLen()-106, 0)
	k += k & 1
	top := s.q.Rsh(m, uint(k))
	f, _ := top.Float64()
	start := uint64(math.Ceil(math.Sqrt(f)*(1+0x1p-50))) + 1 // < 2^54
	z, next := s.r.SetUint64(start), &s.next
	z.Lsh(z, uint(k/2))
	for {
		s.q.QuoRem(m, z, &s.rem)
		next.Add(z, &s.q)
		next.Rsh(next, 1)
		if next.Cmp(z) >= 0 {
			return z
		}
		z, next = next, z
	}
}

var sqrtScratches = sync.Pool{New: func() any { return new(sqrtScratch) }}

// intExp sets s.m to an integer m and returns an exponent e with
// x = ±m × 2^e exactly, m > 0.
func (s *sqrtScratch) intExp(x *big.Float) int {
	prec := int(x.MinPrec())
	exp := x.MantExp(nil)
	t := s.t.SetMantExp(x, prec-exp) // exact: a copy of x, scaled
	t.Int(&s.m)
	s.m.Abs(&s.m)
	return exp - prec
}
