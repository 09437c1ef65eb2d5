package positionwise

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// normAgreement is the box analysis of amplify (d = 2) at p over
// x ∈ [−1, 1]², every point passing (so that the search covers the
// square), and every point of every proved box held to the engine: the
// run at p equals the exact run (an exact run that fails, at an
// irrational layer norm, disagrees). It returns the boxes proved and the
// first point that contradicts a proof (nil: none).
func normAgreement(t *testing.T, p numeric.Precision, lo, hi *big.Rat, tent bool) (int, []*big.Rat, string) {
	t.Helper()
	b := build(t, "amplify", map[string]string{"d": "2"})
	if tent {
		// clip_δ becomes c = relu(x − 4) − relu(2x − 11) + 1, a tent on
		// [4, 7]: 1 at both ends, 2.5 at 5.5.
		b = perturbed(b, p, func(ff *model.FeedForward, _ numeric.Precision) {
			half := ff.W1.Rows / 2
			for r := 0; r < ff.W1.Rows; r++ {
				ff.B1[r] = numeric.LitInt(-4)
				if r >= half {
					ff.B1[r] = numeric.LitInt(-11)
					for c := 0; c < ff.W1.Cols; c++ {
						if w, _, _ := ff.W1.At(r, c).Rat(); w.Sign() != 0 {
							ff.W1.Set(r, c, numeric.LitInt(2))
						}
					}
				}
			}
			for r := range ff.B2 {
				ff.B2[r] = numeric.LitInt(1)
			}
		})
	}
	run, ex := runners(t, b.m, p)
	g, err := gridOf(p)
	if err != nil {
		t.Fatal(err)
	}
	var boxes [][2][]int64
	pr := problem(t, b, p, run, func(lo, hi []int64) {
		boxes = append(boxes, [2][]int64{append([]int64(nil), lo...), append([]int64(nil), hi...)})
	})
	pr.Ranges = []Range{{Lo: lo, Hi: hi}, {Lo: lo, Hi: hi}}
	pr.MaxBoxes = 1 << 14
	res, err := Analyse(pr)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict == Undecided {
		t.Fatalf("amplify at %s: %s", p, res.Statement())
	}
	check := faithfulCheck(t, b, run, ex)
	for _, bx := range boxes {
		var pts [][]*big.Rat
		eachPoint(bx[0], bx[1], func(o []int64) {
			pts = append(pts, []*big.Rat{g.pointValue(o[0]), g.pointValue(o[1])})
		})
		for _, x := range pts {
			if bad, why, err := check([][]*big.Rat{x}); err != nil || bad >= 0 {
				if err != nil {
					why = err.Error()
				}
				return len(boxes), x, why
			}
		}
	}
	return len(boxes), nil, ""
}

// TestNormRule: the layer norm rule proves boxes of amplify's square
// (clip_δ makes each pair ±δ once the sign of x is decided) where the
// format's output is the exact one at every point, none without the
// rule, and without either premise (every ReLU decided, the operands one
// vector on the box) it proves a box that the engine refutes.
func TestNormRule(t *testing.T) {
	p := numeric.MustParsePrecision("6")
	r := func(a, b int64) *big.Rat { return big.NewRat(a, b) }
	n, bad, why := normAgreement(t, p, r(1, 1), r(3, 2), false)
	if bad != nil {
		t.Fatalf("a proved box holds (%s), where %s", ratsText(bad), why)
	}
	if n == 0 {
		t.Fatal("the rule proves no box")
	}
	for _, tc := range []struct {
		mutation string
		lo, hi   *big.Rat
	}{
		{"norm-top", r(1, 1), r(3, 2)},
		// c = x − 3 on [4, 5.5]: exact, every ReLU decided, not constant.
		{"norm-not-constant", r(4, 1), r(11, 2)},
		// The tent on [4, 7]: 1 at every corner checked, 2.5 inside.
		{"norm-not-affine", r(4, 1), r(7, 1)},
	} {
		mutation = tc.mutation
		n, bad, _ := normAgreement(t, p, tc.lo, tc.hi, tc.mutation != "norm-top")
		mutation = ""
		switch {
		case tc.mutation == "norm-top" && n != 0:
			t.Errorf("with norms top, %d boxes still proved", n)
		case tc.mutation != "norm-top" && bad == nil:
			t.Errorf("without %s's premise, every proved box (%d) still agrees", tc.mutation, n)
		}
		if tc.mutation != "norm-top" {
			// With the premise, the same square has no wrong proof.
			if _, bad, why := normAgreement(t, p, tc.lo, tc.hi, true); bad != nil {
				t.Errorf("%s's square: a proved box holds (%s), where %s", tc.mutation, ratsText(bad), why)
			}
		}
	}
}

// TestNormRuleWide: the wide grid applies the rule as the float64 path
// does (the same boxes at 6 bits) and proves amplify's square at 113
// bits, with the engine's run right at its corners and middle.
func TestNormRuleWide(t *testing.T) {
	one, half := big.NewRat(1, 1), big.NewRat(3, 2)
	for _, bits := range []string{"6", "113"} {
		p := numeric.MustParsePrecision(bits)
		b := build(t, "amplify", map[string]string{"d": "2"})
		run, ex := runners(t, b.m, p)
		pr := problem(t, b, p, run, nil)
		pr.Ranges = []Range{{Lo: one, Hi: half}, {Lo: new(big.Rat).Neg(half), Hi: new(big.Rat).Neg(one)}}
		got, err := analyseWide(pr)
		if err != nil {
			t.Fatal(err)
		}
		if got.Verdict != Proved || got.ProvedBoxes == 0 {
			t.Fatalf("%s: %s", bits, got.Statement())
		}
		if bits == "6" {
			want, err := Analyse(pr)
			if err != nil {
				t.Fatal(err)
			}
			if want.Verdict != got.Verdict || want.Boxes != got.Boxes || want.ProvedBoxes != got.ProvedBoxes {
				t.Errorf("6 bits: wide %s (%d boxes, %d proved), float64 path %s (%d, %d)", got.Verdict, got.Boxes, got.ProvedBoxes, want.Verdict, want.Boxes, want.ProvedBoxes)
			}
		}
		pts := [][]*big.Rat{{one, new(big.Rat).Neg(one)}, {half, new(big.Rat).Neg(half)}, {big.NewRat(5, 4), big.NewRat(-5, 4)}}
		if bad, why, err := faithfulCheck(t, b, run, ex)(pts); err != nil || bad >= 0 {
			t.Errorf("%s: the engine's run at a proved point: %s (%v)", bits, why, err)
		}
	}
}
