package proofs

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// LayerNormModel is a model whose output is LN(x) for x ∈ ℝ^d: an identity FFN
// reading the selective pre-norm of its inputs (§Layernorm hash's
// LN(W^N x)), with the given ε and γ (nil: ones) and β = 0.
func LayerNormModel(d int, eps *big.Rat, gamma model.Vector) (*model.Model, error) {
	xs, ys := make([]string, d), make([]string, d)
	for k := range xs {
		xs[k], ys[k] = fmt.Sprintf("x%d", k+1), fmt.Sprintf("y%d", k+1)
	}
	norm := blocks.Identity(xs, ys)
	norm.Norm = &stream.Norm{Eps: numeric.Lit(eps), Gamma: gamma}
	return stream.New("ln", xs...).Then(norm).Readout(ys...).Model()
}

// RunVector runs m on one position whose input components take the
// values vals (in the order of m's inputs, the first len(vals)
// components), at the given precision.
func RunVector(m *model.Model, precision string, vals ...*big.Rat) ([]eval.Value, error) {
	at := map[string]*big.Rat{}
	for k, v := range vals {
		at[m.Components[k]] = v
	}
	h, err := stream.Stream(m, []map[string]*big.Rat{at})
	if err != nil {
		return nil, err
	}
	res, err := RunStream(m, precision, h)
	if err != nil {
		return nil, err
	}
	return res.Outputs[0].Values, nil
}

// ExactValues returns the values as rationals, or an error naming one that
// is not a single exact point.
func ExactValues(vs []eval.Value) ([]*big.Rat, error) {
	out := make([]*big.Rat, len(vs))
	for k, v := range vs {
		r, ok := v.Rat()
		if !ok {
			return nil, fmt.Errorf("output %d = %s is not exact", k+1, v.Text)
		}
		out[k] = r
	}
	return out, nil
}

// RatsText writes xs as a vector [x1, x2, …].
func RatsText(xs []*big.Rat) string {
	parts := make([]string, len(xs))
	for k, x := range xs {
		parts[k] = x.RatString()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// RatsEqual reports whether a and b are the same vector.
func RatsEqual(a, b []*big.Rat) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k].Cmp(b[k]) != 0 {
			return false
		}
	}
	return true
}

// Rats parses a vector of rationals written like "-3/7".
func Rats(xs ...string) []*big.Rat {
	out := make([]*big.Rat, len(xs))
	for k, x := range xs {
		out[k] = Q(x)
	}
	return out
}

// PairBlock is the block f written as a ± pair: f's hidden layer, and
// W2' = [W2; −W2] (the Routing Lemma's postmultiplication by [1; −1]),
// writing (f, −f) to out.
func PairBlock(f *stream.FF, out []string) *stream.FF {
	g := *f
	g.Out = out
	w2 := model.Zeros(2, f.W2.Cols)
	for c := 0; c < f.W2.Cols; c++ {
		w2.Set(0, c, f.W2.At(0, c))
		w2.Set(1, c, numeric.Neg(f.W2.At(0, c)))
	}
	g.W2 = w2
	g.Name = f.Name + " (± pair)"
	return &g
}

// RunRows runs m on the given residual stream (one exact vector per
// position) at precision p.
func RunRows(m *model.Model, p string, rows [][]*big.Rat) ([]eval.PositionOutput, error) {
	res, err := RunStream(m, p, rows)
	if err != nil {
		return nil, err
	}
	return res.Outputs, nil
}

// AffineLayerNormModel is LN over ℝ^d alone (no layers, the final norm of a pre-norm
// model), read out in full.
func AffineLayerNormModel(d int, eps *big.Rat, gamma, beta []*big.Rat) *model.Model {
	return &model.Model{Name: "ln", Alphabet: []string{"a"}, WordEmbedding: []model.Vector{make(model.Vector, d)}, D: d,
		Norm: model.PreNorm, FinalNorm: &model.LayerNorm{Eps: numeric.Lit(eps), Gamma: model.RatVector(gamma...), Beta: model.RatVector(beta...)},
		Output: model.Output{Kind: model.Readout, W: model.Identity(d)}}
}
