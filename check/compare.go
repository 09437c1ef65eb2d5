package check

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// realBits is the precision of the enclosures of irrational intended
// values: far below any backend's rounding, so that a failed containment
// is the backend's, not the reference's.
const realBits = 256

// target is one intended value: a rational r, or an irrational real known
// by a certified enclosure [lo, hi] with lo < hi. Its text is written only
// when asked (a failure's message, a report's expected values): a check
// compares many values and prints few.
type target struct {
	r      *big.Rat
	lo, hi *big.Rat
	// loDown and hiUp are lo and hi rounded outward, for errorOf.
	loDown, hiUp *big.Float
	// real marks a value given as a real (Want.Reals): an enclosure that
	// contains it confirms it even where it happens to be rational, as
	// √(2/50) = 1/5 is, since the recipe's outputs are irrational in
	// general and only enclosures can be asked of them.
	real bool
	// literal marks a real given as a rational literal (the values of an
	// input given by its stream, recipes.valueWant): claimed exactly at
	// every precision, not by its correct rounding (irrational.go).
	literal bool
	// expr is a real's expression, and noValue why it has no enclosure.
	expr    numeric.Expr
	noValue error
	// unclaimed, when set, says why the paper claims nothing about this
	// output (Want.Unclaimed): it is not compared and has no error.
	unclaimed string
}

// text prints t: a rational as a fraction, an irrational real as its
// expression with a decimal approximation.
func (t target) text() string {
	switch {
	case t.unclaimed != "":
		return "not claimed"
	case t.r != nil:
		return t.r.RatString()
	case t.noValue != nil:
		return fmt.Sprintf("%v (no value: %v)", t.expr, t.noValue)
	}
	f, _ := t.lo.Float64()
	return fmt.Sprintf("%v ≈ %.17g", t.expr, f)
}

// targetsOf returns w's intended values, Reals enclosed where irrational.
func targetsOf(w recipes.Want) []target {
	if w.Reals == nil {
		ts := make([]target, len(w.Values))
		for k, v := range w.Values {
			if !w.Claimed(k) {
				ts[k] = target{unclaimed: w.Unclaimed[k]}
				continue
			}
			ts[k] = target{r: v}
		}
		return ts
	}
	ts := make([]target, len(w.Reals))
	for k, e := range w.Reals {
		if !w.Claimed(k) {
			ts[k] = target{unclaimed: w.Unclaimed[k]}
			continue
		}
		v := reals.enclose(e)
		switch {
		case v.r != nil:
			ts[k] = target{r: v.r, real: true, expr: e, literal: e.IsLiteral()}
		case v.err != nil:
			// A reference without a value is a bug in the recipe; an
			// empty enclosure makes every comparison fail and say so.
			ts[k] = target{expr: e, noValue: v.err}
		default:
			ts[k] = target{lo: v.lo, hi: v.hi, loDown: v.loDown, hiUp: v.hiUp, expr: e}
		}
	}
	return ts
}

// errorOf returns an upper bound on |got − t| (the largest distance from
// got's enclosure to t's), or nil when got is not finite or t has no
// value.
func (t target) errorOf(got eval.Value) *big.Rat {
	if t.unclaimed != "" {
		// Nothing is claimed, so nothing is measured: it adds nothing to
		// the largest error.
		return new(big.Rat)
	}
	if !got.Finite() {
		return nil
	}
	if t.r != nil {
		return got.Error(t.r)
	}
	if t.lo == nil {
		return nil
	}
	return farUp(got.Lo, got.Hi, t.loDown, t.hiUp)
}

// equals reports whether got is exactly t: only possible for rationals.
func (t target) equals(got eval.Value) bool {
	return t.r != nil && got.Equals(t.r)
}

// within reports whether got confirms t: a rational t only as a point
// equal to it; an irrational t, which no point equals, by an enclosure
// (the interval backend) that contains it; a real t that happens to be
// rational, by either.
func (t target) within(got eval.Value) bool {
	if t.r != nil && t.real {
		return got.Contains(t.r)
	}
	if t.r != nil {
		return got.Equals(t.r)
	}
	return t.lo != nil && got.Finite() && got.Lo.Cmp(t.lo) <= 0 && t.hi.Cmp(got.Hi) <= 0
}

