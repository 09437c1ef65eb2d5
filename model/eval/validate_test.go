package eval

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/internal/modeltest"
	"github.com/transformer-cookbook/verify/numeric"
)

// validModel is modeltest.ValidModel: a two-layer pre-norm model with
// every part present, so that each mutation below breaks exactly one
// dimension.
var validModel = modeltest.ValidModel

// TestValidModelRuns makes sure the mutations below start from a model
// that is valid and runs: the final norm of (1, 2, 3) is (−1, 0, 1) and of
// (3, 1, 2) is (1, −1, 0); argmax of (h₁, h₃) picks last, then first.
func TestValidModelRuns(t *testing.T) {
	m := validModel()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, "exact", m, "ab")
	if diff := cmp.Diff([]string{"last", "first"}, []string{res.Outputs[0].Symbol, res.Outputs[1].Symbol}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidateErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(m *model.Model)
		subs   []string
	}{
		{"W^Q cols", func(m *model.Model) { m.Layers[1].Attention.Heads[0].Q = model.Zeros(2, 4) },
			[]string{"layer 2 attention head 1", "W^Q", "2×4, want 2×3"}},
		{"W^K rows", func(m *model.Model) { m.Layers[0].Attention.Heads[0].K = model.Zeros(3, 3) },
			[]string{"layer 1 attention head 1", "W^K", "3×3, want 2×3"}},
		{"W^V rows", func(m *model.Model) { m.Layers[1].Attention.Heads[0].V = model.Zeros(2, 3) },
			[]string{"layer 2 attention head 1", "W^V", "2×3, want 3×3"}},
		{"second head W^V cols", func(m *model.Model) {
			a := m.Layers[1].Attention
			a.Heads = append(a.Heads, model.Head{Q: model.Zeros(1, 3), K: model.Zeros(1, 3), V: model.Zeros(3, 2)})
		}, []string{"layer 2 attention head 2", "W^V", "want 3×3"}},
		{"d_key = 0", func(m *model.Model) { m.Layers[0].Attention.Heads[0].Q = model.Zeros(0, 3) },
			[]string{"layer 1 attention head 1", "d_key = 0"}},
		{"no heads", func(m *model.Model) { m.Layers[0].Attention.Heads = nil },
			[]string{"layer 1 attention", "no heads"}},
		{"data length", func(m *model.Model) {
			m.Layers[0].Attention.Heads[0].Q.Data = m.Layers[0].Attention.Heads[0].Q.Data[:5]
		},
			[]string{"layer 1 attention head 1", "W^Q", "5 entries"}},
		{"invalid mask", func(m *model.Model) { m.Layers[0].Attention.Mask = model.Mask(9) },
			[]string{"layer 1 attention", "invalid mask"}},
		{"invalid weighting", func(m *model.Model) { m.Layers[0].Attention.Weighting = model.Weighting(-1) },
			[]string{"layer 1 attention", "invalid weighting"}},
		{"invalid scale", func(m *model.Model) { m.Layers[0].Attention.Scale = model.ScoreScale(2) },
			[]string{"layer 1 attention", "invalid score scale"}},
		{"W1 cols", func(m *model.Model) { m.Layers[1].FeedForward.W1 = model.Zeros(2, 4) },
			[]string{"layer 2 feed-forward", "W1", "2×4, want 2×3"}},
		{"W1 no rows", func(m *model.Model) { m.Layers[0].FeedForward.W1 = model.Zeros(0, 3) },
			[]string{"layer 1 feed-forward", "W1 has no rows"}},
		{"b1 length", func(m *model.Model) { m.Layers[0].FeedForward.B1 = vec("1", "2", "3") },
			[]string{"layer 1 feed-forward", "b1", "length 3, want 2"}},
		{"W2 cols", func(m *model.Model) { m.Layers[1].FeedForward.W2 = model.Zeros(3, 3) },
			[]string{"layer 2 feed-forward", "W2", "3×3, want 3×2"}},
		{"W2 rows", func(m *model.Model) { m.Layers[0].FeedForward.W2 = model.Zeros(2, 2) },
			[]string{"layer 1 feed-forward", "W2", "2×2, want 3×2"}},
		{"b2 length", func(m *model.Model) { m.Layers[1].FeedForward.B2 = vec("1") },
			[]string{"layer 2 feed-forward", "b2", "length 1, want 3"}},
		{"invalid activation", func(m *model.Model) { m.Layers[0].FeedForward.Activation = model.Activation(17) },
			[]string{"layer 1 feed-forward", "invalid activation"}},
		{"γ length", func(m *model.Model) { m.Layers[1].AttentionNorm.Gamma = vec("1", "1") },
			[]string{"layer 2 attention norm", "γ", "length 2, want 3"}},
		{"β length", func(m *model.Model) { m.Layers[0].FeedForwardNorm.Beta = vec("0", "0", "0", "0") },
			[]string{"layer 1 feed-forward norm", "β", "length 4, want 3"}},
		{"W^N cols", func(m *model.Model) {
			// The heads read the 2 selected components, so only W^N is wrong.
			sel := model.Zeros(2, 4)
			l := &m.Layers[0]
			l.AttentionNorm = &model.LayerNorm{Select: &sel}
			l.Attention.Heads[0] = model.Head{Q: model.Zeros(2, 2), K: model.Zeros(2, 2), V: model.Zeros(3, 2)}
		}, []string{"layer 1 attention norm", "W^N", "2×4, want 2×3"}},
		{"W^N no rows", func(m *model.Model) {
			sel := model.Zeros(0, 3)
			m.Layers[1].FeedForward = nil
			m.Layers[1].FeedForwardNorm = &model.LayerNorm{Select: &sel}
		}, []string{"layer 2 feed-forward norm", "W^N has no rows"}},
		{"sublayer reads the selection", func(m *model.Model) {
			// W^N is 2×3, so the FFN must have 2 columns.
			sel := model.Zeros(2, 3)
			m.Layers[1].FeedForwardNorm = &model.LayerNorm{Select: &sel}
		}, []string{"layer 2 feed-forward", "W1", "2×3, want 2×2"}},
		{"γ of a selection", func(m *model.Model) {
			sel := model.Zeros(2, 3)
			l := &m.Layers[0]
			l.FeedForwardNorm = &model.LayerNorm{Select: &sel, Gamma: vec("1", "1", "1")}
			l.FeedForward.W1 = model.Zeros(2, 2)
		}, []string{"layer 1 feed-forward norm", "γ", "length 3, want 2"}},
		{"W^N under post-norm", func(m *model.Model) {
			sel := model.Zeros(3, 3)
			m.Norm, m.FinalNorm = model.PostNorm, nil
			m.Layers[0].AttentionNorm = &model.LayerNorm{Select: &sel}
		}, []string{"layer 1 attention norm", "W^N needs pre-norm"}},
		{"final norm with W^N", func(m *model.Model) {
			sel := model.Zeros(3, 3)
			m.FinalNorm.Select = &sel
		}, []string{"final norm", "W^N"}},
		{"final norm γ", func(m *model.Model) { m.FinalNorm.Gamma = vec("1", "1") },
			[]string{"final norm", "γ", "length 2, want 3"}},
		{"norm without placement", func(m *model.Model) { m.Norm, m.FinalNorm = model.NoNorm, nil },
			[]string{"layer 1", "attention norm", "placement is none"}},
		{"final norm without pre-norm", func(m *model.Model) { m.Norm = model.PostNorm },
			[]string{"final norm", "pre-norm"}},
		{"output W cols", func(m *model.Model) { m.Output.W = model.Zeros(2, 4) },
			[]string{"output", "W_out", "2×4, want 2×3"}},
		{"labels count", func(m *model.Model) { m.Output.Labels = []string{"x", "y", "z"} },
			[]string{"output", "W_out", "2×3, want 3×3"}},
		{"argmax without labels", func(m *model.Model) { m.Output.Labels = nil },
			[]string{"output", "needs labels"}},
		{"distribution labels count", func(m *model.Model) {
			m.Output = model.Output{Kind: model.Distribution, W: model.Zeros(3, 3), Labels: []string{"x"}}
		},
			[]string{"output", "W_out", "3×3, want 1×3"}},
		{"readout labels count", func(m *model.Model) {
			m.Output = model.Output{Kind: model.Readout, W: model.Zeros(3, 3), Labels: []string{"x", "y"}}
		},
			[]string{"output", "2 labels for 3 readout rows"}},
		{"readout no rows", func(m *model.Model) { m.Output = model.Output{Kind: model.Readout, W: model.Zeros(0, 3)} },
			[]string{"output", "no rows"}},
		{"sign W rows", func(m *model.Model) { m.Output = model.Output{Kind: model.Sign, W: model.Zeros(2, 3)} },
			[]string{"output", "W_out", "2×3, want 1×3"}},
		{"invalid output kind", func(m *model.Model) { m.Output.Kind = model.OutputKind(7) },
			[]string{"output", "invalid kind"}},
		{"word embedding length", func(m *model.Model) { m.WordEmbedding[1] = model.IntVector(1, 2) },
			[]string{"word embedding", `"b"`, "length 2, want 3"}},
		{"word embedding count", func(m *model.Model) { m.WordEmbedding = m.WordEmbedding[:1] },
			[]string{`"valid"`, "1 word embeddings for 2 symbols"}},
		{"D = 0", func(m *model.Model) { m.D = 0 },
			[]string{`"valid"`, "D is 0"}},
		{"D < 0", func(m *model.Model) { m.D = -3 },
			[]string{`"valid"`, "D is -3"}},
		{"empty alphabet", func(m *model.Model) { m.Alphabet, m.WordEmbedding = nil, nil },
			[]string{`"valid"`, "empty alphabet"}},
		{"duplicate symbol", func(m *model.Model) { m.Alphabet = []string{"a", "a"} },
			[]string{`"valid"`, `"a"`, "twice"}},
		{"component names", func(m *model.Model) { m.Components = []string{"x", "y"} },
			[]string{"2 component names", "D = 3"}},
		{"position encoding without function", func(m *model.Model) { m.Position = &model.PositionEncoding{Name: "pe"} },
			[]string{`"pe"`, "no function"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("panic: %v", p)
				}
			}()
			m := validModel()
			tc.mutate(m)
			wantErr(t, m.Validate(), tc.subs...)
			// New validates too, at every precision.
			for _, prec := range []string{"exact", "fp16"} {
				r, err := New(numeric.MustParsePrecision(prec), m)
				if r != nil {
					t.Errorf("New at %s returned a runner for an invalid model", prec)
				}
				wantErr(t, err, tc.subs...)
			}
		})
	}
}

