package eval

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// TestHardExactIsWeightedSum: in exact arithmetic, hardExact (the values
// summed, then scaled once) gives the rationals of weightedSum (each term
// weighted, then summed, left to right) on random heads: scores from a
// few values so that ties are frequent, values random fractions (zeros
// among them, and some beyond int64), every hard weighting, every count of
// visible positions.
func TestHardExactIsWeightedSum(t *testing.T) {
	b := numeric.NewExact()
	inst := &Instance[*big.Rat]{B: b}
	rng := rand.New(rand.NewPCG(9, 9))
	randRat := func() *big.Rat {
		switch rng.IntN(6) {
		case 0:
			return new(big.Rat)
		case 1: // beyond the int64 fast path
			n := new(big.Int).Lsh(big.NewInt(rng.Int64N(1000)+1), 70)
			return new(big.Rat).SetFrac(n, big.NewInt(rng.Int64N(97)+1))
		}
		return big.NewRat(rng.Int64N(41)-20, rng.Int64N(12)+1)
	}
	cases := 0
	for trial := 0; trial < 3000; trial++ {
		n := 1 + rng.IntN(12)
		d := 1 + rng.IntN(5)
		scores := make([]*big.Rat, n)
		vals := make([][]*big.Rat, n+2)
		for j := range vals {
			vals[j] = make([]*big.Rat, d)
			for c := range vals[j] {
				vals[j][c] = randRat()
			}
		}
		js := make([]int, n)
		for k := range scores {
			scores[k] = big.NewRat(rng.Int64N(3), int64(1+rng.IntN(2)))
			js[k] = k + rng.IntN(3) // visible positions need not be 0..n−1
			if k > 0 {
				js[k] = max(js[k], js[k-1]+1)
			}
			js[k] = min(js[k], n+1-(n-1-k))
		}
		for _, w := range []model.Weighting{model.AverageHardmax, model.LeftHardmax, model.RightHardmax} {
			sc := &attnScratch[*big.Rat]{t: b.New(), finite: make([]bool, n+2)}
			for j := range sc.finite {
				sc.finite[j] = true
			}
			want, err := inst.weightedSum(w, scores, js, vals, d, sc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := inst.hardExact(zeros[*big.Rat](b, d), w, scores, js, vals, nil, sc)
			if err != nil {
				t.Fatal(err)
			}
			// With the values' sum given, as a prefix runner keeps it.
			sum := zeros[*big.Rat](b, d)
			for _, j := range js {
				for c, v := range vals[j] {
					sum[c].Add(sum[c], v)
				}
			}
			withSum, err := inst.hardExact(zeros[*big.Rat](b, d), w, scores, js, vals, sum, sc)
			if err != nil {
				t.Fatal(err)
			}
			for c := range want {
				if withSum[c].Cmp(want[c]) != 0 {
					t.Fatalf("%s with the sum given, scores %v, js %v, component %d: %s, want %s", w, scores, js, c, withSum[c].RatString(), want[c].RatString())
				}
			}
			for c := range want {
				if got[c].Cmp(want[c]) != 0 {
					t.Fatalf("%s, scores %v, js %v, component %d: %s, want %s", w, scores, js, c, got[c].RatString(), want[c].RatString())
				}
				// The output owns its values: not the cached ones.
				for _, v := range vals {
					if got[c] == v[c] {
						t.Fatalf("%s: output component %d aliases a value", w, c)
					}
				}
			}
			cases++
		}
	}
	if cases != 9000 {
		t.Fatalf("%d cases", cases)
	}
}
