package eval

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// scoreModel is one attention layer whose score table is chosen by the
// input: the residual stream is (1, s, i, out), where the symbol "0", "1"
// or "2" sets s and the position encoding sets 1 and i. The query is the
// constant 1 and the key is s_j, so the score of j is s_j at every i
// (d_key = 1: no scaling). The value writes i into out, so the readout
// (the out component) is the index of the selected position, or the
// average of the selected indices.
func scoreModel(mask model.Mask, w model.Weighting) *model.Model {
	return &model.Model{
		Name:          "scores",
		Alphabet:      []string{"0", "1", "2"},
		WordEmbedding: []model.Vector{model.IntVector(0, 0, 0, 0), model.IntVector(0, 1, 0, 0), model.IntVector(0, 2, 0, 0)},
		Position: &model.PositionEncoding{Name: "(1, 0, i, 0)", Vector: func(i, n int) model.Vector {
			return model.IntVector(1, 0, int64(i), 0)
		}},
		D:          4,
		Components: []string{"one", "s", "i", "out"},
		Layers: []model.Layer{{Attention: &model.Attention{
			Heads:     []model.Head{selectHead(1)},
			Mask:      mask,
			Weighting: w,
		}}},
		Output: model.Output{Kind: model.Readout, W: model.Ints([]int64{0, 0, 0, 1})},
	}
}

// selectHead scores j by sign·s_j and writes the index of j into out.
func selectHead(sign int64) model.Head {
	return model.Head{
		Q: model.Ints([]int64{1, 0, 0, 0}),
		K: model.Ints([]int64{0, sign, 0, 0}),
		V: model.Ints([]int64{0, 0, 0, 0}, []int64{0, 0, 0, 0}, []int64{0, 0, 0, 0}, []int64{0, 0, 1, 0}),
	}
}

