package bigmath

import (
	"math"
	"math/big"
)

// Status reports results beyond big.Float's exponent range.
type Status int8

const (
	Normal    Status = iota
	Overflow         // the true result is at least 2^MaxExp (beyond the largest big.Float)
	Underflow        // the true result is positive and below the smallest big.Float
)

// Exp returns an enclosure of exp(x) with w-bit endpoints, for finite x.
// On Overflow the enclosure is [MaxFloat, +Inf]; on Underflow it is
// [0, SmallestFloat].
func Exp(x *big.Float, w uint) (Interval, Status) {
	if x.Sign() == 0 {
		return exactPoint(big.NewFloat(1).SetPrec(w)), Normal
	}
	// Tiny |x| < 2^-(w+8): exp(x) lies between 1 and 1 + 2x, since
	// |exp(x) − 1| ≤ |x|·e^|x| < 2|x|. Handled apart so that no power of x
	// can underflow.
	if log2Bound(x) < -int(w)-8 {
		one := big.NewFloat(1)
		twoX := new(big.Float).SetMantExp(x, 1)
		if x.Sign() > 0 {
			return Interval{Round(one, w, Down), Add(one, twoX, w, Up)}, Normal
		}
		return Interval{Add(one, twoX, w, Down), Round(one, w, Up)}, Normal
	}
	// Beyond these bounds the result certainly leaves big.Float's range
	// (|x| ≥ 2^40 means |x|/log 2 > 2^40 > MaxExp).
	if xf := f64(x); xf >= 0x1p40 {
		return Interval{MaxFloat(w), new(big.Float).SetInf(false)}, Overflow
	} else if xf <= -0x1p40 {
		return Interval{new(big.Float).SetPrec(w), SmallestFloat(w)}, Underflow
	}
	xf := f64(x)
	k := int64(math.Round(xf / math.Ln2))
	if k > big.MaxExp+2 {
		return Interval{MaxFloat(w), new(big.Float).SetInf(false)}, Overflow
	}
	if k < big.MinExp-2 {
		return Interval{new(big.Float).SetPrec(w), SmallestFloat(w)}, Underflow
	}

	// r = x − k·log 2, |r| ≲ 0.35. The halving count s balances the series
	// length against the squarings; each squaring doubles the relative
	// error, hence the s guard bits.
	s := int(math.Sqrt(float64(w))/2) + 1
	kBits := bitsOf(k)
	wp := w + uint(s) + uint(kBits) + 24
	r := exactPoint(x)
	if k != 0 {
		ln2 := Ln2Interval(wp + uint(kBits))
		r = ISub(r, IMul(pointInt(k), ln2, wp+uint(kBits)), wp)
	}
	t := IMulPow2(r, -s, wp)
	e := expSeries(t, wp)
	for i := 0; i < s; i++ {
		e = ISqr(e, wp)
	}
	// e.Lo ≥ 2^(E−1) where E is its MantExp exponent, and e.Hi < 2^E'.
	if int64(e.Lo.MantExp(nil))-1+k >= big.MaxExp {
		return Interval{MaxFloat(w), new(big.Float).SetInf(false)}, Overflow
	}
	if int64(e.Hi.MantExp(nil))+k <= big.MinExp-1 {
		return Interval{new(big.Float).SetPrec(w), SmallestFloat(w)}, Underflow
	}
	return IRound(IMulPow2(e, int(k), wp), w), Normal
}

func bitsOf(k int64) int {
	if k < 0 {
		k = -k
	}
	n := 0
	for k > 0 {
		n++
		k >>= 1
	}
	return n
}

// expSeries sums exp(t) = Σ_{j≥0} t^j/j! for an interval t with |t| ≤ 1/2.
//
// Truncation bound: after the terms j ≤ N, the remainder is at most
// |t|^(N+1)/(N+1)! · Σ_{i≥0} (|t|/(N+2))^i ≤ 2·|t|^(N+1)/(N+1)!, because
// |t|/(N+2) ≤ 1/2. The loop stops once that bound is below 2^-(w+4)
// (exp(t) ≥ e^-1/2 > 1/2, so this is below a quarter of an ulp).
func expSeries(t Interval, w uint) Interval {
	one := exactPoint(big.NewFloat(1))
	sum := one
	term := one
	mag := t.MagHi()
	bound := big.NewFloat(1) // |t|^j / j!, rounded up
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -int(w)-4)
	for j := int64(1); ; j++ {
		term = IMul(term, t, w)
		term = quoInt(term, j, w)
		sum = IAdd(sum, term, w)
		bound = Mul(bound, mag, w, Up)
		bound = Quo(bound, new(big.Float).SetInt64(j+1), w, Up)
		tail := MulPow2(bound, 1, w, Up) // 2·|t|^(j+1)/(j+1)!
		if tail.Cmp(eps) <= 0 {
			return Widen(sum, tail, w)
		}
	}
}

// quoInt divides an interval by a positive integer.
func quoInt(x Interval, n int64, w uint) Interval {
	d := new(big.Float).SetInt64(n)
	q, _ := IQuo(x, exactPoint(d), w)
	return q
}
