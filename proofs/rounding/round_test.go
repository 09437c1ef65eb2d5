package rounding

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/proofs/internal/prooftest"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

func TestRoundingCheckersRefute(t *testing.T) {
	ev, err := checkRoundedStep(blocks.GTZero("x", "eps", "out"))
	prooftest.Expect(t, "rounded step from GTZero(x, ε)", ev, err, proofs.Refuted)

	eps := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 24))
	ev, err = checkFloatStep(blocks.GEZero("x", "eps", "out"), "exact", eps, floatValues(numeric.Binary16, 16))
	prooftest.Expect(t, "the floating-point step in exact arithmetic", ev, err, proofs.Holds)

	ev, err = checkFFNLipschitz(randomFFNs(5, 10), 5, big.NewRat(1, 2))
	prooftest.Expect(t, "FFN error against K/2", ev, err, proofs.Refuted)

	ev, err = checkAttention(7, 40, big.NewRat(1, 40))
	prooftest.Expect(t, "attention error against K/40", ev, err, proofs.Refuted)

	ev, err = checkAttentionHard(model.Softmax, "interval:64")
	prooftest.Expect(t, "the hard-attention counterexample under softmax", ev, err, proofs.Holds)

	ev, err = checkLayerNorm(17, 150, big.NewRat(9, 10))
	prooftest.Expect(t, "layer norm error against 9K/10", ev, err, proofs.Refuted)

	ev, err = checkLayerNormNoEps(big.NewRat(1, 100), "interval:64")
	prooftest.Expect(t, "the ε = 0 family with ε = 1/100", ev, err, proofs.Refuted)

	ev, err = checkBoundedActivations(11, 6, []int{1, 3, 12}, big.NewRat(1, 2))
	prooftest.Expect(t, "bounded activations against X/2", ev, err, proofs.Refuted)

	ev, err = checkTriangle(prooftest.Perturb(triangleFFN(), 0, 0))
	prooftest.Expect(t, "triangle FFN with a weight + 1/1000", ev, err, proofs.Refuted)

	x := []*big.Rat{new(big.Rat), new(big.Rat), new(big.Rat)}
	f := &stream.FF{Name: "sum", In: proofs.Names("x", 3), Out: []string{"y"}, W1: model.Ints([]int64{1, 1, 1}), W2: model.Ints([]int64{1})}
	ev, err = checkLinf1Euclidean(f, x, []*big.Rat{big.NewRat(1, 1), new(big.Rat), new(big.Rat)})
	prooftest.Expect(t, "the L∞,1 counterexample along an axis", ev, err, proofs.Holds)
}
