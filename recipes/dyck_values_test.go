package recipes_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/recipes"
)

// dyck1ValuesBig is dyck1Values in big.Rat arithmetic throughout: the
// definition, term by term.
func dyck1ValuesBig(symbols []int) (b, t []*big.Rat) {
	balance := int64(0)
	sumE := new(big.Rat)
	for i, s := range symbols {
		if s == 0 {
			balance++
		} else {
			balance--
		}
		bi := big.NewRat(balance, int64(i+1))
		if balance < 0 {
			sumE.Add(sumE, new(big.Rat).Neg(bi))
		}
		b = append(b, bi)
		t = append(t, new(big.Rat).Quo(sumE, big.NewRat(int64(i+1), 1)))
	}
	return b, t
}

// TestDyck1ValuesBig: the int64 path of dyck1Values, and its switch to
// big.Rat, give the values of big.Rat arithmetic, in lowest terms, on
// every string to length 12, on strings that stay closed-heavy (whose
// sums leave int64 early) and on random strings to length 300.
func TestDyck1ValuesBig(t *testing.T) {
	check := func(in []int) {
		t.Helper()
		b, tt := recipes.Dyck1Values(in)
		wb, wt := dyck1ValuesBig(in)
		for i := range in {
			for _, p := range [][2]*big.Rat{{b[i], wb[i]}, {tt[i], wt[i]}} {
				if p[0].Num().Cmp(p[1].Num()) != 0 || p[0].Denom().Cmp(p[1].Denom()) != 0 {
					t.Fatalf("%v at %d: %s, want %s", in, i+1, p[0].RatString(), p[1].RatString())
				}
			}
		}
	}
	for n := 1; n <= 12; n++ {
		for x := 0; x < 1<<n; x++ {
			in := make([]int, n)
			for i := range in {
				in[i] = x >> (n - 1 - i) & 1
			}
			check(in)
		}
	}
	rng := rand.New(rand.NewPCG(22, 23))
	for r := 0; r < 300; r++ {
		in := make([]int, 1+rng.IntN(300))
		closeBias := rng.IntN(3) // 0: uniform, else mostly ")"
		for i := range in {
			if closeBias == 0 {
				in[i] = rng.IntN(2)
			} else if rng.IntN(8) != 0 {
				in[i] = 1
			}
		}
		check(in)
	}
}
