package proofs

import (
	"bufio"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The checkers of §Feed-Forward Layers and §Rounding and Approximation
// must be able to reach another verdict: each is run here on a perturbed
// construction (or a tightened constant) and must then refute.

func expect(t *testing.T, what string, ev *Evidence, err error, want Verdict) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if ev.Verdict != want {
		t.Errorf("%s: verdict %s, want %s: %s", what, ev.Verdict, want, ev.Summary)
		return
	}
	t.Logf("%s: %s: %s", what, ev.Verdict, ev.Summary)
}

// perturb returns a copy of f with entry (i, j) of W2 increased by 1/1000.
func perturb(f *stream.FF, i, j int) *stream.FF {
	g := *f
	g.W2 = model.Zeros(f.W2.Rows, f.W2.Cols)
	copy(g.W2.Data, f.W2.Data)
	g.W2.Set(i, j, numeric.Add(f.W2.At(i, j), numeric.Frac(1, 1000)))
	return &g
}

func TestFFNCheckersRefutePerturbedBlocks(t *testing.T) {
	ev, err := ffProveCases([]ffnCase{ffMinCase(perturb(blocks.Min("x", "y", "m"), 0, 2))})
	expect(t, "min with W2[0][2] + 1/1000", ev, err, Refuted)

	ev, err = ffCheckCPWL(func(xs, ys []*big.Rat) (*stream.FF, error) {
		f, err := ffCPWLBlock(xs, ys)
		if err != nil {
			return nil, err
		}
		return perturb(f, 0, f.W2.Cols-1), nil
	}, ffInterpolation)()
	expect(t, "cpwl with its last knot's weight + 1/1000", ev, err, Refuted)

	ev, err = ffCheckCPWL(func(xs, ys []*big.Rat) (*stream.FF, error) { return ffCPWLRewrite(xs, ys), nil },
		func(xs, ys []*big.Rat) []cpwl.Piece { return ffCPWLCases(xs[:len(xs)-1], ys[:len(ys)-1]) })()
	expect(t, "cpwl rewrite against the cases of the points without the last", ev, err, Refuted)

	// f′ = f itself (no cancellation) is not f − x
	ev, err = ffCheckCancel(func(f *stream.FF) (*stream.FF, error) { return f, nil }, ffCancelCases())
	expect(t, "cancel-residual without the ±I units", ev, err, Refuted)

	ev, err = ffCheckIfIntervals(func(a, b *big.Rat) (*stream.FF, error) {
		f, err := blocks.IfInterval("p", "x", "y", "out", a, b)
		if err != nil {
			return nil, err
		}
		f.B2 = nil // drop the + a
		return f, nil
	})
	expect(t, "if on [a, b] without b2 = a", ev, err, Refuted)

	ev, err = proveAt(epsilons, func(eps *big.Rat) *stream.FF {
		return blocks.GTZeroEps("x", "y", new(big.Rat).Mul(eps, big.NewRat(2, 1)), new(big.Rat))
	}, ffGtzeroPieces)()
	expect(t, "GTZero_{2ε} against GTZero_ε's pieces", ev, err, Refuted)

	ev, err = ffCheckComparatorsNotExact(func(eps *big.Rat) *stream.FF {
		return blocks.GTZeroEps("x", "y", new(big.Rat).Quo(eps, big.NewRat(4, 1)), new(big.Rat))
	}, ffGezeroEps, ffEqzeroEps)
	expect(t, "comparators not exact, with GTZero_{ε/4} (exact at ε/2)", ev, err, Refuted)
}

func TestBooleanCheckersRefute(t *testing.T) {
	// x_1 the least significant bit instead of the most
	reversed := func(xs []string, out string, table []bool) (*stream.FF, error) {
		f, err := blocks.Boolean(xs, out, table)
		if err != nil {
			return nil, err
		}
		m := len(xs)
		w1 := model.Zeros(f.W1.Rows, m)
		for r := 0; r < f.W1.Rows; r++ {
			for c := 0; c < m; c++ {
				w1.Set(r, c, f.W1.At(r, m-1-c))
			}
		}
		f.W1 = w1
		return f, nil
	}
	ev, err := ffCheckBooleanTables(reversed, 2)
	expect(t, "ff_φ with W1's columns reversed (x_1 least significant)", ev, err, Refuted)
	ev, err = ffCheckBooleanHidden(reversed, 3)
	expect(t, "hidden units with W1's columns reversed", ev, err, Refuted)
	ev, err = ffCheckBooleanDerivation(reversed, 3)
	expect(t, "derivation against W1's columns reversed", ev, err, Refuted)

	ev, err = ffCheckConnectives(blocks.Or, blocks.And, blocks.Not)
	expect(t, "∧ and ∨ swapped", ev, err, Refuted)
}

