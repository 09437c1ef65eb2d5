package numeric

import (
	"math"
	"math/big"
	"strconv"
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
	enc, _ := enclosure(op, new(big.Float).SetFloat64(x))
	return zivRound(uint(f.P), enc, f.RoundBig, sameFloat)
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
	return new(big.Rat).SetFloat64(x), nil
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
	return &OpError{Backend: backend, Op: op, Arg: strconv.FormatFloat(x, 'g', -1, 64), Err: ErrUndecided}
}
