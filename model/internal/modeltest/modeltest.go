// Package modeltest builds the exact models and parameters that the
// tests of model/eval and model/modelfile share.
package modeltest

import (
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// Rat parses an exact fraction or decimal; it panics on a typo in a test
// table rather than testing a wrong value.
func Rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad rational in test: " + s)
	}
	return r
}

// Ex is the exact parameter s.
func Ex(s string) numeric.Expr { return numeric.Lit(Rat(s)) }

// Vec is the exact vector of the given fractions.
func Vec(ss ...string) model.Vector {
	v := make(model.Vector, len(ss))
	for i, s := range ss {
		v[i] = Ex(s)
	}
	return v
}

// Rows is the matrix of the given rows of fractions.
func Rows(rs ...[]string) model.Matrix {
	m := model.Zeros(len(rs), len(rs[0]))
	for i, r := range rs {
		if len(r) != m.Cols {
			panic("ragged matrix in test")
		}
		for j, s := range r {
			m.Set(i, j, Ex(s))
		}
	}
	return m
}

// Row is a row of Rows.
func Row(ss ...string) []string { return ss }

// ValidModel is a two-layer pre-norm model with every part present, so
// that each mutation of a test breaks exactly one dimension. Its embeddings
// are permutations of (1, 2, 3), whose σ² = 2/3 makes σ² + ε = 1 with
// ε = 1/3, so it also runs in exact mode.
func ValidModel() *model.Model {
	layer := func() model.Layer {
		return model.Layer{
			Attention: &model.Attention{
				Heads:     []model.Head{{Q: model.Zeros(2, 3), K: model.Zeros(2, 3), V: model.Zeros(3, 3)}},
				Weighting: model.LeftHardmax,
			},
			FeedForward: &model.FeedForward{
				W1: model.Zeros(2, 3), B1: Vec("1", "-1"),
				W2: model.Zeros(3, 2), B2: Vec("0", "0", "0"),
			},
			AttentionNorm:   &model.LayerNorm{Eps: Ex("1/3"), Gamma: Vec("1", "1", "1"), Beta: Vec("0", "0", "0")},
			FeedForwardNorm: &model.LayerNorm{Eps: Ex("1/3")},
		}
	}
	return &model.Model{
		Name:          "valid",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(1, 2, 3), model.IntVector(3, 1, 2)},
		D:             3,
		Layers:        []model.Layer{layer(), layer()},
		Norm:          model.PreNorm,
		FinalNorm:     &model.LayerNorm{Eps: Ex("1/3"), Gamma: Vec("1", "1", "1")},
		Output:        model.Output{Kind: model.Argmax, W: model.Ints([]int64{1, 0, 0}, []int64{0, 0, 1}), Labels: []string{"first", "last"}},
	}
}