// TestValidateRejectsInvalidNormPlacement: the other enumerations (mask,
// weighting, score scale, activation, output kind) are checked by
// Validate; an out-of-range NormPlacement should be too. Otherwise a
// model whose layers carry norms runs with them silently skipped, since
// Run applies a norm only under PreNorm or PostNorm.
func TestValidateRejectsInvalidNormPlacement(t *testing.T) {
	m := validModel()
	m.Norm, m.FinalNorm = model.NormPlacement(3), nil
	if err := m.Validate(); err == nil {
		t.Errorf("Validate accepted Norm = NormPlacement(3) with layer norms present")
	}
}

func TestRunInputErrors(t *testing.T) {
	r, err := New(numeric.MustParsePrecision("exact"), validModel())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		input []int
		subs  []string
	}{
		{nil, []string{"empty input"}},
		{[]int{}, []string{"empty input"}},
		{[]int{0, 2}, []string{"input position 2", "symbol index 2", "2 symbols"}},
		{[]int{-1}, []string{"input position 1", "symbol index -1"}},
	}
	for _, tc := range tests {
		res, err := r.Run(tc.input, true)
		if res != nil {
			t.Errorf("Run(%v) returned a result", tc.input)
		}
		wantErr(t, err, tc.subs...)
	}
}

