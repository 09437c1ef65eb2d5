package bigmath

import (
	"math/big"
)

// TrigMaxExp bounds the arguments that Sin and Cos reduce: |x| < 2^TrigMaxExp,
// which covers every finite binary128 number. Reducing a larger x takes π
// to more than log2|x| bits; rather than spend that, Sin and Cos return
// [−1, 1] there, which is true but decides nothing.
const TrigMaxExp = 1 << 14

// Sin returns an enclosure of sin(x) with w-bit endpoints, for finite x
// (|x| ≥ 2^TrigMaxExp and ±Inf give [−1, 1]).
func Sin(x *big.Float, w uint) Interval { return trig(x, w, false) }

// Cos returns an enclosure of cos(x) with w-bit endpoints, for finite x
// (|x| ≥ 2^TrigMaxExp and ±Inf give [−1, 1]).
func Cos(x *big.Float, w uint) Interval { return trig(x, w, true) }

func trig(x *big.Float, w uint, isCos bool) Interval {
	one := big.NewFloat(1)
	if x.Sign() == 0 {
		// The one argument with an exact result: returned as a point so
		// that Ziv's strategy stops at once.
		if isCos {
			return exactPoint(new(big.Float).SetPrec(w).SetInt64(1))
		}
		return exactPoint(new(big.Float).SetPrec(w))
	}
	if x.IsInf() || log2Bound(x) > TrigMaxExp {
		return unitInterval(w)
	}
	if x.Sign() < 0 {
		v := trig(new(big.Float).Neg(x), w, isCos)
		if isCos {
			return v
		}
		return INegExact(v)
	}
	// Tiny x < 2^-(w/2+4), so x² < 2^-(w+9): x − x³/6 ≤ sin x ≤ x with
	// x³/6 < 2^-(w+6)·x, and 1 − x²/2 ≤ cos x ≤ 1 with x²/2 < 2^-(w+8).
	// Handled apart so that no power of x can underflow.
	if log2Bound(x) < -int(w/2)-4 {
		if isCos {
			return Interval{Sub(one, pow2(-int(w)-8), w, Down), Round(one, w, Up)}
		}
		shrink := Sub(one, pow2(-int(w)-6), w+8, Down)
		return Interval{Mul(x, shrink, w, Down), Round(x, w, Up)}
	}
	wp := w + 24
	r, q := reduceHalfPi(x, wp)
	if isCos {
		q++ // cos x = sin(x + π/2)
	}
	// x = kπ/2 + r: sin x = sin r, cos r, −sin r, −cos r for k ≡ 0, 1, 2, 3.
	var v Interval
	switch q % 4 {
	case 0:
		v = sinSeries(r, wp)
	case 1:
		v = cosSeries(r, wp)
	case 2:
		v = INegExact(sinSeries(r, wp))
	default:
		v = INegExact(cosSeries(r, wp))
	}
	return clampUnit(IRound(v, w), w)
}

// reduceHalfPi returns r = x − k·π/2 and k mod 4 for finite x > 0 with
// |x| < 2^TrigMaxExp, where k is the nearest integer to x/(π/2), so that
// |r| < 0.786. r is an interval narrow relative to itself, width at most
// 2^-(w−8)·|r|, unless x is so close to a multiple of π/2 that the
// precision cap below is reached first (the result is then wider, never
// wrong).
func reduceHalfPi(x *big.Float, w uint) (Interval, int) {
	e := max(log2Bound(x), 0) // x < 2^e
	// k from an (e+24)-bit quotient: π's lower end (two ulps at most) and
	// the division are together off by less than 2^-(e+21) relatively, so
	// the quotient, below 2^e, is off from x/(π/2) by less than 2^-21, and
	// |r| ≤ (π/2)(1/2 + 2^-21).
	pq := uint(e) + 24
	halfPi := MulPow2(PiInterval(pq).Lo, -1, pq, Down)
	t := new(big.Float).SetPrec(pq).Quo(x, halfPi)
	k, _ := t.Int(nil) // ⌊t⌋, as t > 0
	// The fractional part of t is exact at t's precision.
	if frac := new(big.Float).Sub(t, new(big.Float).SetInt(k)); frac.Cmp(big.NewFloat(0.5)) >= 0 {
		k.Add(k, big.NewInt(1))
	}
	if k.Sign() == 0 {
		return exactPoint(x), 0
	}
	q := int(new(big.Int).And(k, big.NewInt(3)).Int64())
	kp := exactPoint(new(big.Float).SetInt(k)) // exact

	// Cancellation: x − k·π/2 loses about log2(x/|r|) bits, e for an
	// ordinary r and more when x lies close to a multiple of π/2. k·π/2 is
	// computed at w + e + extra bits, so its error is about 2^(3−w−extra)
	// in absolute terms; extra doubles until r is narrow relative to
	// itself. How close a dyadic x can come to a multiple of π/2 depends on
	// its significand length as well as on e, hence the cap.
	limit := 2*(w+uint(e)+uint(x.MinPrec())) + 128
	for extra := uint(32); ; extra *= 2 {
		p := w + uint(e) + extra
		hp := IMulPow2(PiInterval(p+2), -1, p+2) // exact halving
		r := ISub(exactPoint(x), IMul(kp, hp, p), w)
		if r.RelNarrow(int(w)-8) || extra >= limit {
			return r, q
		}
	}
}

