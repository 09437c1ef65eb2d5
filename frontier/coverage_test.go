package frontier

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/transformer-cookbook/verify/check"
)

// TestCellEvidence: each kind of row falls in the class the tables'
// marks give it, with the reason its report records.
func TestCellEvidence(t *testing.T) {
	sampled := check.LengthReport{N: 3, Level: check.Sampled, Analysis: "layer 1 attention, head 1: at position 2, keys at positions 1 and 2 tie with different values: average hardmax averages a set that depends on the input"}
	for _, tc := range []struct {
		name   string
		row    Row
		ev     Evidence
		reason string
	}{
		{"faithful every length", Row{Limit: 8, LimitLevel: check.Faithful, Every: true, Checked: []check.LengthReport{{N: 8, Level: check.Faithful}}}, EvidenceFaithful, ""},
		{"certified", Row{Limit: 8, LimitLevel: check.Certified, Every: true, Checked: []check.LengthReport{{N: 8, Level: check.Certified}}}, EvidenceCertified, ""},
		{"exhaustive", Row{Limit: 2, LimitLevel: check.Exhaustive, Checked: []check.LengthReport{{N: 1, Level: check.Exhaustive}, {N: 2, Level: check.Exhaustive}}}, EvidenceExhaustive, ""},
		{"sampled: the first sampled length's reason", Row{Limit: 4, LimitLevel: check.Sampled, Checked: []check.LengthReport{{N: 2, Level: check.Exhaustive}, sampled, {N: 4, Level: check.Sampled, Analysis: "other"}}},
			EvidenceSampled, "average hardmax averages a set that depends on the input"},
		{"sampled without a reason", Row{Limit: 4, LimitLevel: check.Sampled, Checked: []check.LengthReport{{N: 4, Level: check.Sampled}}}, EvidenceSampled, reasonUnknown},
		{"failing at once", Row{Limit: 0, Failure: &Failure{Failure: check.Failure{N: 1, Reason: "y = 0.5, want exactly 1"}}}, EvidenceFailsAtSmallest, "y = N, want exactly N"},
		{"cannot run", Row{Error: "cannot run: the weight 70000 overflows fp16"}, EvidenceCannotRun, "the weight N overflows fp16"},
	} {
		ev, why := cellEvidence(&tc.row)
		if ev != tc.ev || why != tc.reason {
			t.Errorf("%s: %q, %q; want %q, %q", tc.name, ev, why, tc.ev, tc.reason)
		}
	}
}

// TestCoverageCounts: counts by evidence and reason, worked by hand for
// seven cells.
func TestCoverageCounts(t *testing.T) {
	cells := []Cell{
		{Recipe: "a", Evidence: EvidenceFaithful},
		{Recipe: "a", Evidence: EvidenceExhaustive},
		{Recipe: "b", Evidence: EvidenceSampled, Reason: "x"},
		{Recipe: "b", Evidence: EvidenceSampled, Reason: "y"},
		{Recipe: "c", Evidence: EvidenceSampled, Reason: "y"},
		{Recipe: "d", Evidence: EvidenceCannotRun, Reason: "z"},
		{Recipe: "e", Evidence: EvidenceFailsAtSmallest, Reason: "rounding"},
	}
	c := CoverageOf(cells)
	if c.Cells != 7 || c.Runnable() != 6 || c.ProvedOrRun() != 2 || c.Decided() != 3 {
		t.Errorf("cells %d, runnable %d, proved or run %d, decided %d; want 7, 6, 2, 3", c.Cells, c.Runnable(), c.ProvedOrRun(), c.Decided())
	}
	want := []ReasonCount{{"y", 2}, {"x", 1}}
	if diff := cmp.Diff(want, c.Reasons[EvidenceSampled]); diff != "" {
		t.Errorf("sampled reasons (-want +got):\n%s", diff)
	}
	var b strings.Builder
	if err := c.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"7 cells, 6 of which run; 2 of those (33%) proved or run on every input of every length up to their limit, and 3 (50%) decided", "| " + string(EvidenceSampled) + " | 3 |", "| " + string(EvidenceSampled) + " | y | 2 |"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("the table lacks %q:\n%s", line, b.String())
		}
	}
}

