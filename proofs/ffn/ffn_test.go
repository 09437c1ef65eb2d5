package ffn

import (
	"bufio"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/proofs/internal/prooftest"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The checkers of §Feed-Forward Layers and §Rounding and Approximation
// must be able to reach another verdict: each is run here on a perturbed
// construction (or a tightened constant) and must then refute.

func TestFFNCheckersRefutePerturbedBlocks(t *testing.T) {
	ev, err := proofs.ProveCases([]proofs.FFNCase{minCase(prooftest.Perturb(blocks.Min("x", "y", "m"), 0, 2))})
	prooftest.Expect(t, "min with W2[0][2] + 1/1000", ev, err, proofs.Refuted)

	ev, err = checkCPWL(func(xs, ys []*big.Rat) (*stream.FF, error) {
		f, err := cpwlBlock(xs, ys)
		if err != nil {
			return nil, err
		}
		return prooftest.Perturb(f, 0, f.W2.Cols-1), nil
	}, interpolation)()
	prooftest.Expect(t, "cpwl with its last knot's weight + 1/1000", ev, err, proofs.Refuted)

	ev, err = checkCPWL(func(xs, ys []*big.Rat) (*stream.FF, error) { return cpwlRewrite(xs, ys), nil },
		func(xs, ys []*big.Rat) []cpwl.Piece { return cpwlCases(xs[:len(xs)-1], ys[:len(ys)-1]) })()
	prooftest.Expect(t, "cpwl rewrite against the cases of the points without the last", ev, err, proofs.Refuted)

	// f′ = f itself (no cancellation) is not f − x
	ev, err = checkCancel(func(f *stream.FF) (*stream.FF, error) { return f, nil }, cancelCases())
	prooftest.Expect(t, "cancel-residual without the ±I units", ev, err, proofs.Refuted)

	ev, err = checkIfIntervals(func(a, b *big.Rat) (*stream.FF, error) {
		f, err := blocks.IfInterval("p", "x", "y", "out", a, b)
		if err != nil {
			return nil, err
		}
		f.B2 = nil // drop the + a
		return f, nil
	})
	prooftest.Expect(t, "if on [a, b] without b2 = a", ev, err, proofs.Refuted)

	ev, err = proofs.ProveAt(epsilons, func(eps *big.Rat) *stream.FF {
		return blocks.GTZeroEps("x", "y", new(big.Rat).Mul(eps, big.NewRat(2, 1)), new(big.Rat))
	}, gtzeroPieces)()
	prooftest.Expect(t, "GTZero_{2ε} against GTZero_ε's pieces", ev, err, proofs.Refuted)

	ev, err = checkComparatorsNotExact(func(eps *big.Rat) *stream.FF {
		return blocks.GTZeroEps("x", "y", new(big.Rat).Quo(eps, big.NewRat(4, 1)), new(big.Rat))
	}, gezeroEps, eqzeroEps)
	prooftest.Expect(t, "comparators not exact, with GTZero_{ε/4} (exact at ε/2)", ev, err, proofs.Refuted)
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
	ev, err := checkBooleanTables(reversed, 2)
	prooftest.Expect(t, "ff_φ with W1's columns reversed (x_1 least significant)", ev, err, proofs.Refuted)
	ev, err = checkBooleanHidden(reversed, 3)
	prooftest.Expect(t, "hidden units with W1's columns reversed", ev, err, proofs.Refuted)
	ev, err = checkBooleanDerivation(reversed, 3)
	prooftest.Expect(t, "derivation against W1's columns reversed", ev, err, proofs.Refuted)

	ev, err = checkConnectives(blocks.Or, blocks.And, blocks.Not)
	prooftest.Expect(t, "∧ and ∨ swapped", ev, err, proofs.Refuted)
}

func TestMultiplicationCheckersRefute(t *testing.T) {
	gelu, err := geluModel(model.GELUTanh)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := checkTaylor("tanh", gelu, big.NewRat(1, 20))
	prooftest.Expect(t, "Taylor remainder against |z|³/20", ev, err, proofs.Refuted)

	mul, err := mulModel(model.GELUTanh)
	if err != nil {
		t.Fatal(err)
	}
	ev, err = checkMulBound("tanh", mul, big.NewRat(1, 20))
	prooftest.Expect(t, "GELU product against (|x|+|y|)³/20", ev, err, proofs.Refuted)

	f := blocks.MulGELU("x", "y", "xy", model.GELUTanh)
	f.W2 = f.W2.Scale(numeric.Frac(3, 2))
	bad, err := stream.New("mul", "x", "y").Then(f).Readout("xy").Model()
	if err != nil {
		t.Fatal(err)
	}
	ev, err = checkMulBound("tanh", bad, big.NewRat(1, 4))
	prooftest.Expect(t, "the block mul with W2 scaled by 3/2", ev, err, proofs.Refuted)
}

// TestMultiplicationEngineDisagrees: the engine's erf GELU checked against
// the proof for the tanh form must be an error, not a verdict. Its
// |R(9/4)|/(9/4)³ = 0.080957 (mpmath, testdata/gelu_sup.txt) lies above
// the tanh form's T* = 0.080938, and its block's |ε(1, 1)|/8 = 0.08242
// above the tanh form's C* = 0.08237: the engine's runs must be read
// against the enclosures, not only against the paper's constants.
func TestMultiplicationEngineDisagrees(t *testing.T) {
	gelu, err := geluModel(model.GELU)
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := checkTaylor("tanh", gelu, big.NewRat(1, 6)); err == nil || !strings.Contains(err.Error(), "disagree") {
		t.Errorf("the erf GELU unit against the tanh form's proof: %v, %v; want an error naming the disagreement", ev, err)
	}
	mul, err := mulModel(model.GELU)
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := checkMulBound("tanh", mul, big.NewRat(1, 4)); err == nil || !strings.Contains(err.Error(), "disagree") {
		t.Errorf("the erf block mul against the tanh form's proof: %v, %v; want an error naming the disagreement", ev, err)
	}
}

// TestFFNClaimSections: every claim of these chapters cites a section
// title and label exactly as recipes/testdata/labels.txt has them.
func TestFFNClaimSections(t *testing.T) {
	f, err := os.Open("../../recipes/testdata/labels.txt")
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
	for _, c := range proofs.All() {
		if !strings.HasPrefix(c.ID, "ffn.") && !strings.HasPrefix(c.ID, "round.") {
			continue
		}
		if !known[c.Label+"\t"+c.Section] {
			t.Errorf("%s: section %q with label %q is not in labels.txt", c.ID, c.Section, c.Label)
		}
	}
}
