package certify

import (
	"math"
	"testing"
)

// dotExactly may claim exactness only when the float64 result is the dot
// product itself; each case's exact value is worked out by hand.
func TestDotExactly(t *testing.T) {
	tests := []struct {
		name  string
		x, y  []float64
		want  float64
		exact bool
	}{
		{"small integers", []float64{3, -2, 5}, []float64{4, 7, 1}, 3, true},
		{"dyadic fractions", []float64{0.5, 0.25}, []float64{0.75, -8}, -1.625, true},
		// (2^27+1)² = 2^54 + 2^28 + 1 needs 55 bits: the product rounds.
		{"product rounds", []float64{1<<27 + 1}, []float64{1<<27 + 1}, 0, false},
		// 2^53 + 1 is not a float64: the sum rounds.
		{"sum rounds", []float64{1 << 53, 1}, []float64{1, 1}, 0, false},
		{"product overflows", []float64{1e200}, []float64{1e200}, 0, false},
		// 2^-540 · 2^-540 = 2^-1080 is below the smallest subnormal,
		// 2^-1074: it flushes to 0, and the FMA's residual does too.
		{"product underflows", []float64{0x1p-540}, []float64{0x1p-540}, 0, false},
		// 3·2^-1074 · 1/2 = 1.5·2^-1074 rounds to 2^-1073; the
		// residual −2^-1075 ties to 0 in the FMA.
		{"subnormal product", []float64{3 * 0x1p-1074}, []float64{0.5}, 0, false},
		{"zero operand", []float64{0, 2}, []float64{math.MaxFloat64, 3}, 6, true},
	}
	for _, tc := range tests {
		got, exact := dotExactly(tc.x, tc.y)
		if exact != tc.exact || exact && got != tc.want {
			t.Errorf("%s: got %v (exact %v), want %v (exact %v)", tc.name, got, exact, tc.want, tc.exact)
		}
	}
}
