package positionwise

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// lengthCases are the fixed-score models the tests of the wide grid's
// lengths analyse: every weighting the attention's weights are computed
// under, a strict mask (position 1 attends to nothing), two heads summed,
// and a ReLU feed-forward sublayer after the attention (ReLU of the
// prefix average, active on some inputs and not on others).
func lengthCases(t *testing.T) []built {
	t.Helper()
	d1 := map[string]string{"d": "1"}
	var out []built
	for _, tc := range []struct {
		name, change string
		w            model.Weighting
	}{{"avg", "", model.Softmax}, {"avg", "", model.AverageHardmax}, {"avg-prefix", "", model.Softmax},
		{"identity-attn", "", model.LeftHardmax}, {"avg", "mask-strict", model.Softmax},
		{"avg", "two-heads", model.AverageHardmax}, {"avg-prefix", "relu-ffn", model.AverageHardmax}} {
		params := d1
		if tc.change == "two-heads" {
			params = map[string]string{"d": "2"}
		}
		b := buildW(t, tc.name, tc.w, params)
		att := b.m.Layers[0].Attention
		switch tc.change {
		case "mask-strict":
			att.Mask = model.StrictFuture
		case "two-heads":
			// avg at d = 2 with its head split in two, one per output
			// component: the same outputs, each the sum of a head's
			// average and the other head's 0.
			one, two := att.Heads[0], att.Heads[0]
			one.V, two.V = model.Zeros(one.V.Rows, one.V.Cols), model.Zeros(two.V.Rows, two.V.Cols)
			first := -1
			for r := 0; r < att.Heads[0].V.Rows; r++ {
				for c := 0; c < att.Heads[0].V.Cols; c++ {
					v := att.Heads[0].V.At(r, c)
					if v.IsZero() {
						continue
					}
					if first < 0 {
						first = r
					}
					if r == first {
						one.V.Set(r, c, v)
					} else {
						two.V.Set(r, c, v)
					}
				}
			}
			att.Heads = []model.Head{one, two}
		case "relu-ffn":
			ff := &model.FeedForward{W1: model.Identity(b.m.D), W2: model.Identity(b.m.D), Activation: model.ReLU}
			b.m.Layers = append(b.m.Layers, model.Layer{FeedForward: ff, NoFeedForwardResidual: true})
		}
		if tc.change != "" {
			b.name += "/" + tc.change
			if err := b.m.Validate(); err != nil {
				t.Fatalf("%s: %v", b.name, err)
			}
		}
		out = append(out, b)
	}
	return out
}

// TestLengthWideAgreesWithFloat64Path: at big floats of 11, 24 and 53
// bits, which both paths treat, the wide grid's analysis of a length
// reaches the float64 path's verdict at n = 1, 2, 3, and with a check
// that passes every input (so that the search covers the domain up to
// its bound of boxes) splits, proves and runs the same boxes: its rules
// on stacked inputs are the float64 path's, on exact bounds. A failure
// it reports is one the engine's run confirms.
func TestLengthWideAgreesWithFloat64Path(t *testing.T) {
	for _, bits := range []string{"11", "24", "53"} {
		p := numeric.MustParsePrecision(bits)
		for _, b := range lengthCases(t) {
			run, ex := runners(t, b.m, p)
			for n := 1; n <= 3; n++ {
				pr := lengthProblem(b, p, run, ex, n, nil)
				want, err := analyseLength(pr, n, false)
				if err != nil {
					t.Fatal(err)
				}
				got, err := analyseLength(pr, n, true)
				if err != nil {
					t.Fatal(err)
				}
				if got.Verdict != want.Verdict {
					t.Errorf("%s at %s, n = %d: wide %s (%s), float64 path %s (%s)", b.name, bits, n, got.Verdict, got.Statement(), want.Verdict, want.Statement())
				}
				if got.Verdict == Fails {
					if y, _ := unfaithfulInput(b, run, ex, got.Counterexample, n); y == nil {
						t.Errorf("%s at %s, n = %d: the wide counterexample (%s) is right", b.name, bits, n, ratsText(got.Counterexample))
					}
				}
				pr.Check = func([][]*big.Rat) (int, string, error) { return -1, "", nil }
				pr.MaxEnumerate, pr.MaxBoxes = -1, 1<<9
				want, err = analyseLength(pr, n, false)
				if err != nil {
					t.Fatal(err)
				}
				got, err = analyseLength(pr, n, true)
				if err != nil {
					t.Fatal(err)
				}
				if got.Verdict != want.Verdict || got.Boxes != want.Boxes || got.ProvedBoxes != want.ProvedBoxes || got.RunBoxes != want.RunBoxes {
					t.Errorf("%s at %s, n = %d: wide %s, %d boxes (%d proved, %d run); float64 path %s, %d (%d, %d)", b.name, bits, n,
						got.Verdict, got.Boxes, got.ProvedBoxes, got.RunBoxes, want.Verdict, want.Boxes, want.ProvedBoxes, want.RunBoxes)
				}
			}
		}
	}
}

