package fuzz

import (
	"fmt"
	"math"
	"math/big"

	"github.com/ALTree/bigfloat"
	"github.com/transformer-cookbook/verify/numeric"
)

// backends receives the backend of one precision through numeric.Visit,
// the way eval.New instantiates a model, so that the targets test the
// backends the engine really dispatches to.
type backends struct {
	rat numeric.Backend[*big.Rat]
	bf  numeric.Backend[*big.Float]
	f64 numeric.Backend[float64]
	f32 numeric.Backend[float32]
	iv  numeric.Backend[*numeric.Interval]
}

func (v *backends) Rat(b numeric.Backend[*big.Rat]) error               { v.rat = b; return nil }
func (v *backends) BigFloat(b numeric.Backend[*big.Float]) error        { v.bf = b; return nil }
func (v *backends) Float64(b numeric.Backend[float64]) error            { v.f64 = b; return nil }
func (v *backends) Float32(b numeric.Backend[float32]) error            { v.f32 = b; return nil }
func (v *backends) Interval(b numeric.Backend[*numeric.Interval]) error { v.iv = b; return nil }

// backendOf returns the backends of the precision called name (exactly
// one field is set).
func backendOf(name string) *backends {
	v := &backends{}
	if err := numeric.Visit(numeric.MustParsePrecision(name), v); err != nil {
		panic(err)
	}
	return v
}

// sameFloat reports whether a and b are the same value of a format: both
// NaN (any payload), or the same bits, so that +0 and −0 differ.
func sameFloat(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// fmtFloat prints a float64 exactly (%x) and in decimal, for reports.
func fmtFloat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Sprint(x)
	}
	return fmt.Sprintf("%x (%g)", x, x)
}

// sqrtOdd returns √x for a finite x > 0, rounded to odd at bits ≥ 2 bits
// or more: truncated, with the last bit set when the truncation was
// inexact. Rounding that once more to any format of at most bits − 2
// significand bits gives the correctly rounded √x (Boldo and Melquiond,
// "Emulation of FMA and correctly rounded sums", IEEE TC 2008). It works
// on integers only (big.Int.Sqrt is the exact floor), so it does not
// share code with the engine's square root.
func sqrtOdd(x *big.Float, bits uint) *big.Float {
	mant := new(big.Float)
	e := x.MantExp(mant) // x = mant × 2^e, 1/2 ≤ mant < 1
	prec := int(x.Prec())
	m, acc := new(big.Float).SetMantExp(mant, prec).Int(nil)
	if acc != big.Exact {
		panic("sqrtOdd: mantissa is not an integer")
	}
	exp := e - prec // x = m × 2^exp
	if exp%2 != 0 {
		m.Lsh(m, 1)
		exp--
	}
	// Scale m by 4^k so that its square root has at least bits bits.
	k := 0
	if need := 2*int(bits) - m.BitLen(); need > 0 {
		k = (need + 1) / 2
	}
	n := new(big.Int).Lsh(m, uint(2*k))
	r := new(big.Int).Sqrt(n)
	shift := exp/2 - k // √x = √n × 2^shift
	if new(big.Int).Mul(r, r).Cmp(n) != 0 {
		r.Lsh(r, 1)
		r.SetBit(r, 0, 1)
		shift--
	}
	z := new(big.Float).SetInt(r) // exact: precision max(64, bit length)
	return z.SetMantExp(z, shift)
}

// refEnclosure returns an enclosure [lo, hi] of op(x) (op is "exp" or
// "log") computed by github.com/ALTree/bigfloat at w bits, an
// implementation independent of the engine's. ALTree promises no correct
// rounding, so the enclosure is widened to 2^16 of its ulps either side,
// far more than its error. x must be finite, positive for log, and of
// moderate size for exp (ALTree hangs on huge arguments). w + 64 must stay
// at most 1024: above, ALTree races on its global π cache.
func refEnclosure(op string, x *big.Float, w uint) (lo, hi *big.Float) {
	var v *big.Float
	switch op {
	case "exp":
		v = refExp(x, w)
	case "log":
		v = bigfloat.Log(new(big.Float).SetPrec(w).Set(x))
	default:
		panic("refEnclosure: unknown op " + op)
	}
	if v.Sign() == 0 {
		return v, v
	}
	// |v| × 2^-(w-16), exact, then v ∓ it exactly at 2w + 32 bits.
	d := new(big.Float).Abs(v)
	d.SetMantExp(d, -int(w)+16)
	lo = new(big.Float).SetPrec(2*w+32).Sub(v, d)
	hi = new(big.Float).SetPrec(2*w+32).Add(v, d)
	return lo, hi
}

// refExp is ALTree's exp(x) at about w bits, by exp(x) = exp(x/2^s)^(2^s)
// with |x/2^s| < 1. ALTree's Exp starts its Newton iteration from
// math.Exp(x), which for x in about (−745, −708) is a subnormal with a few
// bits of precision, and then stops too early: Exp(−745) at 320 bits is
// wrong from the 8th digit on. From |x| < 1 the start is good to 53 bits.
// Each squaring doubles the relative error, so the s squarings run at
// w + s + 32 bits.
func refExp(x *big.Float, w uint) *big.Float {
	s := 0
	if x.Sign() != 0 {
		s = max(0, x.MantExp(nil)) // |x| < 2^s
	}
	p := w + uint(s) + 32
	xr := new(big.Float).SetPrec(p).Set(x)
	xr.SetMantExp(xr, -s) // exact
	v := bigfloat.Exp(xr)
	for range s {
		v.Mul(v, v)
	}
	return v
}

// bfText prints a big.Float in decimal and exactly (hexadecimal
// significand, binary exponent).
func bfText(v *big.Float) string {
	if v == nil {
		return "<nil>"
	}
	return v.Text('g', -1) + " (" + v.Text('p', 0) + ")"
}
