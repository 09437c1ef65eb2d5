package positionwise

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// wideRecipes are the position-wise recipes whose cells at a big float
// of 113 bits the wide grid decides.
var wideRecipes = []string{"add", "and", "bool-convert", "boolean", "cancel-residual", "clip", "cpwl",
	"eqzero", "eqzero-eps", "gezero", "gezero-eps", "gtzero", "gtzero-eps", "identity-ffn", "if",
	"max", "min", "not", "or", "scale", "sub", "zero-ffn"}

// faithfulProblem is the analysis of recipe name at p over its claimed
// domain (Finite, Valid, Ranges), where a point fails when the run at p
// is not the exact run: the engine decides every point.
func faithfulProblem(t testing.TB, name string, p numeric.Precision) Problem {
	t.Helper()
	r, err := recipes.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Construct(r.DefaultWeighting(), 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := build(t, name, nil)
	run, ex := runners(t, b.m, p)
	pr := problem(t, b, p, run, nil)
	v := c.Vector
	pr.Finite, pr.Valid = v.Finite, v.Valid
	for _, rg := range v.Ranges {
		pr.Ranges = append(pr.Ranges, Range{Values: rg.Values, Lo: rg.Lo, Hi: rg.Hi})
	}
	pr.MaxEnumerate, pr.MaxBoxes = 0, 1<<14
	pr.Check = faithfulCheck(t, b, run, ex)
	return pr
}

func faithfulCheck(t testing.TB, b built, run, ex eval.Runner) func([][]*big.Rat) (int, string, error) {
	return func(points [][]*big.Rat) (int, string, error) {
		h := streams(b, points)
		got, err := run.RunStream(h, false)
		if err != nil {
			return -1, "", err
		}
		want, err := ex.RunStream(h, false)
		if err != nil {
			return -1, "", err
		}
		for i := range points {
			for k, v := range got.Outputs[i].Values {
				w, _ := want.Outputs[i].Values[k].Rat()
				if !v.Equals(w) {
					return i, fmt.Sprintf("output %d: %s, exactly %s", k+1, v.Text, w.RatString()), nil
				}
			}
		}
		return -1, "", nil
	}
}

// TestWideAgreesWithFloat64Path: at big floats of 24 and 53 bits, which
// both paths treat, the wide grid reaches the float64 path's verdict on
// every recipe, with the same boxes where it proves, and every failure
// it reports is one the engine's run confirms.
func TestWideAgreesWithFloat64Path(t *testing.T) {
	for _, bits := range []string{"24", "53"} {
		p := numeric.MustParsePrecision(bits)
		for _, name := range wideRecipes {
			pr := faithfulProblem(t, name, p)
			want, err := Analyse(pr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := analyseWide(pr)
			if err != nil {
				t.Fatal(err)
			}
			if got.Verdict != want.Verdict {
				t.Errorf("%s at %s: wide %s (%s), float64 path %s (%s)", name, bits, got.Verdict, got.Statement(), want.Verdict, want.Statement())
				continue
			}
			if got.Verdict == Proved && (got.Boxes != want.Boxes || got.ProvedBoxes != want.ProvedBoxes) {
				t.Errorf("%s at %s: wide %d boxes (%d proved), float64 path %d (%d)", name, bits, got.Boxes, got.ProvedBoxes, want.Boxes, want.ProvedBoxes)
			}
			if got.Verdict == Fails {
				if bad, _, err := pr.Check([][]*big.Rat{got.Counterexample}); err != nil || bad != 0 {
					t.Errorf("%s at %s: the counterexample %s does not fail (%v)", name, bits, ratsText(got.Counterexample), err)
				}
			}
			t.Logf("%s at %s: %s, %d boxes (%d proved, %d run)", name, bits, got.Verdict, got.Boxes, got.ProvedBoxes, got.RunBoxes)
		}
	}
}

// TestWideProvesTheSameBoxes: with a check that passes every point, so
// that the search covers the domain up to its bound of boxes, the two
// paths at 24 and 53 bits split, prove and run the same boxes: the wide
// grid's rules are the float64 path's, on exact bounds.
func TestWideProvesTheSameBoxes(t *testing.T) {
	for _, bits := range []string{"24", "53"} {
		p := numeric.MustParsePrecision(bits)
		for _, name := range wideRecipes {
			pr := faithfulProblem(t, name, p)
			if pr.Finite != nil {
				continue
			}
			pr.Check = func([][]*big.Rat) (int, string, error) { return -1, "", nil }
			pr.MaxEnumerate, pr.MaxBoxes = -1, 1<<10
			want, err := Analyse(pr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := analyseWide(pr)
			if err != nil {
				t.Fatal(err)
			}
			if got.Verdict != want.Verdict || got.Boxes != want.Boxes || got.ProvedBoxes != want.ProvedBoxes || got.RunBoxes != want.RunBoxes {
				t.Errorf("%s at %s: wide %s, %d boxes (%d proved, %d run); float64 path %s, %d (%d, %d)", name, bits,
					got.Verdict, got.Boxes, got.ProvedBoxes, got.RunBoxes, want.Verdict, want.Boxes, want.ProvedBoxes, want.RunBoxes)
			}
		}
	}
}

// TestWideProvedBoxesAreFaithful: at 113 bits, every box the wide grid
// proves holds, at its corners, its middle and seeded random points of
// it, only points where the engine's run is the exact run, for the
// recipes' models and perturbed ones.
func TestWideProvedBoxesAreFaithful(t *testing.T) {
	p := numeric.MustParsePrecision("113")
	for _, name := range wideRecipes {
		pr := faithfulProblem(t, name, p)
		if pr.Finite != nil {
			continue
		}
		check := pr.Check
		var proved []wbox
		pr.keepWide = func(lo, hi []*big.Int) { proved = append(proved, wbox{lo, hi}) }
		pr.Check = func([][]*big.Rat) (int, string, error) { return -1, "", nil }
		pr.MaxEnumerate, pr.MaxBoxes = -1, 1<<10
		res, err := analyseWide(pr)
		if err != nil {
			t.Fatal(err)
		}
		s := &search{pr: pr, w: newWgrid("113-bit", 113), rng: rand.New(rand.NewPCG(7, 7))}
		for _, b := range proved {
			pts := s.wideTries(b[0], b[1])
			if bad, why, err := check(pts); err != nil || bad >= 0 {
				t.Fatalf("%s: a proved box holds (%s), where %s (%v)", name, ratsText(pts[max(bad, 0)]), why, err)
			}
		}
		t.Logf("%s: %d proved boxes of %d, each sampled", name, len(proved), res.Boxes)
	}
}

// TestWideRules: the rules on hand-worked boxes of an 11-bit big float
// (fp16's significand, no subnormals, no overflow), each case that is
// not exact confirmed by the big float's own arithmetic at a point of
// it, and each premise shown needed: without it, the case is proved.
func TestWideRules(t *testing.T) {
	g := newWgrid("11-bit", 11)
	r := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	in := func(lo, hi float64) wval {
		return wexact(rspan{r(lo), r(hi)}, g.quantum(g.ord(r(lo)), g.ord(r(hi))))
	}
	w := func(x *big.Rat) wweight {
		f := new(big.Float).SetPrec(11).SetRat(x)
		s, _ := f.Rat(nil)
		return newWweight(newWeight(x, s))
	}
	bf := func(x float64) *big.Float { return new(big.Float).SetPrec(11).SetFloat64(x) }
	sum := func(x, y float64) bool { // x + y exact at 11 bits
		z := new(big.Float).SetPrec(11).Add(bf(x), bf(y))
		return z.Acc() == big.Exact
	}
	prod := func(c *big.Rat, x float64) bool {
		f := new(big.Float).SetPrec(11).SetRat(c)
		z := new(big.Float).SetPrec(11).Mul(f, bf(x))
		return z.Acc() == big.Exact
	}
	for _, tc := range []struct {
		name     string
		got      func() wval
		exact    bool
		mutation string // without which the case is proved (not exact ones)
		witness  func() bool
	}{
		{"x − y, both in [1, 2]", func() wval { return g.add(in(1, 2), in(-2, -1)) }, true, "", nil},
		{"[1, 2] + [−4, −2]", func() wval { return g.add(in(1, 2), in(-4, -2)) }, false, "sterbenz-loose",
			func() bool { return sum(1+0x1p-10, -3-0x1p-9) }},
		{"[1, 1.5] + 0.5", func() wval { return g.add(in(1, 1.5), in(0.5, 0.5)) }, true, "", nil},
		{"[0.5, 0.75] + [0.5, 0.75]", func() wval { return g.add(in(0.5, 0.75), in(0.5, 0.75)) }, false, "quantum-bit",
			func() bool { return sum(0.5+0x1p-11, 0.5) }},
		// No overflow in a big float: 2x is exact wherever x is.
		{"2·[1, 2^1000]", func() wval { return g.mul(w(big.NewRat(2, 1)), in(1, 0x1p1000)) }, true, "", nil},
		{"3·[1, 1.25]", func() wval { return g.mul(w(big.NewRat(3, 1)), in(1, 1.25)) }, false, "quantum-bit",
			func() bool { return prod(big.NewRat(3, 1), 1+0x1p-10) }},
		{"(1/3)·[1, 2]", func() wval { return g.mul(w(big.NewRat(1, 3)), in(1, 2)) }, false, "", nil},
		// A product whose quantum passes gMin: not claimed (big.Float's
		// exponent range ends near 2^-2^31).
		{"2^-(2^30)·[1, 2]", func() wval {
			return g.mul(wweight{w: pow2(-40), s: pow2(-40), same: true, pow2: true, qw: g.gMin}, in(1, 2))
		}, false, "wide-no-range", nil},
	} {
		got := tc.got()
		if got.exact != tc.exact || got.top && tc.exact {
			t.Errorf("%s: exact %v (top %v), want %v", tc.name, got.exact, got.top, tc.exact)
		}
		if tc.witness != nil && tc.witness() {
			t.Errorf("%s: the witness point is exact in the arithmetic", tc.name)
		}
		if tc.mutation != "" {
			mutation = tc.mutation
			got := tc.got()
			mutation = ""
			if !got.exact || got.top {
				t.Errorf("%s: without %s, still not proved: the premise is not what decides it", tc.name, tc.mutation)
			}
		}
	}
	// relu: decided 0 only where both values are ≤ 0.
	a := wval{fv: rspan{r(-1), r(0)}, ev: rspan{r(-1), r(0.5)}}
	if got := wrelu(a); got.zero || got.exact {
		t.Errorf("relu of format ≤ 0, exact up to 0.5: %+v", got)
	}
	mutation = "relu-format-only"
	if got := wrelu(a); !got.zero {
		t.Errorf("without relu's second premise, relu is still not decided 0")
	}
	mutation = ""
}

// TestWideGrid: ordinals and values are inverse, in order, at 113 bits
// (neighbours, binade edges, the ends), and floorOrd and ceilOrd bracket
// a rational between two values.
func TestWideGrid(t *testing.T) {
	g := newWgrid("113-bit", 113)
	one := big.NewInt(1)
	for _, k := range []*big.Int{big.NewInt(0), one, big.NewInt(2), new(big.Int).Lsh(one, 112), new(big.Int).Add(new(big.Int).Lsh(one, 112), one),
		new(big.Int).Sub(g.maxOrd, one), g.maxOrd, new(big.Int).Neg(g.maxOrd)} {
		v := g.value(k)
		if !g.onGrid(v) || g.ord(v).Cmp(k) != 0 {
			t.Errorf("ordinal %v: value %s, on grid %v, ord back %v", k, v.RatString(), g.onGrid(v), g.ord(v))
		}
		if k.Cmp(g.maxOrd) < 0 {
			next := g.value(new(big.Int).Add(k, one))
			mid := new(big.Rat).Add(v, next)
			mid.Quo(mid, big.NewRat(2, 1))
			if next.Cmp(v) <= 0 || k.Sign() > 0 && g.onGrid(mid) {
				t.Errorf("ordinal %v: next value %s, midpoint on grid %v", k, next.RatString(), g.onGrid(mid))
			}
			if k.Sign() > 0 && (g.floorOrd(mid).Cmp(k) != 0 || g.ceilOrd(mid).Cmp(new(big.Int).Add(k, one)) != 0) {
				t.Errorf("ordinal %v: floor and ceil of the midpoint %v, %v", k, g.floorOrd(mid), g.ceilOrd(mid))
			}
		}
	}
	if g.max.Cmp(new(big.Rat).Sub(pow2(1024), pow2(1024-113))) != 0 {
		t.Errorf("the largest value is %s", g.max.FloatString(0))
	}
	if g.onGrid(pow2(-1023)) || g.onGrid(new(big.Rat).Add(big.NewRat(1, 1), pow2(-113))) || !g.onGrid(new(big.Rat).Add(big.NewRat(1, 1), pow2(-112))) {
		t.Error("onGrid: 2^-1023 (below the domain) or 1 + 2^-113 (114 bits) on the grid, or 1 + 2^-112 not")
	}
}
