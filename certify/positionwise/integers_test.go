package positionwise

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// TestIntegersAgreeWithEnumeration: on the integer domains, every box the
// analysis proves holds only points where the engine's run equals its
// exact run, for the recipes' models and perturbed ones, at fp8-e4m3
// bf16 and fp16 (pairs to the widths where their points are few; the
// long tier goes further); and the proofs are not vacuous (identity's boxes hold every
// integer point of the widest domain).
func TestIntegersAgreeWithEnumeration(t *testing.T) {
	pairWidth := map[string]int{"fp8-e4m3": 4, "bf16": 5, "fp16": 4}
	if testenv.LongEnabled() {
		pairWidth["bf16"], pairWidth["fp16"] = 6, 5
	}
	for _, pn := range []string{"fp8-e4m3", "bf16", "fp16"} {
		p := numeric.MustParsePrecision(pn)
		g, _ := gridOf(p)
		for _, am := range agreementModels {
			base := build(t, am.recipe, am.params)
			for w := 0; w <= g.p; w++ {
				if len(base.names) > 1 && w > pairWidth[pn] {
					continue // a pair's (2^(w+1) + 1)² points through the engine
				}
				for _, pt := range perturbations {
					if len(base.names) > 1 && pt.name != "as built" && !testenv.LongEnabled() && pn != "fp8-e4m3" {
						continue
					}
					b := perturbed(base, p, pt.f)
					proved, points, bad, why := agreementOn(t, b, p, w)
					if bad != nil {
						t.Fatalf("%s %v (%s) at %s, integers up to 2^%d: a proved box holds (%s), where %s", am.recipe, am.params, pt.name, pn, w, ratsText(bad), why)
					}
					if pt.name == "as built" && am.recipe == "identity-ffn" && len(b.names) == 1 && w == g.p {
						if all := int64(2<<w + 1); points != all {
							t.Errorf("identity at %s, integers up to 2^%d: %d boxes proved hold %d points, want every one of %d", pn, w, proved, points, all)
						}
					}
				}
			}
		}
	}
}

// TestIntegerQuantumIsNeeded: an integer input is a multiple of 2^0 and
// of nothing coarser; an analysis that took it for a multiple of 2^1
// proves sums exact that round (bf16 holds 257 = 2^8 + 1 as 256).
func TestIntegerQuantumIsNeeded(t *testing.T) {
	mutation = "integer-quantum"
	defer func() { mutation = "" }()
	p := numeric.MustParsePrecision("bf16")
	if _, _, bad, _ := agreementOn(t, build(t, "add", nil), p, 8); bad == nil {
		t.Errorf("with integer inputs taken for multiples of 2, every proved box of add still agrees with the enumeration")
	}
}

// TestIntegerLimit: the widths found are the ones the formats' integers
// allow, from hand derivation. x + y of integers of magnitude at most
// 2^w is at most 2^(w+1), which a p-bit significand holds, so add holds
// at w = p − 1; at w = p, 2^p + 1 (= 2^p and 1) is no value of the
// format. The identity holds at every width up to p, where the search
// stops (MaxWidth). Bisection visits widths out of order; the result is
// the same as trying every width in turn.
func TestIntegerLimit(t *testing.T) {
	for _, tc := range []struct {
		recipe, precision string
		width             int
		next              Verdict // at width + 1 ("": none)
	}{
		{"add", "fp8-e4m3", 3, Fails},
		{"add", "bf16", 7, Fails},
		{"add", "fp16", 10, Fails},
		{"add", "fp32", 23, Fails},
		{"sub", "fp16", 10, Fails},
		{"identity-ffn", "fp16", 11, ""},
		{"identity-ffn", "fp32", 24, ""},
	} {
		_, pr, _ := faithfulIntegers(t, tc.recipe, tc.precision)
		r, err := IntegerLimit(pr)
		if err != nil {
			t.Fatal(err)
		}
		var next Verdict
		if r.Next != nil {
			next = r.Next.Verdict
		}
		if r.Width != tc.width || next != tc.next {
			t.Errorf("%s at %s: width %d (next %q), want %d (next %q): %s", tc.recipe, tc.precision, r.Width, next, tc.width, tc.next, r.Statement())
		}
		if tc.precision == "fp8-e4m3" || tc.precision == "bf16" && testenv.LongEnabled() {
			// Every width in turn, for the monotonicity bisection assumes.
			for w := 0; w <= r.MaxWidth; w++ {
				res, err := AnalyseIntegers(pr, w)
				if err != nil {
					t.Fatal(err)
				}
				holds := res.Verdict == Proved || res.Verdict == Run
				if holds != (w <= tc.width) {
					t.Errorf("%s at %s, width %d: %s", tc.recipe, tc.precision, w, res.Statement())
				}
			}
		}
	}
}

