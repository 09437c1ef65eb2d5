package numeric

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// Round trips through rationals.

// checkRoundTrip checks, for a value v of c's format: Rat(v) is v's
// exact value (an error for ±Inf and NaN), SetRat(Rat(v)) is v (−0 comes
// back as +0: a rational has no signed zero), and Finite agrees.
func (c *ieeeCase) checkRoundTrip(v float64) string {
	r, err := c.rat(v)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if !errors.Is(err, ErrNotFinite) || c.finite(v) {
			return fmt.Sprintf("%s Rat(%v) = %v, %v; Finite = %v; want ErrNotFinite, false", c.name, v, r, err, c.finite(v))
		}
		return ""
	}
	if err != nil || !c.finite(v) {
		return fmt.Sprintf("%s Rat(%s): %v; Finite = %v", c.name, fx(v), err, c.finite(v))
	}
	if r.Cmp(ratOf(v)) != 0 {
		return fmt.Sprintf("%s Rat(%s) = %s, want %s", c.name, fx(v), ratStr(r), ratStr(ratOf(v)))
	}
	want := v
	if v == 0 {
		want = 0
	}
	// With Rat(v) = r, this also gives Rat(SetRat(r)) = r for every
	// representable r.
	if got := c.setRat(r); !sameBits(got, want) {
		return fmt.Sprintf("%s SetRat(Rat(%s)) = %s", c.name, fx(v), fx(got))
	}
	return ""
}

// TestArithRatRoundTrip checks that Rat gives a value's exact value and
// SetRat gives it back: the oracles above read operands through Rat, and
// results are compared and printed through these conversions.
func TestArithRatRoundTrip(t *testing.T) {
	seed := arithSeed(t, 7)
	// The small formats are enumerated in TestArithSmallFormatsRoundTrip.
	for _, c := range []*ieeeCase{fp64Case(), fp32Case()} {
		t.Run(c.name, func(t *testing.T) {
			runProp(t, seed, 3000, prop.ForAll(c.checkRoundTrip, genIEEE(c)))
		})
	}
	for _, p := range bigPrecs {
		c := newBigCase(p)
		iv := NewIntervals(p)
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			runProp(t, seed, 1000, prop.ForAll(func(v *big.Float) string {
				r, err := c.b.Rat(v)
				if err != nil || r.Cmp(mustRat(v)) != 0 {
					return fmt.Sprintf("%d-bit Rat(%v) = %v, %v", p, v, r, err)
				}
				if d := cmp.Diff(v, c.b.SetRat(nil, r), bigFloatEqual); d != "" {
					return fmt.Sprintf("%d-bit SetRat(Rat(%v)): %s", p, v, d)
				}
				// A representable rational is a point interval, whose
				// Rat and Bounds give it back.
				pt := iv.SetRat(nil, r)
				ir, err := iv.Rat(pt)
				if err != nil || ir.Cmp(r) != 0 {
					return fmt.Sprintf("interval:%d Rat(SetRat(%s)) = %v, %v", p, ratStr(r), ir, err)
				}
				lo, hi, err := iv.Bounds(pt)
				if err != nil || lo.Cmp(r) != 0 || hi.Cmp(r) != 0 {
					return fmt.Sprintf("interval:%d Bounds(SetRat(%s)) = %v, %v, %v", p, ratStr(r), lo, hi, err)
				}
				// A non-representable one is not a point.
				off := ratSum(r, ratScale(ratAbs(r), -int(p)-3))
				if r.Sign() == 0 {
					off = ratFrac(1, 3)
				}
				if _, err := iv.Rat(iv.SetRat(nil, off)); !errors.Is(err, ErrNotPoint) {
					return fmt.Sprintf("interval:%d Rat(SetRat(%s)): error %v, want ErrNotPoint", p, ratStr(off), err)
				}
				return ""
			}, genBigFloat(c)))
		})
	}
	t.Run("exact", func(t *testing.T) {
		e := NewExact()
		runProp(t, seed, 500, prop.ForAll(func(r *big.Rat) string {
			v := e.SetRat(nil, r)
			back, err := e.Rat(v)
			lo, hi, berr := e.Bounds(v)
			if err != nil || berr != nil || back.Cmp(r) != 0 || lo.Cmp(r) != 0 || hi.Cmp(r) != 0 {
				return fmt.Sprintf("exact: Rat, Bounds of SetRat(%s) = %v, %v, %v (%v, %v)", ratStr(r), back, lo, hi, err, berr)
			}
			// Rat must return a copy: the caller may modify it.
			if back == v || lo == v || hi == v {
				return "exact: Rat or Bounds returned the value itself"
			}
			return ""
		}, genRat()))
	})
}

