package positionwise

import (
	"math/big"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// fuzzWeights are the parameters a fuzzed network draws from: powers of
// two (exact products), 3 (never exact on a full significand), 1/3 (not
// stored exactly), 0.
var fuzzWeights = []*big.Rat{
	big.NewRat(0, 1), big.NewRat(1, 1), big.NewRat(-1, 1), big.NewRat(2, 1), big.NewRat(-2, 1),
	big.NewRat(1, 2), big.NewRat(-1, 4), big.NewRat(3, 1), big.NewRat(1, 3), big.NewRat(-5, 8),
}

// fuzzModel is a one-input ReLU network x ↦ W2 ReLU(W1 x + b1) + b2 read
// from the bytes: a hidden unit per three bytes (its weight, bias and
// output weight), at most four, then the output's bias.
func fuzzModel(data []byte) (built, bool) {
	h := min(len(data)/3, 4)
	if h == 0 {
		return built{}, false
	}
	pick := func(b byte) numeric.Expr { return numeric.Lit(fuzzWeights[int(b)%len(fuzzWeights)]) }
	ff := &model.FeedForward{W1: model.Zeros(h, 2), B1: make(model.Vector, h), W2: model.Zeros(2, h), B2: make(model.Vector, 2), Activation: model.ReLU}
	for k := 0; k < h; k++ {
		ff.W1.Set(k, 0, pick(data[3*k]))
		ff.W1.Set(k, 1, numeric.LitInt(0))
		ff.B1[k] = pick(data[3*k+1])
		ff.W2.Set(0, k, numeric.LitInt(0))
		ff.W2.Set(1, k, pick(data[3*k+2]))
	}
	ff.B2[0], ff.B2[1] = numeric.LitInt(0), numeric.LitInt(0)
	if len(data) > 3*h {
		ff.B2[1] = pick(data[3*h])
	}
	out := model.Zeros(1, 2)
	out.Set(0, 1, numeric.LitInt(1))
	m := &model.Model{Name: "fuzz", D: 2, Components: []string{"x", "out"}, Alphabet: []string{"0"}, WordEmbedding: []model.Vector{model.IntVector(0, 0)},
		Layers: []model.Layer{{FeedForward: ff}}, Output: model.Output{Kind: model.Readout, W: out, Labels: []string{"out"}}}
	return built{name: "fuzz", m: m, inputs: []int{0}, names: []string{"x"}}, true
}

// FuzzAnalysisAgrees: on random small networks at both fp8 formats, no
// box the analysis proves holds a point where the engine's run differs
// from its exact run; nor on the integer domains at bf16 and fp16, at a
// width the data picks (every point of a proved box enumerated and run
// by the engine: at most 2^12 + 1 integers at fp16's widest).
func FuzzAnalysisAgrees(f *testing.F) {
	f.Add([]byte{1, 0, 1, 2, 0, 2})
	f.Add([]byte{5, 8, 3, 7, 1, 4, 6, 9, 2, 3})
	f.Add([]byte{3, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		b, ok := fuzzModel(data)
		if !ok {
			return
		}
		for _, pn := range []string{"fp8-e4m3", "fp8-e5m2"} {
			if _, _, bad, why := agreement(t, b, numeric.MustParsePrecision(pn)); bad != nil {
				t.Fatalf("%v at %s: a proved box holds (%s), where %s", data, pn, ratsText(bad), why)
			}
		}
		for _, pc := range []struct {
			name string
			p    int
		}{{"bf16", 8}, {"fp16", 11}} {
			w := int(data[len(data)-1]) % (pc.p + 1)
			if _, _, bad, why := agreementOn(t, b, numeric.MustParsePrecision(pc.name), w); bad != nil {
				t.Fatalf("%v at %s, integers up to 2^%d: a proved box holds (%s), where %s", data, pc.name, w, ratsText(bad), why)
			}
		}
	})
}
