package eval

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// TestNarrowAttentionIsBigFloat: a head's outputs at a bigfloat of at most
// 25 bits in float64 (numeric.NarrowBigFloat, whose hard weightings take
// the machine path with its rounding after each operation) are BigFloat's
// own (its generic path), text for text, on random heads of every mask,
// weighting (softmax included), scale and temperature, with inputs that
// include −0, small powers of two and fractions, wherever no value left
// the range. TestMachineAttentionMatchesGeneric compares the two paths
// within the narrow backend; this compares it with big.Float itself.
func TestNarrowAttentionIsBigFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	judged := 0
	for trial := range 1500 {
		m := randomAttentionModel(rng)
		if rng.IntN(3) == 0 {
			m.Layers[0].Attention.Weighting = model.Softmax
		}
		n := 1 + rng.IntN(9)
		inputs := make([][]float64, n)
		for i := range inputs {
			inputs[i] = make([]float64, m.D)
			for c := range inputs[i] {
				switch rng.IntN(10) {
				case 0:
					inputs[i][c] = math.Copysign(0, -1)
				case 1:
					inputs[i][c] = math.Ldexp(float64(1+rng.IntN(7)), -rng.IntN(30))
				case 2:
					inputs[i][c] = float64(rng.IntN(2001)-1000) / 7
				default:
					inputs[i][c] = float64(rng.IntN(5) - 2)
				}
			}
		}
		for _, p := range []uint{2, 3, 11, 24, 25} {
			nb := numeric.NewNarrowBigFloat(p)
			got, gerr := attendOnce(nb, m, inputs)
			if nb.Exits() > 0 {
				continue
			}
			want, werr := attendOnce[*big.Float](numeric.NewBigFloat(p), m, inputs)
			judged++
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("trial %d p %d: %v %v\n got %v %v\nwant %v %v", trial, p, m.Layers[0].Attention.Weighting, inputs, got, gerr, want, werr)
			}
		}
	}
	if judged < 1500 {
		t.Errorf("only %d comparisons stayed in the range: the test hardly judges the narrow path", judged)
	}
}

// attendOnce is the texts of the outputs of m's first attention sublayer
// on the inputs, rounded to b.
func attendOnce[T any](b numeric.Backend[T], m *model.Model, inputs [][]float64) ([][]string, error) {
	inst, err := Instantiate(b, m)
	if err != nil {
		return nil, err
	}
	x := make([][]T, len(inputs))
	for i, row := range inputs {
		x[i] = make([]T, len(row))
		for c, v := range row {
			x[i][c] = fromFloat64(b, v)
		}
	}
	out, err := inst.attend(inst.layers[0].attn, x, "x")
	if err != nil {
		return nil, err
	}
	s := make([][]string, len(out))
	for i := range out {
		for c := range out[i] {
			s[i] = append(s[i], b.Format(out[i][c]))
		}
	}
	return s, nil
}
