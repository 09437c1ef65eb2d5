package recipes

import (
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/numeric"
)

// TestPositionEncodingLimits: where the encodings leave a format's grid,
// derived from the formats: fp16 holds every integer up to 2048 = 2^11
// and then only even ones, so i² is exact up to i = 46 (46² = 2116 is
// even, 47² = 2209 is odd and rounds to 2208) and i up to 2048; 1/3 is
// not a binary fraction, so 1/i fails at i = 3 in every binary format;
// (−1)^i and i/n with n a power of two stay exact.
func TestPositionEncodingLimits(t *testing.T) {
	tests := []struct {
		recipe, precision string
		lengths           []int
		maxN              int
		limit, fail       int
	}{
		{"pe-square", "fp16", []int{45, 46, 47}, 64, 46, 47},
		{"pe-square", "fp32", []int{4096, 4097}, 4097, 4096, 4097}, // 4097² = 16785409 > 2^24, odd
		{"pe-linear", "fp16", []int{2048, 2049}, 2049, 2048, 2049},
		{"pe-inverse", "fp64", []int{1, 2, 3}, 3, 2, 3},
		{"pe-parity", "fp8-e4m3", []int{1, 2, 100}, 100, 100, 0},
		{"pe-ratio", "bf16", []int{64}, 64, 64, 0},
	}
	for _, tc := range tests {
		r, err := Get(tc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Check(r, CheckOptions{Precision: numeric.MustParsePrecision(tc.precision), MaxN: tc.maxN, Lengths: tc.lengths, Cases: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		fail := 0
		if rep.FirstFailure != nil {
			fail = rep.FirstFailure.N
		}
		if rep.Limit != tc.limit || fail != tc.fail {
			t.Errorf("%s at %s: limit %d, first failure %d; want %d and %d", tc.recipe, tc.precision, rep.Limit, fail, tc.limit, tc.fail)
		}
	}
	// Sinusoidal: irrational, so exact arithmetic cannot represent the
	// encoding at all, certified intervals confirm it, and fp64 is never
	// exactly it.
	sin, _ := Get("pe-sinusoidal")
	if rep, err := Check(sin, CheckOptions{Precision: numeric.MustParsePrecision("exact"), MaxN: 4, Cases: 1}); err == nil &&
		(rep.Passed || !strings.Contains(rep.FirstFailure.Reason, "not a rational number")) {
		t.Errorf("exact arithmetic ran the sinusoidal encoding: %+v", rep.FirstFailure)
	}
	rep, err := Check(sin, CheckOptions{Precision: numeric.MustParsePrecision("interval:96"), MaxN: 40, Lengths: []int{1, 5, 40}, Cases: 1, Params: map[string]string{"d": "6"}})
	if err != nil || !rep.Passed {
		t.Errorf("sinusoidal in intervals: %v %+v", err, rep)
	}
	rep, err = Check(sin, CheckOptions{Precision: numeric.MustParsePrecision("fp64"), MaxN: 2, Cases: 1})
	if err != nil || rep.Passed {
		t.Errorf("sinusoidal at fp64 passed an exactness claim: %v", err)
	}
}
