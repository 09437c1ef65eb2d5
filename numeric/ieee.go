package numeric

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"

	"github.com/transformer-cookbook/verify/numeric/internal/bigmath"
)

// ieeeElementary returns op(x) (op is exp, log, erf or tanh) correctly
// rounded to the format f, with the special values of IEEE 754 §9.2: NaN
// in, NaN out; exp(−∞) = +0, exp(+∞) = +∞; log(±0) = −∞, log(x < 0) = NaN,
// log(+∞) = +∞; erf and tanh are ±1 at ±∞ and keep the sign of a zero.
// In a format without infinities (fp8-e4m3) a result of ±∞ becomes NaN, as
// an overflow does. The second result is false only if correct rounding was
// not decided (see zivRound).
func ieeeElementary(f *Format, op string, x float64) (float64, bool) {
	if math.IsNaN(x) {
		return x, true
	}
	inf := math.IsInf(x, 0)
	switch op {
	case "exp":
		if inf && x < 0 {
			return 0, true
		}
		if inf {
			return f.Round(x), true
		}
	case "log":
		switch {
		case x < 0:
			return math.NaN(), true
		case x == 0:
			return f.Round(math.Inf(-1)), true
		case inf:
			return f.Round(x), true
		}
	case "erf", "tanh":
		if x == 0 {
			return x, true // keeps the sign of zero
		}
		if inf {
			return math.Copysign(1, x), true
		}
	}
	if op == "exp" {
		if r, ok := fastExp(f, x); ok {
			return r, true
		}
	}
	enc, _ := enclosure(op, new(big.Float).SetFloat64(x))
	return zivRound(uint(f.P), enc, f.RoundBig, sameFloat)
}

// fastExp is bigmath.ExpFast for an IEEE format (every one has p ≤ 53).
func fastExp(f *Format, x float64) (float64, bool) {
	if math.Abs(x) < 0x1p-55 {
		// |exp(x) − 1| < 2^-54: rounds to 1 at any p ≤ 53 (see ExpFast).
		return 1, true
	}
	// Far outside the format's range the result is known: exp(x) <
	// MinSubnormal/2 rounds to +0 once x < (EMin − P)·log 2, and exp(x)
	// overflows once x > (EMax + 1)·log 2. The margin of 1 covers the
	// float64 rounding of these thresholds many times over.
	if x < float64(f.EMin-f.P)*math.Ln2-1 {
		return 0, true
	}
	if x > float64(f.EMax+1)*math.Ln2+1 {
		return f.overflow(1), true
	}
	qmin := int64(f.EMin - f.P + 1) // the subnormal quantum
	return bigmath.ExpFast(x, func(hi, lo uint64, e int64) float64 {
		m, q := bigmath.RoundU128(hi, lo, e, f.P, qmin)
		if q > 1100 { // far beyond every format's range
			return f.overflow(1)
		}
		v := math.Ldexp(float64(m), int(q)) // exact: m ≤ 2^53
		if v > f.maxFinite {
			return f.overflow(1)
		}
		return v
	}, sameFloat)
}

// sameFloat reports whether a and b are the same value of a format: both
// NaN, or the same bits (so +0 and −0 differ, as they do in results).
func sameFloat(a, b float64) bool {
	if a != a || b != b {
		return a != a && b != b
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// ieeeRat is the exact value of a finite float64.
func ieeeRat(backend string, x float64) (*big.Rat, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, &OpError{Backend: backend, Op: "rat", Arg: strconv.FormatFloat(x, 'g', -1, 64), Err: ErrNotFinite}
	}
	return floatRat(x), nil
}

// floatRat is the exact value of a finite float64, as big.Rat.SetFloat64
// computes it but without its bit-by-bit normalisation and greatest
// common divisor: the mantissa's trailing zeros are cancelled at once, so
// the numerator is odd (or the value an integer) and the denominator a
// power of two, which is already the normal form. Every output of a
// forward pass is converted, so this costs one pass as much as its
// attention at n = 1024.
func floatRat(x float64) *big.Rat {
	mant, exp := math.Frexp(x) // x = mant · 2^exp, 0.5 ≤ |mant| < 1
	if mant == 0 {
		return new(big.Rat)
	}
	m := int64(math.Ldexp(mant, 53)) // exact: 53 bits; x = m · 2^(exp−53)
	exp -= 53
	tz := bits.TrailingZeros64(uint64(m))
	m >>= tz
	exp += tz
	r := new(big.Rat).SetInt64(m) // the denominator is set, to 1
	switch {
	case exp > 0:
		r.Num().Lsh(r.Num(), uint(exp))
	case exp < 0:
		// Denom is a reference to r's denominator once r is set.
		r.Denom().Lsh(r.Denom(), uint(-exp))
	}
	return r
}

// ieeeCmp orders two floats, Unordered when either is NaN; −0 = +0.
func ieeeCmp(x, y float64) Order {
	switch {
	case x < y:
		return Less
	case x > y:
		return Greater
	case x == y:
		return Equal
	}
	return Unordered
}

// ieeeOpError builds the error for an elementary function whose correct
// rounding was not decided.
func ieeeOpError(backend, op string, x float64) error {
	return &OpError{Backend: backend, Op: op, Arg: strconv.FormatFloat(x, 'g', -1, 64), Err: ErrRoundingUndecided}
}

// ieeeMax is the larger of x and y, NaN if either is NaN (as torch.maximum
// and IEEE 754-2019 maximum). math.Max is not used: it returns +Inf for
// Max(+Inf, NaN). +0 is larger than −0.
func ieeeMax(x, y float64) float64 {
	if x != x || y != y {
		return math.NaN()
	}
	return math.Max(x, y)
}

// ieeeMin is the smaller of x and y, NaN if either is NaN; −0 < +0.
func ieeeMin(x, y float64) float64 {
	if x != x || y != y {
		return math.NaN()
	}
	return math.Min(x, y)
}