// TestBoundWidth: the search stops at the claimed domain's bound, from
// hand derivation: [0, 1] fits 2^0, [−3, 5/2] fits 2^2, listed values
// {0, 8} fit 2^3, an unbounded component has no bound.
func TestBoundWidth(t *testing.T) {
	r := func(a, b int64) *big.Rat { return big.NewRat(a, b) }
	for _, tc := range []struct {
		ranges []Range
		names  int
		want   int
		ok     bool
	}{
		{[]Range{{Lo: r(0, 1), Hi: r(1, 1)}}, 1, 0, true},
		{[]Range{{Lo: r(-3, 1), Hi: r(5, 2)}, {Lo: r(0, 1), Hi: r(1, 1)}}, 2, 2, true},
		{[]Range{{Values: []*big.Rat{r(0, 1), r(8, 1)}}}, 1, 3, true},
		{[]Range{{Lo: r(0, 1)}}, 1, 0, false},
		{[]Range{{Lo: r(0, 1), Hi: r(1, 1)}}, 2, 0, false}, // the second component unbounded
		{[]Range{{Lo: r(-1, 1), Hi: new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 100))}}, 1, 100, true},
	} {
		pr := Problem{Ranges: tc.ranges, Names: make([]string, tc.names)}
		if w, ok := boundWidth(pr); w != tc.want || ok != tc.ok {
			t.Errorf("%+v: bound %d, %v; want %d, %v", tc.ranges, w, ok, tc.want, tc.ok)
		}
	}
}

// TestUndecidedPoints: a point whose comparison is undecided keeps the
// verdict from Run or Proved (every other input right: Undecided, naming
// it), and the search goes on past it to a failing input elsewhere.
func TestUndecidedPoints(t *testing.T) {
	b := build(t, "identity-ffn", map[string]string{"d": "1"})
	one, two := big.NewRat(1, 1), big.NewRat(2, 1)
	for _, tc := range []struct {
		name    string
		fails   bool // 2 fails as well
		verdict Verdict
	}{
		{"undecided only", false, Undecided},
		{"undecided, then a failure", true, Fails},
	} {
		for _, boxes := range []bool{false, true} {
			p := numeric.MustParsePrecision("fp8-e4m3")
			run, _ := runners(t, b.m, p)
			pr := problem(t, b, p, run, nil)
			pr.MaxEnumerate = 0
			if boxes {
				pr.MaxEnumerate = -1
			}
			pr.Check = func(points [][]*big.Rat) (int, string, error) {
				for i, x := range points {
					switch {
					case x[0].Cmp(one) == 0:
						return -1, "", &UndecidedError{Index: i, Why: "straddles"}
					case tc.fails && x[0].Cmp(two) == 0:
						return i, "wrong", nil
					}
				}
				return -1, "", nil
			}
			if boxes {
				// Boxes the analysis proves are never run: make it run
				// every point, as for a model it cannot prove.
				pr.Reference = nil
				mutation = "prove-nothing"
			}
			res, err := Analyse(pr)
			mutation = ""
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != tc.verdict {
				t.Errorf("%s (boxes %v): %s", tc.name, boxes, res.Statement())
			}
			if tc.verdict == Undecided && !strings.Contains(res.Why, "at (1)") {
				t.Errorf("%s (boxes %v): %q does not name the undecided point", tc.name, boxes, res.Why)
			}
		}
	}
}

