package bigmath

import (
	"math"
	"math/big"
	"math/bits"
)

// This file is a fast path for exp at target precisions of at most 53
// bits and float64 arguments: the bulk of softmax. It computes an
// enclosure of exp(x) in 128-bit fixed point with an explicit error bound,
// without allocating, and rounds both ends to the target; when they
// differ (exp(x) lies within about 2^-105 of a rounding boundary, so for
// one argument in 2^50 or so) the caller falls back to Exp and Ziv's
// strategy.
//
// Method: N = round(64 x / log 2) = 64k + j with 0 ≤ j < 64, and
// r = x − N·(log 2)/64, so |r| ≤ (log 2)/128 ≈ 0.0054 and
//
//	exp(x) = 2^k · 2^(j/64) · exp(r).
//
// exp(r) is summed in fixed point with 124 fractional bits. The error
// budget, relative to the result:
//
//   - r: x is exact at 2^-116 (|x| ≥ 2^-55 has a lowest bit ≥ 2^-107);
//     (log 2)/64 is stored to 2^-128, so N·(log 2)/64 is off by at most
//     |N|·2^-128 < 2^-111 (|N| < 2^17), plus 2^-116 from truncation:
//     |error(r)| < 2^-110.9, and exp(r + δ) = exp(r)(1 + δ + …).
//   - |r| ≤ (log 2)/128 + tiny < 2^-7 (checked; otherwise no fast path).
//     exp(r) = Σ_{n≤14} r^n/n! + tail, tail ≤ 2|r|^15/15! < 2^-140; each
//     term loses at most 2n units of 2^-124 to truncation, 210 units in
//     all: < 2^-116.
//   - 2^(j/64) is stored rounded to nearest at 2^-124 (computed at start-up
//     from certified enclosures), and the product truncates once.
//
// The total is below 2^-109 relative; the enclosure uses 2^-106.
const (
	fastFrac     = 124 // fractional bits of the fixed-point numbers
	fastMinMag   = -55 // |x| < 2^-55: exp(x) rounds to 1 at any p ≤ 53
	fastMaxX     = 1 << 40
	fastRelError = 106 // the enclosure is R·(1 ± 2^-106)
)

// u128 is an unsigned 128-bit integer hi·2^64 + lo.
type u128 struct{ hi, lo uint64 }

func (a u128) add(b u128) u128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}
}

func (a u128) sub(b u128) u128 {
	lo, c := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, c)
	return u128{hi, lo}
}

func (a u128) less(b u128) bool { return a.hi < b.hi || a.hi == b.hi && a.lo < b.lo }

func (a u128) rsh(s uint) u128 {
	switch {
	case s == 0:
		return a
	case s >= 128:
		return u128{}
	case s >= 64:
		return u128{0, a.hi >> (s - 64)}
	}
	return u128{a.hi >> s, a.lo>>s | a.hi<<(64-s)}
}

func (a u128) lsh(s uint) u128 {
	switch {
	case s == 0:
		return a
	case s >= 128:
		return u128{}
	case s >= 64:
		return u128{a.lo << (s - 64), 0}
	}
	return u128{a.hi<<s | a.lo>>(64-s), a.lo << s}
}

// mulFix returns a·b / 2^124, truncated.
func mulFix(a, b u128) u128 {
	// 256-bit product p3:p2:p1:p0.
	h0, l0 := bits.Mul64(a.lo, b.lo)
	h1, l1 := bits.Mul64(a.lo, b.hi)
	h2, l2 := bits.Mul64(a.hi, b.lo)
	h3, l3 := bits.Mul64(a.hi, b.hi)
	p0 := l0
	p1, c := bits.Add64(h0, l1, 0)
	p2, c2 := bits.Add64(h1, l3, c)
	p3 := h3 + c2
	p1, c = bits.Add64(p1, l2, 0)
	p2, c2 = bits.Add64(p2, h2, c)
	p3 += c2
	_ = p0
	// Shift right by 124 = 64 + 60.
	return u128{p3<<4 | p2>>60, p2<<4 | p1>>60}
}

// divSmall returns a / n, truncated.
func (a u128) divSmall(n uint64) u128 {
	qh, r := bits.Div64(0, a.hi, n)
	ql, _ := bits.Div64(r, a.lo, n)
	return u128{qh, ql}
}

// mulSmall returns a·n for a product below 2^128.
func (a u128) mulSmall(n uint64) u128 {
	h, l := bits.Mul64(a.lo, n)
	return u128{a.hi*n + h, l}
}

// expFixed returns M and k with exp(x) ∈ [M − E, M + E] · 2^(k−124),
// E = M·2^-106 + 1, for 2^-55 ≤ |x| ≤ 2^40, or ok false outside that
// range. Beyond |x| = 1024 the reduction uses big integers
// (reduceLarge); the rest is the same.
func expFixed(x float64) (m u128, k int64, ok bool) {
	ax := math.Abs(x)
	if !(ax >= 0x1p-55 && ax <= fastMaxX) {
		return u128{}, 0, false
	}
	// N = round(64x / log 2): any integer is correct; this one keeps |r|
	// small, and |r| is checked below.
	N := int64(math.Round(x * 64 / math.Ln2))
	if ax > 1024 {
		r, rNeg, ok := reduceLarge(x, N)
		if !ok {
			return u128{}, 0, false
		}
		return expReduced(r, rNeg, N)
	}
	// X = |x| · 2^116, exact.
	frac, exp := math.Frexp(ax) // ax = frac · 2^exp, frac in [0.5, 1)
	mant := uint64(frac * (1 << 53))
	shift := exp - 53 + 116 // ≥ −55 − 53 + 116 + 1 > 0
	X := u128{0, mant}.lsh(uint(shift))
	absN := uint64(N)
	if N < 0 {
		absN = uint64(-N)
	}
	// P = |N|·ln2over64 / 2^12, i.e. |N|·(log 2)/64 at scale 2^116
	// (truncated). |N| < 2^17 and ln2over64 < 2^122, so split the product.
	ph, pl := bits.Mul64(ln2over64.lo, absN)
	ph2, pl2 := bits.Mul64(ln2over64.hi, absN)
	// product = ph2:(pl2+ph):pl (3 words)
	w1, c := bits.Add64(pl2, ph, 0)
	w2 := ph2 + c
	P := u128{w2<<52 | w1>>12, w1<<52 | pl>>12}
	// r = x − N·(log 2)/64, in sign-magnitude at scale 2^116.
	xNeg, nNeg := x < 0, N < 0
	var r u128
	var rNeg bool
	if xNeg == nNeg {
		if X.less(P) {
			r, rNeg = P.sub(X), !xNeg
		} else {
			r, rNeg = X.sub(P), xNeg
		}
	} else { // N = 0 with x of either sign, or opposite signs
		r, rNeg = X.add(P), xNeg
	}
	return expReduced(r, rNeg, N)
}

