package stream

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// ffOnly is a width-2 model made of one feed-forward sublayer without a
// residual connection, read out whole: it computes ff(x) itself.
func ffOnly(w1, w2 model.Matrix) *model.Model {
	return &model.Model{Name: "ff", D: 2, Alphabet: []string{"·"}, WordEmbedding: []model.Vector{nil},
		Layers: []model.Layer{{FeedForward: &model.FeedForward{W1: w1, W2: w2}, NoFeedForwardResidual: true}},
		Output: model.Output{Kind: model.Readout, W: model.Identity(2), Labels: []string{"1", "2"}}}
}

func ffAt(t *testing.T, m *model.Model, x ...int64) [2]*big.Rat {
	t.Helper()
	r, err := eval.New(numeric.MustParsePrecision("exact"), m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.RunStream([][]*big.Rat{{big.NewRat(x[0], 1), big.NewRat(x[1], 1)}}, false)
	if err != nil {
		t.Fatal(err)
	}
	var out [2]*big.Rat
	for k := range out {
		v, ok := res.Outputs[0].Values[k].Rat()
		if !ok {
			t.Fatalf("output %d not a number", k)
		}
		out[k] = v
	}
	return out
}

// TestRoutingLemmaAsPrinted pins a typo in the proof of the Routing Lemma
// (§Routing Lemma, line 2032 of the LaTeX source): it sets ff'.W2 =
// L (ff.W1), where L∘ff∘R needs ff'.W2 = L (ff.W2). Even with L = R = I
// the printed weights compute another function. By hand, with
// W1 = [[1, 2], [0, 1]] and W2 = [[1, 0], [1, 1]] at x = (1, 1):
// ReLU(W1 x) = (3, 1), so ff(x) = W2 (3, 1) = (3, 4), while the printed
// ff' gives W1 (3, 1) = (5, 1). The same typo appears in the proof of
// Parallel Composition (line 2088: f1'.ff.W1 built from f1.ff.W2). The
// assembler routes W2 (routeFeedForward), as the lemma's statement needs.
func TestRoutingLemmaAsPrinted(t *testing.T) {
	w1 := model.Ints([]int64{1, 2}, []int64{0, 1})
	w2 := model.Ints([]int64{1, 0}, []int64{1, 1})
	got := ffAt(t, ffOnly(w1, w2), 1, 1)
	if got[0].Cmp(big.NewRat(3, 1)) != 0 || got[1].Cmp(big.NewRat(4, 1)) != 0 {
		t.Fatalf("ff(1, 1) = (%s, %s), want (3, 4) by hand", got[0].RatString(), got[1].RatString())
	}
	// L = R = I: the printed W2' = L·W1 = W1.
	literal := ffAt(t, ffOnly(w1, w1), 1, 1)
	if literal[0].Cmp(big.NewRat(5, 1)) != 0 || literal[1].Cmp(big.NewRat(1, 1)) != 0 {
		t.Fatalf("printed ff'(1, 1) = (%s, %s), want (5, 1) by hand", literal[0].RatString(), literal[1].RatString())
	}

	// The assembler's routing of the same block is L∘ff∘R for the
	// identity placement: it must give ff(x).
	p := New("p", "a", "b").Then(&FF{Name: "f", In: []string{"a", "b"}, Out: []string{"y1", "y2"}, W1: w1, W2: w2}).Readout("y1", "y2")
	m, err := p.Model()
	if err != nil {
		t.Fatal(err)
	}
	out := runStream(t, m, map[string]*big.Rat{"a": big.NewRat(1, 1), "b": big.NewRat(1, 1)})
	if !out[0].Values[0].Equals(big.NewRat(3, 1)) || !out[0].Values[1].Equals(big.NewRat(4, 1)) {
		t.Errorf("assembled ff(1, 1) = (%s, %s), want (3, 4)", out[0].Values[0].Text, out[0].Values[1].Text)
	}
}
