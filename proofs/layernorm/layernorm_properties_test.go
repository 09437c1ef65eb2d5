package layernorm

import (
	"math/big"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/proofs/internal/poly"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// TestHomogeneityCheckerRefutesBiases: blocks with biases are not
// positively 1-homogeneous, and the checker finds an exact witness both
// when f(0) ≠ 0 (a bias on the output) and when f(0) = 0 but a region has
// an offset (clip_δ).
func TestHomogeneityCheckerRefutesBiases(t *testing.T) {
	withB2 := blocks.Min("x", "y", "m")
	withB2.B2 = model.IntVector(1)
	withB1 := blocks.Max("x", "y", "m")
	withB1.B1 = model.IntVector(0, 0, 1)
	for _, f := range []namedFFN{
		blockFFN("min + 1", withB2),
		blockFFN("max with a hidden bias", withB1),
		blockFFN("clip_1/2", blocks.Clip("x", "y", big.NewRat(1, 2))),
	} {
		ev, err := checkHomogeneous([]namedFFN{f})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if ev.Verdict != proofs.Refuted {
			t.Errorf("%s: %s, want REFUTED: %s", f.name, ev.Verdict, ev.Summary)
		}
	}
	ev, err := checkHomogeneous(biasFreeBlocks())
	if err != nil || ev.Verdict != proofs.Proved {
		t.Errorf("bias-free blocks: %v %v", ev, err)
	}
}

// TestLipschitzCheckerSeesAWeight: doubling min's output weights doubles
// its Lipschitz constant.
func TestLipschitzCheckerSeesAWeight(t *testing.T) {
	f := blocks.Min("x", "y", "m")
	f.W2 = model.Ints([]int64{2, -2, -2})
	l, _, _, err := lipschitz(blockFFN("2·min", f).f)
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
	x, k := poly.Var(0), poly.Var(1)
	kx := poly.Mul(k, x)
	neg := func(p poly.Poly) poly.Poly { return poly.Scale(big.NewRat(-1, 1), p) }
	// [kx, k, −kx, k]: mean k/2, not zero.
	if _, _, err := poly.ScaleFree([]poly.Poly{kx, k, neg(kx), k}, 1); err == nil || !strings.Contains(err.Error(), "mean") {
		t.Errorf("nonzero mean accepted: %v", err)
	}
	// [kx, 1, −kx, −1]: the scale does not factor out.
	one := poly.Const(big.NewRat(1, 1))
	if _, _, err := poly.ScaleFree([]poly.Poly{kx, one, neg(kx), neg(one)}, 1); err == nil {
		t.Error("a vector that is not homogeneous in k accepted")
	}
	// [2x, 1, −2x, −1]: a hash of 2x, not of x.
	two := poly.Scale(big.NewRat(2, 1), x)
	_, c, v := poly.Moments([]poly.Poly{two, one, neg(two), neg(one)})
	if err := checkLHPoly(c, v); err == nil {
		t.Error("LN([2x, 1, −2x, −1]) accepted as lh(x)")
	}
	_, c, v = poly.Moments(lhVector())
	if err := checkLHPoly(c, v); err != nil {
		t.Errorf("lh(x): %v", err)
	}
	// (q² + 1)(j² + 1) − (qj + 1)² = (q − j)², and not (q + j)².
	q2, j2 := poly.Mul(x, x), poly.Mul(k, k)
	qj1 := poly.Add(kx, one)
	lhs := poly.Sub(poly.Mul(poly.Add(q2, one), poly.Add(j2, one)), poly.Mul(qj1, qj1))
	d, s := poly.Sub(x, k), poly.Add(x, k)
	if !poly.Equal(lhs, poly.Mul(d, d)) || poly.Equal(lhs, poly.Mul(s, s)) {
		t.Errorf("(q² + 1)(j² + 1) − (qj + 1)² = %s", lhs.Format("q", "j"))
	}
}
