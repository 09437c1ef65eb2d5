package frontier

import (
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestIrrationalReferencesMeasured: a recipe whose references are real
// numbers has a limit at a precision that rounds, not a "not applicable"
// cell. pe-sinusoidal's model embeds sin and cos of the positions, each
// weight rounded once (correctly, by numeric's Eval) and copied to the
// output unchanged, so its outputs are the correct roundings at every
// length; lh's first input at every seed-1 sweep is (3552, 111/2), whose
// square 3552² overflows fp16's largest finite value 65504 in σ², so it
// fails at n = 1.
func TestIrrationalReferencesMeasured(t *testing.T) {
	for _, tc := range []struct {
		recipe, precision string
		limit             int
		reason            string
	}{
		{"pe-sinusoidal", "fp8-e4m3", 8, ""},
		{"pe-sinusoidal", "bf16", 8, ""},
		{"lh", "fp16", 0, "want 181/128"},
	} {
		r, err := recipes.Get(tc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(Options{Recipe: r, Weighting: model.Softmax, Precisions: []numeric.Precision{numeric.MustParsePrecision(tc.precision)},
			MaxN: 8, Cases: 4, Exhaustive: 64, Seed: 1, NoEvery: true})
		if err != nil {
			t.Fatal(err)
		}
		row := rep.Rows[0]
		if row.Error != "" {
			t.Errorf("%s at %s: cannot run: %s", tc.recipe, tc.precision, row.Error)
			continue
		}
		if row.Limit != tc.limit {
			t.Errorf("%s at %s: limit %d, want %d (failure %+v)", tc.recipe, tc.precision, row.Limit, tc.limit, row.Failure)
		}
		if tc.reason != "" && (row.Failure == nil || !strings.Contains(row.Failure.Reason, tc.reason) || row.Failure.Undecided) {
			t.Errorf("%s at %s: failure %+v, want one refuted whose reason says %q", tc.recipe, tc.precision, row.Failure, tc.reason)
		}
	}
}

// TestUndecidedRowSaysSo: a row whose first failing input is undecided
// says so in its cell and its failure line, and never as a failure.
func TestUndecidedRowSaysSo(t *testing.T) {
	rep := &Report{Recipe: "lh", Seed: 1, Rows: []Row{
		{Precision: "fp16", Limit: 3, Failure: &Failure{Failure: check.Failure{N: 4, Position: 1, Input: "1, 2", Undecided: true, Reason: "undecided: …"}}},
	}}
	var b strings.Builder
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"n = 4 undecided", "first undecided input (none refuted) at n = 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "first failure at n = 4") {
		t.Errorf("an undecided input reported as a failure:\n%s", out)
	}
}
