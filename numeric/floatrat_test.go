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

// TestEvalSmallInt: an integer literal below 2^53 is evaluated without a
// rational (Expr.smallInt, then Format.Round); the result must be what
// the rational path gives (RoundRat of the exact integer), in every
// format, on the integers where the formats round, tie, overflow or
// saturate, and on random ones; an integer above 2^53 or a fraction
// takes the rational path.
func TestEvalSmallInt(t *testing.T) {
	ints := []int64{0, 1, -1, 2, 3, 7, 9, 17, 33, 240, 247, 248, 255, 256, 257, 448, 456, 464, 480, 57344, 61439, 61440, 65504, 65519,
		65520, 65536, 1 << 24, 1<<24 + 1, 1<<24 + 3, 1 << 53, -(1 << 53), 1<<53 - 1, 3 << 40}
	rng := rand.New(rand.NewPCG(3, 5))
	for range 3000 {
		ints = append(ints, rng.Int64N(1<<20)-1<<19, rng.Int64N(1<<53)-1<<52)
	}
	formats := []*Format{Binary64, Binary32, Binary16, BFloat16, FP8E5M2, FP8E4M3}
	for _, f := range formats {
		for _, k := range ints {
			got, err := ieeeEval(f, LitInt(k))
			want := f.RoundRat(big.NewRat(k, 1))
			if err != nil || math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s: eval(%d) = %v (%v), want %v", f.Name, k, got, err, want)
			}
		}
	}
	for _, e := range []Expr{LitInt(1<<53 + 1), Frac(1, 3), Lit(new(big.Rat).SetFrac(new(big.Int).Lsh(big.NewInt(1), 80), big.NewInt(1)))} {
		if _, ok := e.smallInt(); ok {
			t.Errorf("%v taken for a small integer", e)
		}
	}
	if x, ok := (Expr{}).smallInt(); !ok || x != 0 {
		t.Errorf("the zero Expr: %v, %v", x, ok)
	}
}
