package eval

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/transformer-cookbook/verify/numeric"
)

// TestDotAlternatingIsDotInto: the big floats' dot product that writes
// its running sum into two values in turn rounds every product and sum
// as dotInto does: equal results, bit for bit, at 8, 24, 53 and 113 bits,
// for every length 1 … 12 (odd and even counts of sums end in either
// value), with operands of other precisions and signed zeros, and the
// destination's storage holds the result.
func TestDotAlternatingIsDotInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, prec := range []uint{8, 24, 53, 113} {
		b := numeric.NewBigFloat(prec)
		for n := 1; n <= 12; n++ {
			for range 50 {
				x, y := make([]*big.Float, n), make([]*big.Float, n)
				for k := range n {
					x[k] = new(big.Float).SetPrec(uint(1 + rng.IntN(120))).SetFloat64(rng.NormFloat64() * float64(int(1)<<rng.IntN(30)))
					y[k] = new(big.Float).SetPrec(prec).SetFloat64(rng.NormFloat64())
					if rng.IntN(8) == 0 {
						y[k] = new(big.Float).Neg(new(big.Float))
					}
				}
				want := dotInto[*big.Float](b, b.New(), x, y, b.New())
				dst, u := b.New(), b.New()
				got := dotAlternating[*big.Float](b, dst, x, y, b.New(), &u)
				if got != dst {
					t.Fatalf("%d bits, n = %d: the result is not in dst's storage", prec, n)
				}
				if got.Cmp(want) != 0 || got.Signbit() != want.Signbit() || got.Prec() != want.Prec() {
					t.Fatalf("%d bits, n = %d: %s, want %s", prec, n, got.Text('p', 0), want.Text('p', 0))
				}
			}
		}
	}
}