// ---------------------------------------------------------------------------
// Intervals: every result encloses the exact result at every point.

type ivCase struct {
	p uint
	b Intervals
	g arithGrid
}

// encloses reports ("" if so) whether iv is a finite interval with p-bit
// endpoints that contains v.
func (c ivCase) encloses(op string, iv *Interval, v *big.Rat) string {
	if iv == nil || iv.Lo == nil || iv.Hi == nil {
		return fmt.Sprintf("%s: no interval", op)
	}
	if iv.Lo.Prec() != c.p || iv.Hi.Prec() != c.p {
		return fmt.Sprintf("%s = %s has endpoint precisions %d, %d, want %d", op, c.b.Format(iv), iv.Lo.Prec(), iv.Hi.Prec(), c.p)
	}
	lo, hi, err := c.b.Bounds(iv)
	if err != nil {
		return fmt.Sprintf("%s = %s: %v", op, c.b.Format(iv), err)
	}
	if lo.Cmp(v) > 0 || hi.Cmp(v) < 0 {
		return fmt.Sprintf("%s = %s does not contain the exact %s", op, c.b.Format(iv), ratStr(v))
	}
	return ""
}

func (c ivCase) checkEnclosure(x, y *Interval, px, py *big.Rat) string {
	b := c.b
	xlo, _, _ := b.Bounds(x)
	ylo, yhi, _ := b.Bounds(y)
	tag := fmt.Sprintf("x = %s ∋ %s, y = %s ∋ %s: ", b.Format(x), ratStr(px), b.Format(y), ratStr(py))
	checks := []struct {
		op  string
		got *Interval
		v   *big.Rat
	}{
		{"x+y", b.Add(nil, x, y), ratSum(px, py)},
		{"x−y", b.Sub(nil, x, y), ratDiff(px, py)},
		{"x·y", b.Mul(nil, x, y), ratProd(px, py)},
		{"−x", b.Neg(nil, x), ratNeg(px)},
		{"|x|", b.Abs(nil, x), ratAbs(px)},
		{"max(x, y)", b.Max(nil, x, y), maxRat(px, py)},
		{"min(x, y)", b.Min(nil, x, y), minRat(px, py)},
	}
	for _, ch := range checks {
		if m := c.encloses(ch.op, ch.got, ch.v); m != "" {
			return tag + m
		}
	}
	q, err := b.Div(nil, x, y)
	if ylo.Sign() <= 0 && yhi.Sign() >= 0 {
		if !errors.Is(err, ErrDivByZero) {
			return tag + fmt.Sprintf("x/y with 0 in y: %v, %v; want ErrDivByZero", q, err)
		}
	} else if err != nil {
		return tag + fmt.Sprintf("x/y: %v", err)
	} else if m := c.encloses("x/y", q, ratQuo(px, py)); m != "" {
		return tag + m
	}
	s, err := b.Sqrt(nil, x)
	if xlo.Sign() < 0 {
		if !errors.Is(err, ErrDomain) {
			return tag + fmt.Sprintf("√x with x < 0 in it: %v, %v; want ErrDomain", s, err)
		}
		return ""
	}
	if err != nil {
		return tag + fmt.Sprintf("√x: %v", err)
	}
	// √px is irrational in general: lo ≤ √px ≤ hi iff (lo ≤ 0 or lo² ≤ px)
	// and hi ≥ 0 and hi² ≥ px.
	if s.Lo.Prec() != c.p || s.Hi.Prec() != c.p {
		return tag + fmt.Sprintf("√x = %s has endpoint precisions %d, %d", b.Format(s), s.Lo.Prec(), s.Hi.Prec())
	}
	lo, hi, err := b.Bounds(s)
	if err != nil || (lo.Sign() > 0 && ratProd(lo, lo).Cmp(px) > 0) || hi.Sign() < 0 || ratProd(hi, hi).Cmp(px) < 0 {
		return tag + fmt.Sprintf("√x = %s (%v) does not contain √%s", b.Format(s), err, ratStr(px))
	}
	return ""
}

