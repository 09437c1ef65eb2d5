package numeric

import (
	"math"
	"math/big"
	"sync/atomic"
)

// NarrowMaxBits is the widest significand NarrowBigFloat computes: float64
// rounds every +, −, ×, ÷ and √ of two such values innocuously before the
// second rounding to P bits (2P + 2 ≤ 53, as for Emulated).
const NarrowMaxBits = 25

// narrowExpBits gives the range NarrowBigFloat's values keep to: normal
// numbers from 2^−510 to about 2^512, so that the product or quotient of
// two of them is a normal float64 (at least 2^−1022), and float64 computes
// every operation as Emulated's argument requires.
const narrowExpBits = 10

// NarrowBigFloat is BigFloat at P ≤ NarrowMaxBits bits computed in
// float64, many times faster, where its values stay within [2^−510, 2^512]
// in magnitude (or are 0): there the two give the same values, bit for
// bit, since both round each operation's exact result once to P bits.
// (BigFloat's exponent range is about ±2^31: an IEEE-like format of P bits
// with a 10-bit exponent field holds exactly the values of that range.)
//
// An operation whose result falls outside that range, or has no value (a
// division by zero, which BigFloat refuses), is counted in Exits, and
// from then on the values are meaningless: a caller reads Exits before and
// after a computation, and redoes it with BigFloat (Big) when it grew
// (eval.New's runner does). The elementary functions, conversions and
// printing go through BigFloat itself, so that they agree by construction;
// +, −, ×, ÷ and √ are float64's, rounded by Format.Round, as Emulated
// computes them.
type NarrowBigFloat struct {
	// F is the P-bit format with the narrow range; Big the backend whose
	// values these are.
	F     *Format
	Big   BigFloat
	exits *atomic.Uint64
	min   float64 // 2^EMin, the smallest magnitude kept
}

// NewNarrowBigFloat returns the backend of p-bit bigfloats in float64; p
// must lie in [MinBits, NarrowMaxBits].
func NewNarrowBigFloat(p uint) NarrowBigFloat {
	if p < MinBits || p > NarrowMaxBits {
		panic("numeric: NewNarrowBigFloat: precision out of range")
	}
	f := newIEEE(Precision{Kind: KindBigFloat, Bits: p}.String(), int(p), narrowExpBits)
	return NarrowBigFloat{F: f, Big: NewBigFloat(p), exits: new(atomic.Uint64), min: f.MinNormal()}
}

// Exits is the number of operations so far whose result left the range
// (or had no value): while it has not changed, every value computed is
// BigFloat's.
func (n NarrowBigFloat) Exits() uint64 { return n.exits.Load() }

// Precision is BigFloat's: the values are the same numbers.
func (n NarrowBigFloat) Precision() Precision { return n.Big.Precision() }

// check returns r, the rounding of the float64 result z of an operation
// outside the common case, counting an exit where BigFloat's result may
// differ: z below the range (the format's subnormals round differently;
// z is the exact result, or one rounded from a nonzero exact result and
// then nonzero itself, since float64 has room below the range), r above
// it, or r not a number.
func (n NarrowBigFloat) check(z, r float64) float64 {
	if z == 0 {
		return r
	}
	if !(math.Abs(z) >= n.min && math.Abs(r) <= n.F.maxFinite) {
		n.exits.Add(1)
	}
	return r
}

// Round rounds z, the float64 result of an operation on two values of the
// backend, to P bits, counting an exit as check does: the rounding the
// model's loops over plain float64 slices apply after each operation.
func (n NarrowBigFloat) Round(z float64) float64 {
	if r, ok := n.F.roundNormal(z); ok {
		return r
	}
	return n.check(z, n.F.roundSlow(z))
}

// fromBig converts a BigFloat value, which is on the P-bit grid, counting
// an exit where it is out of the range.
func (n NarrowBigFloat) fromBig(x *big.Float) float64 {
	f, acc := x.Float64()
	if acc != big.Exact {
		n.exits.Add(1)
		return math.NaN()
	}
	return n.check(f, f)
}

func (n NarrowBigFloat) toBig(x float64) *big.Float {
	return new(big.Float).SetPrec(n.Big.prec).SetMode(big.ToNearestEven).SetFloat64(x)
}

func (n NarrowBigFloat) New() float64             { return 0 }
func (n NarrowBigFloat) Set(_, x float64) float64 { return x }

func (n NarrowBigFloat) SetInt64(_ float64, x int64) float64 {
	return n.fromBig(n.Big.SetInt64(nil, x))
}

