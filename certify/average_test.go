package certify_test

import (
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/transformer-cookbook/verify/certify"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
)

// averageTies is one average-hard head over (1, a, out): "a" sets a = 1,
// and a position's score is a_j, so the a's tie at the top, and the value
// writes 3a into out: on m a's each position outputs the sum, left to
// right, of m copies of fl(w·3), w the weight of one of m tied positions.
func averageTies() *model.Model {
	return &model.Model{
		Name:          "ties",
		Alphabet:      []string{"a", "b"},
		WordEmbedding: []model.Vector{model.IntVector(1, 1, 0), model.IntVector(1, 0, 0)},
		D:             3,
		Components:    []string{"1", "a", "out"},
		Layers: []model.Layer{{Attention: &model.Attention{
			Heads:     []model.Head{{Q: model.Ints([]int64{1, 0, 0}), K: model.Ints([]int64{0, 1, 0}), V: model.Ints([]int64{0, 0, 0}, []int64{0, 0, 0}, []int64{0, 3, 0})}},
			Mask:      model.NoMask,
			Weighting: model.AverageHardmax,
		}}},
		Output: model.Output{Kind: model.Readout, W: model.Ints([]int64{0, 0, 1})},
	}
}

// roundBits rounds a positive x in a binary format's normal range to p
// fraction bits: spacing 2^(e−p) on [2^e, 2^(e+1)), to nearest, ties to
// even. Written here from the formats' definition, apart from numeric.
func roundBits(x *big.Rat, p int) *big.Rat {
	pow2 := func(e int) *big.Rat { // 2^e
		if e >= 0 {
			return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e)))
		}
		return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e)))
	}
	e := 0
	for x.Cmp(pow2(e)) < 0 {
		e--
	}
	for x.Cmp(pow2(e+1)) >= 0 {
		e++
	}
	spacing := pow2(e - p)
	q := new(big.Rat).Quo(x, spacing)
	fl := new(big.Int).Quo(q.Num(), q.Denom())
	frac := new(big.Rat).Sub(q, new(big.Rat).SetInt(fl))
	switch c := frac.Cmp(big.NewRat(1, 2)); {
	case c > 0, c == 0 && fl.Bit(0) == 1:
		fl.Add(fl, big.NewInt(1))
	}
	return new(big.Rat).Mul(new(big.Rat).SetInt(fl), spacing)
}

// TestAnalysisAverageWeight: the analysis computes average hardmax's
// outputs with the weight the model runs, 1/m rounded once. On inputs of
// n a's the model outputs, at every position, fl(w·3) summed n times left
// to right, each sum rounded (roundBits), with w = fl(1/n); the analysis,
// which follows positions and not counts, takes every count m ≤ n of tied
// a's as reachable. Told that the right outputs are the sums for m = 1 … n
// with w = fl(1/m), it must certify the length. The sums with the weight
// 1/fl(m) (the count rounded first) include one that is not among them
// (fp8-e5m2 holds neither 9 nor 19, fp8-e4m3 not 17; at m = 9 in fp8-e5m2,
// 1/8·3 summed nine times is 4, against fl(1/9) = 7/64 and fl(21/64) =
// 5/16 summed to 7/2): an analysis that weighed by 1/fl(m) would name that
// state wrong.
func TestAnalysisAverageWeight(t *testing.T) {
	m := averageTies()
	three := big.NewRat(3, 1)
	for _, f := range []struct {
		precision string
		bits, n   int
	}{
		{"fp8-e5m2", 2, 9},
		{"fp8-e5m2", 2, 19},
		{"fp8-e4m3", 3, 17},
	} {
		// sum is fl(w·3) summed k times, rounded after each addition.
		sum := func(w *big.Rat, k int) *big.Rat {
			term := roundBits(new(big.Rat).Mul(w, three), f.bits)
			s := new(big.Rat).Set(term)
			for range k - 1 {
				s = roundBits(new(big.Rat).Add(s, term), f.bits)
			}
			return s
		}
		once := map[string]bool{}
		var countFirst []*big.Rat
		for k := 1; k <= f.n; k++ {
			once[sum(roundBits(big.NewRat(1, int64(k)), f.bits), k).RatString()] = true
			countFirst = append(countFirst, sum(roundBits(new(big.Rat).Inv(roundBits(big.NewRat(int64(k), 1), f.bits)), f.bits), k))
		}
		if !slices.ContainsFunc(countFirst, func(r *big.Rat) bool { return !once[r.RatString()] }) {
			t.Fatalf("%s, n = %d: the weights 1/fl(m) give no sum that fl(1/m) does not: the test cannot tell them apart", f.precision, f.n)
		}
		right := func(_, got eval.PositionOutput) (bool, string) {
			r, ok := got.Values[0].Rat()
			if !ok || !once[r.RatString()] {
				return false, fmt.Sprintf("%s is no sum of fl(3·fl(1/m)), m ≤ %d", got.Values[0].Text, f.n)
			}
			return true, ""
		}
		allA := func(int, int) []int { return []int{0} }
		res, err := certify.Length(certify.Input{Reference: m, Model: m, Precision: numeric.MustParsePrecision(f.precision),
			Symbols: allA, Right: right}, f.n)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Certified {
			t.Errorf("%s, n = %d: not certified (%s; suspects %+v)", f.precision, f.n, res.Why, res.Suspects)
		}
	}
}