func maxRat(a, b *big.Rat) *big.Rat {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

func minRat(a, b *big.Rat) *big.Rat {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

// checkCmp checks that Cmp and Sign never claim an order that some points
// of the intervals contradict, and that they do report a certain one.
func (c ivCase) checkCmp(x, y *Interval, px, py *big.Rat) string {
	b := c.b
	xlo, xhi, _ := b.Bounds(x)
	ylo, yhi, _ := b.Bounds(y)
	o := b.Cmp(x, y)
	var want Order
	switch {
	case xhi.Cmp(ylo) < 0:
		want = Less
	case xlo.Cmp(yhi) > 0:
		want = Greater
	case xlo.Cmp(xhi) == 0 && ylo.Cmp(yhi) == 0 && xlo.Cmp(ylo) == 0:
		want = Equal
	default:
		want = Unordered
	}
	if o != want {
		return fmt.Sprintf("cmp(%s, %s) = %v, want %v", b.Format(x), b.Format(y), o, want)
	}
	// Soundness at the chosen points, independent of the bounds reasoning.
	if o != Unordered && Order(px.Cmp(py)) != o {
		return fmt.Sprintf("cmp(%s, %s) = %v but the points %s, %s compare %d", b.Format(x), b.Format(y), o, ratStr(px), ratStr(py), px.Cmp(py))
	}
	s := b.Sign(x)
	if s != Unordered && Order(px.Sign()) != s {
		return fmt.Sprintf("sign(%s) = %v but it contains %s", b.Format(x), s, ratStr(px))
	}
	if (xlo.Sign() > 0 && s != Greater) || (xhi.Sign() < 0 && s != Less) {
		return fmt.Sprintf("sign(%s) = %v", b.Format(x), s)
	}
	return ""
}

// intervalProp builds x = [c1, c1 + w1] and y (near x when near is set,
// which makes overlaps and shared points frequent), both rounded outward
// by SetBounds, picks a point in each (t = 0 and 1 give the endpoints), and
// hands them to check.
func (c ivCase) intervalProp(check func(x, y *Interval, px, py *big.Rat) string) gopter.Prop {
	point := func(iv *Interval, t *big.Rat) *big.Rat {
		lo, hi, _ := c.b.Bounds(iv)
		return ratSum(lo, ratProd(t, ratDiff(hi, lo)))
	}
	width := func(w *big.Rat, k int) *big.Rat {
		if k >= 48 {
			return new(big.Rat) // a point
		}
		return ratScale(ratAbs(w), -k)
	}
	return prop.ForAll(func(c1, w1, t1, d, w2, t2 *big.Rat, k1, k2 int, near bool) string {
		x := c.b.SetBounds(nil, c1, ratSum(c1, width(w1, k1)))
		c2 := d
		if near {
			c2 = ratSum(c1, ratProd(d, width(w1, k1)))
		}
		y := c.b.SetBounds(nil, c2, ratSum(c2, width(w2, k2)))
		return check(x, y, point(x, t1), point(y, t2))
	}, genRat(), genRat(), genUnit(), genRat(), genRat(), genUnit(),
		gen.IntRange(0, 64), gen.IntRange(0, 64), gen.Bool())
}

// TestArithIntervalEnclosure checks the guarantee that proofs rest on: the
// exact result at any points of the operands lies in the result interval,
// and Cmp reports an order only when every point agrees.
func TestArithIntervalEnclosure(t *testing.T) {
	seed := arithSeed(t, 8)
	for _, p := range []uint{2, 11, 24, 53, 113} {
		c := ivCase{p: p, b: NewIntervals(p), g: unboundedGrid(int(p))}
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			t.Parallel()
			t.Run("enclosure", func(t *testing.T) { runProp(t, seed, 800, c.intervalProp(c.checkEnclosure)) })
			t.Run("cmp", func(t *testing.T) { runProp(t, seed, 800, c.intervalProp(c.checkCmp)) })
		})
	}
}

