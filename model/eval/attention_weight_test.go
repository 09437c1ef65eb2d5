package eval

import (
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
)

// averageTieModel is one average-hard head over a residual stream (a, out): the
// symbol "a" sets a = 1, "b" nothing; query and key are 0, so every
// position ties with every other, and the value copies a into out. On "a"
// followed by m − 1 "b"s each position's output is the weight w of one of
// m tied positions: the sum runs w·1 first, then adds w·0 = 0 m − 1 times,
// and the readout is 0·a + 1·out.
func averageTieModel() *model.Model {
	return &model.Model{
		Name:          "ties",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(1, 0), model.IntVector(0, 0)},
		D:             2,
		Components:    []string{"a", "out"},
		Layers: []model.Layer{{Attention: &model.Attention{
			Heads: []model.Head{{
				Q: model.Ints([]int64{0, 0}),
				K: model.Ints([]int64{0, 0}),
				V: model.Ints([]int64{0, 0}, []int64{1, 0}),
			}},
			Mask:      model.NoMask,
			Weighting: model.AverageHardmax,
		}}},
		Output: model.Output{Kind: model.Readout, W: model.Ints([]int64{0, 1})},
	}
}

// TestAverageWeightRoundedOnce: average hardmax weighs each of m tied
// positions by 1/m rounded once (docs/model-format.md), not by 1/fl(m), the
// reciprocal of m rounded first. The two differ where the format does not
// hold m; by hand, with the nearest values on either side:
//   - fp8-e5m2 (2 fraction bits) holds 8 and 10, not 9: fl(9) = 8 (a tie,
//     to even). 1/9 ≈ 0.1111 lies between 7/64 = 0.109375 and 8/64, whose
//     midpoint is 0.1171875: fl(1/9) = 7/64, where 1/fl(9) = 1/8.
//   - fp8-e4m3 (3 bits) holds 16 and 18: fl(17) = 16. 1/17·256 ≈ 15.06 at
//     spacing 1/256 on [1/32, 1/16): fl(1/17) = 15/256, not 1/16.
//   - bf16 (7 bits) holds 256 and 258: fl(257) = 256. 1/257·2^16 ≈
//     255.004 at spacing 2^-16 on [2^-9, 2^-8): fl(1/257) = 255/65536.
//   - fp16 (10 bits) holds 2048 and 2050: fl(2049) = 2048. 1/2049·2^22 ≈
//     2047.001 at spacing 2^-22 on [2^-12, 2^-11), normal in fp16:
//     fl(1/2049) = 2047/4194304.
//
// A count the format holds gives the same weight both ways (m = 8, 16,
// 256, 2048: powers of two, exact).
func TestAverageWeightRoundedOnce(t *testing.T) {
	m := averageTieModel()
	for _, tc := range []struct {
		precision string
		m         int
		want      string
	}{
		{"fp8-e5m2", 8, "1/8"},
		{"fp8-e5m2", 9, "7/64"},
		{"fp8-e4m3", 16, "1/16"},
		{"fp8-e4m3", 17, "15/256"},
		{"bf16", 256, "1/256"},
		{"bf16", 257, "255/65536"},
		{"fp16", 2048, "1/2048"},
		{"fp16", 2049, "2047/4194304"},
		{"exact", 9, "1/9"},
	} {
		input := "a" + strings.Repeat(" b", tc.m-1)
		res := mustRun(t, tc.precision, m, input)
		got := scalars(t, res)
		for i, v := range got {
			if v != tc.want {
				t.Errorf("%s, m = %d: position %d outputs %s, want %s", tc.precision, tc.m, i+1, v, tc.want)
				break
			}
		}
	}
}
