package numeric

import (
	"errors"
	"fmt"
	"math/big"
)

// Backend is the arithmetic of one number format. T is the type of its
// values: *big.Rat for Exact, float64 for Float64 and the emulated formats,
// float32 for Float32, *BigFloat for BigFloats and *Interval for Intervals.
//
// Every method that produces a number takes a destination z first and returns
// the result, in the style of math/big: z = b.Add(z, x, y). Backends whose
// values are pointers store the result in z (allocating when z is nil) so
// that loops can reuse storage; backends with plain values ignore z. Callers
// must therefore always use the returned value, and must not let two
// variables share one pointer unless both may change together.
//
// Each operation is rounded once, to nearest with ties to even, in the format
// of the backend (Exact never rounds; Interval rounds its endpoints outward).
// Operations that cannot produce a value in a backend (exp in Exact, division
// by an interval containing zero) return an error that names the operation
// and the backend; the rounding backends follow IEEE 754 instead and return
// ±Inf or NaN where the format has them.
type Backend[T any] interface {
	// Precision is the parsed precision this backend was made from.
	Precision() Precision

	// New returns a new value equal to +0.
	New() T
	// Set sets z to x (a copy, for pointer values).
	Set(z, x T) T
	// SetInt64 sets z to x rounded to the format.
	SetInt64(z T, x int64) T
	// SetRat sets z to x rounded once to the format (Interval: the tightest
	// enclosure with P-bit endpoints).
	SetRat(z T, x *big.Rat) T
	// Eval sets z to the exact real number e rounded once to the format
	// (Interval: an enclosure a few ulps wide). Exact evaluates only
	// rational expressions and refuses the others with ErrIrrational.
	Eval(z T, e Expr) (T, error)

	// Rat returns the exact value of x. It fails for ±Inf and NaN and for
	// intervals that are not a single point.
	Rat(x T) (*big.Rat, error)
	// Bounds returns rationals lo ≤ hi such that the value x stands for lies
	// in [lo, hi]: lo = hi = Rat(x) for every backend but Interval.
	Bounds(x T) (lo, hi *big.Rat, err error)
	// Finite reports whether x is a finite number (both endpoints, for an
	// interval).
	Finite(x T) bool
	// Format returns a short decimal form of x that reads back to x in this
	// format (an interval prints as [lo, hi]).
	Format(x T) string

	Add(z, x, y T) T
	Sub(z, x, y T) T
	Mul(z, x, y T) T
	Neg(z, x T) T
	Abs(z, x T) T
	// Max and Min return the larger and smaller operand. In the IEEE formats
	// a NaN operand gives NaN, as torch.maximum does.
	Max(z, x, y T) T
	Min(z, x, y T) T

	Div(z, x, y T) (T, error)
	Sqrt(z, x T) (T, error)
	Exp(z, x T) (T, error)
	Log(z, x T) (T, error)
	Erf(z, x T) (T, error)
	Tanh(z, x T) (T, error)

	// Cmp compares x and y: Less, Equal or Greater, or Unordered when the
	// backend cannot order them (a NaN operand, or overlapping intervals).
	Cmp(x, y T) Order
	// Sign is Cmp(x, 0).
	Sign(x T) Order
}

// Order is the result of a comparison.
type Order int8

const (
	Less      Order = -1
	Equal     Order = 0
	Greater   Order = 1
	Unordered Order = 2 // NaN involved, or intervals that overlap
)

func (o Order) String() string {
	switch o {
	case Less:
		return "<"
	case Equal:
		return "="
	case Greater:
		return ">"
	case Unordered:
		return "unordered"
	}
	return fmt.Sprintf("Order(%d)", int8(o))
}

// Errors that backends wrap in an *OpError; test with errors.Is.
var (
	// ErrIrrational: the result has no exact rational value (Exact backend).
	ErrIrrational = errors.New("the result is not a rational number")
	// ErrDivByZero: division by zero, or by an interval that contains zero.
	ErrDivByZero = errors.New("division by zero")
	// ErrDomain: the argument is outside the function's domain (sqrt or log
	// of a negative number, in a backend without NaN).
	ErrDomain = errors.New("argument outside the domain")
	// ErrNotFinite: the value is ±Inf or NaN and has no rational value.
	ErrNotFinite = errors.New("value is not finite")
	// ErrNotPoint: the interval is wider than a single point.
	ErrNotPoint = errors.New("interval is not a single point")
	// ErrOverflow: the result lies beyond big.Float's exponent range
	// (about 2^±2^31), which the BigFloat backend cannot represent.
	ErrOverflow = errors.New("result beyond big.Float's exponent range")
	// ErrUnderflow: the result is nonzero but below big.Float's smallest
	// positive value.
	ErrUnderflow = errors.New("result below big.Float's smallest positive value")
	// ErrRoundingUndecided: correct rounding could not be decided within the
	// working-precision limit (Ziv's strategy gave up rather than guess).
	ErrRoundingUndecided = errors.New("correct rounding undecided at the working-precision limit")
)

// OpError reports an operation that a backend cannot carry out.
type OpError struct {
	Backend string // the precision name, e.g. "exact" or "interval:53"
	Op      string // the operation, e.g. "exp"
	Arg     string // the operand(s), in readable form; may be empty
	Err     error  // one of the Err* values above
}

func (e *OpError) Error() string {
	if e.Arg != "" {
		return fmt.Sprintf("%s backend: %s(%s): %v", e.Backend, e.Op, e.Arg, e.Err)
	}
	return fmt.Sprintf("%s backend: %s: %v", e.Backend, e.Op, e.Err)
}

func (e *OpError) Unwrap() error { return e.Err }