// TestWideIntegersAgreeWithFloat64Path: on the integer domains at 24 and
// 53 bits, which both grids treat, the wide grid reaches the float64
// path's verdict at every width tried where both decide (and neither
// proves what the other leaves undecided), with the same boxes where it
// proves, and every failure it reports is one the engine's run confirms
// (the wide grid's integers serve big floats above 53 bits, where no
// float64 path exists to hold them to).
func TestWideIntegersAgreeWithFloat64Path(t *testing.T) {
	for _, bits := range []int{24, 53} {
		p := numeric.MustParsePrecision(fmt.Sprint(bits))
		for _, name := range []string{"add", "min", "clip", "cpwl"} {
			pr := faithfulProblem(t, name, p)
			for _, w := range []int{0, bits - 2, bits - 1, bits} {
				want, err := AnalyseIntegers(pr, w)
				if err != nil {
					t.Fatal(err)
				}
				wg, err := newWgrid(p.String()+"-bit", bits).onIntegers(w)
				if err != nil {
					t.Fatal(err)
				}
				got, err := settled(analyseWideOn(pr, wg))
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case got.Verdict == Undecided || want.Verdict == Undecided:
					// Within the bound of boxes, which failing point the
					// random tries meet first is the grid's own: one may
					// stop undecided where the other found a failure.
					// Decided verdicts must agree.
					if got.Verdict == Proved || got.Verdict == Run || want.Verdict == Proved || want.Verdict == Run {
						t.Errorf("%s at %d bits, width %d: wide %s, float64 path %s", name, bits, w, got.Verdict, want.Verdict)
					}
				case got.Verdict != want.Verdict:
					t.Errorf("%s at %d bits, width %d: wide %s (%s), float64 path %s (%s)", name, bits, w, got.Verdict, got.Statement(), want.Verdict, want.Statement())
				case got.Verdict == Proved && (got.Boxes != want.Boxes || got.ProvedBoxes != want.ProvedBoxes):
					t.Errorf("%s at %d bits, width %d: wide %d boxes (%d proved), float64 path %d (%d)", name, bits, w, got.Boxes, got.ProvedBoxes, want.Boxes, want.ProvedBoxes)
				case got.Verdict == Fails:
					if bad, _, err := pr.Check([][]*big.Rat{got.Counterexample}); err != nil || bad != 0 {
						t.Errorf("%s at %d bits, width %d: the counterexample %s does not fail (%v)", name, bits, w, ratsText(got.Counterexample), err)
					}
				}
			}
		}
	}
}

// TestWideIntegerQuantumIsNeeded: on the wide grid too, integers taken
// for multiples of 2 prove add exact at 8 bits on integers up to 2^8,
// where 2^8 + 1 is no 8-bit value (the analysis without the mutation
// finds such a sum).
func TestWideIntegerQuantumIsNeeded(t *testing.T) {
	pr := faithfulProblem(t, "add", numeric.MustParsePrecision("8"))
	wg, err := newWgrid("8-bit", 8).onIntegers(8)
	if err != nil {
		t.Fatal(err)
	}
	res, err := settled(analyseWideOn(pr, wg))
	if err != nil || res.Verdict != Fails {
		t.Fatalf("add at 8 bits on integers up to 2^8: %v, %v; want a failure", res, err)
	}
	mutation = "integer-quantum"
	defer func() { mutation = "" }()
	if res, err := settled(analyseWideOn(pr, wg)); err != nil || res.Verdict != Proved {
		t.Errorf("with integers taken for multiples of 2: %s (%v); want the unsound proof the premise prevents", res.Statement(), err)
	}
}

