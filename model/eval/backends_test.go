package eval

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// allPrecisions names one precision of every backend kind.
var allPrecisions = []string{"exact", "24", "53", "fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "interval:53"}

// everyBackendModel uses softmax and hard attention, ReLU and linear FFNs,
// residuals on and off, a position encoding and a final norm, with every
// parameter and every intermediate value in {0, ±1/4, ±1/2, ±3/4, ±1,
// ±3/2, ±2, 3, 4}: exact in every format down to fp8-e5m2 (3 significand
// bits), so each backend must give the exact result. The residual stream
// is (a, u, s, t).
func everyBackendModel() *model.Model {
	v1 := model.Zeros(4, 4)
	v1.Set(1, 0, numeric.LitInt(1)) // u ← a
	v2 := model.Zeros(4, 4)
	v2.Set(1, 3, numeric.LitInt(1)) // u ← t
	return &model.Model{
		Name:          "every backend",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(1, 0, 0, 0), model.IntVector(0, 0, 0, 0)},
		Position: &model.PositionEncoding{Name: "(0, 0, (-1)^i, 0)", Vector: func(i, n int) model.Vector {
			return model.IntVector(0, 0, int64(1-2*(i%2)), 0)
		}},
		D:          4,
		Components: []string{"a", "u", "s", "t"},
		Norm:       model.PreNorm,
		Layers: []model.Layer{
			{
				// Uniform softmax (all scores 0): u += mean of a.
				Attention: &model.Attention{Heads: []model.Head{{Q: model.Zeros(1, 4), K: model.Zeros(1, 4), V: v1}}, Weighting: model.Softmax},
				// t += ReLU(s) + 2 ReLU(−s) − 1/2.
				FeedForward: &model.FeedForward{
					W1: model.Ints([]int64{0, 0, 1, 0}, []int64{0, 0, -1, 0}),
					W2: model.Ints([]int64{0, 0}, []int64{0, 0}, []int64{0, 0}, []int64{1, 2}),
					B2: vec("0", "0", "0", "-1/2"),
				},
			},
			{
				// Scores t_i·a_j, future-masked average hardmax: u += t at the
				// selected positions.
				Attention: &model.Attention{
					Heads:     []model.Head{{Q: model.Ints([]int64{0, 0, 0, 1}), K: model.Ints([]int64{1, 0, 0, 0}), V: v2}},
					Mask:      model.Future,
					Weighting: model.AverageHardmax,
				},
				// No residual: (s, 2a − 1, −s, −(2a − 1)).
				FeedForward: &model.FeedForward{
					W1:         model.Ints([]int64{0, 0, 1, 0}, []int64{2, 0, 0, 0}),
					B1:         vec("0", "-1"),
					W2:         model.Ints([]int64{1, 0}, []int64{0, 1}, []int64{-1, 0}, []int64{0, -1}),
					Activation: model.Linear,
				},
				NoFeedForwardResidual: true,
			},
		},
		FinalNorm: &model.LayerNorm{Eps: ex("3"), Gamma: vec("1", "2", "1", "2"), Beta: vec("0", "1/2", "0", "0")},
		Output:    model.Output{Kind: model.Readout, W: model.Identity(4)},
	}
}

// everyBackendTrace is the trace of everyBackendModel on "abba", by hand:
//
//	embedding:  a = (1, 0, 0, 1), s = (−1)^i
//	layer 1 attention:    u = (1 + 0 + 0 + 1)/4 = 1/2 (weights exp(0)/4)
//	layer 1 feed-forward: t = 2 − 1/2 = 3/2 where s = −1, 1 − 1/2 = 1/2 where s = 1
//	layer 2 attention:    scores t_i·a_j over j ≤ i: the maximum is at j = 1
//	                      alone for i ≤ 3 (u += t₁ = 3/2), at {1, 4} for i = 4
//	                      (u += (3/2 + 1/2)/2 = 1)
//	layer 2 feed-forward: (s, 2a − 1, −s, 1 − 2a), no residual
//	final norm:           μ = 0, σ² = 1, √(1 + 3) = 2: x/2 ⊙ (1, 2, 1, 2) + (0, 1/2, 0, 0)
var everyBackendTrace = []struct {
	label string
	want  [][]string
}{
	{"embedding", [][]string{split("1 0 -1 0"), split("0 0 1 0"), split("0 0 -1 0"), split("1 0 1 0")}},
	{"layer 1 attention", [][]string{split("1 1/2 -1 0"), split("0 1/2 1 0"), split("0 1/2 -1 0"), split("1 1/2 1 0")}},
	{"layer 1 feed-forward", [][]string{split("1 1/2 -1 3/2"), split("0 1/2 1 1/2"), split("0 1/2 -1 3/2"), split("1 1/2 1 1/2")}},
	{"layer 2 attention", [][]string{split("1 2 -1 3/2"), split("0 2 1 1/2"), split("0 2 -1 3/2"), split("1 3/2 1 1/2")}},
	{"layer 2 feed-forward", [][]string{split("-1 1 1 -1"), split("1 -1 -1 1"), split("-1 -1 1 1"), split("1 1 -1 -1")}},
	{"final norm", [][]string{split("-1/2 3/2 1/2 -1"), split("1/2 -1/2 -1/2 1"), split("-1/2 -1/2 1/2 1"), split("1/2 3/2 -1/2 -1")}},
}