// expReduced finishes expFixed from r = x − N·(log 2)/64 at scale 2^116.
func expReduced(r u128, rNeg bool, N int64) (m u128, k int64, ok bool) {
	// |r| < 2^-7 (r < 2^109 at scale 2^116): check, then move to scale
	// 2^124.
	if r.hi>>(116-64-7) != 0 {
		return u128{}, 0, false
	}
	r = r.lsh(fastFrac - 116)
	// exp(r) = Σ r^n/n!, positive and negative terms kept apart.
	one := u128{1 << (fastFrac - 64), 0}
	pos, neg := one, u128{}
	t := one
	for n := uint64(1); n <= 14; n++ {
		t = mulFix(t, r).divSmall(n)
		if rNeg && n%2 == 1 {
			neg = neg.add(t)
		} else {
			pos = pos.add(t)
		}
	}
	s := pos.sub(neg)
	j := N & 63
	k = (N - j) / 64
	return mulFix(s, pow2j[j]), k, true
}

// toU128 returns the low 128 bits of a non-negative n.
func toU128(n *big.Int) u128 {
	word := func(v *big.Int) uint64 { return new(big.Int).And(v, mask64).Uint64() }
	return u128{word(new(big.Int).Rsh(n, 64)), word(n)}
}

var mask64 = new(big.Int).SetUint64(math.MaxUint64)

// reduceLarge computes r = x − N·(log 2)/64 at scale 2^116 for
// 1024 < |x| ≤ 2^40, with big integers: x has at most 52 − 10 = 42
// fractional bits, so x·2^116 is an integer; (log 2)/64 is stored to
// 2^-197, so |N| < 2^47 contributes an error below 2^-150, and the final
// truncation to 2^-116 one of 2^-116: the budget of expFixed holds.
func reduceLarge(x float64, N int64) (r u128, rNeg bool, ok bool) {
	X, _ := new(big.Float).SetMantExp(new(big.Float).SetFloat64(x), 116).Int(nil) // exact
	P := new(big.Int).Mul(big.NewInt(N), ln2over64Big)
	P.Rsh(P, 196-116) // floor; for negative P an error of at most 2^-116 too
	X.Sub(X, P)
	rNeg = X.Sign() < 0
	X.Abs(X)
	if X.BitLen() > 128 {
		return u128{}, false, false
	}
	return toU128(X), rNeg, true
}

// ExpFast returns exp(x) rounded by round, a correct rounding of M·2^e (M
// = hi·2^64 + lo) to a target of at most 53 bits, when both ends of the
// fixed-point enclosure round to the same value (same compares them). It
// returns false when the fast path does not apply (|x| < 2^-55 or
// |x| > 2^40) or cannot decide; the caller then uses Exp.
func ExpFast[R any](x float64, round func(hi, lo uint64, e int64) R, same func(a, b R) bool) (R, bool) {
	var zero R
	m, k, ok := expFixed(x)
	if !ok {
		return zero, false
	}
	e := m.rsh(fastRelError).add(u128{0, 1})
	lo, hi := m.sub(e), m.add(e)
	a := round(lo.hi, lo.lo, k-fastFrac)
	b := round(hi.hi, hi.lo, k-fastFrac)
	if !same(a, b) {
		return zero, false
	}
	return a, true
}

// RoundU128 rounds M·2^e (M = hi·2^64 + lo > 0) to nearest, ties to even,
// with p significand bits, and with the exponent of the least significant
// bit at least qmin (subnormals; use math.MinInt64 for none). It returns
// the integer significand I (at most 2^p, which the caller renormalises)
// and its exponent q: the result is I·2^q.
func RoundU128(hi, lo uint64, e int64, p int, qmin int64) (I uint64, q int64) {
	m := u128{hi, lo}
	top := int64(bits.Len64(hi))
	if hi == 0 {
		top = int64(bits.Len64(lo)) - 64
	}
	top += 64 - 1 // exponent of M's leading bit, relative to 2^0
	q = top + e - int64(p) + 1
	if q < qmin {
		q = qmin
	}
	s := q - e // bits to drop
	if s <= 0 {
		// Exact (cannot happen with the 125-bit values used here, kept
		// for completeness).
		return lo << uint(-s), q
	}
	if s > 128 {
		return 0, q
	}
	I = m.rsh(uint(s)).lo
	half := u128{}
	if s-1 < 128 {
		half = u128{0, 1}.lsh(uint(s - 1))
	}
	rem := m.sub(m.rsh(uint(s)).lsh(uint(s)))
	if half.less(rem) || rem == half && I&1 == 1 {
		I++
	}
	return I, q
}