// TestIntegerUnreachable: a failure on the integers is one the format
// could not avoid only where the exact output is no value of the format
// (not merely no integer of the domain): clip_{1/2}(128) = 1/2 at bf16
// is a value bf16 holds, which the construction loses; add's 2^11 + 1 at
// fp16 is not a value of fp16.
func TestIntegerUnreachable(t *testing.T) {
	for _, tc := range []struct {
		recipe, precision string
		unreachable       bool
	}{{"clip", "bf16", false}, {"add", "fp16", true}} {
		b, pr, ex := faithfulIntegers(t, tc.recipe, tc.precision)
		pr.Reference = func(points [][]*big.Rat) ([][]*big.Rat, bool) {
			res, err := ex.RunStream(streams(b, points), false)
			if err != nil {
				t.Fatal(err)
			}
			out := make([][]*big.Rat, len(points))
			for i := range points {
				for _, v := range res.Outputs[i].Values {
					r, _ := v.Rat()
					out[i] = append(out[i], r)
				}
			}
			return out, true
		}
		r, err := IntegerLimit(pr)
		if err != nil {
			t.Fatal(err)
		}
		if r.Next == nil || r.Next.Verdict != Fails || r.Next.Unreachable != tc.unreachable {
			t.Errorf("%s at %s: %s; want a failure with unreachable %v", tc.recipe, tc.precision, r.Statement(), tc.unreachable)
		}
	}
}

// TestIntegerStatementUndecided: where not even width 0 is decided, the
// statement says undecided, not that no integer domain holds.
func TestIntegerStatementUndecided(t *testing.T) {
	b := build(t, "identity-ffn", map[string]string{"d": "1"})
	p := numeric.MustParsePrecision("fp8-e4m3")
	run, _ := runners(t, b.m, p)
	pr := problem(t, b, p, run, nil)
	pr.MaxEnumerate = 0
	pr.Check = func(points [][]*big.Rat) (int, string, error) {
		return -1, "", &UndecidedError{Index: 0, Why: "straddles"}
	}
	r, err := IntegerLimit(pr)
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Statement(); r.Width != -1 || !strings.Contains(s, "undecided") || strings.Contains(s, "holds") {
		t.Errorf("width %d: %q", r.Width, s)
	}
}

// TestIntegerRangeOutsideDomain: a claimed range beyond the integers of a
// width holds none of them (the grid's ends clamp, and a box at the end
// would lie outside the range): x ≥ 5 has no integer of magnitude at most
// 4, so widths 0 … 2 run nothing (vacuously right), and width 3 finds
// the points 5 … 8, which this check fails.
func TestIntegerRangeOutsideDomain(t *testing.T) {
	b := build(t, "identity-ffn", map[string]string{"d": "1"})
	p := numeric.MustParsePrecision("fp16")
	run, _ := runners(t, b.m, p)
	pr := problem(t, b, p, run, nil)
	pr.MaxEnumerate = 0
	pr.Ranges = []Range{{Lo: big.NewRat(5, 1)}}
	pr.Check = func(points [][]*big.Rat) (int, string, error) {
		for i, x := range points {
			if x[0].Cmp(big.NewRat(5, 1)) < 0 {
				t.Fatalf("a point outside the range: %s", x[0].RatString())
			}
			return i, "fails", nil
		}
		return -1, "", nil
	}
	for w := 0; w <= 3; w++ {
		res, err := AnalyseIntegers(pr, w)
		if err != nil {
			t.Fatal(err)
		}
		if want := w == 3; (res.Verdict == Fails) != want || !want && (res.Verdict != Run || res.Points != 0) {
			t.Errorf("width %d: %s", w, res.Statement())
		}
	}
	r, err := IntegerLimit(pr)
	if err != nil {
		t.Fatal(err)
	}
	if r.Width != 2 || !r.Vacuous() {
		t.Errorf("the limit: width %d, vacuous %v; want 2, vacuous", r.Width, r.Vacuous())
	}
}

// faithfulIntegers is the analysis of recipe at precision where a point
// fails when the run there is not the exact run (checkAgainst), with the
// default enumeration bound; ex is the exact runner.
func faithfulIntegers(t *testing.T, recipe, precision string) (built, Problem, eval.Runner) {
	t.Helper()
	b := build(t, recipe, nil)
	p := numeric.MustParsePrecision(precision)
	run, ex := runners(t, b.m, p)
	pr := problem(t, b, p, run, nil)
	pr.MaxEnumerate = 0
	pr.Check = checkAgainst(t, b, run, ex)
	return b, pr, ex
}
