package proofs

import (
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestEnclosuresIntersect: the second-precision re-check of interval
// verdicts passes for sound enclosures and names the first pair of
// disjoint ones. Rounded points stand in for unsound enclosures: the
// count C/n = 1/3 of "aab" rounds to different points in fp16 and fp64,
// which no sound pair of enclosures of 1/3 could be.
func TestEnclosuresIntersect(t *testing.T) {
	r, err := recipes.Get("count")
	if err != nil {
		t.Fatal(err)
	}
	s := Sweep{Recipe: "count", Weighting: model.AverageHardmax, MaxN: 3}
	for _, tc := range []struct {
		lo, hi string
		bad    bool
	}{
		{"interval:64", "interval:128", false},
		{"interval:24", "interval:53", false},
		{"fp16", "fp64", true},
	} {
		n, err := s.enclosuresIntersect(r, numeric.MustParsePrecision(tc.lo), numeric.MustParsePrecision(tc.hi))
		switch {
		case tc.bad && (err == nil || !strings.Contains(err.Error(), "disjoint")):
			t.Errorf("%s against %s: got %d outputs compared and error %v, want disjoint enclosures reported", tc.lo, tc.hi, n, err)
		case !tc.bad && err != nil:
			t.Errorf("%s against %s: %v", tc.lo, tc.hi, err)
		case !tc.bad && n == 0:
			t.Errorf("%s against %s: no output compared", tc.lo, tc.hi)
		}
	}
}
