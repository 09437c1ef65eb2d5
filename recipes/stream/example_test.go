package stream_test

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// Two feed-forward blocks in parallel, min and max of (x, y) as in
// §Min and Max, then their difference: the assembler places the
// components and builds the routed weights.
func Example() {
	// max(x, y) = ReLU(x − y) + y and min(x, y) = x − ReLU(x − y), with
	// y = ReLU(y) − ReLU(−y) carried through the hidden layer.
	maxXY := &stream.FF{Name: "max", In: []string{"x", "y"}, Out: []string{"max"},
		W1: model.Ints([]int64{1, -1}, []int64{0, 1}, []int64{0, -1}), W2: model.Ints([]int64{1, 1, -1})}
	minXY := &stream.FF{Name: "min", In: []string{"x", "y"}, Out: []string{"min"},
		W1: model.Ints([]int64{1, 0}, []int64{-1, 0}, []int64{1, -1}), W2: model.Ints([]int64{1, -1, -1})}
	spread := &stream.FF{Name: "spread", In: []string{"max", "min"}, Out: []string{"spread"},
		W1: model.Ints([]int64{1, -1}), W2: model.Ints([]int64{1})}
	m, err := stream.New("minmax", "x", "y").Then(stream.Parallel(maxXY, minXY), spread).Readout("min", "max", "spread").Model()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("components:", m.Components, "layers:", len(m.Layers))

	r, _ := eval.New(numeric.MustParsePrecision("exact"), m)
	h0, _ := stream.Stream(m, []map[string]*big.Rat{{"x": big.NewRat(1, 3), "y": big.NewRat(-2, 1)}})
	res, _ := r.RunStream(h0, false)
	fmt.Println("min, max, spread:", res.Outputs[0].Values)
	// Output:
	// components: [x y max min spread] layers: 2
	// min, max, spread: [-2 1/3 7/3]
}
