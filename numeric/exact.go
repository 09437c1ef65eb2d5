package numeric

import (
	"math/big"
)

// Exact is the backend of exact rational arithmetic on *big.Rat: +, −, ×, ÷,
// negation, comparison, max and min never round.
//
// The elementary functions have no rational value except at a few points,
// and there Exact returns it: exp(0) = 1, log(1) = 0, erf(0) = tanh(0) = 0,
// and √x when x is the square of a rational. Anywhere else they return an
// *OpError wrapping ErrIrrational that names the operation: Exact never
// approximates.
type Exact struct{}

// NewExact returns the exact backend.
func NewExact() Exact { return Exact{} }

func (Exact) Precision() Precision { return Precision{Kind: KindExact} }

func ratOr(z *big.Rat) *big.Rat {
	if z == nil {
		return new(big.Rat)
	}
	return z
}

func (Exact) New() *big.Rat                          { return new(big.Rat) }
func (Exact) Set(z, x *big.Rat) *big.Rat             { return setRat(z, x) }
func (Exact) SetInt64(z *big.Rat, x int64) *big.Rat  { return ratOr(z).SetInt64(x) }
func (Exact) SetRat(z *big.Rat, x *big.Rat) *big.Rat { return ratOr(z).Set(x) }

// setRat is z.Set(x), without allocating a denominator for a new z when
// x is an integer: z's is 1 already when z is an integer (a new Rat's,
// empty, reads as 1), and big.Rat.Set would copy x's.
func setRat(z, x *big.Rat) *big.Rat {
	z = ratOr(z)
	if z != x && x.IsInt() && z.IsInt() {
		z.Num().Set(x.Num())
		return z
	}
	return z.Set(x)
}

func (Exact) Rat(x *big.Rat) (*big.Rat, error) { return new(big.Rat).Set(x), nil }
func (Exact) Bounds(x *big.Rat) (lo, hi *big.Rat, err error) {
	return new(big.Rat).Set(x), new(big.Rat).Set(x), nil
}
func (Exact) Finite(*big.Rat) bool     { return true }
func (Exact) Format(x *big.Rat) string { return x.RatString() }

// Add, Sub and Mul take shortcuts where big.Rat would normalise a result
// it cannot change: adding 0 and multiplying by 0 or ±1, which are most of
// a routed model's operations (residual connections add the zeros of the
// components a sublayer does not write; routing weights are 0 and ±1).
// The results are the same values; only the greatest common divisors are
// saved. They, Div and Cmp also take the machine-word path when the
// operands and the result fit in words (see ratWords).
func (Exact) Add(z, x, y *big.Rat) *big.Rat {
	switch {
	case x.Sign() == 0:
		return setRat(z, y)
	case y.Sign() == 0:
		return setRat(z, x)
	}
	if xn, xd, ok := ratWords(x); ok {
		if yn, yd, ok := ratWords(y); ok {
			if n, d, ok := addFrac(xn, xd, yn, yd); ok {
				return setWords(z, n, d)
			}
		}
	}
	return ratOr(z).Add(x, y)
}

func (Exact) Sub(z, x, y *big.Rat) *big.Rat {
	switch {
	case y.Sign() == 0:
		return setRat(z, x)
	case x.Sign() == 0:
		return ratOr(z).Neg(y)
	}
	if xn, xd, ok := ratWords(x); ok {
		// ratWords leaves out −2^63, so −yn is a word.
		if yn, yd, ok := ratWords(y); ok {
			if n, d, ok := addFrac(xn, xd, -yn, yd); ok {
				return setWords(z, n, d)
			}
		}
	}
	return ratOr(z).Sub(x, y)
}

func (Exact) Mul(z, x, y *big.Rat) *big.Rat {
	switch {
	case x.Sign() == 0 || y.Sign() == 0:
		return ratOr(z).SetInt64(0)
	case isUnit(x):
		if x.Sign() < 0 {
			return ratOr(z).Neg(y)
		}
		return ratOr(z).Set(y)
	case isUnit(y):
		if y.Sign() < 0 {
			return ratOr(z).Neg(x)
		}
		return ratOr(z).Set(x)
	}
	if xn, xd, ok := ratWords(x); ok {
		if yn, yd, ok := ratWords(y); ok {
			if n, d, ok := mulFrac(xn, xd, yn, yd); ok {
				return setWords(z, n, d)
			}
		}
	}
	return ratOr(z).Mul(x, y)
}

// isUnit reports whether x is 1 or −1.
func isUnit(x *big.Rat) bool {
	if !x.IsInt() {
		return false
	}
	n := x.Num()
	return n.IsInt64() && (n.Int64() == 1 || n.Int64() == -1)
}
func (Exact) Neg(z, x *big.Rat) *big.Rat { return ratOr(z).Neg(x) }
func (Exact) Abs(z, x *big.Rat) *big.Rat { return ratOr(z).Abs(x) }

