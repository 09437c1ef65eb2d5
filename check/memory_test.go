package check

import (
	"errors"
	"testing"

	"github.com/transformer-cookbook/verify/internal/gcfloor"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestMemoryEstimate: what is live grows with n and with the bits of a
// value, the analysis adds the model in exact rationals, the estimate is
// twice that or the collector's floor, and a limit below the estimate
// refuses the check before it runs.
func TestMemoryEstimate(t *testing.T) {
	r, err := recipes.Get("lookup-onehot")
	if err != nil {
		t.Fatal(err)
	}
	con, err := r.Construct(model.AverageHardmax, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	fp64, big := numeric.MustParsePrecision("fp64"), numeric.MustParsePrecision("1024")
	small, large := liveBytes(con.Model, fp64, 8, 1, false), liveBytes(con.Model, fp64, 64, 1, false)
	wide := liveBytes(con.Model, big, 64, 1, false)
	// The one-hot model's width is 2N + 3 = 131 and its weights are
	// dense: at least the 131² of W^Q alone, 8 bytes each at fp64, 128
	// more at 1024 bits (a big.Float and its 16 words).
	const wq = 131 * 131
	if small >= large || small < wq*8 || wide-large < wq*128 {
		t.Errorf("live %d (n = 8), %d (n = 64), %d (1024 bits)", small, large, wide)
	}
	// The analysis holds the model in exact rationals besides: W^Q's at
	// least, two big.Ints each (some 112 bytes).
	if with := liveBytes(con.Model, fp64, 64, 1, true); with-large < wq*112 {
		t.Errorf("with the analysis %d, without %d", with, large)
	}
	// Under the floor the collector lets the heap grow to it; above,
	// to twice what is live: n = 8 at fp64 is under, n = 4096 at 1024
	// bits (192 bytes a number, hundreds a position) above.
	for _, tc := range []struct {
		p     numeric.Precision
		n     int
		floor bool
	}{{fp64, 8, true}, {big, 4096, false}} {
		live := liveBytes(con.Model, tc.p, tc.n, 1, false)
		if under := 2*live < gcfloor.Bytes; under != tc.floor {
			t.Fatalf("%s, n = %d: twice %d live under the floor: %v, want %v", tc.p, tc.n, live, under, tc.floor)
		}
		want := baseBytes + 2*live
		if tc.floor {
			want = baseBytes + gcfloor.Bytes
		}
		if got := MemoryEstimate(con.Model, tc.p, tc.n, 1, false); got != want {
			t.Errorf("%s, n = %d: estimate %d, want %d", tc.p, tc.n, got, want)
		}
	}
	_, err = NewChecker(r, Options{Precision: fp64, Weighting: model.AverageHardmax, MaxN: 64, MemoryLimit: MemoryEstimate(con.Model, fp64, 64, 1, false) - 1})
	if !errors.Is(err, ErrMemory) {
		t.Errorf("a limit below the estimate: %v", err)
	}
	if _, err := NewChecker(r, Options{Precision: fp64, Weighting: model.AverageHardmax, MaxN: 64, MemoryLimit: 1 << 40}); err != nil {
		t.Errorf("a limit above it: %v", err)
	}
}
