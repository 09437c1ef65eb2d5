package positionwise

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// TestOpaqueActivation: a GELU unit is top, so no box through it is
// proved (mul-gelu at fp8-e4m3, every box searched with a check that
// passes every point), and the premise is needed: with GELU taken for a
// linear unit (its irrational weight √(π/2) replaced by 1, so that
// nothing else is top) the analysis proves boxes where the engine's run
// is not the exact one.
func TestOpaqueActivation(t *testing.T) {
	p := numeric.MustParsePrecision("fp8-e4m3")
	b := build(t, "mul-gelu", nil)
	run, err := eval.New(p, b.m)
	if err != nil {
		t.Fatal(err)
	}
	pr := problem(t, b, p, run, nil)
	pr.MaxBoxes = 1 << 12
	res, err := Analyse(pr)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProvedBoxes != 0 || res.Verdict == Proved {
		t.Fatalf("mul-gelu: %d boxes proved (%s)", res.ProvedBoxes, res.Statement())
	}
	rational := perturbed(b, p, func(ff *model.FeedForward, _ numeric.Precision) {
		for k, e := range ff.W2.Data {
			if _, ok, _ := e.Rat(); !ok {
				ff.W2.Data[k] = numeric.LitInt(1)
			}
		}
	})
	if n, _, bad, _ := agreementOrError(t, rational, p); bad != nil || n != 0 {
		t.Fatalf("%d boxes of the rational GELU model proved (one holds %v)", n, bad)
	}
	mutation = "gelu-as-linear"
	defer func() { mutation = "" }()
	if _, _, bad, _ := agreementOrError(t, rational, p); bad == nil {
		t.Error("with GELU taken for a linear unit, every proved box still agrees")
	}
}

// agreementOrError is agreement at each proved box's lower corner, with
// a 256-bit run standing for the exact one (exact arithmetic has no
// GELU): a GELU's output at a nonzero point is irrational, so a format's
// output equal to the 256-bit one there is at most a coincidence.
func agreementOrError(t *testing.T, b built, p numeric.Precision) (int, int64, []*big.Rat, string) {
	t.Helper()
	run, err := eval.New(p, b.m)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := eval.New(numeric.MustParsePrecision("256"), b.m)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := gridOf(p)
	var boxes [][2][]int64
	pr := problem(t, b, p, run, func(lo, hi []int64) {
		boxes = append(boxes, [2][]int64{append([]int64(nil), lo...), append([]int64(nil), hi...)})
	})
	pr.MaxBoxes = 1 << 12
	if _, err := Analyse(pr); err != nil {
		t.Fatal(err)
	}
	check := faithfulCheck(t, b, run, ex)
	for _, bx := range boxes {
		x := []*big.Rat{g.pointValue(bx[0][0]), g.pointValue(bx[0][1])}
		if bad, why, err := check([][]*big.Rat{x}); err != nil || bad >= 0 {
			return len(boxes), 0, x, why
		}
	}
	return len(boxes), 0, nil, ""
}
