package check

import (
	"errors"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestMemoryEstimate: the estimate grows with n and with the bits of a
// value, the analysis adds the model in exact rationals, and a limit
// below the estimate refuses the check before it runs.
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
	small, large := MemoryEstimate(con.Model, fp64, 8, 1, false), MemoryEstimate(con.Model, fp64, 64, 1, false)
	wide := MemoryEstimate(con.Model, big, 64, 1, false)
	// The one-hot model's width is 2N + 3 = 131 and its weights are
	// dense: at least the 131² of W^Q alone, 8 bytes each at fp64, 128
	// more at 1024 bits (a big.Float and its 16 words), twice over (the
	// collector's slack).
	const wq = 131 * 131
	if small >= large || small < 2*wq*8 || wide-large < 2*wq*128 {
		t.Errorf("estimates %d (n = 8), %d (n = 64), %d (1024 bits)", small, large, wide)
	}
	// The analysis holds the model in exact rationals besides: W^Q's at
	// least, two big.Ints each (some 112 bytes).
	if with := MemoryEstimate(con.Model, fp64, 64, 1, true); with-large < 2*wq*112 {
		t.Errorf("with the analysis %d, without %d", with, large)
	}
	_, err = NewChecker(r, Options{Precision: fp64, Weighting: model.AverageHardmax, MaxN: 64, MemoryLimit: small})
	if !errors.Is(err, ErrMemory) {
		t.Errorf("a limit below the estimate: %v", err)
	}
	if _, err := NewChecker(r, Options{Precision: fp64, Weighting: model.AverageHardmax, MaxN: 64, MemoryLimit: 1 << 40}); err != nil {
		t.Errorf("a limit above it: %v", err)
	}
}
