package bigmath

import (
	"errors"
	"math/big"
)

// Interval is a closed interval [Lo, Hi] of reals with big.Float endpoints.
// Lo is never +Inf and Hi never −Inf. The operations below return a new
// interval whose endpoints have prec bits and which contains every result
// of the operation on points of the operands.
type Interval struct {
	Lo, Hi *big.Float
}

// Point returns the interval [x, x] rounded outward to prec bits.
func Point(x *big.Float, prec uint) Interval {
	return Interval{Round(x, prec, Down), Round(x, prec, Up)}
}

// IsPoint reports whether Lo = Hi.
func (x Interval) IsPoint() bool { return x.Lo.Cmp(x.Hi) == 0 }

// Contains reports whether y lies in x.
func (x Interval) Contains(y *big.Float) bool {
	return x.Lo.Cmp(y) <= 0 && y.Cmp(x.Hi) <= 0
}

func IAdd(x, y Interval, prec uint) Interval {
	return Interval{Add(x.Lo, y.Lo, prec, Down), Add(x.Hi, y.Hi, prec, Up)}
}

func ISub(x, y Interval, prec uint) Interval {
	return Interval{Sub(x.Lo, y.Hi, prec, Down), Sub(x.Hi, y.Lo, prec, Up)}
}

func INeg(x Interval, prec uint) Interval {
	return Interval{Round(new(big.Float).Neg(x.Hi), prec, Down), Round(new(big.Float).Neg(x.Lo), prec, Up)}
}

// IMul multiplies: the extremes of the four endpoint products. Where no
// endpoint is 0 and not both intervals contain 0, the signs of the
// endpoints say which products are the extremes (the rounding is
// monotone, so the extreme of the rounded products is the rounded extreme
// product), and only those two are computed: the same endpoints, bit for
// bit, as imulAll gives.
func IMul(x, y Interval, prec uint) Interval {
	sx, sy := signOf(x), signOf(y)
	var a, b, c, d *big.Float // lo = a·b, hi = c·d
	switch {
	case sx == hasZeroEnd || sy == hasZeroEnd || sx == straddles && sy == straddles:
		return imulAll(x, y, prec)
	case sx == positive && sy == positive:
		a, b, c, d = x.Lo, y.Lo, x.Hi, y.Hi
	case sx == positive && sy == negative:
		a, b, c, d = x.Hi, y.Lo, x.Lo, y.Hi
	case sx == negative && sy == positive:
		a, b, c, d = x.Lo, y.Hi, x.Hi, y.Lo
	case sx == negative && sy == negative:
		a, b, c, d = x.Hi, y.Hi, x.Lo, y.Lo
	case sx == positive: // y straddles 0
		a, b, c, d = x.Hi, y.Lo, x.Hi, y.Hi
	case sx == negative:
		a, b, c, d = x.Lo, y.Hi, x.Lo, y.Lo
	case sy == positive: // x straddles 0
		a, b, c, d = x.Lo, y.Hi, x.Hi, y.Hi
	default: // x straddles 0, y < 0
		a, b, c, d = x.Hi, y.Lo, x.Lo, y.Lo
	}
	return Interval{Mul(a, b, prec, Down), Mul(c, d, prec, Up)}
}

// The signs of an interval's points (signOf).
const (
	hasZeroEnd = iota // an endpoint is 0
	positive
	negative
	straddles // Lo < 0 < Hi
)

func signOf(x Interval) int {
	lo, hi := x.Lo.Sign(), x.Hi.Sign()
	switch {
	case lo == 0 || hi == 0:
		return hasZeroEnd
	case lo > 0:
		return positive
	case hi < 0:
		return negative
	}
	return straddles
}

// imulAll is IMul from all four endpoint products; of equal extremes it
// keeps the first in the order lo·lo, lo·hi, hi·lo, hi·hi (which decides
// the sign of a zero endpoint).
func imulAll(x, y Interval, prec uint) Interval {
	lo := Mul(x.Lo, y.Lo, prec, Down)
	hi := Mul(x.Lo, y.Lo, prec, Up)
	for _, p := range [][2]*big.Float{{x.Lo, y.Hi}, {x.Hi, y.Lo}, {x.Hi, y.Hi}} {
		if l := Mul(p[0], p[1], prec, Down); l.Cmp(lo) < 0 {
			lo = l
		}
		if h := Mul(p[0], p[1], prec, Up); h.Cmp(hi) > 0 {
			hi = h
		}
	}
	return Interval{lo, hi}
}

