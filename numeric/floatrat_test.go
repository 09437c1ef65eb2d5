package numeric

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestFloatRat: floatRat gives what math/big's own SetFloat64 gives, in
// the same normal form (the same numerator and denominator), on the
// values where the conversion has edges (zeros, subnormals, the smallest
// and largest of each binade, integers, powers of two) and on random bit
// patterns of every exponent.
func TestFloatRat(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 3, 0.1, 1.0 / 3, 2e-323, math.SmallestNonzeroFloat64,
		-math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 0x1p-1022, 0x1p-1023, 0x1.fffffffffffffp-1023,
		0x1p52, 0x1p53, 0x1p53 + 2, 0x1p63, 0x1p64, -0x1p63, 0x1.8p1000, 12345678901234567890, math.MaxFloat32}
	rng := rand.New(rand.NewPCG(7, 11))
	for range 20000 {
		if x := math.Float64frombits(rng.Uint64()); !math.IsNaN(x) && !math.IsInf(x, 0) {
			vals = append(vals, x)
		}
		vals = append(vals, float64(rng.Int64N(1<<40)-1<<39), math.Ldexp(float64(rng.IntN(1<<20)), rng.IntN(200)-100))
	}
	for _, x := range vals {
		want := new(big.Rat).SetFloat64(x)
		got := floatRat(x)
		if got.Num().Cmp(want.Num()) != 0 || got.Denom().Cmp(want.Denom()) != 0 {
			t.Fatalf("floatRat(%b) = %s, want %s", x, got, want)
		}
	}
}