// errorsOf returns an upper bound on |got − want| per output value (nil:
// not finite).
func errorsOf(w recipes.Want, got eval.PositionOutput) []*big.Rat {
	return errorsOfTargets(targetsOf(w), got)
}

// errorsOfTargets is errorsOf on w's targets, computed once by the
// caller.
func errorsOfTargets(ts []target, got eval.PositionOutput) []*big.Rat {
	errs := make([]*big.Rat, len(ts))
	for k, t := range ts {
		errs[k] = t.errorOf(got.Values[k])
	}
	return errs
}

func exactlyEqual(w recipes.Want, got eval.PositionOutput) bool {
	return exactlyEqualTargets(w, targetsOf(w), got)
}

// exactlyEqualTargets is exactlyEqual on w's targets ts.
func exactlyEqualTargets(w recipes.Want, ts []target, got eval.PositionOutput) bool {
	if w.Symbol != "" && got.Symbol != w.Symbol {
		return false
	}
	for k, t := range ts {
		if t.unclaimed == "" && !t.equals(got.Values[k]) {
			return false
		}
	}
	return true
}

// Compare decides one position: the symbol must match, and each value
// must equal the intended one exactly, or lie within its bound where the
// paper claims only a bound. In the interval backend an output is an
// enclosure of the model's exact real output: it confirms a rational
// value only as a single point equal to it (an enclosure that contains
// the value but is wider is undecided: it does not pass, and it is
// reported as undecided, not as refuted; one that excludes it is a
// certified refutation), and an irrational value by
// containing it. It returns the reason of a failure. Compare knows no
// precision: a real reference (Want.Reals) is judged as in exact or
// interval arithmetic; CompareAt judges it at the precision the output
// was computed in.
func Compare(w recipes.Want, got eval.PositionOutput, bounds []recipes.Bound, labels []string) (bool, string) {
	ok, _, why := compare(numeric.Precision{}, w, got, bounds, labels)
	return ok, why
}

// CompareAt is Compare for an output computed at precision p: where p
// rounds, an output claimed to be a real reference exactly must be that
// real's correct rounding to p (irrational.go says why, and how an
// enclosure decides it). It reports as well whether a failure is
// undecided rather than refuted.
func CompareAt(p numeric.Precision, w recipes.Want, got eval.PositionOutput, bounds []recipes.Bound, labels []string) (ok, undecided bool, why string) {
	return compare(p, w, got, bounds, labels)
}

// compare is CompareAt: it says as well whether a failure is undecided:
// no output refuted, but some enclosure contains its rational reference
// without being the single point that would confirm it, or a real
// reference's enclosure straddles the comparison (irrational.go).
func compare(p numeric.Precision, w recipes.Want, got eval.PositionOutput, bounds []recipes.Bound, labels []string) (ok, undecided bool, why string) {
	return compareTargets(p, w, nil, got, bounds, labels)
}

