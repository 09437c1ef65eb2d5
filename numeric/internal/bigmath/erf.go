package bigmath

import (
	"math/big"
)

// Erf returns an enclosure of erf(x) with w-bit endpoints, for finite x.
func Erf(x *big.Float, w uint) Interval {
	if x.Sign() == 0 {
		return exactPoint(new(big.Float).SetPrec(w))
	}
	if x.Sign() < 0 {
		return INegExact(Erf(new(big.Float).Neg(x), w))
	}
	wp := w + 24
	// Tiny x < 2^-(w/2+4): (2/√π)(x − x³/3) ≤ erf(x) ≤ (2/√π)·x, and
	// x²/3 < 2^-(w+8), so erf(x) ∈ (2/√π)·x·[1 − 2^-(w+6), 1].
	if log2Bound(x) < -int(w/2)-4 {
		c := twoOverSqrtPi(wp)
		hi := Mul(c.Hi, x, w, Up)
		shrink := Sub(big.NewFloat(1), new(big.Float).SetMantExp(big.NewFloat(1), -int(w)-6), w+8, Down)
		lo := Mul(Mul(c.Lo, x, wp, Down), shrink, w, Down)
		return Interval{lo, hi}
	}
	// Large x ≥ 1 with x² ≥ (w+4)·log 2: 0 < 1 − erf(x) = erfc(x) <
	// e^(−x²)/(x√π) ≤ 2^-(w+4). The float64 test has a margin that covers
	// its own rounding.
	if xf := f64(x); xf >= 1 && xf*xf >= float64(w+5)*0.6932 {
		one := big.NewFloat(1)
		return Interval{Sub(one, new(big.Float).SetMantExp(one, -int(w)-4), w, Down), Round(one, w, Up)}
	}
	return erfSeries(x, w)
}

// erfSeries computes erf(x) = (2/√π)·e^(−x²)·Σ_{n≥0} a_n for x > 0, with
// a_0 = x and a_n = a_(n−1)·2x²/(2n+1) (Abramowitz & Stegun 7.1.6). All terms
// are positive, so nothing cancels, whatever the size of x.
//
// Truncation bound: for n > N the ratio a_(n+1)/a_n = 2x²/(2n+3) is at most
// ρ = 2x²/(2N+5); once ρ ≤ 1/2 the remainder Σ_{n>N} a_n is at most
// a_(N+1)/(1 − ρ) ≤ 2·a_(N+1). The loop stops when that is below
// 2^-(w+4) times the partial sum.
func erfSeries(x *big.Float, w uint) Interval {
	xf := f64(x)
	nEst := int(2*xf*xf) + int(w) + 16
	wp := w + 24 + uint(bitsOf(int64(nEst)))
	x2 := new(big.Float).SetPrec(2*x.Prec()).Mul(x, x) // exact
	twoX2 := exactPoint(new(big.Float).SetMantExp(x2, 1))
	half := big.NewFloat(0.5)

	term := exactPoint(x)
	sum := term
	for n := int64(1); ; n++ {
		term = quoInt(IMul(term, twoX2, wp), 2*n+1, wp)
		sum = IAdd(sum, term, wp)
		// ρ for the terms after this one.
		rho := Quo(twoX2.Hi, new(big.Float).SetInt64(2*n+3), 53, Up)
		if rho.Cmp(half) > 0 {
			continue
		}
		next := Mul(term.Hi, rho, wp, Up) // a_(n+1) ≤ a_n·ρ
		tail := MulPow2(next, 1, wp, Up)
		if tail.Cmp(MulPow2(sum.Lo, -int(w)-4, wp, Down)) <= 0 {
			sum = Interval{sum.Lo, Add(sum.Hi, tail, wp, Up)}
			break
		}
	}
	negX2 := new(big.Float).Neg(x2)
	e, _ := Exp(negX2, wp)
	r := IMul(IMul(twoOverSqrtPi(wp), e, wp), sum, wp)
	return IRound(r, w)
}

// twoOverSqrtPi encloses 2/√π.
func twoOverSqrtPi(w uint) Interval {
	s, _ := ISqrt(PiInterval(w+8), w+8)
	q, _ := IQuo(exactPoint(big.NewFloat(2)), s, w)
	return q
}