// ISqr is x² (tighter than IMul(x, x) when x contains 0).
func ISqr(x Interval, prec uint) Interval {
	a := IAbs(x)
	return Interval{Mul(a.Lo, a.Lo, prec, Down), Mul(a.Hi, a.Hi, prec, Up)}
}

// IAbs is {|t| : t ∈ x}; it is exact.
func IAbs(x Interval) Interval {
	switch {
	case x.Lo.Sign() >= 0:
		return x
	case x.Hi.Sign() <= 0:
		return Interval{new(big.Float).Neg(x.Hi), new(big.Float).Neg(x.Lo)}
	}
	hi := new(big.Float).Neg(x.Lo)
	if x.Hi.Cmp(hi) > 0 {
		hi = x.Hi
	}
	return Interval{new(big.Float).SetPrec(x.Lo.Prec()), hi}
}

// ErrZeroDivisor is returned when a divisor interval contains zero.
var ErrZeroDivisor = errors.New("divisor interval contains zero")

// IQuo divides x by y, which must not contain zero.
func IQuo(x, y Interval, prec uint) (Interval, error) {
	switch {
	case y.Lo.Sign() > 0:
		return quoPos(x, y, prec), nil
	case y.Hi.Sign() < 0:
		q := quoPos(x, INegExact(y), prec)
		return INegExact(q), nil
	}
	return Interval{}, ErrZeroDivisor
}

// quoPos divides by a positive interval, choosing the endpoint pairing by
// sign so that ∞/∞ never arises.
func quoPos(x, y Interval, prec uint) Interval {
	dl, dh := y.Hi, y.Lo
	if x.Lo.Sign() < 0 {
		dl = y.Lo
	}
	if x.Hi.Sign() < 0 {
		dh = y.Hi
	}
	return Interval{Quo(x.Lo, dl, prec, Down), Quo(x.Hi, dh, prec, Up)}
}

// INegExact negates without rounding.
func INegExact(x Interval) Interval {
	return Interval{new(big.Float).Neg(x.Hi), new(big.Float).Neg(x.Lo)}
}

// ISqrt is √x for x ≥ 0 (a lower endpoint below zero is an error).
func ISqrt(x Interval, prec uint) (Interval, error) {
	if x.Lo.Sign() < 0 {
		return Interval{}, errors.New("square root of an interval with negative numbers")
	}
	hi := x.Hi
	if hi.IsInf() {
		return Interval{Sqrt(x.Lo, prec, big.ToNegativeInf), hi}, nil
	}
	return Interval{Sqrt(x.Lo, prec, big.ToNegativeInf), Sqrt(hi, prec, big.ToPositiveInf)}, nil
}

// IMulPow2 multiplies by 2^k.
func IMulPow2(x Interval, k int, prec uint) Interval {
	return Interval{MulPow2(x.Lo, k, prec, Down), MulPow2(x.Hi, k, prec, Up)}
}

// Widen adds [−e, +e] to x (e ≥ 0).
func Widen(x Interval, e *big.Float, prec uint) Interval {
	return Interval{Sub(x.Lo, e, prec, Down), Add(x.Hi, e, prec, Up)}
}

// IRound rounds both endpoints outward to prec bits.
func IRound(x Interval, prec uint) Interval {
	return Interval{Round(x.Lo, prec, Down), Round(x.Hi, prec, Up)}
}

// Hull is the smallest interval containing x and y.
func Hull(x, y Interval) Interval {
	lo, hi := x.Lo, x.Hi
	if y.Lo.Cmp(lo) < 0 {
		lo = y.Lo
	}
	if y.Hi.Cmp(hi) > 0 {
		hi = y.Hi
	}
	return Interval{lo, hi}
}

// RelNarrow reports whether the width of x is at most 2^-b·|t| for every t
// in x (never when x contains 0).
func (x Interval) RelNarrow(b int) bool {
	m := IAbs(x).Lo
	if m.Sign() == 0 {
		return false
	}
	width := Sub(x.Hi, x.Lo, 64, Up)
	return width.Cmp(MulPow2(m, -b, 64, Down)) <= 0
}

// MagHi returns an upper bound on |t| for t in x.
func (x Interval) MagHi() *big.Float {
	return IAbs(x).Hi
}

func intervalOf(lo, hi *big.Float) Interval { return Interval{lo, hi} }

// exactPoint returns [x, x] without rounding.
func exactPoint(x *big.Float) Interval { return Interval{x, x} }

// pointInt is [k, k] for an integer k.
func pointInt(k int64) Interval {
	f := new(big.Float).SetInt64(k)
	return Interval{f, f}
}