// sinSeries sums sin r = Σ_{j≥0} (−1)^j r^(2j+1)/(2j+1)! for an interval r
// with |r| ≤ 1.
//
// Truncation bound: the partial sum through degree 2N+1 is also sin's
// Taylor polynomial of degree 2N+2, so by Lagrange's form of the remainder,
// with |sin^(2N+3)| ≤ 1, the error is at most |r|^(2N+3)/(2N+3)!. The loop
// stops once that is below 2^-(w+4)·|r|max; |sin t| ≥ 0.84·|t| for |t| ≤ 1,
// so when r is narrow relative to itself this is well below an ulp.
func sinSeries(r Interval, w uint) Interval {
	mag := r.MagHi()
	mag2 := Mul(mag, mag, w, Up)
	r2 := ISqr(r, w)
	eps := MulPow2(mag, -int(w)-4, w, Down)
	sum, term := r, r
	bound := Round(mag, w, Up) // |r|^(2j+1)/(2j+1)!
	for j := int64(1); ; j++ {
		d := (2 * j) * (2*j + 1)
		term = INegExact(quoInt(IMul(term, r2, w), d, w))
		sum = IAdd(sum, term, w)
		bound = Quo(Mul(bound, mag2, w, Up), new(big.Float).SetInt64(d), w, Up)
		tail := Quo(Mul(bound, mag2, w, Up), new(big.Float).SetInt64((2*j+2)*(2*j+3)), w, Up)
		if tail.Cmp(eps) <= 0 {
			return Widen(sum, tail, w)
		}
	}
}

// cosSeries sums cos r = Σ_{j≥0} (−1)^j r^(2j)/(2j)! for an interval r with
// |r| ≤ 1.
//
// Truncation bound: the partial sum through degree 2N is also the Taylor
// polynomial of degree 2N+1, so the error is at most |r|^(2N+2)/(2N+2)!
// (Lagrange, |cos^(2N+2)| ≤ 1). The loop stops once that is below
// 2^-(w+4); cos r ≥ cos 1 > 1/2, so this is a sixteenth of an ulp.
func cosSeries(r Interval, w uint) Interval {
	mag := r.MagHi()
	mag2 := Mul(mag, mag, w, Up)
	r2 := ISqr(r, w)
	eps := pow2(-int(w) - 4)
	one := exactPoint(big.NewFloat(1))
	sum, term := one, one
	bound := big.NewFloat(1) // |r|^(2j)/(2j)!
	for j := int64(1); ; j++ {
		d := (2*j - 1) * (2 * j)
		term = INegExact(quoInt(IMul(term, r2, w), d, w))
		sum = IAdd(sum, term, w)
		bound = Quo(Mul(bound, mag2, w, Up), new(big.Float).SetInt64(d), w, Up)
		tail := Quo(Mul(bound, mag2, w, Up), new(big.Float).SetInt64((2*j+1)*(2*j+2)), w, Up)
		if tail.Cmp(eps) <= 0 {
			return Widen(sum, tail, w)
		}
	}
}

// ISin returns an enclosure of {sin t : t ∈ x} with w-bit endpoints.
func ISin(x Interval, w uint) Interval { return itrig(x, w, false) }

// ICos returns an enclosure of {cos t : t ∈ x} with w-bit endpoints.
func ICos(x Interval, w uint) Interval { return itrig(x, w, true) }

// itrig evaluates f = sin (or cos) at the ends of x and decides from the
// sign of f' = cos (or −sin) at the ends whether an extremum, where
// f = ±1, lies between them.
func itrig(x Interval, w uint, isCos bool) Interval {
	f, df := Sin, Cos
	if isCos {
		f, df = Cos, Sin
	}
	if x.IsPoint() {
		return f(x.Lo, w)
	}
	// The extrema of f are π apart, so an x of width below 3 < π holds at
	// most one of them; the cases below rely on that.
	if x.Lo.IsInf() || x.Hi.IsInf() || Sub(x.Hi, x.Lo, 64, Up).Cmp(big.NewFloat(3)) >= 0 {
		return unitInterval(w)
	}
	a, b := f(x.Lo, w), f(x.Hi, w)
	h := Hull(a, b)
	da, db := df(x.Lo, w), df(x.Hi, w)
	if isCos {
		da, db = INegExact(da), INegExact(db)
	}
	pos := func(v Interval) bool { return v.Lo.Sign() > 0 }
	neg := func(v Interval) bool { return v.Hi.Sign() < 0 }
	minusOne, one := Round(big.NewFloat(-1), w, Down), Round(big.NewFloat(1), w, Up)
	switch {
	case pos(da) && pos(db) || neg(da) && neg(db):
		// f' changes sign at each extremum: none inside, f is monotone.
		return h
	case pos(da) && neg(db):
		return Interval{h.Lo, one} // a maximum inside
	case neg(da) && pos(db):
		return Interval{minusOne, h.Hi} // a minimum inside
	}
	// f' is too close to 0 at an end to tell its sign, so an extremum may
	// be inside or not. A minimum (f = −1) is more than π/2 away from every
	// point where f > 0, so if f > 0 at both ends, only a maximum can be
	// inside; and symmetrically.
	lo, hi := h.Lo, h.Hi
	if !pos(a) || !pos(b) {
		lo = minusOne
	}
	if !neg(a) || !neg(b) {
		hi = one
	}
	return Interval{lo, hi}
}

// unitInterval is [−1, 1], which contains every sine and cosine.
func unitInterval(w uint) Interval {
	return Interval{Round(big.NewFloat(-1), w, Down), Round(big.NewFloat(1), w, Up)}
}

// clampUnit intersects x with [−1, 1]: outward rounding can push an end
// past ±1, where no sine or cosine lies.
func clampUnit(x Interval, w uint) Interval {
	if x.Hi.Cmp(big.NewFloat(1)) > 0 {
		x.Hi = Round(big.NewFloat(1), w, Up)
	}
	if x.Lo.Cmp(big.NewFloat(-1)) < 0 {
		x.Lo = Round(big.NewFloat(-1), w, Down)
	}
	return x
}
