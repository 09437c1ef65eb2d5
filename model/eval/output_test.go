package eval

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// outputModel reads out W h for h the embedding of the symbols p = (2, 1),
// z = (1, 1), n = (0, 1), b = (1, 3).
func outputModel(o model.Output) *model.Model {
	return &model.Model{
		Name:          "output",
		Alphabet:      []string{"p", "z", "n", "b"},
		WordEmbedding: []model.Vector{model.IntVector(2, 1), model.IntVector(1, 1), model.IntVector(0, 1), model.IntVector(1, 3)},
		D:             2,
		Output:        o,
	}
}

func TestUnembeddings(t *testing.T) {
	tests := []struct {
		name    string
		out     model.Output
		symbols []string
		values  [][]string
	}{
		{
			// W h = h₁ − h₂: 1, 0, −1, −2. Accept only when strictly positive.
			name:    "sign",
			out:     model.Output{Kind: model.Sign, W: model.Ints([]int64{1, -1})},
			symbols: []string{"1", "0", "0", "0"},
			values:  [][]string{{"1"}, {"0"}, {"-1"}, {"-2"}},
		},
		{
			// W h = (h₁, h₂, h₂): p → (2, 1, 1) → A; z → (1, 1, 1), a
			// three-way tie → A, the leftmost; b → (1, 3, 3), a tie of
			// B and C → B; n → (0, 1, 1) → B.
			name:    "argmax",
			out:     model.Output{Kind: model.Argmax, W: model.Ints([]int64{1, 0}, []int64{0, 1}, []int64{0, 1}), Labels: []string{"A", "B", "C"}},
			symbols: []string{"A", "A", "B", "B"},
			values:  [][]string{split("2 1 1"), split("1 1 1"), split("0 1 1"), split("1 3 3")},
		},
		{
			// W h = (h₁, h₂, h₂ + 1) makes C the unique maximum.
			name:    "argmax unique",
			out:     model.Output{Kind: model.Argmax, W: model.Ints([]int64{1, 0}, []int64{0, 1}, []int64{1, 2}), Labels: []string{"A", "B", "C"}},
			symbols: []string{"C", "C", "C", "C"},
			values:  [][]string{split("2 1 4"), split("1 1 3"), split("0 1 2"), split("1 3 7")},
		},
		{
			// Readout: W h itself.
			name:    "readout",
			out:     model.Output{Kind: model.Readout, W: rows(row("1/2", "-1"), row("3", "0"), row("0", "0"))},
			symbols: []string{"", "", "", ""},
			values:  [][]string{split("0 6 0"), split("-1/2 3 0"), split("-1 0 0"), split("-5/2 3 0")},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := mustRun(t, "exact", outputModel(tc.out), "pznb")
			var symbols []string
			for _, o := range res.Outputs {
				symbols = append(symbols, o.Symbol)
			}
			if diff := cmp.Diff(tc.symbols, symbols); diff != "" {
				t.Errorf("symbols (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.values, outputs(t, res)); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDistributionExact: softmax of equal logits is uniform, and exact
// (exp(0) = 1); with W = [1 0; 0 1; 1/2 1/2] the logits of z = (1, 1) are
// (1, 1, 1), giving 1/3 each. Unequal logits (p: (2, 1, 3/2)) need exp of
// a nonzero rational, an error in exact mode.
func TestDistributionExact(t *testing.T) {
	m := outputModel(model.Output{Kind: model.Distribution, W: rows(row("1", "0"), row("0", "1"), row("1/2", "1/2")), Labels: []string{"A", "B", "C"}})
	res := mustRun(t, "exact", m, "z")
	if diff := cmp.Diff([][]string{split("1/3 1/3 1/3")}, outputs(t, res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err := runPrec(t, "exact", m, "zp")
	wantErr(t, err, "output at position 2", "softmax", "exp")
	if !errors.Is(err, numeric.ErrIrrational) {
		t.Errorf("error %v does not wrap numeric.ErrIrrational", err)
	}
}
