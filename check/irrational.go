package check

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sync"

	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// The comparison with a real reference (Want.Reals) that no precision
// holds exactly. The reference x is known only by certified enclosures
// [lo, hi] ∋ x, and an output is judged by the comparison the checker
// makes at every point of the enclosure: where the answer is the same
// at every point, it is the answer for x; where the enclosure straddles
// (some points pass, some fail), the enclosure is refined and the
// comparison made again, and after the last refinement the output is
// undecided, which is neither a pass nor a failure.
//
// What "right" means, per precision and claim (check/doc.go repeats it):
//
//   - a claim of exactness at a precision that rounds (P-bit bigfloats,
//     fp64 … fp8): the output must be the format's correct rounding of x
//     (to nearest, ties to even), the value of the format nearest x and
//     the only one that loses nothing the format could keep. It is the
//     rounding every point of the enclosure rounds to, which Ziv's
//     strategy finds (numeric.RoundExpr); an x within the working
//     precision's reach of a midpoint of the format's grid is undecided.
//     A real reference that happens to be rational (√(4/25) = 2/5) is
//     judged the same way, so that one recipe's outputs meet one
//     requirement whatever the input; but one written as a rational
//     literal (the values of an input given by its stream, which Reals
//     holds only so that an enclosure may confirm them) is claimed
//     exactly at every precision, as Values are;
//   - a claim of exactness in interval arithmetic: the output's
//     enclosure must contain x, which it certainly does when it contains
//     x's enclosure, and certainly does not when the two are disjoint;
//   - a claimed bound |output − x| ≤ B, at any precision: every point of
//     the output's enclosure within B of every point of x's (the largest
//     distance at most B) passes; the nearest points further apart than
//     B fail.

// refineBits are the precisions of x's enclosures, in turn: the first is
// targetsOf's; each refinement doubles it, a few times (an irrational x
// leaves any fixed boundary once the enclosure is narrow enough; an x
// exactly on a boundary, a real that is rational, stays undecided).
var refineBits = []uint{realBits, 2 * realBits, 4 * realBits, 8 * realBits}

// outcome is the answer of one comparison with a real reference.
type outcome int8

const (
	passes outcome = iota
	fails
	straddles // some points of the enclosure pass and some fail
)

// settle asks judge of x's enclosures at refineBits in turn, from [lo,
// hi] (the first), until it answers passes or fails; it returns straddles
// when even the last does. judge must give the answer for every point
// of the enclosure it is given, or straddles.
func settle(e numeric.Expr, lo, hi *big.Rat, judge func(lo, hi *big.Rat) outcome) (outcome, error) {
	for k, bits := range refineBits {
		if k > 0 {
			var err error
			if lo, hi, err = e.Enclose(bits); err != nil {
				return fails, err
			}
		}
		if o := judge(lo, hi); o != straddles {
			return o, nil
		}
	}
	return straddles, nil
}

// rounds reports whether p rounds each operation to a single value: a
// bigfloat or a floating-point format, not exact or interval arithmetic.
func rounds(p numeric.Precision) bool {
	switch p.Kind {
	case numeric.KindBigFloat, numeric.KindFloat64, numeric.KindFloat32, numeric.KindEmulated:
		return true
	}
	return false
}

// realExact judges got against a real reference t claimed exactly, at p:
// ok, or undecided, or the reason of a refutation. It is called only for
// t a real (t.real, or irrational).
func (t target) realExact(p numeric.Precision, got eval.Value, name string) (ok, undecided bool, why string) {
	if rounds(p) && !t.literal {
		return t.correctlyRounded(p, got, name)
	}
	if t.r != nil {
		// A real that is rational, in exact or interval arithmetic, or a
		// rational literal at any precision: an enclosure containing it
		// confirms it (a point, by being equal to it).
		if got.Contains(t.r) {
			return true, false, ""
		}
		return false, false, fmt.Sprintf("%s = %s does not contain %s", name, got.Text, t.text())
	}
	if !got.Finite() {
		return false, false, fmt.Sprintf("%s = %s is not finite", name, got.Text)
	}
	o, err := settle(t.expr, t.lo, t.hi, func(lo, hi *big.Rat) outcome {
		switch {
		case got.Lo.Cmp(lo) <= 0 && hi.Cmp(got.Hi) <= 0:
			return passes
		case got.Hi.Cmp(lo) < 0 || hi.Cmp(got.Lo) < 0:
			return fails
		}
		return straddles
	})
	switch {
	case err != nil:
		return false, false, fmt.Sprintf("the reference %v has no value: %v", t.expr, err)
	case o == passes:
		return true, false, ""
	case o == straddles:
		return false, true, fmt.Sprintf("undecided: %s = %s overlaps the enclosure of %s at %d bits but does not contain it", name, got.Text, t.text(), refineBits[len(refineBits)-1])
	}
	return false, false, fmt.Sprintf("%s = %s, want exactly %s, which is irrational: only an interval enclosure containing it confirms it, and this value does not", name, got.Text, t.text())
}

