package assembly

import (
	"math/big"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// Negative controls for the checkers of the assembly claims (assembly_*.go): each must
// reach another verdict when the construction it checks is wrong.

// TestAsmRoutingCatchesWrongBias: ff′.b2 = ff.b2 instead of L (ff.b2) is
// refuted (the first case's L is not the identity and b2 is not 0).
func TestAsmRoutingCatchesWrongBias(t *testing.T) {
	right := routeLemma(false)
	wrong := func(f *stream.FF, L, R exact.Matrix) (*stream.FF, error) {
		g, err := right(f, L, R)
		if err == nil && L.Rows == len(f.B2) {
			g.B2 = f.B2
		}
		return g, err
	}
	ev, err := checkRouting(routeCases()[:1], wrong)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Verdict != proofs.Refuted {
		t.Errorf("b2′ = b2: verdict %s (%s), want REFUTED", ev.Verdict, ev.Summary)
	}
	// And the printed W2′ = L W1 with L = R = I is refuted on the whole
	// domain too, not only at (1, 1).
	c := routingTypo()
	g, err := routeLemma(true)(c.f, c.L, c.R)
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := composedPieces(c.f, c.L, c.R)
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := proofs.ProveFFN(g, proofs.Space(2), pieces); err != nil || ev.Verdict != proofs.Refuted {
		t.Errorf("printed routing on ℝ²: %v, %v", ev, err)
	}
	// The corrected routing of the same case is proved at (1, 1) and on ℝ².
	if ev, err := checkRoutingAt(c, right, exact.IntVector(1, 1)); err != nil || ev.Verdict != proofs.Proved {
		t.Errorf("corrected routing at (1, 1): %v, %v", ev, err)
	}
}

// TestAsmAttnRoutingCatchesMissingL: W^V′ = W^V R (L forgotten) is
// refuted.
func TestAsmAttnRoutingCatchesMissingL(t *testing.T) {
	wrong := func(c attnCase) model.Head {
		h := routeHeadLemma(c)
		h.V = modelMatrix(mul(c.V, c.R))
		return h
	}
	ev, err := checkAttnRouting(attnCases()[:1], wrong, 2)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Verdict != proofs.Refuted {
		t.Errorf("W^V′ = W^V R: verdict %s (%s), want REFUTED", ev.Verdict, ev.Summary)
	}
}

// TestAsmSerialCatchesPerturbedStack: a stacked model whose first FFN is
// changed (E = ReLU(−2 B/i)) differs from the two run in sequence.
func TestAsmSerialCatchesPerturbedStack(t *testing.T) {
	ser, ma, mb, err := serialModels(layer1(), layer2(stream.New("layer2", "o", "B/i", "E")).Readout("t", "g"), serialInputs)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := checkSerial(ser, ma, mb, serialInputs, 3)
	if err != nil || ev.Verdict != proofs.Proved {
		t.Fatalf("before the perturbation: %v, %v", ev, err)
	}
	w1 := ser.Layers[0].FeedForward.W1
	for c := 0; c < w1.Cols; c++ {
		if r, _, _ := w1.At(0, c).Rat(); r != nil && r.Sign() != 0 {
			w1.Set(0, c, numeric.Lit(new(big.Rat).Mul(r, big.NewRat(2, 1))))
		}
	}
	ev, err = checkSerial(ser, ma, mb, serialInputs, 3)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Verdict != proofs.Refuted {
		t.Errorf("perturbed stack: verdict %s, want REFUTED", ev.Verdict)
	}
}

// TestAsmParallelNeedsTheResidual: the widened layers leave the other
// block alone only through the residual connections; switched off, the
// proof's stack is refuted. And a perturbed Widen is refuted.
func TestAsmParallelNeedsTheResidual(t *testing.T) {
	m1, m2, err := parallelModels(4)
	if err != nil {
		t.Fatal(err)
	}
	w, err := widenStack(m1, m2, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := checkConcat(w, m1, m2, proofs.DyckAlphabet, 3, "proof"); err != nil || ev.Verdict != proofs.Proved {
		t.Fatalf("the proof's stack: %v, %v", ev, err)
	}
	for l := range w.Layers {
		w.Layers[l].NoAttentionResidual = true
		w.Layers[l].NoFeedForwardResidual = true
	}
	ev, err := checkConcat(w, m1, m2, proofs.DyckAlphabet, 3, "no residual")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Verdict != proofs.Refuted {
		t.Errorf("without residual connections: verdict %s, want REFUTED", ev.Verdict)
	}

	tf1 := layer2(layer1()).Readout("B/i", "t")
	tf2 := opens()
	wide, err := stream.Widen(tf1, tf2)
	if err != nil {
		t.Fatal(err)
	}
	m, err := wide.Model()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tf1.Model()
	b, _ := tf2.Model()
	// The second block's Avg head averages c twice over: O/i doubled.
	h := m.Layers[0].Attention.Heads[1]
	for r := 0; r < h.V.Rows; r++ {
		for c := 0; c < h.V.Cols; c++ {
			if x, _, _ := h.V.At(r, c).Rat(); x != nil && x.Sign() != 0 {
				h.V.Set(r, c, numeric.LitInt(2))
			}
		}
	}
	ev, err = checkConcat(m, a, b, proofs.DyckAlphabet, 3, "perturbed widen")
	if err != nil {
		t.Fatal(err)
	}
	if ev.Verdict != proofs.Refuted || !strings.Contains(ev.Summary, "perturbed widen") {
		t.Errorf("perturbed Widen: verdict %s (%s), want REFUTED", ev.Verdict, ev.Summary)
	}
}

// TestAsmLiteralWidenShape: the printed f1′.ff.W1 = [f1.ff.W2 …] does not
// even fit when W2 is not square (dyck1's FFN: W2 is 4×1): an error, not
// a verdict.
func TestAsmLiteralWidenShape(t *testing.T) {
	m1, m2, err := parallelModels(4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := widenStack(m1, m2, false, true); err == nil || !strings.Contains(err.Error(), "needs W2") {
		t.Errorf("literal widen of dyck1: %v, want a shape error", err)
	}
}