// TestLengthWideAt113Bits: at 113 bits, which only the wide grid treats,
// every box it proves at n = 1, 2, 3 holds, at its corners, its middle
// and seeded random points, only inputs the engine's 113-bit run computes
// exactly; n = 1 of avg is proved (a weight of 1, x·1 exact); and at n =
// 2 avg fails, on an input the run confirms (x₁/2 + x₂/2 rounds where
// the exponents are far apart: 1 + 2^−200 is no 113-bit value).
func TestLengthWideAt113Bits(t *testing.T) {
	p := numeric.MustParsePrecision("113")
	for _, b := range lengthCases(t) {
		run, ex := runners(t, b.m, p)
		for n := 1; n <= 3; n++ {
			pr := lengthProblem(b, p, run, ex, n, nil)
			var proved []wbox
			pr.keepWide = func(lo, hi []*big.Int) { proved = append(proved, wbox{lo, hi}) }
			pr.Check = func([][]*big.Rat) (int, string, error) { return -1, "", nil }
			pr.MaxEnumerate, pr.MaxBoxes = -1, 1<<9
			if _, err := AnalyseLength(pr, n); err != nil {
				t.Fatal(err)
			}
			s := &search{pr: stackedProblem(pr, n), w: newWgrid("113-bit", 113), rng: rand.New(rand.NewPCG(7, uint64(n)))}
			for _, bx := range proved {
				for _, x := range s.wideTries(bx[0], bx[1]) {
					if y, why := unfaithfulInput(b, run, ex, x, n); y != nil {
						t.Fatalf("%s, n = %d: a proved box holds (%s), where %s", b.name, n, ratsText(y), why)
					}
				}
			}
			if n == 1 && !strings.Contains(b.name, "mask-strict") && len(proved) == 0 {
				t.Errorf("%s, n = 1: no box proved", b.name)
			}
			t.Logf("%s, n = %d: %d proved boxes, each sampled", b.name, n, len(proved))
		}
	}
	b := buildW(t, "avg", model.AverageHardmax, map[string]string{"d": "1"})
	run, ex := runners(t, b.m, p)
	for n, want := range map[int]Verdict{1: Proved, 2: Fails} {
		res, err := AnalyseLength(lengthProblem(b, p, run, ex, n, nil), n)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != want {
			t.Fatalf("avg at 113 bits, n = %d: %s, want %s", n, res.Statement(), want)
		}
		if want == Fails {
			if y, _ := unfaithfulInput(b, run, ex, res.Counterexample, n); y == nil {
				t.Fatalf("avg at 113 bits, n = 2: the counterexample (%s) is right", ratsText(res.Counterexample))
			}
		}
		t.Logf("avg at 113 bits, n = %d: %s", n, res.Statement())
	}
}

// TestLengthBoundOfBoxes: a length whose search reaches its bound of
// boxes is undecided, and says so, on both paths.
func TestLengthBoundOfBoxes(t *testing.T) {
	b := buildW(t, "avg", model.AverageHardmax, map[string]string{"d": "1"})
	for _, bits := range []string{"fp32", "113"} {
		p := numeric.MustParsePrecision(bits)
		run, ex := runners(t, b.m, p)
		pr := lengthProblem(b, p, run, ex, 2, nil)
		pr.Check = func([][]*big.Rat) (int, string, error) { return -1, "", nil }
		pr.MaxEnumerate, pr.MaxBoxes = -1, 3
		res, err := AnalyseLength(pr, 2)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Undecided || !strings.Contains(res.Why, "bound of boxes") {
			t.Errorf("%s: %s, want undecided at the bound of boxes", bits, res.Statement())
		}
	}
}

// TestShrinkWideScalesOnce: a failing point of one large and one small
// component, (2^800·(1 + 2^−50), −(1 + 2^−30)) for avg at n = 2 and 113
// bits (x₁/2 + x₂/2 spans some 830 bits, and rounds), shrinks to a point
// of a few significant bits and exponents within 200 of 0, which
// still fails: scaling the whole point by 2^−800 moves the large
// component to 1 and the small one to 2^−800, and scaling back undoes
// it, so a shrink that took every scaling that kept the failure would
// spend its runs swinging between the two.
func TestShrinkWideScalesOnce(t *testing.T) {
	p := numeric.MustParsePrecision("113")
	b := buildW(t, "avg", model.AverageHardmax, map[string]string{"d": "1"})
	run, ex := runners(t, b.m, p)
	pr := lengthProblem(b, p, run, ex, 2, nil)
	s := &search{pr: stackedProblem(pr, 2), w: newWgrid("113-bit", 113), res: &Result{}}
	x := []*big.Rat{
		new(big.Rat).Mul(pow2(800), new(big.Rat).Add(big.NewRat(1, 1), pow2(-50))),
		new(big.Rat).Neg(new(big.Rat).Add(big.NewRat(1, 1), pow2(-30))),
	}
	if y, _ := unfaithfulInput(b, run, ex, x, 2); y == nil {
		t.Fatalf("(%s) does not fail: the test's premise", ratsText(x))
	}
	got, _ := s.shrinkWide(x, "")
	if y, _ := unfaithfulInput(b, run, ex, got, 2); y == nil {
		t.Fatalf("the shrunk point (%s) does not fail", ratsText(got))
	}
	bits, far := 0, 0
	for _, c := range got {
		nb, e := wcomplexity(c)
		bits, far = bits+nb, max(far, e)
	}
	if bits > 4 || far > 200 {
		t.Errorf("shrunk to (%s): %d significant bits, an exponent %d from 0; want at most 4 and 200", ratsText(got), bits, far)
	}
	t.Logf("shrunk to (%s)", ratsText(got))
}
