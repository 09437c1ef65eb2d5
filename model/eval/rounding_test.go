package eval

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/model"
)

// tieModel scores position j by q·k_j = 2048 + b_j with q = (1, 1) and
// k_j = (2048, b_j): the symbol x has b = 0, y has b = 1. Every parameter
// (2048, 1, 0) is exact in fp16, but the sum 2048 + 1 = 2049 is not:
// fp16 has 11 significand bits, so its spacing in [2048, 4096) is 2, and
// 2049, halfway between 2048 and 2050, rounds to the even 2048. The score
// rounding thus creates a tie that exact arithmetic does not have. The
// value is the index j, and the readout is the attention output alone.
func tieModel(w model.Weighting) *model.Model {
	return &model.Model{
		Name:          "fp16 tie",
		Alphabet:      []string{"x", "y"},
		WordEmbedding: []model.Vector{model.IntVector(0, 2048, 0, 0), model.IntVector(0, 2048, 1, 0)},
		Position: &model.PositionEncoding{Name: "(1, 0, 0, i)", Vector: func(i, n int) model.Vector {
			return model.IntVector(1, 0, 0, int64(i))
		}},
		D:          4,
		Components: []string{"one", "a", "b", "i"},
		Layers: []model.Layer{{
			Attention: &model.Attention{
				Heads: []model.Head{{
					Q: model.Ints([]int64{1, 0, 0, 0}, []int64{1, 0, 0, 0}),
					K: model.Ints([]int64{0, 1, 0, 0}, []int64{0, 0, 1, 0}),
					V: model.Ints([]int64{0, 0, 0, 0}, []int64{0, 0, 0, 0}, []int64{0, 0, 0, 0}, []int64{0, 0, 0, 1}),
				}},
				Weighting: w,
				Scale:     model.NoScale,
			},
			NoAttentionResidual: true,
		}},
		Output: model.Output{Kind: model.Readout, W: model.Ints([]int64{0, 0, 0, 1})},
	}
}

// TestRoundingCreatesTie: on "xy" the exact scores are (2048, 2049), so
// every hardmax selects position 2 (output 2). In fp16, and in bf16 (8
// bits, spacing 16) and 11-bit bigfloat, both scores are 2048: avghardmax
// averages the two positions, (1 + 2)/2 = 3/2 (α = 1/2 and the products
// are exact), lhardmax picks 1 and rhardmax 2. fp32 and 24-bit bigfloat
// hold 2049 and agree with exact.
func TestRoundingCreatesTie(t *testing.T) {
	tests := []struct {
		prec string
		w    model.Weighting
		want string
	}{
		{"exact", model.AverageHardmax, "2 2"},
		{"exact", model.LeftHardmax, "2 2"},
		{"exact", model.RightHardmax, "2 2"},
		{"fp16", model.AverageHardmax, "3/2 3/2"},
		{"fp16", model.LeftHardmax, "1 1"},
		{"fp16", model.RightHardmax, "2 2"},
		{"bf16", model.AverageHardmax, "3/2 3/2"},
		{"11", model.AverageHardmax, "3/2 3/2"},
		{"fp32", model.AverageHardmax, "2 2"},
		{"24", model.AverageHardmax, "2 2"},
		{"fp32", model.LeftHardmax, "2 2"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%v", tc.prec, tc.w), func(t *testing.T) {
			res := mustRun(t, tc.prec, tieModel(tc.w), "xy")
			if diff := cmp.Diff(split(tc.want), scalars(t, res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
