package proofs

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// The checkers of the representation and layer-norm claims must be able
// to reach another verdict: each test perturbs one case and expects the
// checker to notice.

// TestHomogeneityCheckerRefutesBiases: blocks with biases are not
// positively 1-homogeneous, and the checker finds an exact witness both
// when f(0) ≠ 0 (a bias on the output) and when f(0) = 0 but a region has
// an offset (clip_δ).
func TestHomogeneityCheckerRefutesBiases(t *testing.T) {
	withB2 := blocks.Min("x", "y", "m")
	withB2.B2 = model.IntVector(1)
	withB1 := blocks.Max("x", "y", "m")
	withB1.B1 = model.IntVector(0, 0, 1)
	for _, f := range []lnxNamedFFN{
		lnxBlockFFN("min + 1", withB2),
		lnxBlockFFN("max with a hidden bias", withB1),
		lnxBlockFFN("clip_1/2", blocks.Clip("x", "y", big.NewRat(1, 2))),
	} {
		ev, err := lnxCheckHomogeneous([]lnxNamedFFN{f})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if ev.Verdict != Refuted {
			t.Errorf("%s: %s, want REFUTED: %s", f.name, ev.Verdict, ev.Summary)
		}
	}
	ev, err := lnxCheckHomogeneous(lnxBiasFreeBlocks())
	if err != nil || ev.Verdict != Proved {
		t.Errorf("bias-free blocks: %v %v", ev, err)
	}
}

// TestLipschitzCheckerSeesAWeight: doubling min's output weights doubles
// its Lipschitz constant.
func TestLipschitzCheckerSeesAWeight(t *testing.T) {
	f := blocks.Min("x", "y", "m")
	f.W2 = model.Ints([]int64{2, -2, -2})
	l, _, _, err := lnxLipschitz(lnxBlockFFN("2·min", f).f)
	if err != nil {
		t.Fatal(err)
	}
	if l.Cmp(big.NewRat(2, 1)) != 0 {
		t.Errorf("Lipschitz constant of 2·min = %s, want 2", l.RatString())
	}
}

// TestSymbolicLayerNorm: the polynomial checks reject vectors that are not
// ± pairs, scales that do not factor out, and a wrong hash.
func TestSymbolicLayerNorm(t *testing.T) {
	x, k := lnxPvar(0), lnxPvar(1)
	kx := lnxPmul(k, x)
	neg := func(p lnxPoly) lnxPoly { return lnxPscale(big.NewRat(-1, 1), p) }
	// [kx, k, −kx, k]: mean k/2, not zero.
	if _, _, err := lnxScaleFree([]lnxPoly{kx, k, neg(kx), k}, 1); err == nil || !strings.Contains(err.Error(), "mean") {
		t.Errorf("nonzero mean accepted: %v", err)
	}
	// [kx, 1, −kx, −1]: the scale does not factor out.
	one := lnxPconst(big.NewRat(1, 1))
	if _, _, err := lnxScaleFree([]lnxPoly{kx, one, neg(kx), neg(one)}, 1); err == nil {
		t.Error("a vector that is not homogeneous in k accepted")
	}
	// [2x, 1, −2x, −1]: a hash of 2x, not of x.
	two := lnxPscale(big.NewRat(2, 1), x)
	_, c, v := lnxMoments([]lnxPoly{two, one, neg(two), neg(one)})
	if err := lnxCheckLHPoly(c, v); err == nil {
		t.Error("LN([2x, 1, −2x, −1]) accepted as lh(x)")
	}
	_, c, v = lnxMoments(lnxLhVector())
	if err := lnxCheckLHPoly(c, v); err != nil {
		t.Errorf("lh(x): %v", err)
	}
	// (q² + 1)(j² + 1) − (qj + 1)² = (q − j)², and not (q + j)².
	q2, j2 := lnxPmul(x, x), lnxPmul(k, k)
	qj1 := lnxPadd(kx, one)
	lhs := lnxPsub(lnxPmul(lnxPadd(q2, one), lnxPadd(j2, one)), lnxPmul(qj1, qj1))
	d, s := lnxPsub(x, k), lnxPadd(x, k)
	if !lnxPequal(lhs, lnxPmul(d, d)) || lnxPequal(lhs, lnxPmul(s, s)) {
		t.Errorf("(q² + 1)(j² + 1) − (qj + 1)² = %s", lhs.format("q", "j"))
	}
}

