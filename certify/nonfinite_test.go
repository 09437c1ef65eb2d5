package certify_test

import (
	"testing"

	"github.com/transformer-cookbook/verify/certify"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

func lit(k int64) numeric.Expr { return numeric.LitInt(k) }

// ints is a rows×cols matrix from its entries, row by row.
func ints(rows, cols int, vals ...int64) model.Matrix {
	m := model.Zeros(rows, cols)
	for k, v := range vals {
		if v != 0 {
			m.Data[k] = lit(v)
		}
	}
	return m
}

// TestNonFiniteRefused: Run's weighted sum reads every visible position,
// so a NaN score (every weight NaN) or a non-finite value at a position
// not selected (0·∞ = NaN) makes the head's output NaN. Each model below
// overflows fp16 (largest finite 65504) on one symbol: 300·300 = 90000.
// The analysis must not certify a length on which the input given is
// wrong, and the input must really be wrong (else the test proves
// nothing).
func TestNonFiniteRefused(t *testing.T) {
	hard := func(mask model.Mask, h model.Head) []model.Layer {
		return []model.Layer{{Attention: &model.Attention{Mask: mask, Weighting: model.LeftHardmax, Scale: model.NoScale, Heads: []model.Head{h}}}}
	}
	// onlyA allows only a (symbol 0) up to position upTo, then any of k.
	onlyA := func(upTo, k int) func(i, n int) []int {
		return func(i, n int) []int {
			if i <= upTo {
				return []int{0}
			}
			all := make([]int, k)
			for s := range all {
				all[s] = s
			}
			return all
		}
	}
	tests := []struct {
		name    string
		m       *model.Model
		n       int
		symbols func(i, n int) []int
		input   []int
	}{
		{
			// b's query is 1 + 300² = inf, its key 0: score inf·0 = NaN,
			// at position 1, which sees only itself.
			"a NaN score a position sees alone",
			&model.Model{Name: "nan-alone", Alphabet: []string{"a", "b"}, D: 3,
				WordEmbedding: []model.Vector{{lit(1), lit(0), lit(0)}, {lit(1), lit(300), lit(0)}},
				Layers:        hard(model.Future, model.Head{Q: ints(1, 3, 1, 300, 0), K: ints(1, 3, 0, 0, 0), V: ints(3, 3, 0, 0, 0, 0, 0, 0, 1, 0, 0)}),
				Output:        model.Output{Kind: model.Readout, W: ints(1, 3, 0, 0, 1)}},
			1, nil, []int{1},
		},
		{
			// a always wins (score 1 against 0); b's value 300² is inf.
			"an infinite value never selected",
			&model.Model{Name: "inf-value", Alphabet: []string{"a", "b"}, D: 3,
				WordEmbedding: []model.Vector{{lit(1), lit(0), lit(0)}, {lit(0), lit(300), lit(0)}},
				Layers:        hard(model.NoMask, model.Head{Q: ints(1, 3, 1, 1, 0), K: ints(1, 3, 1, 0, 0), V: ints(3, 3, 0, 0, 0, 0, 0, 0, 1, 300, 0)}),
				Output:        model.Output{Kind: model.Readout, W: ints(1, 3, 0, 0, 1)}},
			2, onlyA(1, 2), []int{0, 1},
		},
		{
			// c's score is 300² − 300² = inf − inf = NaN among ten keys,
			// more than the analysis compares one by one.
			"a NaN score among many keys",
			&model.Model{Name: "nan-many", Alphabet: []string{"a", "b", "c"}, D: 4,
				WordEmbedding: []model.Vector{{lit(1), lit(1), lit(0), lit(0)}, {lit(1), lit(0), lit(0), lit(0)}, {lit(1), lit(0), lit(300), lit(0)}},
				Layers: hard(model.NoMask, model.Head{Q: ints(2, 4, 1, 0, 0, 0, 1, 0, 0, 0), K: ints(2, 4, 0, 1, 300, 0, 0, 0, -300, 0),
					V: ints(4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0)}),
				Output: model.Output{Kind: model.Readout, W: ints(1, 4, 0, 0, 0, 1)}},
			10, onlyA(2, 3), []int{0, 0, 0, 0, 0, 2, 0, 0, 0, 0},
		},
	}
	fp16 := numeric.MustParsePrecision("fp16")
	for _, tc := range tests {
		run, err := eval.New(fp16, tc.m)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := eval.New(numeric.MustParsePrecision("exact"), tc.m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := run.Run(tc.input, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exact.Run(tc.input, false)
		if err != nil {
			t.Fatal(err)
		}
		wrong := false
		for i := range got.Outputs {
			if ok, _ := exactly(want.Outputs[i], got.Outputs[i]); !ok {
				wrong = true
			}
		}
		if !wrong {
			t.Fatalf("%s: the input %v is right in fp16: the test needs a wrong one", tc.name, tc.input)
		}
		res, err := certify.Length(certify.Input{Reference: tc.m, Model: tc.m, Precision: fp16, Symbols: tc.symbols, Right: exactly}, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		if res.Certified {
			t.Errorf("%s: certified at n = %d, but %v is wrong in fp16", tc.name, tc.n, tc.input)
		}
	}
}
