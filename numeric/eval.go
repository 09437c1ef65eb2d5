package numeric

import (
	"math/big"

	"github.com/transformer-cookbook/verify/numeric/internal/bigmath"
)

// evalRounded evaluates e rounded once by round: rationals go through
// setRat (one correct rounding), irrational expressions through Ziv's
// strategy on their enclosures. fail builds the error for an expression
// without a value or an undecided rounding.
func evalRounded[R any](e Expr, target uint, setRat func(*big.Rat) R,
	round func(*big.Float) R, same func(a, b R) bool) (R, error) {
	var zero R
	if r, ok, err := e.Rat(); err != nil {
		return zero, err
	} else if ok {
		return setRat(r), nil
	}
	var encErr error
	enc := func(w uint) bigmath.Interval {
		iv, err := e.enclose(w)
		if err != nil && encErr == nil {
			encErr = err
		}
		if err != nil { // a point, so that Ziv stops at once
			z := new(big.Float)
			return bigmath.Interval{Lo: z, Hi: z}
		}
		return iv
	}
	r, ok := zivRound(target, enc, round, same)
	if encErr != nil {
		return zero, encErr
	}
	if !ok {
		return zero, ErrRoundingUndecided
	}
	return r, nil
}

func evalError(backend string, e Expr, err error) error {
	return &OpError{Backend: backend, Op: "eval", Arg: e.String(), Err: err}
}

// Eval returns e when it is rational, and otherwise an error wrapping
// ErrIrrational: Exact never approximates.
func (Exact) Eval(z *big.Rat, e Expr) (*big.Rat, error) {
	switch {
	case e.n == nil:
		return ratOr(z).SetInt64(0), nil
	case e.n.op == "lit":
		// A literal is copied once, not through Rat's copy.
		return ratOr(z).Set(e.n.val), nil
	}
	r, ok, err := e.Rat()
	if err != nil {
		return nil, evalError("exact", e, err)
	}
	if !ok {
		return nil, evalError("exact", e, ErrIrrational)
	}
	return ratOr(z).Set(r), nil
}

// Eval returns e rounded once to b's precision.
func (b BigFloat) Eval(z *big.Float, e Expr) (*big.Float, error) {
	r, err := evalRounded(e, b.prec, func(r *big.Rat) *big.Float { return b.SetRat(nil, r) }, b.round, sameBig)
	if err != nil {
		return nil, evalError(b.name, e, err)
	}
	return b.dst(z).Set(r), nil
}

func ieeeEval(f *Format, e Expr) (float64, error) {
	if x, ok := e.smallInt(); ok {
		// An integer below 2^53 is a float64 exactly, and Round rounds a
		// float64 to the format once, as RoundRat would its rational:
		// the common weight (0, ±1, a position) without a rational.
		if f == Binary64 {
			return x, nil
		}
		return f.Round(x), nil
	}
	r, err := evalRounded(e, uint(f.P), f.RoundRat, f.RoundBig, sameFloat)
	if err != nil {
		return 0, evalError(f.Name, e, err)
	}
	return r, nil
}

// Eval returns e rounded once to float64.
func (Float64) Eval(_ float64, e Expr) (float64, error) { return ieeeEval(Binary64, e) }

// Eval returns e rounded once to float32.
func (Float32) Eval(_ float32, e Expr) (float32, error) {
	r, err := ieeeEval(Binary32, e)
	return float32(r), err
}

// Eval returns e rounded once to the format.
func (em Emulated) Eval(_ float64, e Expr) (float64, error) { return ieeeEval(em.F, e) }

// Eval returns an enclosure of e with P-bit endpoints, a few ulps wide
// (the tightest one when e is rational).
func (b Intervals) Eval(z *Interval, e Expr) (*Interval, error) {
	if r, ok, err := e.Rat(); err != nil {
		return nil, evalError(b.name, e, err)
	} else if ok {
		return b.SetRat(z, r), nil
	}
	iv, err := e.enclose(b.prec + 8)
	if err != nil {
		return nil, evalError(b.name, e, err)
	}
	return b.store(z, bigmath.IRound(iv, b.prec)), nil
}