// compareTargets is compare on w's targets ts (nil: computed here), so
// that a caller that needs them too computes them once: enclosing a real
// reference, even from the cache, prints its expression.
func compareTargets(p numeric.Precision, w recipes.Want, ts []target, got eval.PositionOutput, bounds []recipes.Bound, labels []string) (ok, undecided bool, why string) {
	name := func(k int) string {
		if k < len(labels) {
			return labels[k]
		}
		return fmt.Sprintf("output %d", k+1)
	}
	if w.Symbol != "" && got.Symbol != w.Symbol {
		return false, false, fmt.Sprintf("output symbol %q, want %q", got.Symbol, w.Symbol)
	}
	if ts == nil {
		ts = targetsOf(w)
	}
	for k, t := range ts {
		if t.unclaimed != "" {
			continue
		}
		g := got.Values[k]
		b := boundOf(bounds, k)
		if k < len(w.Tol) && w.Tol[k].Max != nil {
			b = w.Tol[k]
		}
		if t.noValue != nil {
			return false, false, fmt.Sprintf("%s = %s, want %s", name(k), g.Text, t.text())
		}
		if t.r == nil || t.real && b.Max == nil {
			// A real reference: decided at every point of its enclosure.
			var ok, und bool
			var reason string
			if b.Max != nil {
				ok, und, reason = t.realBound(g, b.Max, name(k))
			} else {
				ok, und, reason = t.realExact(p, g, name(k))
			}
			switch {
			case !ok && !und:
				return false, false, reason
			case und && !undecided:
				undecided, why = true, reason
			}
			continue
		}
		e := t.errorOf(g)
		switch {
		case e == nil:
			return false, false, fmt.Sprintf("%s = %s is not finite", name(k), g.Text)
		case b.Max == nil && t.r != nil && !t.within(g) && g.Contains(t.r):
			if !undecided {
				undecided, why = true, fmt.Sprintf("undecided: %s = %s contains %s, but interval arithmetic confirms an exact value only as a single point, and a weight that is not a binary fraction (1/3) or an exponential keeps it wider at any precision; --precision exact decides it where the model's arithmetic is rational", name(k), g.Text, t.text())
			}
		case b.Max == nil && t.r != nil && !t.within(g):
			return false, false, fmt.Sprintf("%s = %s, want exactly %s", name(k), g.Text, t.text())
		case b.Max != nil && e.Cmp(b.Max) > 0:
			return false, false, fmt.Sprintf("|%s − %s| = %s for %s exceeds the bound %s", g.Text, t.text(), decimal(e), name(k), b.Max.RatString())
		}
	}
	if undecided {
		return false, true, why
	}
	return true, false, ""
}

func wantText(w recipes.Want) []string {
	var out []string
	if w.Symbol != "" {
		out = append(out, w.Symbol)
	}
	for _, t := range targetsOf(w) {
		out = append(out, t.text())
	}
	return out
}

// ValueTexts prints w's intended values: rationals as fractions,
// irrational reals as their expressions with a decimal approximation.
func ValueTexts(w recipes.Want) []string {
	ts := targetsOf(w)
	out := make([]string, len(ts))
	for k, t := range ts {
		out[k] = t.text()
	}
	return out
}

// Decides reports whether got makes the decision the reference w stands
// for: a symbol output by its symbol; otherwise every output labelled a
// truth value (booleans) by being nearer its right value, 0 or 1, than the
// wrong one (an enclosure entirely on the right side of 1/2). Other
// values are not decisions and are not looked at. A position with no
// decision to make decides right.
func Decides(w recipes.Want, got eval.PositionOutput, labels, booleans []string) bool {
	if w.Symbol != "" {
		return got.Symbol == w.Symbol
	}
	half := big.NewRat(1, 2)
	for k, t := range targetsOf(w) {
		if k >= len(labels) || !slices.Contains(booleans, labels[k]) || t.r == nil || t.unclaimed != "" {
			continue
		}
		g := got.Values[k]
		if !g.Finite() {
			return false
		}
		switch {
		case t.r.Cmp(big.NewRat(1, 1)) == 0:
			if g.Lo.Cmp(half) <= 0 {
				return false
			}
		case t.r.Sign() == 0:
			if g.Hi.Cmp(half) >= 0 {
				return false
			}
		default:
			// Not a truth value here: decided as exactness or a bound
			// decides it.
			if !t.within(g) {
				return false
			}
		}
	}
	return true
}

// Decisions lists what a construction's outputs decide: its symbol (Sign
// and Argmax outputs), or its outputs labelled truth values; nil when
// they decide nothing.
func Decisions(con *recipes.Construction) []string {
	switch con.Model.Output.Kind {
	case model.Sign, model.Argmax:
		return []string{"symbol"}
	}
	var out []string
	for _, l := range con.Model.Output.Labels {
		if slices.Contains(con.Booleans, l) {
			out = append(out, l)
		}
	}
	return out
}
