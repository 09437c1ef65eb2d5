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
// Its operations follow the package's conventions: results in receivers
// (z = b.Add(z, x, y); always use the returned value), each rounded once
// to nearest, ties to even (Exact never rounds; Interval rounds its
// endpoints outward), and errors where a backend has no value (the
// rounding backends return ±Inf or NaN instead, as IEEE 754 does).
type Backend[T any] interface {
	// Precision is the parsed precision this backend was made from.
	Precision() Precision

	// New returns a new value equal to +0.
	New() T
	// Set sets z to x (a copy, for pointer values).
	Set(z, x T) T
	SetInt64(z T, x int64) T // z = x, rounded
	// SetRat sets z to x rounded once (Interval: the tightest enclosure).
	SetRat(z T, x *big.Rat) T
	// Eval sets z to e rounded once (Interval: an enclosure a few ulps
	// wide); Exact refuses an irrational e with ErrIrrational.
	Eval(z T, e Expr) (T, error)

	// Rat returns the exact value of x (an error for ±Inf, NaN, and
	// intervals that are not a point).
	Rat(x T) (*big.Rat, error)
	// Bounds returns lo ≤ hi enclosing the value x stands for (lo = hi =
	// Rat(x) but for an interval).
	Bounds(x T) (lo, hi *big.Rat, err error)
	// Finite reports whether x is finite (both endpoints, for an interval).
	Finite(x T) bool
	// Format returns a short decimal form of x that reads back to x ([lo,
	// hi] for an interval).
	Format(x T) string

	Add(z, x, y T) T
	Sub(z, x, y T) T
	Mul(z, x, y T) T
	Neg(z, x T) T
	Abs(z, x T) T
	// Max and Min give NaN for a NaN operand, as torch.maximum does.
	Max(z, x, y T) T
	Min(z, x, y T) T

	Div(z, x, y T) (T, error)
	Sqrt(z, x T) (T, error)
	Exp(z, x T) (T, error)
	Log(z, x T) (T, error)
	Erf(z, x T) (T, error)
	Tanh(z, x T) (T, error)

	// Cmp compares x and y, Unordered for a NaN or overlapping intervals.
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