func TestTokenize(t *testing.T) {
	m := &model.Model{Alphabet: []string{"a", "ab", "b", "3:1", "1:0"}}
	tests := []struct {
		in   string
		want []int
		subs []string // for an error
	}{
		{in: "abab", want: []int{1, 1}}, // longest match: ab ab, not a b a b
		{in: "aab", want: []int{0, 1}},  // a, then ab
		{in: "ba", want: []int{2, 0}},
		{in: "3:1", want: []int{3}},             // a multi-character symbol alone
		{in: "3:11:0", want: []int{3, 4}},       // and run together
		{in: "3:1 1:0 a", want: []int{3, 4, 0}}, // white space separates symbols
		{in: " ab ", want: []int{1}},            // a single symbol with spaces
		{in: "abc", subs: []string{"offset 2"}}, // c is not a symbol
		{in: "3:", subs: []string{"offset 0"}},  // nor is a prefix of one
		{in: "a x", subs: []string{`"x"`, "position 2"}},
		{in: "", subs: []string{"empty input"}},
	}
	for _, tc := range tests {
		got, err := m.Tokenize(tc.in)
		if tc.subs != nil {
			if got != nil {
				t.Errorf("Tokenize(%q) = %v, want an error", tc.in, got)
			}
			wantErr(t, err, tc.subs...)
			continue
		}
		if err != nil {
			t.Errorf("Tokenize(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Tokenize(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestPositionEncodingError: a position encoding that cannot be evaluated
// at one position is reported with its name, the position and the
// length (the name is written out only on an error).
func TestPositionEncodingError(t *testing.T) {
	m := validModel()
	m.Position = &model.PositionEncoding{Name: "bad", Vector: func(i, n int) model.Vector {
		v := make(model.Vector, m.D)
		for c := range v {
			v[c] = numeric.LitInt(0)
		}
		if i == 2 {
			v[1] = numeric.Quo(numeric.LitInt(1), numeric.LitInt(0))
		}
		return v
	}}
	for _, p := range []string{"fp64", "exact"} {
		r, err := New(numeric.MustParsePrecision(p), m)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run([]int{0}, false); err != nil {
			t.Errorf("%s: length 1 has no bad position: %v", p, err)
		}
		_, err = r.Run([]int{0, 1, 0}, false)
		wantErr(t, err, `position encoding "bad" at i = 2, n = 3[2]`)
	}
}

// TestInstantiateNamesTheRow: a weight exact arithmetic cannot hold is
// refused with the row and entry that hold it, the symbol's row named
// only then (Instantiate writes no name for the rows that convert).
func TestInstantiateNamesTheRow(t *testing.T) {
	m := validModel()
	m.WordEmbedding[1] = model.Vector{numeric.LitInt(1), numeric.Sqrt(numeric.LitInt(2)), numeric.LitInt(0)}
	_, err := Instantiate[*big.Rat](numeric.Exact{}, m)
	if err == nil || !strings.Contains(err.Error(), `word embedding of "b"[2]`) || !errors.Is(err, numeric.ErrIrrational) {
		t.Fatalf("got %v, want the word embedding of \"b\", entry 2, irrational", err)
	}
	// A later row's failure is not the first one's: the first error stays.
	m.WordEmbedding[0] = model.Vector{numeric.Sqrt(numeric.LitInt(3)), numeric.LitInt(0), numeric.LitInt(0)}
	_, err = Instantiate[*big.Rat](numeric.Exact{}, m)
	if err == nil || !strings.Contains(err.Error(), `word embedding of "a"[1]`) {
		t.Fatalf("got %v, want the word embedding of \"a\", entry 1", err)
	}
}
