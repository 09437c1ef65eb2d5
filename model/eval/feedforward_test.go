package eval

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// ffModel is a single FFN sublayer on D = 2 with
//
//	W1 = [1 −1; 1 1; −1 0], b1 = (0, −1, 1/2), W2 = [1 2 0; 0 1 −1], b2 = (1/3, 0)
//
// and word embeddings a = (3, 1), b = (−1, 2).
func ffModel(act model.Activation, noResidual bool) *model.Model {
	return &model.Model{
		Name:          "ffn",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(3, 1), model.IntVector(-1, 2)},
		D:             2,
		Layers: []model.Layer{{
			FeedForward: &model.FeedForward{
				W1:         model.Ints([]int64{1, -1}, []int64{1, 1}, []int64{-1, 0}),
				B1:         vec("0", "-1", "1/2"),
				W2:         model.Ints([]int64{1, 2, 0}, []int64{0, 1, -1}),
				B2:         vec("1/3", "0"),
				Activation: act,
			},
			NoFeedForwardResidual: noResidual,
		}},
		Output: model.Output{Kind: model.Readout, W: model.Identity(2)},
	}
}

// TestFeedForward, by hand:
//
//	a: W1 x + b1 = (2, 3, −5/2); ReLU → (2, 3, 0);    W2 · + b2 = (8 + 1/3, 3)        = (25/3, 3)
//	                             Linear → (2, 3, −5/2): W2 · + b2 = (8 + 1/3, 3 + 5/2) = (25/3, 11/2)
//	b: W1 x + b1 = (−3, 0, 3/2); ReLU → (0, 0, 3/2);  W2 · + b2 = (1/3, −3/2)
//	                             Linear → (−3, 0, 3/2): W2 · + b2 = (−3 + 1/3, −3/2)  = (−8/3, −3/2)
//
// and the residual adds x.
func TestFeedForward(t *testing.T) {
	tests := []struct {
		act        model.Activation
		noResidual bool
		want       [][]string
	}{
		{model.ReLU, true, [][]string{split("25/3 3"), split("1/3 -3/2")}},
		{model.ReLU, false, [][]string{split("34/3 4"), split("-2/3 1/2")}},
		{model.Linear, true, [][]string{split("25/3 11/2"), split("-8/3 -3/2")}},
		{model.Linear, false, [][]string{split("34/3 13/2"), split("-11/3 1/2")}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v/no-residual=%v", tc.act, tc.noResidual), func(t *testing.T) {
			res := mustRun(t, "exact", ffModel(tc.act, tc.noResidual), "ab")
			if diff := cmp.Diff(tc.want, outputs(t, res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, state(t, res, "layer 1 feed-forward")); diff != "" {
				t.Errorf("trace (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGELUExact: GELU needs 1/√2 and its tanh form √(2/π), which exact
// mode cannot represent: instantiation fails, clearly, naming the
// constant. The sigmoid form's 1.702 is rational, so it instantiates, and
// runs where exp is exact (x = 0: 0/(1 + e⁰) = 0) but not elsewhere.
func TestGELUExact(t *testing.T) {
	for _, tc := range []struct {
		act  model.Activation
		subs []string
	}{
		{model.GELU, []string{"layer 1 feed-forward", "GELU constant 1/√2"}},
		{model.GELUTanh, []string{"layer 1 feed-forward", "GELU constant √(2/π)"}},
	} {
		_, err := New(numeric.MustParsePrecision("exact"), geluModel(tc.act))
		wantErr(t, err, tc.subs...)
		if !errors.Is(err, numeric.ErrIrrational) {
			t.Errorf("%v: error %v does not wrap numeric.ErrIrrational", tc.act, err)
		}
	}

	res := mustRun(t, "exact", geluModel(model.GELUSigmoid), "0")
	if diff := cmp.Diff([]string{"0"}, scalars(t, res)); diff != "" {
		t.Errorf("gelu-sigmoid(0) (-want +got):\n%s", diff)
	}
	_, err := runPrec(t, "exact", geluModel(model.GELUSigmoid), "1")
	wantErr(t, err, "layer 1 feed-forward at position 1", "gelu-sigmoid of hidden unit 1", "exp")
	if !errors.Is(err, numeric.ErrIrrational) {
		t.Errorf("gelu-sigmoid(1): error %v does not wrap numeric.ErrIrrational", err)
	}
}
