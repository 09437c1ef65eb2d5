package numeric

import (
	"errors"
	"fmt"
	"math"
	"math/big"
)

// ErrNoRounding: the precision does not round (exact, or interval
// enclosures), so a real number has no single correctly rounded value
// in it.
var ErrNoRounding = errors.New("the precision does not round to single values")

// RoundExpr returns the value of e correctly rounded to p (to nearest,
// ties to even, with the format's subnormals and overflow), as an exact
// rational: the value a format must hold where the paper claims the real
// number e exactly, since no value of the format is nearer. It is the
// evaluation the backends' Eval make (one rounding of the real value,
// never of a rounded intermediate), so an irrational e is decided by
// Ziv's strategy on enclosures at growing working precisions, and one
// whose enclosures keep straddling a rounding boundary up to the
// working-precision limit returns ErrRoundingUndecided rather than guess:
// a check must then report the comparison undecided. A rounding that
// leaves the format's range (±∞, or NaN in a format without infinities)
// returns ErrNotFinite. p must round: exact and interval precisions
// return ErrNoRounding.
func RoundExpr(p Precision, e Expr) (*big.Rat, error) {
	switch p.Kind {
	case KindBigFloat:
		x, err := NewBigFloat(p.Bits).Eval(nil, e)
		if err != nil {
			return nil, err
		}
		if x.IsInf() {
			return nil, &OpError{Backend: p.String(), Op: "eval", Arg: e.String(), Err: ErrNotFinite}
		}
		r, _ := x.Rat(nil)
		return r, nil
	case KindFloat64, KindFloat32, KindEmulated:
		if p.Format == nil {
			return nil, fmt.Errorf("precision %v has no format", p)
		}
		x, err := ieeeEval(p.Format, e)
		if err != nil {
			return nil, err
		}
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, &OpError{Backend: p.Format.Name, Op: "eval", Arg: e.String(), Err: ErrNotFinite}
		}
		return new(big.Rat).SetFloat64(x), nil
	}
	return nil, &OpError{Backend: p.String(), Op: "eval", Arg: e.String(), Err: ErrNoRounding}
}