// SetRat rounds x once. A dyadic x with a numerator below 2^53 (integer
// weights, halves, quarters) is a float64 exactly, and Round does the one
// rounding; others go through BigFloat.
func (n NarrowBigFloat) SetRat(_ float64, x *big.Rat) float64 {
	if num, den := x.Num(), x.Denom(); num.IsInt64() && den.IsInt64() {
		a, d := num.Int64(), den.Int64()
		if -1<<53 < a && a < 1<<53 && d&(d-1) == 0 {
			return n.Round(float64(a) / float64(d))
		}
	}
	return n.fromBig(n.Big.SetRat(nil, x))
}

func (n NarrowBigFloat) Eval(_ float64, e Expr) (float64, error) {
	switch {
	case e.n == nil:
		return 0, nil
	case e.n.op == "lit":
		return n.SetRat(0, e.n.val), nil
	}
	r, err := n.Big.Eval(nil, e)
	if err != nil {
		return 0, err
	}
	return n.fromBig(r), nil
}

func (n NarrowBigFloat) Rat(x float64) (*big.Rat, error) { return ieeeRat(n.F.Name, x) }

func (n NarrowBigFloat) Bounds(x float64) (lo, hi *big.Rat, err error) {
	r, err := ieeeRat(n.F.Name, x)
	if err != nil {
		return nil, nil, err
	}
	return r, new(big.Rat).Set(r), nil
}

func (n NarrowBigFloat) Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Format prints x as BigFloat prints it.
func (n NarrowBigFloat) Format(x float64) string {
	if !n.Finite(x) {
		return n.Big.Format(new(big.Float).SetInf(x < 0))
	}
	return n.Big.Format(n.toBig(x))
}

func (n NarrowBigFloat) Add(_, x, y float64) float64 {
	z := float64(x + y)
	if r, ok := n.F.roundNormal(z); ok {
		return r
	}
	return n.check(z, n.F.roundSlow(z))
}

func (n NarrowBigFloat) Sub(_, x, y float64) float64 {
	z := float64(x - y)
	if r, ok := n.F.roundNormal(z); ok {
		return r
	}
	return n.check(z, n.F.roundSlow(z))
}

func (n NarrowBigFloat) Mul(_, x, y float64) float64 {
	z := float64(x * y)
	if r, ok := n.F.roundNormal(z); ok {
		return r
	}
	return n.check(z, n.F.roundSlow(z))
}

func (n NarrowBigFloat) Neg(_, x float64) float64 { return -x }
func (n NarrowBigFloat) Abs(_, x float64) float64 { return math.Abs(x) }

// Max and Min return an operand as BigFloat's do: the first of two equal
// ones (−0 and +0 included).
func (n NarrowBigFloat) Max(_, x, y float64) float64 {
	if x >= y {
		return x
	}
	return y
}

func (n NarrowBigFloat) Min(_, x, y float64) float64 {
	if x <= y {
		return x
	}
	return y
}

// Div counts an exit for a zero divisor, where BigFloat refuses.
func (n NarrowBigFloat) Div(_, x, y float64) (float64, error) {
	if y == 0 {
		n.exits.Add(1)
		return math.NaN(), nil
	}
	z := float64(x / y)
	if r, ok := n.F.roundNormal(z); ok {
		return r, nil
	}
	return n.check(z, n.F.roundSlow(z)), nil
}

// Sqrt goes through BigFloat for 0 and negative operands (the sign of a
// zero root, the domain error).
func (n NarrowBigFloat) Sqrt(_, x float64) (float64, error) {
	if !(x > 0) {
		return n.big1(BigFloat.Sqrt, x)
	}
	z := math.Sqrt(x)
	if r, ok := n.F.roundNormal(z); ok {
		return r, nil
	}
	return n.check(z, n.F.roundSlow(z)), nil
}

func (n NarrowBigFloat) Exp(_, x float64) (float64, error)  { return n.big1(BigFloat.Exp, x) }
func (n NarrowBigFloat) Log(_, x float64) (float64, error)  { return n.big1(BigFloat.Log, x) }
func (n NarrowBigFloat) Erf(_, x float64) (float64, error)  { return n.big1(BigFloat.Erf, x) }
func (n NarrowBigFloat) Tanh(_, x float64) (float64, error) { return n.big1(BigFloat.Tanh, x) }

// big1 computes a function of one operand by BigFloat.
func (n NarrowBigFloat) big1(f func(BigFloat, *big.Float, *big.Float) (*big.Float, error), x float64) (float64, error) {
	if !n.Finite(x) {
		n.exits.Add(1)
		return math.NaN(), nil
	}
	r, err := f(n.Big, nil, n.toBig(x))
	if err != nil {
		return 0, err
	}
	return n.fromBig(r), nil
}

func (n NarrowBigFloat) Cmp(x, y float64) Order { return ieeeCmp(x, y) }
func (n NarrowBigFloat) Sign(x float64) Order   { return ieeeCmp(x, 0) }
