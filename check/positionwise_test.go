package check

import (
	"math/big"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/certify/positionwise"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

func positionwiseChecker(t testing.TB, name, precision string, params map[string]string) *Checker {
	t.Helper()
	r, err := recipes.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := NewChecker(r, Options{Precision: numeric.MustParsePrecision(precision), MaxN: 64, Analysis: true,
		Cases: 8, Seed: 1, Workers: 1, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return ck
}

// TestPositionwiseLevels: the position-wise analysis sets the level of
// every length of a feed-forward recipe, with its statement, where it
// proves or runs every input of one position; and fails it with an
// input it suggests where one fails.
func TestPositionwiseLevels(t *testing.T) {
	for _, tc := range []struct {
		recipe, precision string
		params            map[string]string
		level             Level
		statement         []string // what the statement must say
	}{
		// Proved on boxes (x ∈ ℝ² at fp16 has 4·10^9 points), and the
		// construction proved by its claim: certified.
		{"identity-ffn", "fp16", nil, Certified, []string{"finite fp16 components", "x ∈ ℝ^d", "proved every operation exact"}},
		{"identity-ffn", "fp64", nil, Certified, []string{"finite fp64 components"}},
		{"zero-ffn", "24", nil, Certified, []string{"24-bit components in float64's normal range"}},
		// One input at fp16: every one of its 2^16 − 2·1024 − 1 finite
		// values run (the all-ones exponents are not finite; −0 is 0).
		{"zero-ffn", "fp16", map[string]string{"d": "1"}, Exhaustive, []string{"63487 inputs"}},
		// Two inputs at fp8-e4m3: 253² pairs.
		{"identity-ffn", "fp8-e4m3", nil, Exhaustive, []string{"64009 inputs"}},
		// Boolean inputs: the 4 points of {0,1}².
		{"and", "fp16", nil, Exhaustive, []string{"4 inputs"}},
	} {
		ck := positionwiseChecker(t, tc.recipe, tc.precision, tc.params)
		for _, n := range []int{1, 5} {
			lr := ck.Length(n)
			if lr.Level != tc.level || lr.Failure != nil {
				t.Errorf("%s at %s, n = %d: level %s (failure %+v, analysis %q), want %s", tc.recipe, tc.precision, n, lr.Level, lr.Failure, lr.Analysis, tc.level)
			}
			for _, want := range tc.statement {
				if !strings.Contains(lr.Positionwise, want) {
					t.Errorf("%s at %s: the statement %q does not say %q", tc.recipe, tc.precision, lr.Positionwise, want)
				}
			}
		}
		if ev := ck.Every(1, 64, 0); ev.Certified != 64 || ev.Level != tc.level {
			t.Errorf("%s at %s: every length certified to %d at %s, want 64 at %s", tc.recipe, tc.precision, ev.Certified, ev.Level, tc.level)
		}
	}
}

// TestPositionwiseCounterexample: add at fp16 and fp32 fails at n = 1 on
// an input the analysis suggests, and that input's x + y is no value of
// the format (checked by the format's own rounding, not the model).
func TestPositionwiseCounterexample(t *testing.T) {
	for _, tc := range []struct {
		precision string
		f         *numeric.Format
	}{{"fp16", numeric.Binary16}, {"fp32", numeric.Binary32}, {"bf16", numeric.BFloat16}} {
		ck := positionwiseChecker(t, "add", tc.precision, nil)
		lr := ck.Length(1)
		f := lr.Failure
		if f == nil {
			t.Fatalf("add at %s: no failure at n = 1 (%s, %q)", tc.precision, lr.Level, lr.Analysis)
		}
		parts := strings.Split(f.Input, ",")
		if len(parts) != 2 {
			t.Fatalf("add at %s: input %q", tc.precision, f.Input)
		}
		x, _ := new(big.Rat).SetString(strings.TrimSpace(parts[0]))
		y, _ := new(big.Rat).SetString(strings.TrimSpace(parts[1]))
		sum := new(big.Rat).Add(x, y)
		if fx, _ := x.Float64(); tc.f.Round(fx) != fx {
			t.Errorf("add at %s: x = %s is not a value of the format", tc.precision, x.RatString())
		}
		if got := new(big.Rat).SetFloat64(tc.f.RoundRat(sum)); got != nil && got.Cmp(sum) == 0 {
			t.Errorf("add at %s: %s + %s = %s is a value of the format, yet it fails (%s)", tc.precision, x.RatString(), y.RatString(), sum.RatString(), f.Reason)
		}
		if lr.Level != Sampled || !strings.Contains(lr.Analysis, "fails on") {
			t.Errorf("add at %s: level %s, analysis %q", tc.precision, lr.Level, lr.Analysis)
		}
		if f.Found != FoundPositionwise {
			t.Errorf("add at %s: found %q, want %q", tc.precision, f.Found, FoundPositionwise)
		}
	}
}

// TestPositionwiseNotApplicable: an attention recipe over real vectors
// is not position-wise; where its scores are fixed (avg) each length is
// analysed on its own (attend.go), and length 2 fails, sampled, with the
// analysis's statement of length 2. (Models the analysis refuses are
// certify/positionwise's TestRefused.)
func TestPositionwiseNotApplicable(t *testing.T) {
	ck := positionwiseChecker(t, "avg", "fp32", nil)
	lr := ck.Length(2)
	if lr.Level != Sampled || lr.Failure == nil {
		t.Errorf("avg: level %s, failure %+v", lr.Level, lr.Failure)
	}
	if lr.Analysis != AnalysisNotNeeded && !strings.Contains(lr.Analysis, "fails on the inputs of length 2") {
		t.Errorf("avg: analysis %q", lr.Analysis)
	}
}

// TestPositionwiseBoxesAgreeWithEnumeration: at fp8-e4m3, where every
// input can be run, the box analysis (forced, with the checker's own run
// and comparison) reaches the enumeration's verdict on every position-wise
// recipe: right where every input is right, failing where one fails.
func TestPositionwiseBoxesAgreeWithEnumeration(t *testing.T) {
	for _, name := range []string{"identity-ffn", "zero-ffn", "min", "max", "add", "sub", "scale", "cpwl", "clip", "cancel-residual", "if", "eqzero", "gtzero", "bool-convert"} {
		ck := positionwiseChecker(t, name, "fp8-e4m3", nil)
		enumerated := ck.positionwise().res
		if enumerated == nil || enumerated.Verdict == positionwise.Undecided {
			t.Fatalf("%s: %+v", name, ck.positionwise())
		}
		boxes, err := ck.forcedBoxes()
		if err != nil {
			t.Fatal(err)
		}
		right := func(v positionwise.Verdict) bool { return v == positionwise.Run || v == positionwise.Proved }
		if right(enumerated.Verdict) != right(boxes.Verdict) || boxes.Verdict == positionwise.Undecided {
			t.Errorf("%s: the enumeration says %s, the boxes %s", name, enumerated.Statement(), boxes.Statement())
		}
	}
}

// TestPositionwiseIntegers: where the position-wise analysis refutes a
// construction on the format's values, every length reports the widest
// integer domain it proves, with the claim's level: add at fp16 is
// right on integers of magnitude at most 2^10 (their sums, at most 2^11,
// are values of fp16) and not at 2^11 (2^11 + 1 is not), derived by
// hand; the identity, right everywhere, has none searched.
func TestPositionwiseIntegers(t *testing.T) {
	for _, tc := range []struct {
		recipe, precision string
		width             int // −2: none searched
		level             Level
		next              string // what the statement must say of the next width
	}{
		{"add", "fp16", 10, Certified, "at 2^11, ("},
		{"add", "bf16", 7, Exhaustive, "at 2^8, ("},
		{"min", "fp32", 23, Certified, "at 2^24, ("},
		{"identity-ffn", "fp16", -2, "", ""},
	} {
		ck := positionwiseChecker(t, tc.recipe, tc.precision, nil)
		for _, n := range []int{1, 3} {
			lr := ck.Length(n)
			d := lr.Integers
			switch {
			case tc.width == -2 && d != nil:
				t.Errorf("%s at %s, n = %d: an integer domain %+v where the whole domain holds", tc.recipe, tc.precision, n, d)
			case tc.width == -2:
			case d == nil:
				t.Errorf("%s at %s, n = %d: no integer domain (failure %+v)", tc.recipe, tc.precision, n, lr.Failure)
			case d.Width != tc.width || d.Level != tc.level || !strings.Contains(d.Statement, tc.next):
				t.Errorf("%s at %s, n = %d: width %d, level %s, %q; want %d, %s, saying %q", tc.recipe, tc.precision, n, d.Width, d.Level, d.Statement, tc.width, tc.level, tc.next)
			}
			if err := lr.Validate(64); err != nil {
				t.Errorf("%s at %s, n = %d: %v", tc.recipe, tc.precision, n, err)
			}
		}
	}
}

// TestIntegersValidated: a report read back is refused where its integer
// domain could not have come from the engine.
func TestIntegersValidated(t *testing.T) {
	for _, d := range []IntegerDomain{
		{Width: -2, Statement: "x"},
		{Width: 3, Level: Sampled, Statement: "x"},
		{Width: -1, Level: Certified, Statement: "x"},
		{Width: 3, Level: Certified},
		{Width: 3, Level: Certified, Statement: "two\nlines"},
	} {
		lr := LengthReport{N: 1, Level: Sampled, Integers: &d}
		if err := lr.Validate(64); err == nil {
			t.Errorf("%+v: accepted", d)
		}
	}
	// A big float of 120 bits holds every integer up to 2^120: a width
	// past 113 is one the engine reports.
	lr := LengthReport{N: 1, Level: Sampled, Integers: &IntegerDomain{Width: 118, Level: Certified, Statement: "x"}}
	if err := lr.Validate(64); err != nil {
		t.Errorf("width 118 refused: %v", err)
	}
}

// TestPositionwiseRealReference: the position-wise analysis judges a
// real reference as every other input is judged, by its correct
// rounding at the precision. lh at (0, 1) is √2·[0, 1, 0, −1], and √2 at fp16 is
// computed as 181/128 = 1.4140625 (√2·1024 = 1448.15…, so 1448/1024 is
// the nearest value on fp16's spacing 2^-10 in [1, 2)), the correct
// rounding: the integer domain holds it, where an exact comparison of
// the irrational would refute every input.
func TestPositionwiseRealReference(t *testing.T) {
	ck := positionwiseChecker(t, "lh", "fp16", nil)
	lr := ck.Length(1)
	d := lr.Integers
	if d == nil || d.Width < 0 {
		t.Fatalf("lh at fp16: integer domain %+v, want one holding (0, 1)", d)
	}
	if strings.Contains(d.Statement, "irrational: only an interval enclosure") {
		t.Errorf("lh at fp16: judged as in exact arithmetic: %s", d.Statement)
	}
}
