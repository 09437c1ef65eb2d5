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
func (Exact) Set(z, x *big.Rat) *big.Rat             { return ratOr(z).Set(x) }
func (Exact) SetInt64(z *big.Rat, x int64) *big.Rat  { return ratOr(z).SetInt64(x) }
func (Exact) SetRat(z *big.Rat, x *big.Rat) *big.Rat { return ratOr(z).Set(x) }

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
// saved. They, Div and Cmp also take the machine-word path for small
// operands (see small).
func (Exact) Add(z, x, y *big.Rat) *big.Rat {
	switch {
	case x.Sign() == 0:
		return ratOr(z).Set(y)
	case y.Sign() == 0:
		return ratOr(z).Set(x)
	}
	if xn, xd, ok := small(x); ok {
		if yn, yd, ok := small(y); ok {
			if xd == yd {
				return setSmall(z, xn+yn, xd)
			}
			return setSmall(z, xn*yd+yn*xd, xd*yd)
		}
	}
	return ratOr(z).Add(x, y)
}

func (Exact) Sub(z, x, y *big.Rat) *big.Rat {
	switch {
	case y.Sign() == 0:
		return ratOr(z).Set(x)
	case x.Sign() == 0:
		return ratOr(z).Neg(y)
	}
	if xn, xd, ok := small(x); ok {
		if yn, yd, ok := small(y); ok {
			if xd == yd {
				return setSmall(z, xn-yn, xd)
			}
			return setSmall(z, xn*yd-yn*xd, xd*yd)
		}
	}
	return ratOr(z).Sub(x, y)
}

// Small rationals, whose numerator and denominator are below 2^31 in
// absolute value (the weights and most values of the cookbook's models),
// are computed in int64 arithmetic, where no product or sum of two such
// terms overflows, and reduced by a machine gcd: the same value in lowest
// terms as big.Rat's, without big.Rat's allocations for its temporaries
// and its gcd. Anything larger goes through big.Rat.
const maxSmall = 1<<31 - 1

// small returns x = n/d with |n|, d ≤ maxSmall, when x is that small.
func small(x *big.Rat) (n, d int64, ok bool) {
	num := x.Num()
	if !num.IsInt64() {
		return 0, 0, false
	}
	if n = num.Int64(); n > maxSmall || n < -maxSmall {
		return 0, 0, false
	}
	if x.IsInt() {
		return n, 1, true
	}
	// x is a fraction, so Denom is a reference to its denominator, not
	// a new Int.
	den := x.Denom()
	if !den.IsInt64() {
		return 0, 0, false
	}
	if d = den.Int64(); d > maxSmall {
		return 0, 0, false
	}
	return n, d, true
}

// setSmall sets z to n/d (d > 0) in lowest terms.
func setSmall(z *big.Rat, n, d int64) *big.Rat {
	a := uint64(n)
	if n < 0 {
		a = uint64(-n)
	}
	b := uint64(d)
	for b != 0 {
		a, b = b, a%b
	}
	// a = gcd(|n|, d) ≥ 1, since d > 0.
	n /= int64(a)
	d /= int64(a)
	z = ratOr(z).SetInt64(n)
	if d != 1 {
		// SetInt64 stored the denominator 1, so Denom is a reference to
		// it; n/d is already in lowest terms, as a Rat must be.
		z.Denom().SetInt64(d)
	}
	return z
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
	if xn, xd, ok := small(x); ok {
		if yn, yd, ok := small(y); ok {
			return setSmall(z, xn*yn, xd*yd)
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
	if xn, xd, ok := small(x); ok {
		if yn, yd, ok := small(y); ok {
			if yn < 0 {
				xn, yn = -xn, -yn
			}
			return setSmall(z, xn*yd, xd*yn), nil
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

// cmpRat is x.Cmp(y), by cross-multiplying in int64 when both are small
// (big.Rat.Cmp allocates its two products).
func cmpRat(x, y *big.Rat) int {
	if xn, xd, ok := small(x); ok {
		if yn, yd, ok := small(y); ok {
			a, b := xn*yd, yn*xd
			switch {
			case a < b:
				return -1
			case a > b:
				return 1
			}
			return 0
		}
	}
	return x.Cmp(y)
}
func (Exact) Sign(x *big.Rat) Order { return Order(x.Sign()) }

var ratOne = big.NewRat(1, 1)