func (Exact) Max(z, x, y *big.Rat) *big.Rat {
	if cmpRat(x, y) >= 0 {
		return ratOr(z).Set(x)
	}
	return ratOr(z).Set(y)
}

func (Exact) Min(z, x, y *big.Rat) *big.Rat {
	if cmpRat(x, y) <= 0 {
		return ratOr(z).Set(x)
	}
	return ratOr(z).Set(y)
}

func (Exact) Div(z, x, y *big.Rat) (*big.Rat, error) {
	if y.Sign() == 0 {
		return nil, &OpError{Backend: "exact", Op: "div", Arg: x.RatString() + " / 0", Err: ErrDivByZero}
	}
	if xn, xd, ok := ratWords(x); ok {
		if yn, yd, ok := ratWords(y); ok {
			// x/y = (xn/xd)·(yd/yn), with the sign moved to the numerator.
			if yn < 0 {
				xn, yn = -xn, -yn
			}
			if n, d, ok := mulFrac(xn, xd, yd, yn); ok {
				return setWords(z, n, d), nil
			}
		}
	}
	return ratOr(z).Quo(x, y), nil
}

// Sqrt returns √x when it is rational: x ≥ 0 in lowest terms a/b with a and
// b perfect squares.
func (Exact) Sqrt(z, x *big.Rat) (*big.Rat, error) {
	if x.Sign() < 0 {
		return nil, &OpError{Backend: "exact", Op: "sqrt", Arg: x.RatString(), Err: ErrDomain}
	}
	a := new(big.Int).Sqrt(x.Num())
	b := new(big.Int).Sqrt(x.Denom())
	if new(big.Int).Mul(a, a).Cmp(x.Num()) != 0 || new(big.Int).Mul(b, b).Cmp(x.Denom()) != 0 {
		return nil, &OpError{Backend: "exact", Op: "sqrt", Arg: x.RatString(), Err: ErrIrrational}
	}
	return ratOr(z).SetFrac(a, b), nil
}

// Exp is 1 at 0; exp of any other rational is irrational (Lindemann).
func (Exact) Exp(z, x *big.Rat) (*big.Rat, error) {
	if x.Sign() == 0 {
		return ratOr(z).SetInt64(1), nil
	}
	return nil, &OpError{Backend: "exact", Op: "exp", Arg: x.RatString(), Err: ErrIrrational}
}

// Log is 0 at 1; log of any other positive rational is irrational, since
// log(p/q) = m/n would make e^m = (p/q)^n algebraic.
func (Exact) Log(z, x *big.Rat) (*big.Rat, error) {
	if x.Sign() <= 0 {
		return nil, &OpError{Backend: "exact", Op: "log", Arg: x.RatString(), Err: ErrDomain}
	}
	if x.Cmp(ratOne) == 0 {
		return ratOr(z).SetInt64(0), nil
	}
	return nil, &OpError{Backend: "exact", Op: "log", Arg: x.RatString(), Err: ErrIrrational}
}

// Erf is 0 at 0. At other rationals no rational value is known, and Exact
// does not approximate.
func (Exact) Erf(z, x *big.Rat) (*big.Rat, error) {
	if x.Sign() == 0 {
		return ratOr(z).SetInt64(0), nil
	}
	return nil, &OpError{Backend: "exact", Op: "erf", Arg: x.RatString(), Err: ErrIrrational}
}

// Tanh is 0 at 0; elsewhere tanh x = (e^{2x} − 1)/(e^{2x} + 1) is
// irrational because e^{2x} is.
func (Exact) Tanh(z, x *big.Rat) (*big.Rat, error) {
	if x.Sign() == 0 {
		return ratOr(z).SetInt64(0), nil
	}
	return nil, &OpError{Backend: "exact", Op: "tanh", Arg: x.RatString(), Err: ErrIrrational}
}

func (Exact) Cmp(x, y *big.Rat) Order { return Order(cmpRat(x, y)) }

// cmpRat is x.Cmp(y), by cross-multiplying in 128 bits when both are
// words (big.Rat.Cmp allocates its two products).
func cmpRat(x, y *big.Rat) int {
	if xn, xd, ok := ratWords(x); ok {
		if yn, yd, ok := ratWords(y); ok {
			return cmpWords(xn, xd, yn, yd)
		}
	}
	return x.Cmp(y)
}
func (Exact) Sign(x *big.Rat) Order { return Order(x.Sign()) }

var ratOne = big.NewRat(1, 1)
