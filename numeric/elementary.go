package numeric

import (
	"math/big"

	"github.com/transformer-cookbook/verify/numeric/internal/bigmath"
)

// zivRound returns the correctly rounded value of a real number given by
// enclosures: enc(w) must contain the number and have w-bit endpoints, and
// round maps a big.Float to the target format. It asks for enclosures at
// growing working precisions (Ziv's strategy) until both endpoints round to
// the same value, which is then the correctly rounded result whatever the
// number is. The elementary functions take transcendental values at every
// argument other than the special points, which enc returns as exact
// points, so the loop stops; should it ever reach bigmath.Ziv's limit,
// zivRound reports ErrRoundingUndecided rather than guess.
func zivRound[R any](target uint, enc func(w uint) bigmath.Interval,
	round func(*big.Float) R, same func(a, b R) bool) (R, bool) {
	var r R
	ok := bigmath.Ziv(target, enc, func(iv bigmath.Interval) bool {
		lo, hi := round(iv.Lo), round(iv.Hi)
		if same(lo, hi) {
			r = lo
			return true
		}
		return false
	})
	return r, ok
}

// funcOf maps an operation name to its bigmath function.
var funcOf = map[string]bigmath.Func{
	"exp":  bigmath.FExp,
	"log":  bigmath.FLog,
	"erf":  bigmath.FErf,
	"tanh": bigmath.FTanh,
}

// enclosure returns enc for zivRound: enclosures of op(x) for finite x
// (x > 0 for log), and whether exp left big.Float's exponent range.
func enclosure(op string, x *big.Float) (func(w uint) bigmath.Interval, *bigmath.Status) {
	f := funcOf[op]
	status := new(bigmath.Status)
	return func(w uint) bigmath.Interval {
		iv, st := bigmath.Enclose(f, x, w)
		*status = st
		return iv
	}, status
}
