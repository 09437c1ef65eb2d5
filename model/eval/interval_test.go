package eval

import (
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// thirdsModel scores position j by q·k_j = a_j + b_j (q = (1, 1)), with
// the symbol x = (a, b) = (1/3, 0), y = (1/9, 2/9), z = (0, 0) and
// s = (1/7, 0). x and y
// both score exactly 1/3, but in the interval backend 1/3 is an enclosure
// of width one ulp and 1/9 + 2/9 a different, overlapping one: no
// precision can decide that they are equal, nor which is larger. The value
// is the index j, and the readout the attention output alone.
func thirdsModel(w model.Weighting) *model.Model {
	return &model.Model{
		Name:          "thirds",
		Alphabet:      []string{"x", "y", "z", "s"},
		WordEmbedding: []model.Vector{vec("0", "1/3", "0", "0"), vec("0", "1/9", "2/9", "0"), vec("0", "0", "0", "0"), vec("0", "1/7", "0", "0")},
		Position: &model.PositionEncoding{Name: "(1, 0, 0, i)", Vector: func(i, n int) model.Vector {
			return model.IntVector(1, 0, 0, int64(i))
		}},
		D: 4,
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

// TestIntervalUndecidedTie: the tie of 1/3 and 1/9 + 2/9 is exact in exact
// mode (avghardmax averages positions 1 and 2: 3/2) but cannot be decided
// on enclosures: every hardmax must fail with an error wrapping
// ErrComparisonUndecided, naming where, instead of guessing.
func TestIntervalUndecidedTie(t *testing.T) {
	res := mustRun(t, "exact", thirdsModel(model.AverageHardmax), "xy")
	if diff := cmp.Diff(split("3/2 3/2"), scalars(t, res)); diff != "" {
		t.Errorf("exact (-want +got):\n%s", diff)
	}
	for _, w := range []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax} {
		for _, prec := range []string{"interval:53", "interval:200"} {
			_, err := runPrec(t, prec, thirdsModel(w), "xy")
			if !errors.Is(err, ErrComparisonUndecided) {
				t.Errorf("%v at %s: error %v, want one wrapping ErrComparisonUndecided", w, prec, err)
				continue
			}
			wantErr(t, err, "layer 1 attention head 1 at position 1")
		}
	}
}

// TestIntervalUndecidedOutputs: the unembeddings decide in the backend's
// arithmetic too. Embedding (1/9, 1/9, 2/9): Argmax between 3·(1/9) and
// 1/9 + 2/9 (both 1/3) and Sign of 3·(1/9) − 1/9 − 2/9 (= 0) are exact in
// exact mode (the leftmost label; reject) and undecided on enclosures.
func TestIntervalUndecidedOutputs(t *testing.T) {
	tests := []struct {
		out   model.Output
		exact string
		subs  string
	}{
		{model.Output{Kind: model.Argmax, W: model.Ints([]int64{3, 0, 0}, []int64{1, 0, 1}), Labels: []string{"L", "R"}}, "L", "argmax"},
		{model.Output{Kind: model.Sign, W: model.Ints([]int64{3, -1, -1})}, "0", "sign"},
	}
	for _, tc := range tests {
		m := &model.Model{
			Name:          "undecided output",
			Alphabet:      []string{"x"},
			WordEmbedding: []model.Vector{vec("1/9", "1/9", "2/9")},
			D:             3,
			Output:        tc.out,
		}
		res := mustRun(t, "exact", m, "x")
		if got := res.Outputs[0].Symbol; got != tc.exact {
			t.Errorf("%v in exact mode: %q, want %q", tc.out.Kind, got, tc.exact)
		}
		_, err := runPrec(t, "interval:53", m, "x")
		if !errors.Is(err, ErrComparisonUndecided) {
			t.Errorf("%v at interval:53: error %v, want one wrapping ErrComparisonUndecided", tc.out.Kind, err)
			continue
		}
		wantErr(t, err, "output at position 1", tc.subs)
	}
}

// TestIntervalDecidedOutputs: enclosures that do not overlap are ordered,
// even when they are not points: argmax of (1/3, 1/7) is certain.
func TestIntervalDecidedOutputs(t *testing.T) {
	m := &model.Model{
		Name:          "decided output",
		Alphabet:      []string{"x"},
		WordEmbedding: []model.Vector{vec("1/7", "1/3")},
		D:             2,
		Output:        model.Output{Kind: model.Argmax, W: model.Ints([]int64{0, 1}, []int64{1, 0}), Labels: []string{"third", "seventh"}},
	}
	res := mustRun(t, "interval:53", m, "x")
	if got := res.Outputs[0].Symbol; got != "third" {
		t.Errorf("argmax(1/3, 1/7) = %q, want third", got)
	}
	m.Output = model.Output{Kind: model.Sign, W: model.Ints([]int64{-1, 1})} // 1/3 − 1/7 > 0
	res = mustRun(t, "interval:53", m, "x")
	if got := res.Outputs[0].Symbol; got != "1" {
		t.Errorf("sign(1/3 − 1/7) = %q, want 1", got)
	}
}

// TestIntervalHardmaxDecidesUniqueMaximum: a maximum whose enclosure lies
// strictly above every other score is certain, although it is not a point
// (score 1/3 against 0, and against 1/7): every hardmax selects it, with
// weight exactly 1, so the output is exactly its index. Only overlapping
// enclosures (TestIntervalUndecidedTie) are undecidable.
func TestIntervalHardmaxDecidesUniqueMaximum(t *testing.T) {
	for _, w := range []model.Weighting{model.LeftHardmax, model.RightHardmax, model.AverageHardmax} {
		for _, tc := range []struct {
			input, want string
		}{
			{"xz", "1 1"}, // 1/3 > 0
			{"zx", "2 2"},
			{"zxz", "2 2 2"},
			{"sx", "2 2"}, // 1/3 > 1/7, neither a point
		} {
			res, err := runPrec(t, "interval:53", thirdsModel(w), tc.input)
			if err != nil {
				t.Errorf("%v on %q: %v", w, tc.input, err)
				continue
			}
			if diff := cmp.Diff(split(tc.want), scalars(t, res)); diff != "" {
				t.Errorf("%v on %q (-want +got):\n%s", w, tc.input, diff)
			}
		}
	}
}

// TestIntervalEnclosesTruth: the interval backend's results contain the
// true real values (from mpmath, testdata/golden.txt) and are narrow. The
// golden decimals are within 10^−99 of the truth, so the check widens
// each enclosure by 10^−90 on both sides.
func TestIntervalEnclosesTruth(t *testing.T) {
	slack := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(90), nil))
	width := ulps(1, 40)
	check := func(what string, v Value, truth *big.Rat) {
		t.Helper()
		if !v.Finite() {
			t.Errorf("%s = %s, not finite", what, v.Text)
			return
		}
		lo := new(big.Rat).Sub(v.Lo, slack)
		hi := new(big.Rat).Add(v.Hi, slack)
		if lo.Cmp(truth) > 0 || truth.Cmp(hi) > 0 {
			t.Errorf("%s = %s does not contain %s", what, v.Text, truth.FloatString(25))
		}
		if w := new(big.Rat).Sub(v.Hi, v.Lo); w.Cmp(width) > 0 {
			t.Errorf("%s = %s is wider than 2^-40", what, v.Text)
		}
	}
	for _, act := range []model.Activation{model.GELU, model.GELUTanh, model.GELUSigmoid} {
		m := geluModel(act)
		r, err := New(numeric.MustParsePrecision("interval:53"), m)
		if err != nil {
			t.Fatal(err)
		}
		for k, x := range goldenXs {
			res, err := r.Run([]int{k}, false)
			if err != nil {
				t.Errorf("%s(%s): %v", act, x, err)
				continue
			}
			key := fmt.Sprintf("act %s %s", act, x)
			check(key, res.Outputs[0].Values[0], golden(t, key))
		}
	}
	for _, tau := range []string{"1", "3/2"} {
		res := mustRun(t, "interval:53", softmaxAttentionModel(model.Future, model.ScaleSqrtDKey, tau), "abcd")
		for i, o := range res.Outputs {
			key := fmt.Sprintf("attn future on %s %d", tau, i+1)
			check(key, o.Values[0], golden(t, key))
		}
	}
}
