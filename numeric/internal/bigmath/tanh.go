package bigmath

import (
	"math/big"
)

// Tanh returns an enclosure of tanh(x) with w-bit endpoints, for finite x.
func Tanh(x *big.Float, w uint) Interval {
	if x.Sign() == 0 {
		return exactPoint(new(big.Float).SetPrec(w))
	}
	if x.Sign() < 0 {
		return INegExact(Tanh(new(big.Float).Neg(x), w))
	}
	one := big.NewFloat(1)
	wp := w + 24
	// Tiny x < 2^-(w/2+4): x − x³/3 ≤ tanh x ≤ x, and x²/3 < 2^-(w+8).
	if log2Bound(x) < -int(w/2)-4 {
		shrink := Sub(one, new(big.Float).SetMantExp(one, -int(w)-6), w+8, Down)
		return Interval{Mul(x, shrink, w, Down), Round(x, w, Up)}
	}
	// Large x with 2x ≥ (w+5)·log 2: 1 − tanh x = 2/(e^(2x)+1) < 2e^(−2x)
	// ≤ 2^-(w+4).
	if xf := f64(x); 2*xf >= float64(w+5)*0.6932 {
		return Interval{Sub(one, new(big.Float).SetMantExp(one, -int(w)-4), w, Down), Round(one, w, Up)}
	}
	twoX := new(big.Float).SetMantExp(x, 1) // exact
	if x.Cmp(big.NewFloat(0.5)) < 0 {
		// tanh x = E/(E+2) with E = e^(2x) − 1, summed without cancellation.
		e := expm1Series(twoX, wp)
		two := big.NewFloat(2)
		lo := Quo(e.Lo, Add(e.Lo, two, wp, Up), w, Down)
		hi := Quo(e.Hi, Add(e.Hi, two, wp, Down), w, Up)
		return Interval{lo, hi}
	}
	// tanh x = 1 − 2/(E+1) with E = e^(2x); increasing in E, and at least
	// tanh(1/2) > 0.46, so the subtraction loses at most two bits.
	e, _ := Exp(twoX, wp)
	two := big.NewFloat(2)
	lo := Sub(one, Quo(two, Add(e.Lo, one, wp, Down), wp, Up), w, Down)
	hi := Sub(one, Quo(two, Add(e.Hi, one, wp, Up), wp, Down), w, Up)
	return Interval{lo, hi}
}

// expm1Series sums e^t − 1 = Σ_{j≥1} t^j/j! for a point 0 < t ≤ 1.
//
// Truncation bound: after the terms j ≤ N the remainder is at most
// t^(N+1)/(N+1)! · 1/(1 − t/(N+2)) ≤ 2·t^(N+1)/(N+1)!, since t/(N+2) ≤ 1/2.
// The loop stops when that is below 2^-(w+4)·t, and the sum is at least t.
func expm1Series(t *big.Float, w uint) Interval {
	tp := exactPoint(t)
	term := tp
	sum := tp
	bound := new(big.Float).Set(t) // t^j/j!, rounded up
	eps := MulPow2(t, -int(w)-4, w, Down)
	for j := int64(2); ; j++ {
		term = quoInt(IMul(term, tp, w), j, w)
		sum = IAdd(sum, term, w)
		bound = Quo(Mul(bound, t, w, Up), new(big.Float).SetInt64(j), w, Up)
		tail := MulPow2(Quo(Mul(bound, t, w, Up), new(big.Float).SetInt64(j+1), w, Up), 1, w, Up)
		if tail.Cmp(eps) <= 0 {
			return Interval{sum.Lo, Add(sum.Hi, tail, w, Up)}
		}
	}
}
