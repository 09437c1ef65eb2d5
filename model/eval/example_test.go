package eval_test

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// First-symbol detection, §Position Encodings: the encoding 1/i is 1 at
// position 1 alone, and ReLU(2·(1/i) − 1) is 1 there and 0 at every
// later position (2/i − 1 ≤ 0 for i ≥ 2). Run at fp16, the weights and
// every rounding included, it answers 1, 0, 0, 0 on any string of
// length 4.
func ExampleNew() {
	m := &model.Model{
		Name:          "first",
		Alphabet:      []string{"a", "b"},
		D:             2,
		Components:    []string{"1/i", "first"},
		WordEmbedding: []model.Vector{model.IntVector(0, 0), model.IntVector(0, 0)},
		Position:      &model.PositionEncoding{Name: "1/i", Vector: func(i, n int) model.Vector { return model.RatVector(big.NewRat(1, int64(i)), new(big.Rat)) }},
		Layers: []model.Layer{{FeedForward: &model.FeedForward{
			W1: model.Ints([]int64{2, 0}), B1: model.IntVector(-1),
			W2: model.Ints([]int64{0}, []int64{1}), B2: model.IntVector(0, 0),
		}}},
		Output: model.Output{Kind: model.Readout, W: model.Ints([]int64{0, 1}), Labels: []string{"first"}},
	}
	r, err := eval.New(numeric.MustParsePrecision("fp16"), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := r.Run([]int{1, 0, 0, 1}, false) // b a a b
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, out := range res.Outputs {
		fmt.Println(i+1, out.Values)
	}
	// Output:
	// 1 [1]
	// 2 [0]
	// 3 [0]
	// 4 [0]
}
