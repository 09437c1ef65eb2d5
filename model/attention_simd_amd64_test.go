//go:build goexperiment.simd

package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSIMDMaxScoreIsScalar: the vectorised maximum over keys of width 2
// gives the scalar loop's maximum (its bits: the sign of a zero), tie
// count, first and last tie and NaN verdict, on random keys whose scores
// tie often, with ±0, ±∞ and NaN among them, at every length from 1 to
// 70 (whole blocks of four and tails).
func TestSIMDMaxScoreIsScalar(t *testing.T) {
	if maxScoreF64Width2 == nil {
		t.Skip("this CPU has no AVX: the vectorised loop is not used")
	}
	const seed = 20261126
	rng := rand.New(rand.NewPCG(seed, 2))
	pick := func() float64 {
		switch rng.IntN(40) {
		case 0:
			return math.Copysign(0, -1)
		case 1:
			return math.Inf(1 - 2*rng.IntN(2))
		case 2:
			return math.NaN()
		case 3:
			return 1e300
		}
		return float64(rng.IntN(7)-3) / 2
	}
	for trial := range 20000 {
		m := 1 + rng.IntN(70)
		data := make([]float64, 2*m)
		for k := range data {
			data[k] = pick()
		}
		q0, q1 := pick(), pick()
		if rng.IntN(4) > 0 && !math.IsNaN(q0) && !math.IsNaN(q1) {
			// Mostly NaN-free, so that the maxima and ties are compared.
			for k := range data {
				if math.IsNaN(data[k]) {
					data[k] = 0
				}
			}
		}
		wm, wc, wf, wl, wn := maxScoreWidth2(q0, q1, data)
		gm, gc, gf, gl, gn := maxScoreF64Width2(q0, q1, data)
		if wn != gn || !wn && (math.Float64bits(wm) != math.Float64bits(gm) || wc != gc || wf != gf || wl != gl) {
			t.Fatalf("seed %d trial %d: q = (%g, %g), keys %v: vectorised (%g, %d, %d, %d, nan %v), scalar (%g, %d, %d, %d, nan %v)",
				seed, trial, q0, q1, data, gm, gc, gf, gl, gn, wm, wc, wf, wl, wn)
		}
	}
}