// TestMaskTimesWeighting checks every mask with every weighting on score
// sequences with ties. The expected index is read off the scores by hand:
// for "12021" the scores are (1, 2, 0, 2, 1), the maximum 2 is tied at
// positions 2 and 4, so lhardmax picks 2, rhardmax 4 and avghardmax
// averages to 3 wherever both are visible; the masks restrict j to j ≤ i
// (future), j < i (strict-future), j ≥ i (past), j > i (strict-past), and
// the position with nothing to see outputs 0. Softmax is exact only when
// all visible scores are equal (exp(0) = 1), so it runs on "11111", where
// it is the plain average of the visible indices.
func TestMaskTimesWeighting(t *testing.T) {
	tests := []struct {
		input string
		mask  model.Mask
		w     model.Weighting
		want  string
	}{
		// (1, 2, 0, 2, 1): ties at 2 and 4.
		{"12021", model.NoMask, model.LeftHardmax, "2 2 2 2 2"},
		{"12021", model.NoMask, model.RightHardmax, "4 4 4 4 4"},
		{"12021", model.NoMask, model.AverageHardmax, "3 3 3 3 3"},
		{"12021", model.Future, model.LeftHardmax, "1 2 2 2 2"},
		{"12021", model.Future, model.RightHardmax, "1 2 2 4 4"},
		{"12021", model.Future, model.AverageHardmax, "1 2 2 3 3"},
		{"12021", model.StrictFuture, model.LeftHardmax, "0 1 2 2 2"},
		{"12021", model.StrictFuture, model.RightHardmax, "0 1 2 2 4"},
		{"12021", model.StrictFuture, model.AverageHardmax, "0 1 2 2 3"},
		{"12021", model.Past, model.LeftHardmax, "2 2 4 4 5"},
		{"12021", model.Past, model.RightHardmax, "4 4 4 4 5"},
		{"12021", model.Past, model.AverageHardmax, "3 3 4 4 5"},
		{"12021", model.StrictPast, model.LeftHardmax, "2 4 4 5 0"},
		{"12021", model.StrictPast, model.RightHardmax, "4 4 4 5 0"},
		{"12021", model.StrictPast, model.AverageHardmax, "3 4 4 5 0"},
		// (2, 2, 1, 2): a three-way tie, whose average is not an index.
		{"2212", model.NoMask, model.LeftHardmax, "1 1 1 1"},
		{"2212", model.NoMask, model.RightHardmax, "4 4 4 4"},
		{"2212", model.NoMask, model.AverageHardmax, "7/3 7/3 7/3 7/3"},
		{"2212", model.Future, model.AverageHardmax, "1 3/2 3/2 7/3"},
		{"2212", model.StrictFuture, model.AverageHardmax, "0 1 3/2 3/2"},
		{"2212", model.Past, model.AverageHardmax, "7/3 3 4 4"},
		{"2212", model.StrictPast, model.AverageHardmax, "3 4 4 0"},
		// All scores equal: every visible position ties.
		{"11111", model.NoMask, model.Softmax, "3 3 3 3 3"},
		{"11111", model.Future, model.Softmax, "1 3/2 2 5/2 3"},
		{"11111", model.StrictFuture, model.Softmax, "0 1 3/2 2 5/2"},
		{"11111", model.Past, model.Softmax, "3 7/2 4 9/2 5"},
		{"11111", model.StrictPast, model.Softmax, "7/2 4 9/2 5 0"},
		{"11111", model.NoMask, model.LeftHardmax, "1 1 1 1 1"},
		{"11111", model.Future, model.LeftHardmax, "1 1 1 1 1"},
		{"11111", model.StrictFuture, model.LeftHardmax, "0 1 1 1 1"},
		{"11111", model.Past, model.LeftHardmax, "1 2 3 4 5"},
		{"11111", model.StrictPast, model.LeftHardmax, "2 3 4 5 0"},
		{"11111", model.NoMask, model.RightHardmax, "5 5 5 5 5"},
		{"11111", model.Future, model.RightHardmax, "1 2 3 4 5"},
		{"11111", model.StrictFuture, model.RightHardmax, "0 1 2 3 4"},
		{"11111", model.Past, model.RightHardmax, "5 5 5 5 5"},
		{"11111", model.StrictPast, model.RightHardmax, "5 5 5 5 0"},
		{"11111", model.Past, model.AverageHardmax, "3 7/2 4 9/2 5"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%v/%v", tc.input, tc.mask, tc.w), func(t *testing.T) {
			res := mustRun(t, "exact", scoreModel(tc.mask, tc.w), tc.input)
			if diff := cmp.Diff(split(tc.want), scalars(t, res)); diff != "" {
				t.Errorf("selected index (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSoftmaxExactNeedsEqualScores: with unequal scores softmax needs
// exp of a nonzero rational, which exact mode refuses with an error (not
// an approximation, not a panic), naming where it happened.
func TestSoftmaxExactNeedsEqualScores(t *testing.T) {
	_, err := runPrec(t, "exact", scoreModel(model.Future, model.Softmax), "12")
	wantErr(t, err, "layer 1 attention head 1 at position 2", "softmax", "exp")
	if !errors.Is(err, numeric.ErrIrrational) {
		t.Errorf("error %v does not wrap numeric.ErrIrrational", err)
	}
}

// TestTwoHeadsSum: the heads' outputs are summed. Head 1 picks the
// rightmost maximum of s and writes its index; head 2 picks the rightmost
// maximum of −s (the minimum of s) and writes 10 × its index. On "12021"
// with future masking, head 1 gives 1, 2, 2, 4, 4 and head 2 gives 1, 1,
// 3, 3, 3 (the single 0 at position 3 once visible), so the sum is
// 11, 12, 32, 34, 34.
func TestTwoHeadsSum(t *testing.T) {
	tenfold := selectHead(-1)
	tenfold.V = tenfold.V.Scale(numeric.LitInt(10))
	tests := []struct {
		name  string
		heads []model.Head
		want  string
	}{
		{"head 1", []model.Head{selectHead(1)}, "1 2 2 4 4"},
		{"head 2", []model.Head{tenfold}, "10 10 30 30 30"},
		{"both", []model.Head{selectHead(1), tenfold}, "11 12 32 34 34"},
		{"both, reversed", []model.Head{tenfold, selectHead(1)}, "11 12 32 34 34"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := scoreModel(model.Future, model.RightHardmax)
			m.Layers[0].Attention.Heads = tc.heads
			res := mustRun(t, "exact", m, "12021")
			if diff := cmp.Diff(split(tc.want), scalars(t, res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// wideKeyModel is scoreModel with d_key = dKey: every row of W^Q reads
// the constant 1 and every row of W^K reads s, so q·k_j = d_key·s_j.
func wideKeyModel(dKey int, scale model.ScoreScale, w model.Weighting) *model.Model {
	m := scoreModel(model.NoMask, w)
	h := &m.Layers[0].Attention.Heads[0]
	h.Q, h.K = model.Zeros(dKey, 4), model.Zeros(dKey, 4)
	for r := 0; r < dKey; r++ {
		h.Q.Set(r, 0, numeric.LitInt(1))
		h.K.Set(r, 1, numeric.LitInt(1))
	}
	m.Layers[0].Attention.Scale = scale
	return m
}

// TestScoreScaleExactNotes: scaling by 1/√d_key is a positive factor, so
// the hardmax selections are those of the unscaled scores (here: "12021"
// as in TestMaskTimesWeighting, ties at 2 and 4). With d_key = 4 exact
// mode divides by √4 = 2 and needs no note; with d_key = 2, √2 is
// irrational and exact mode must say that it compares unscaled scores;
// without scaling, or in a rounding backend, there is nothing to note.
// (That the scale is applied at all is checked against mpmath in
// TestAttentionSoftmaxBigFloat, since exact hardmax cannot see it.)
func TestScoreScaleExactNotes(t *testing.T) {
	tests := []struct {
		prec  string
		dKey  int
		scale model.ScoreScale
		note  bool
	}{
		{"exact", 4, model.ScaleSqrtDKey, false},
		{"exact", 2, model.ScaleSqrtDKey, true},
		{"exact", 2, model.NoScale, false},
		{"exact", 3, model.NoScale, false},
		{"exact", 1, model.ScaleSqrtDKey, false},
		{"fp64", 2, model.ScaleSqrtDKey, false},
		{"53", 2, model.ScaleSqrtDKey, false},
	}
	want := map[model.Weighting]string{model.LeftHardmax: "2 2 2 2 2", model.RightHardmax: "4 4 4 4 4", model.AverageHardmax: "3 3 3 3 3"}
	for _, tc := range tests {
		for w, sel := range want {
			t.Run(fmt.Sprintf("%s/d_key=%d/%v/%v", tc.prec, tc.dKey, tc.scale, w), func(t *testing.T) {
				m := wideKeyModel(tc.dKey, tc.scale, w)
				r, err := New(numeric.MustParsePrecision(tc.prec), m)
				if err != nil {
					t.Fatal(err)
				}
				notes := r.Notes()
				if tc.note {
					if len(notes) != 1 || !strings.Contains(notes[0], "layer 1 attention head 1") ||
						!strings.Contains(notes[0], "√2") || !strings.Contains(notes[0], "unscaled") {
						t.Errorf("notes %q, want one note on head 1 comparing unscaled scores since √2 is irrational", notes)
					}
				} else if len(notes) != 0 {
					t.Errorf("unexpected notes %q", notes)
				}
				res, err := r.Run(tokens(t, m, "12021"), false)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(split(sel), scalars(t, res)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestSoftmaxUniformWithIrrationalScale: exp(0) = 1 whatever the scale,
// so uniform softmax stays exact with d_key = 2 (scores 2·1/√2, all
// equal): the average of the indices 1..5 is 3.
func TestSoftmaxUniformWithIrrationalScale(t *testing.T) {
	res := mustRun(t, "exact", wideKeyModel(2, model.ScaleSqrtDKey, model.Softmax), "11111")
	if diff := cmp.Diff(split("3 3 3 3 3"), scalars(t, res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTemperature(t *testing.T) {
	// A positive temperature changes no maximum and no tie.
	for _, tau := range []string{"1/3", "2", "7/2"} {
		m := scoreModel(model.Future, model.RightHardmax)
		m.Layers[0].Attention.Temperature = ex(tau)
		res := mustRun(t, "exact", m, "12021")
		if diff := cmp.Diff(split("1 2 2 4 4"), scalars(t, res)); diff != "" {
			t.Errorf("τ = %s (-want +got):\n%s", tau, diff)
		}
	}
	// τ ≤ 0 would reverse or destroy the order: rejected at instantiation.
	for _, tau := range []string{"0", "-1"} {
		m := scoreModel(model.Future, model.RightHardmax)
		m.Layers[0].Attention.Temperature = ex(tau)
		_, err := New(numeric.MustParsePrecision("exact"), m)
		wantErr(t, err, "layer 1 attention", "temperature", "positive")
	}
}

// TestResiduals switches each residual connection of a layer on and off.
// The layer is scoreModel's lhardmax attention (output (0, 0, 0, 2) at every
// position of "12021", whose maximum 2 is first at position 2), then a
// ReLU FFN f(x) = (ReLU(x_i + x_out − 3), 0, 0, 0). By hand, from
// h⁽⁰⁾_i = (1, s_i, i, 0) with s = (1, 2, 0, 2, 1):
//
//	attention residual on:  h = (1, s_i, i, 2), f(h) = (i − 1, 0, 0, 0)
//	attention residual off: h = (0, 0, 0, 2),   f(h) = (ReLU(−1), 0, 0, 0) = 0
//
// and the FFN residual adds h or not.
func TestResiduals(t *testing.T) {
	tests := []struct {
		noAttn, noFF bool
		want         [][]string
	}{
		{false, false, [][]string{split("1 1 1 2"), split("2 2 2 2"), split("3 0 3 2"), split("4 2 4 2"), split("5 1 5 2")}},
		{false, true, [][]string{split("0 0 0 0"), split("1 0 0 0"), split("2 0 0 0"), split("3 0 0 0"), split("4 0 0 0")}},
		{true, false, [][]string{split("0 0 0 2"), split("0 0 0 2"), split("0 0 0 2"), split("0 0 0 2"), split("0 0 0 2")}},
		{true, true, [][]string{split("0 0 0 0"), split("0 0 0 0"), split("0 0 0 0"), split("0 0 0 0"), split("0 0 0 0")}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("no-attention-residual=%v/no-ffn-residual=%v", tc.noAttn, tc.noFF), func(t *testing.T) {
			m := scoreModel(model.NoMask, model.LeftHardmax)
			m.Layers[0].FeedForward = &model.FeedForward{
				W1: model.Ints([]int64{0, 0, 1, 1}),
				B1: model.IntVector(-3),
				W2: model.Ints([]int64{1}, []int64{0}, []int64{0}, []int64{0}),
			}
			m.Layers[0].NoAttentionResidual = tc.noAttn
			m.Layers[0].NoFeedForwardResidual = tc.noFF
			m.Output.W = model.Identity(4)
			res := mustRun(t, "exact", m, "12021")
			if diff := cmp.Diff(tc.want, outputs(t, res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