// correctlyRounded judges got, at a precision that rounds, against the
// correct rounding of the real t.
func (t target) correctlyRounded(p numeric.Precision, got eval.Value, name string) (ok, undecided bool, why string) {
	e := t.expr
	if t.r != nil {
		e = numeric.Lit(t.r)
	}
	want, err := reals.round(p, e)
	switch {
	case errors.Is(err, numeric.ErrRoundingUndecided):
		return false, true, fmt.Sprintf("undecided: %s = %s, and the correct rounding of %s to %s is undecided (its enclosures straddle a midpoint of %s's grid up to the working-precision limit)", name, got.Text, t.text(), p, p)
	case err != nil:
		return false, false, fmt.Sprintf("%s = %s, want the correct rounding of %s to %s, which it has none: %v", name, got.Text, t.text(), p, err)
	case !got.Finite():
		return false, false, fmt.Sprintf("%s = %s is not finite", name, got.Text)
	case got.Equals(want):
		return true, false, ""
	}
	return false, false, fmt.Sprintf("%s = %s, want %s, the correct rounding to %s of %s", name, got.Text, ratText(want), p, t.text())
}

// realBound judges got against a real reference t (irrational) under the
// bound max: passes when the largest distance between got's enclosure and
// t's is at most max, fails when the least exceeds it, and otherwise
// refines.
func (t target) realBound(got eval.Value, max *big.Rat, name string) (ok, undecided bool, why string) {
	if !got.Finite() {
		return false, false, fmt.Sprintf("%s = %s is not finite", name, got.Text)
	}
	var far *big.Rat
	o, err := settle(t.expr, t.lo, t.hi, func(lo, hi *big.Rat) outcome {
		near, f := distances(got.Lo, got.Hi, lo, hi)
		far = f
		switch {
		case f.Cmp(max) <= 0:
			return passes
		case near.Cmp(max) > 0:
			return fails
		}
		return straddles
	})
	switch {
	case err != nil:
		return false, false, fmt.Sprintf("the reference %v has no value: %v", t.expr, err)
	case o == passes:
		return true, false, ""
	case o == straddles:
		return false, true, fmt.Sprintf("undecided: |%s − %s| for %s is at most %s, and the bound %s lies between the least and the largest distance to the enclosure at %d bits", got.Text, t.text(), name, decimal(far), max.RatString(), refineBits[len(refineBits)-1])
	}
	return false, false, fmt.Sprintf("|%s − %s| = %s for %s exceeds the bound %s", got.Text, t.text(), decimal(far), name, max.RatString())
}

// distances returns the least and the largest distance between a point
// of [a, b] and a point of [c, d] (a ≤ b, c ≤ d).
func distances(a, b, c, d *big.Rat) (near, far *big.Rat) {
	near = new(big.Rat)
	switch {
	case b.Cmp(c) < 0:
		near.Sub(c, b)
	case d.Cmp(a) < 0:
		near.Sub(a, d)
	}
	far = new(big.Rat).Sub(d, a)
	if g := new(big.Rat).Sub(b, c); g.Cmp(far) > 0 {
		far = g
	}
	return near, far
}

// ratText prints a rational as a fraction, with its decimal value where
// it is not an integer.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.RatString()
	}
	f, _ := r.Float64()
	return fmt.Sprintf("%s ≈ %.17g", r.RatString(), f)
}

// realCache holds the enclosures and correct roundings of the real
// references met, by their expressions' text: a recipe's references
// repeat across positions and inputs (pe-ao's ±1/√m at every position),
// and an enclosure at realBits costs far more than printing the
// expression. It is cleared when it grows past maxCached, which bounds
// its memory on sweeps whose references never repeat (random vectors
// through a layer norm). The values it hands out are shared: nothing
// writes to them.
type realCache struct {
	mu       sync.Mutex
	enclosed map[string]enclosed
	rounded  map[string]roundedValue
}

