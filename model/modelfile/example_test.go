package modelfile_test

import (
	"fmt"
	"strings"

	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/model/modelfile"
	"github.com/transformer-cookbook/verify/numeric"
)

// A model that outputs, at each position i, the fraction of b among the
// symbols up to i: one future-masked head with scores 0 averages the
// b-indicator uniformly over positions 1 … i (§Average), and the
// residual adds it to the component frac, which starts at 0. On "abba"
// that is 0, 1/2, 2/3, 2/4.
func ExampleReadJSON() {
	const file = `{"format": "transformer-cookbook-model", "version": 1, "name": "count-b", "max_n": 8, "d": 2,
	 "components": ["b", "frac"], "alphabet": ["a", "b"],
	 "word_embedding": [["0", "0"], ["1", "0"]],
	 "norm": "none",
	 "layers": [{"attention": {"mask": "future", "weighting": "avghardmax", "scale": "none",
	   "heads": [{"query": [["0", "0"]], "key": [["0", "0"]], "value": [["0", "0"], ["1", "0"]]}]},
	   "attention_residual": true, "feed_forward_residual": true}],
	 "output": {"kind": "readout", "w": [["0", "1"]], "labels": ["frac"]}}`
	m, _, err := modelfile.ReadJSON(strings.NewReader(file))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := eval.New(numeric.MustParsePrecision("exact"), m)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := r.Run([]int{0, 1, 1, 0}, false) // a b b a
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, out := range res.Outputs {
		fmt.Println(i+1, out.Values)
	}
	// Output:
	// 1 [0]
	// 2 [1/2]
	// 3 [2/3]
	// 4 [1/2]
}
