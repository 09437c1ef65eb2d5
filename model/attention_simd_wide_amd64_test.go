//go:build goexperiment.simd

package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSIMDMaxScoreAnyFloat64 is TestSIMDMaxScoreIsScalar with scores from
// any float64: subnormal keys and queries, ±MaxFloat64 (products that
// overflow, sums ∞ − ∞), random bit patterns (NaNs with payloads), ±0.
func TestSIMDMaxScoreAnyFloat64(t *testing.T) {
	if maxScoreF64Width2 == nil {
		t.Skip("this CPU has no AVX: the vectorised loop is not used")
	}
	rng := rand.New(rand.NewPCG(7, 9))
	pick := func() float64 {
		switch rng.IntN(12) {
		case 0:
			return math.Copysign(0, -1)
		case 1:
			return 0
		case 2:
			return 5e-324 * float64(rng.IntN(5)-2)
		case 3:
			return math.Inf(1 - 2*rng.IntN(2))
		case 4:
			return math.MaxFloat64 * float64(rng.IntN(3)-1)
		case 5:
			return math.Float64frombits(rng.Uint64())
		}
		return float64(rng.IntN(5)-2) / 4
	}
	for trial := range 50000 {
		m := 1 + rng.IntN(40)
		data := make([]float64, 2*m)
		for k := range data {
			data[k] = pick()
		}
		q0, q1 := pick(), pick()
		wm, wc, wf, wl, wn := maxScoreWidth2(q0, q1, data)
		gm, gc, gf, gl, gn := maxScoreF64Width2(q0, q1, data)
		if wn != gn || !wn && (math.Float64bits(wm) != math.Float64bits(gm) || wc != gc || wf != gf || wl != gl) {
			t.Fatalf("trial %d: q=(%g,%g) %v: got %v %d %d %d %v want %v %d %d %d %v", trial, q0, q1, data, gm, gc, gf, gl, gn, wm, wc, wf, wl, wn)
		}
	}
}