// TestArithIntervalPointsTight checks that on point intervals the results
// are the tightest enclosures: the exact result rounded down and up (for
// √, two adjacent p-bit numbers around the root, or the root itself).
func TestArithIntervalPointsTight(t *testing.T) {
	seed := arithSeed(t, 9)
	for _, p := range []uint{2, 11, 24, 53, 113} {
		c := ivCase{p: p, b: NewIntervals(p), g: unboundedGrid(int(p))}
		bc := newBigCase(p)
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			t.Parallel()
			runProp(t, seed, 800, prop.ForAll(func(pr bigPair) string {
				rx, ry := mustRat(pr.X), mustRat(pr.Y)
				x, y := c.b.SetRat(nil, rx), c.b.SetRat(nil, ry)
				tight := func(r *big.Rat) *Interval {
					return &Interval{Lo: new(big.Float).SetPrec(p).SetRat(c.g.round(r, towardNegInf)),
						Hi: new(big.Float).SetPrec(p).SetRat(c.g.round(r, towardPosInf))}
				}
				checks := []struct {
					op   string
					got  *Interval
					want *big.Rat
				}{
					{"add", c.b.Add(nil, x, y), ratSum(rx, ry)},
					{"sub", c.b.Sub(nil, x, y), ratDiff(rx, ry)},
					{"mul", c.b.Mul(nil, x, y), ratProd(rx, ry)},
					{"neg", c.b.Neg(nil, x), ratNeg(rx)},
					{"abs", c.b.Abs(nil, x), ratAbs(rx)},
					{"max", c.b.Max(nil, x, y), maxRat(rx, ry)},
					{"min", c.b.Min(nil, x, y), minRat(rx, ry)},
				}
				if ry.Sign() != 0 {
					q, err := c.b.Div(nil, x, y)
					if err != nil {
						return fmt.Sprintf("interval:%d div(%s, %s): %v", p, ratStr(rx), ratStr(ry), err)
					}
					checks = append(checks, struct {
						op   string
						got  *Interval
						want *big.Rat
					}{"div", q, ratQuo(rx, ry)})
				}
				for _, ch := range checks {
					if d := cmp.Diff(tight(ch.want), ch.got, endpointEqual); d != "" {
						return fmt.Sprintf("interval:%d %s(%s, %s) = %s, want %s", p, ch.op, ratStr(rx), ratStr(ry),
							c.b.Format(ch.got), c.b.Format(tight(ch.want)))
					}
				}
				if rx.Sign() < 0 {
					return ""
				}
				s, err := c.b.Sqrt(nil, x)
				if err != nil {
					return fmt.Sprintf("interval:%d sqrt(%s): %v", p, ratStr(rx), err)
				}
				lo, hi := mustRat(s.Lo), mustRat(s.Hi)
				// lo ≤ √x ≤ hi, and hi is lo (an exact root) or the
				// successor of lo.
				if lo.Sign() < 0 || ratProd(lo, lo).Cmp(rx) > 0 || ratProd(hi, hi).Cmp(rx) < 0 {
					return fmt.Sprintf("interval:%d sqrt(%s) = %s does not contain the root", p, ratStr(rx), c.b.Format(s))
				}
				if lo.Cmp(hi) != 0 {
					if next := c.g.round(ratSum(lo, ratScale(ratAbs(lo), -int(p)-2)), towardPosInf); next.Cmp(hi) != 0 {
						return fmt.Sprintf("interval:%d sqrt(%s) = %s is not tight (the successor of lo is %s)", p, ratStr(rx), c.b.Format(s), ratStr(next))
					}
					if ratProd(lo, lo).Cmp(rx) == 0 {
						return fmt.Sprintf("interval:%d sqrt(%s) = %s is not a point though the root is exact", p, ratStr(rx), c.b.Format(s))
					}
				}
				return ""
			}, genBigPair(bc)))
		})
	}
}

// ---------------------------------------------------------------------------
// The oracles agree with each other.

// TestArithOraclesAgree cross-checks the independent roundings the other
// tests rely on: arithGrid (from the definition) against big.Rat.Float64,
// big.Rat.Float32, big.Float.SetRat and the table oracle of format_test.go.
// A disagreement is a bug in the tests, not in the backends.
func TestArithOraclesAgree(t *testing.T) {
	seed := arithSeed(t, 10)
	for _, c := range ieeeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runProp(t, seed, 2000, prop.ForAll(func(r *big.Rat) string {
				if got, want := c.g.roundIEEE(r), c.roundSigned(r); r.Sign() != 0 && !sameBits(got, want) {
					return fmt.Sprintf("%s: arithGrid rounds %s to %s, the operation oracle to %s", c.name, ratStr(r), fx(got), fx(want))
				}
				return ""
			}, genRatFor(c.g)))
		})
	}
	for _, p := range bigPrecs {
		g := unboundedGrid(int(p))
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			t.Parallel()
			runProp(t, seed, 1000, prop.ForAll(func(r *big.Rat) string {
				for _, m := range []struct {
					mode arithMode
					bm   big.RoundingMode
				}{{nearestEven, big.ToNearestEven}, {towardZero, big.ToZero}, {towardNegInf, big.ToNegativeInf}, {towardPosInf, big.ToPositiveInf}} {
					want := mustRat(new(big.Float).SetPrec(p).SetMode(m.bm).SetRat(r))
					if got := g.round(r, m.mode); got.Cmp(want) != 0 {
						return fmt.Sprintf("%d bits, %v: arithGrid rounds %s to %s, big.Float to %s", p, m.bm, ratStr(r), ratStr(got), ratStr(want))
					}
				}
				return ""
			}, genRatFor(g)))
		})
	}
}