func TestNormaliseReason(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"layer 2 attention, head 1: at position 7: the scores 2115 and 2116 tie", "the scores N and N tie"},
		{"short: x", "short: x"},
		{"  spaced\n  out  ", "spaced out"},
		{"layer 2 attention, head 1: at position 8, the two models may select more than 4096 different pairs of keys; before that, the model breaks an order of scores: layer 1: exact scores 12/25",
			"the two models may select more than N different pairs of keys"},
		{"layer 1 feed-forward of the reference: layer norm √(σ² + ε): exact backend: sqrt(5/2): the result is not a rational number",
			"exact arithmetic cannot compute the construction: the result is not a rational number"},
		{strings.Repeat("é", 200), strings.Repeat("é", reasonRunes-1) + "…"},
	} {
		if got := normaliseReason(tc.in); got != tc.want {
			t.Errorf("normaliseReason(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCoverageSections: each section's strongest cell at fp16, bf16 and
// fp32, worked by hand: over the format's values a proof beats an
// integer domain, a longer limit a shorter one whatever their evidence,
// a wider integer domain a narrower one, and at the same limit or width
// certified or run beats faithful; a section with no cell at a
// precision shows "—"; the integer domains are counted by level.
func TestCoverageSections(t *testing.T) {
	ints := func(w int, l check.Level) *IntegerCell { return &IntegerCell{Width: w, Level: l} }
	cells := []Cell{
		{Recipe: "add", Precision: "fp16", Evidence: EvidenceFailsAtSmallest, Integers: ints(10, check.Certified)},
		{Recipe: "sub", Precision: "fp16", Evidence: EvidenceFailsAtSmallest, Integers: ints(9, check.Certified)},
		{Recipe: "add", Precision: "bf16", Evidence: EvidenceFailsAtSmallest, Integers: ints(7, check.Faithful)},
		{Recipe: "sub", Precision: "bf16", Evidence: EvidenceFailsAtSmallest, Integers: ints(7, check.Exhaustive)},
		{Recipe: "pred", Precision: "bf16", Evidence: EvidenceExhaustive, Limit: 2},
		{Recipe: "pred-strict", Precision: "bf16", Evidence: EvidenceFaithful, Limit: 64},
		{Recipe: "add", Precision: "fp32", Evidence: EvidenceFailsAtSmallest, Integers: ints(-1, "")},
		{Recipe: "sub", Precision: "fp32", Evidence: EvidenceFaithful, Limit: 64},
		{Recipe: "min", Precision: "fp16", Evidence: EvidenceFailsAtSmallest},
		{Recipe: "min", Precision: "fp64", Evidence: EvidenceCertified, Limit: 64},
		{Recipe: "nonesuch", Precision: "fp16", Evidence: EvidenceCertified, Limit: 64},
	}
	c := CoverageOf(cells)
	if c.Integers[check.Certified] != 2 || c.Integers[check.Faithful] != 1 || c.Integers[check.Exhaustive] != 1 {
		t.Errorf("integer domains by level: %v; want 2 certified, 1 faithful, 1 run", c.Integers)
	}
	var b strings.Builder
	if err := c.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"| Addition and Subtraction | add ℤ ≤ 2^10ᶜ | sub ℤ ≤ 2^7ᵉ | sub 64ᶠ |",
		"| Predecessor | — | pred-strict 64ᶠ | — |",
		"| Min and Max | min: " + string(EvidenceFailsAtSmallest) + " | — | — |",
		"4 are right on every input of integer components up to some 2^w",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("the tables lack %q:\n%s", line, b.String())
		}
	}
	if strings.Contains(b.String(), "nonesuch") {
		t.Errorf("a cell of no known recipe is in the table by section:\n%s", b.String())
	}
}
