package numeric

// github.com/ALTree/bigfloat is the user's chosen library for Exp and Log
// on big.Float. The engine does not call it: it promises no correct
// rounding, ignores the rounding mode (so it cannot bound an interval),
// re-rounds math.Exp below 27 bits, hangs on Exp(1e8) at 53 bits, and
// races on its global π cache when prec + 64 > 1024. It serves here as an
// independent implementation to cross-check BigFloat.Exp and BigFloat.Log
// against, in the range where it is reliable, and as a yardstick in the
// benchmarks (bench_test.go).

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ALTree/bigfloat"
)

// TestCrossCheckALTree compares our correctly rounded Exp and Log with
// ALTree's at precisions from 32 to 900 bits (prec + 64 ≤ 1024 avoids its
// data race) on seeded random arguments of moderate size (it hangs on large
// ones). Both round to nearest; ALTree is not proved correct, so a
// disagreement is reported with both values, for a person to settle with
// mpmath; none has been seen.
func TestCrossCheckALTree(t *testing.T) {
	const seed = 20261122
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, prec := range []uint{32, 53, 64, 113, 256, 900} {
		b := NewBigFloat(prec)
		n := 200
		if prec > 200 {
			n = 40
		}
		for i := 0; i < n; i++ {
			// x = ±m/2^k with m up to 2^40 and k up to 60: magnitudes from
			// about 1e-18 to 1e12 for Log, clamped below 700 for Exp.
			m := rng.Int64N(1<<40) + 1
			k := rng.IntN(60)
			x := b.SetRat(nil, new(big.Rat).SetFrac(big.NewInt(m), new(big.Int).Lsh(big.NewInt(1), uint(k))))
			if got, err := b.Log(nil, x); err != nil {
				t.Fatal(err)
			} else if want := bigfloat.Log(x); got.Cmp(want) != 0 {
				t.Errorf("%d bits: Log(%s) = %s, ALTree %s", prec, x.Text('g', -1), got.Text('g', -1), want.Text('g', -1))
			}
			if x.Cmp(big.NewFloat(700)) > 0 {
				continue
			}
			if rng.IntN(2) == 0 {
				x.Neg(x)
			}
			if got, err := b.Exp(nil, x); err != nil {
				t.Fatal(err)
			} else if want := bigfloat.Exp(x); got.Cmp(want) != 0 {
				t.Errorf("%d bits: Exp(%s) = %s, ALTree %s", prec, x.Text('g', -1), got.Text('g', -1), want.Text('g', -1))
			}
		}
	}
}