// TestBooleanCellsFlip: every cell's checker refutes the opposite entry,
// and the ops checker refutes a representation NOT does not preserve.
func TestBooleanCellsFlip(t *testing.T) {
	for _, r := range basReps {
		flipped := r
		flipped.gap, flipped.mean, flipped.fixVar = !r.gap, !r.mean, !r.fixVar
		for name, check := range map[string]func(basRep) (*Evidence, error){"gap": basGap, "mean": basMeanCell, "variance": basVarCell} {
			ev, err := check(r)
			if err != nil || ev.Verdict != Proved {
				t.Errorf("%s.%s as printed: %v %v", r.key, name, ev, err)
			}
			ev, err = check(flipped)
			if err != nil || ev.Verdict != Refuted {
				t.Errorf("%s.%s flipped: %v %v", r.key, name, ev, err)
			}
		}
	}
	// −1/+1 relabelled false = −1, true = 2: NOT = −x sends −1 to 1,
	// which represents nothing.
	bad := basReps[2]
	if bad.key != "pm-one" {
		t.Fatalf("basReps[2] is %s", bad.key)
	}
	bad.trueSet = basPoint("2")
	ev, err := basOpsCell(bad)
	if err != nil || ev.Verdict != Refuted {
		t.Errorf("ops on false = −1, true = 2: %v %v", ev, err)
	}
}

// TestAOArithmetic pins the binomial tail and the dimension by hand.
func TestAOArithmetic(t *testing.T) {
	// m = 4, ε = 1/2: |S_4| ≤ 2 for S ∈ {−2, 0, 2}: (4 + 6 + 4)/16.
	tail, inside := basTail(4, big.NewRat(1, 2))
	if inside.Cmp(big.NewRat(14, 16)) != 0 || tail.Cmp(big.NewRat(2, 16)) != 0 {
		t.Errorf("m = 4, ε = 1/2: inside %s, tail %s", inside.RatString(), tail.RatString())
	}
	// N = 2, ε = 1/4, k = 1: ⌈192 ln 4⌉ = ⌈266.17…⌉ = 267.
	if m, err := basAODim(2, big.NewRat(1, 4), numeric.LitInt(1)); err != nil || m != 267 {
		t.Errorf("m = %d, %v, want 267", m, err)
	}
}

// TestRatioLemmaNeedsNoPositions: the refutation of "i/n by unmasked
// attention" rests on positions with equal inputs staying equal; give the
// same kind of random models a position encoding (i in the first
// component) and positions 2 and 3 of ^aa separate.
func TestRatioLemmaNeedsNoPositions(t *testing.T) {
	if ev := checked.evidence(t, "pe.ratio.unmasked-bos"); ev.Verdict != Refuted {
		t.Fatalf("pe.ratio.unmasked-bos: %s, want REFUTED: %s", ev.Verdict, ev.Summary)
	}
	rng := rand.New(rand.NewPCG(13, 5))
	separated := 0
	for k := 0; k < 10; k++ {
		m, err := basRandomUnmasked(rng, model.AverageHardmax)
		if err != nil {
			t.Fatal(err)
		}
		d := m.D
		m.Position = &model.PositionEncoding{Name: "i", Vector: func(i, n int) model.Vector {
			v := make(model.Vector, d)
			v[0] = numeric.LitInt(int64(i))
			return v
		}}
		run, err := model.New(numeric.MustParsePrecision("exact"), m)
		if err != nil {
			t.Fatal(err)
		}
		syms, _ := m.Tokenize("^aa")
		out, err := run.Run(syms, false)
		if err != nil {
			t.Fatal(err)
		}
		for c := range out.Outputs[1].Values {
			if out.Outputs[1].Values[c].Text != out.Outputs[2].Values[c].Text {
				separated++
				break
			}
		}
	}
	if separated == 0 {
		t.Error("no random model with a position encoding separates positions 2 and 3: the check could not tell")
	}
}
