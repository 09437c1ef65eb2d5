package bigmath

import (
	"math"
	"math/big"
)

// Log returns an enclosure of log(x) with w-bit endpoints, for finite x > 0.
func Log(x *big.Float, w uint) Interval {
	one := big.NewFloat(1)
	if x.Cmp(one) == 0 {
		return exactPoint(new(big.Float).SetPrec(w))
	}
	// x = m·2^e with m in [1/√2, √2): log x = e·log 2 + log m, and the two
	// parts cannot cancel by more than a bit or two (|log m| ≤ 0.35,
	// |e·log 2| ≥ 0.69 when e ≠ 0).
	m := new(big.Float)
	e := x.MantExp(m) // m in [0.5, 1)
	if m.Cmp(big.NewFloat(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	// d = m − 1 is exact at the precision of m plus two bits.
	d := new(big.Float).SetPrec(m.Prec()+2).Sub(m, one)

	eBits := bitsOf(int64(e))
	wp := w + 24
	var lm Interval
	if d.Sign() == 0 {
		lm = exactPoint(new(big.Float))
	} else if log2Bound(d) <= -8 {
		// Close to 1: z = d/(2+d) has no cancellation and |z| < 2^-8, so
		// the series below gains at least 16 bits a term.
		lm = logNear1(exactPoint(d), wp)
	} else {
		// Take s square roots: log m = 2^s·log(m^(1/2^s)), and
		// m^(1/2^s) − 1 ≈ (log m)/2^s loses about s+2 bits to
		// cancellation, which the guard bits cover.
		s := int(math.Sqrt(float64(w))/2) + 1
		wp += uint(2 * s)
		r := exactPoint(m)
		for i := 0; i < s; i++ {
			r, _ = ISqrt(r, wp)
		}
		dr := ISub(r, exactPoint(one), wp)
		lm = IMulPow2(logNear1(dr, wp), s, wp)
	}
	if e == 0 {
		return IRound(lm, w)
	}
	ln2 := Ln2Interval(wp + uint(eBits))
	el := IMul(pointInt(int64(e)), ln2, wp+uint(eBits))
	return IRound(IAdd(el, lm, wp), w)
}

// logNear1 returns log(1 + d) = 2·artanh(z), z = d/(2 + d), for an interval
// d with |d| ≤ 0.42 (so |z| ≤ 0.18).
//
// Truncation bound: 2·artanh z = 2·Σ_{j≥0} z^(2j+1)/(2j+1). After the terms
// j ≤ N the remainder is at most 2·|z|^(2N+3)/(2N+3) · 1/(1 − z²)
// ≤ 2.1·|z|^(2N+3)/(2N+3) for |z| ≤ 0.18; the loop stops once it is below
// 2^-(w+4)·|z| (the result is at least |z|·2 in magnitude).
func logNear1(d Interval, w uint) Interval {
	two := exactPoint(big.NewFloat(2))
	den := IAdd(two, d, w)
	z, err := IQuo(d, den, w)
	if err != nil { // cannot happen for |d| ≤ 0.42
		panic(err)
	}
	z2 := ISqr(z, w)
	mag := z.MagHi()
	mag2 := Mul(mag, mag, w, Up)
	sum := z
	pow := z // z^(2j+1)
	bound := new(big.Float).Set(mag)
	eps := MulPow2(mag, -int(w)-4, w, Down)
	c21 := big.NewFloat(2.1)
	for j := int64(1); ; j++ {
		pow = IMul(pow, z2, w)
		sum = IAdd(sum, quoInt(pow, 2*j+1, w), w)
		bound = Mul(bound, mag2, w, Up) // |z|^(2j+1)
		// Remainder after term j: 2.1·|z|^(2j+3)/(2j+3), before doubling.
		next := Mul(bound, mag2, w, Up)
		tail := Quo(Mul(next, c21, w, Up), new(big.Float).SetInt64(2*j+3), w, Up)
		if tail.Cmp(eps) <= 0 || next.Sign() == 0 {
			return IMulPow2(Widen(sum, tail, w), 1, w)
		}
	}
}