func TestEveryBackend(t *testing.T) {
	m := everyBackendModel()
	var wantLabels []string
	for _, s := range everyBackendTrace {
		wantLabels = append(wantLabels, s.label)
	}
	for _, prec := range allPrecisions {
		t.Run(prec, func(t *testing.T) {
			r, err := New(numeric.MustParsePrecision(prec), m)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Precision().String(); got != prec {
				t.Errorf("Precision() = %s", got)
			}
			res, err := r.Run(tokens(t, m, "abba"), true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantLabels, labels(res.Trace)); diff != "" {
				t.Fatalf("trace labels (-want +got):\n%s", diff)
			}
			for _, s := range everyBackendTrace {
				if diff := cmp.Diff(s.want, state(t, res, s.label)); diff != "" {
					t.Errorf("%s (-want +got):\n%s", s.label, diff)
				}
			}
			if diff := cmp.Diff(everyBackendTrace[len(everyBackendTrace)-1].want, outputs(t, res)); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
			if res2, err := r.Run(tokens(t, m, "abba"), false); err != nil || res2.Trace != nil {
				t.Errorf("Run without trace: trace %v, error %v", res2 != nil && res2.Trace != nil, err)
			}
		})
	}
}

// TestTraceStates: the trace has the embedding, one state per sublayer
// present (a layer with only an FFN has no attention state), and the
// final norm only when there is one.
func TestTraceStates(t *testing.T) {
	m := everyBackendModel()
	m.Layers[0].FeedForward = nil
	m.Layers[1].Attention = nil
	res := mustRun(t, "exact", m, "ab")
	want := []string{"embedding", "layer 1 attention", "layer 2 feed-forward", "final norm"}
	if diff := cmp.Diff(want, labels(res.Trace)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	m.FinalNorm = nil
	m.Layers = append(m.Layers, model.Layer{})
	res = mustRun(t, "exact", m, "ab")
	if diff := cmp.Diff(want[:3], labels(res.Trace)); diff != "" {
		t.Errorf("without final norm, with an empty layer (-want +got):\n%s", diff)
	}
}

// TestConcurrentRuns: an Instance is documented safe for concurrent use.
// Runs of several lengths at once (so that the position cache fills
// concurrently) must give what sequential runs give; with -race, a
// parameter overwritten by a pointer backend's operation would also show.
func TestConcurrentRuns(t *testing.T) {
	m := everyBackendModel()
	inputs := []string{"abba", "ab", "a", "abab", "bbaab", "ba", "aaaa", "b"}
	for _, prec := range []string{"exact", "53", "fp16", "interval:53"} {
		r, err := New(numeric.MustParsePrecision(prec), m)
		if err != nil {
			t.Fatal(err)
		}
		symbols := map[string][]int{}
		for _, s := range inputs {
			symbols[s] = tokens(t, m, s)
		}
		run := func(s string) (string, error) {
			res, err := r.Run(symbols[s], true)
			if err != nil {
				return "", err
			}
			return fmt.Sprint(res.Trace.States), nil
		}
		want := map[string]string{}
		for _, s := range inputs {
			if want[s], err = run(s); err != nil {
				t.Fatalf("%s on %q: %v", prec, s, err)
			}
		}
		r, _ = New(numeric.MustParsePrecision(prec), m) // a fresh position cache
		var wg sync.WaitGroup
		errs := make(chan error, 4*len(inputs))
		for k := 0; k < 4; k++ {
			for _, s := range inputs {
				wg.Add(1)
				go func(s string) {
					defer wg.Done()
					got, err := run(s)
					if err == nil && got != want[s] {
						err = fmt.Errorf("%q: concurrent trace %s, sequential %s", s, got, want[s])
					}
					if err != nil {
						errs <- fmt.Errorf("%s: %w", prec, err)
					}
				}(s)
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
}