type enclosed struct {
	r      *big.Rat // the value, where it is rational
	lo, hi *big.Rat
	// loDown and hiUp are lo and hi rounded outward to errorBits bits,
	// for farUp.
	loDown, hiUp *big.Float
	err          error
}

type roundedValue struct {
	r   *big.Rat
	err error
}

const maxCached = 1 << 14

var reals = &realCache{enclosed: map[string]enclosed{}, rounded: map[string]roundedValue{}}

// enclose returns e's value where rational, or else its enclosure at
// realBits, or why it has none.
func (c *realCache) enclose(e numeric.Expr) enclosed {
	key := e.String()
	c.mu.Lock()
	v, ok := c.enclosed[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	if r, ok, err := e.Rat(); err == nil && ok {
		v = enclosed{r: r}
	} else {
		if v.lo, v.hi, v.err = e.Enclose(realBits); v.err == nil {
			v.loDown, v.hiUp = outward(v.lo, v.hi)
		}
	}
	c.mu.Lock()
	if len(c.enclosed) >= maxCached {
		c.enclosed = map[string]enclosed{}
	}
	c.enclosed[key] = v
	c.mu.Unlock()
	return v
}

// round returns numeric.RoundExpr(p, e), remembered.
func (c *realCache) round(p numeric.Precision, e numeric.Expr) (*big.Rat, error) {
	key := p.String() + "\x00" + e.String()
	c.mu.Lock()
	v, ok := c.rounded[key]
	c.mu.Unlock()
	if ok {
		return v.r, v.err
	}
	v.r, v.err = numeric.RoundExpr(p, e)
	c.mu.Lock()
	if len(c.rounded) >= maxCached {
		c.rounded = map[string]roundedValue{}
	}
	c.rounded[key] = v
	c.mu.Unlock()
	return v.r, v.err
}

// farUp returns an upper bound on the largest distance between a point
// of [a, b] and a point of [c, d], max(d − a, b − c), given c rounded
// down and d rounded up to errorBits bits (cUp, dDown: outward), each
// difference rounded up at errorBits bits: the error an irrational
// reference reports (Report.MaxError, printed to 3 digits). Exact
// differences of realBits-bit ends would cost a gcd of long integers per
// output and position, most of a check's time; a bound rounded up is
// still a bound. The comparisons themselves (realExact, realBound) are
// exact.
func farUp(a, b *big.Rat, cDown, dUp *big.Float) *big.Rat {
	up := func(x *big.Float) *big.Float { return x.SetPrec(errorBits).SetMode(big.ToPositiveInf) }
	down := new(big.Float).SetPrec(errorBits).SetMode(big.ToNegativeInf)
	f := up(new(big.Float)).Sub(dUp, down.SetRat(a))
	g := up(new(big.Float)).Sub(up(new(big.Float)).SetRat(b), cDown)
	if g.Cmp(f) > 0 {
		f = g
	}
	r, _ := f.Rat(nil)
	return r
}

// outward returns lo rounded down and hi rounded up to errorBits bits.
func outward(lo, hi *big.Rat) (*big.Float, *big.Float) {
	return new(big.Float).SetPrec(errorBits).SetMode(big.ToNegativeInf).SetRat(lo),
		new(big.Float).SetPrec(errorBits).SetMode(big.ToPositiveInf).SetRat(hi)
}

// errorBits is the precision of the error bounds of farUp.
const errorBits = 64

// realNote is the report's note on how a recipe whose references are
// real numbers is judged at p ("" for other recipes and precisions),
// found on one input of length n drawn with a fixed seed.
func realNote(con *recipes.Construction, p numeric.Precision, n int) string {
	if !rounds(p) || con.Inputs == nil || con.Expected == nil {
		return ""
	}
	probe, _ := con.Inputs(n, rand.New(rand.NewPCG(0, 1)), 1)
	if len(probe) == 0 {
		return ""
	}
	for _, w := range con.Expected(probe[0]) {
		for _, e := range w.Reals {
			if !e.IsLiteral() {
				return fmt.Sprintf("real references (√, exp, log, sin, cos): at %s an output claimed exact must be the real's correct rounding to %s, decided where every point of a certified enclosure rounds alike (the enclosure refined a few times; undecided where it still straddles a rounding boundary)", p, p)
			}
		}
	}
	return ""
}
