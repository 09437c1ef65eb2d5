package recheck

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/numeric"
)

// TestValueKeysAreValues: the key of a big float is its value: two floats
// have one key exactly when their rationals are equal, at any precision
// each was rounded to (a float rounded to 24 bits and the same value held
// at 113 bits share a key; its neighbour at 113 bits has another), with ±0
// one value.
func TestValueKeysAreValues(t *testing.T) {
	bk := numeric.NewBigFloat(113)
	rng := rand.New(rand.NewPCG(1, 2))
	var xs []*big.Float
	for range 400 {
		prec := []uint{8, 24, 53, 113}[rng.IntN(4)]
		x := new(big.Float).SetPrec(prec).SetFloat64(rng.NormFloat64() * float64(int(1)<<rng.IntN(40)))
		x.SetMantExp(x, rng.IntN(200)-100)
		// The same value at 113 bits, and its neighbour there, one unit
		// in the last place above.
		wide := new(big.Float).SetPrec(113).Set(x)
		ulp := new(big.Float).SetMantExp(big.NewFloat(1), wide.MantExp(nil)-113)
		xs = append(xs, x, wide, new(big.Float).SetPrec(113).Add(wide, ulp))
	}
	xs = append(xs, new(big.Float), new(big.Float).Neg(new(big.Float)), new(big.Float).SetPrec(8).SetInt64(3), new(big.Float).SetPrec(64).SetInt64(3))
	same, differ := 0, 0
	for i, x := range xs {
		rx, _ := x.Rat(nil)
		kx := string(appendValue(nil, bk, x))
		for _, y := range xs[:i] {
			ry, _ := y.Rat(nil)
			ky := string(appendValue(nil, bk, y))
			if (rx.Cmp(ry) == 0) != (kx == ky) {
				t.Fatalf("%s and %s: equal %v, keys %q and %q", x.Text('g', 40), y.Text('g', 40), rx.Cmp(ry) == 0, kx, ky)
			}
			if kx == ky {
				same++
			} else {
				differ++
			}
		}
	}
	if same < 400 || differ == 0 {
		t.Errorf("only %d pairs of equal values (%d different)", same, differ)
	}
}
