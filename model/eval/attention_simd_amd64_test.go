//go:build goexperiment.simd

package eval

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSIMDMaxScoreIsScalar: the vectorised maximum over keys of width 2
// gives the scalar loop's maximum (its bits: the sign of a zero), tie
// count, first and last tie and NaN verdict. Two kinds of keys: small
// multiples of 1/2 whose scores tie often, with ±0, ±∞, NaN and 1e300
// among them, mostly NaN-free so that maxima and ties are compared, at
// lengths 1 to 70 (whole blocks of four and tails); and any float64
// (subnormals, ±MaxFloat64 whose products overflow and sums give ∞ − ∞,
// random bit patterns: NaNs with payloads).
func TestSIMDMaxScoreIsScalar(t *testing.T) {
	if maxScoreF64Width2 == nil {
		t.Skip("this CPU has no AVX: the vectorised loop is not used")
	}
	const seed = 20261126
	for _, tc := range []struct {
		name           string
		trials, maxLen int
		pick           func(rng *rand.Rand) float64
		mostlyNoNaN    bool
	}{
		{"ties", 20000, 70, func(rng *rand.Rand) float64 {
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
		}, true},
		{"any float64", 50000, 40, func(rng *rand.Rand) float64 {
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
		}, false},
	} {
		rng := rand.New(rand.NewPCG(seed, uint64(len(tc.name))))
		for trial := range tc.trials {
			data := make([]float64, 2*(1+rng.IntN(tc.maxLen)))
			for k := range data {
				data[k] = tc.pick(rng)
			}
			q0, q1 := tc.pick(rng), tc.pick(rng)
			if tc.mostlyNoNaN && rng.IntN(4) > 0 && !math.IsNaN(q0) && !math.IsNaN(q1) {
				for k := range data {
					if math.IsNaN(data[k]) {
						data[k] = 0
					}
				}
			}
			wm, wc, wf, wl, wn := maxScoreWidth2(q0, q1, data)
			gm, gc, gf, gl, gn := maxScoreF64Width2(q0, q1, data)
			if wn != gn || !wn && (math.Float64bits(wm) != math.Float64bits(gm) || wc != gc || wf != gf || wl != gl) {
				t.Fatalf("%s, seed %d trial %d: q = (%g, %g), keys %v: vectorised (%g, %d, %d, %d, nan %v), scalar (%g, %d, %d, %d, nan %v)",
					tc.name, seed, trial, q0, q1, data, gm, gc, gf, gl, gn, wm, wc, wf, wl, wn)
			}
		}
	}
}