func TestMultiplicationCheckersRefute(t *testing.T) {
	gelu, err := ffGeluModel(model.GELUTanh)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := ffCheckTaylor("tanh", gelu, big.NewRat(1, 20))
	expect(t, "Taylor remainder against |z|³/20", ev, err, Refuted)

	mul, err := ffMulModel(model.GELUTanh)
	if err != nil {
		t.Fatal(err)
	}
	ev, err = ffCheckMulBound("tanh", mul, big.NewRat(1, 20))
	expect(t, "GELU product against (|x|+|y|)³/20", ev, err, Refuted)

	f := blocks.MulGELU("x", "y", "xy", model.GELUTanh)
	f.W2 = f.W2.Scale(numeric.Frac(3, 2))
	bad, err := stream.New("mul", "x", "y").Then(f).Readout("xy").Model()
	if err != nil {
		t.Fatal(err)
	}
	ev, err = ffCheckMulBound("tanh", bad, big.NewRat(1, 4))
	expect(t, "the block mul with W2 scaled by 3/2", ev, err, Refuted)
}

// TestMultiplicationEngineDisagrees: the engine's erf GELU checked against
// the proof for the tanh form must be an error, not a verdict. Its
// |R(9/4)|/(9/4)³ = 0.080957 (mpmath, testdata/gelu_sup.txt) lies above
// the tanh form's T* = 0.080938, and its block's |ε(1, 1)|/8 = 0.08242
// above the tanh form's C* = 0.08237: the engine's runs must be read
// against the enclosures, not only against the paper's constants.
func TestMultiplicationEngineDisagrees(t *testing.T) {
	gelu, err := ffGeluModel(model.GELU)
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := ffCheckTaylor("tanh", gelu, big.NewRat(1, 6)); err == nil || !strings.Contains(err.Error(), "disagree") {
		t.Errorf("the erf GELU unit against the tanh form's proof: %v, %v; want an error naming the disagreement", ev, err)
	}
	mul, err := ffMulModel(model.GELU)
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := ffCheckMulBound("tanh", mul, big.NewRat(1, 4)); err == nil || !strings.Contains(err.Error(), "disagree") {
		t.Errorf("the erf block mul against the tanh form's proof: %v, %v; want an error naming the disagreement", ev, err)
	}
}

func TestRoundingCheckersRefute(t *testing.T) {
	ev, err := rdCheckRoundedStep(blocks.GTZero("x", "eps", "out"))
	expect(t, "rounded step from GTZero(x, ε)", ev, err, Refuted)

	eps := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 24))
	ev, err = rdCheckFloatStep(blocks.GEZero("x", "eps", "out"), "exact", eps, rdFloatValues(numeric.Binary16, 16))
	expect(t, "the floating-point step in exact arithmetic", ev, err, Holds)

	ev, err = rdCheckFFNLipschitz(rdRandomFFNs(5, 10), 5, big.NewRat(1, 2))
	expect(t, "FFN error against K/2", ev, err, Refuted)

	ev, err = rdCheckAttention(7, 40, big.NewRat(1, 40))
	expect(t, "attention error against K/40", ev, err, Refuted)

	ev, err = rdCheckAttentionHard(model.Softmax, "interval:64")
	expect(t, "the hard-attention counterexample under softmax", ev, err, Holds)

	ev, err = rdCheckLayerNorm(17, 150, big.NewRat(9, 10))
	expect(t, "layer norm error against 9K/10", ev, err, Refuted)

	ev, err = rdCheckLayerNormNoEps(big.NewRat(1, 100), "interval:64")
	expect(t, "the ε = 0 family with ε = 1/100", ev, err, Refuted)

	ev, err = rdCheckBoundedActivations(11, 6, []int{1, 3, 12}, big.NewRat(1, 2))
	expect(t, "bounded activations against X/2", ev, err, Refuted)

	ev, err = rdCheckTriangle(perturb(rdTriangleFFN(), 0, 0))
	expect(t, "triangle FFN with a weight + 1/1000", ev, err, Refuted)

	x := []*big.Rat{new(big.Rat), new(big.Rat), new(big.Rat)}
	f := &stream.FF{Name: "sum", In: ffNames("x", 3), Out: []string{"y"}, W1: model.Ints([]int64{1, 1, 1}), W2: model.Ints([]int64{1})}
	ev, err = rdCheckLinf1Euclidean(f, x, []*big.Rat{big.NewRat(1, 1), new(big.Rat), new(big.Rat)})
	expect(t, "the L∞,1 counterexample along an axis", ev, err, Holds)
}

// TestFFNClaimSections: every claim of these chapters cites a section
// title and label exactly as recipes/testdata/labels.txt has them.
func TestFFNClaimSections(t *testing.T) {
	f, err := os.Open("../recipes/testdata/labels.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		label, title, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		if label == "-" {
			label = ""
		}
		known[label+"\t"+title] = true
	}
	for _, c := range All() {
		if !strings.HasPrefix(c.ID, "ffn.") && !strings.HasPrefix(c.ID, "round.") {
			continue
		}
		if !known[c.Label+"\t"+c.Section] {
			t.Errorf("%s: section %q with label %q is not in labels.txt", c.ID, c.Section, c.Label)
		}
	}
}
