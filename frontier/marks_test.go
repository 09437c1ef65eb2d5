package frontier

import (
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/check"
)

// TestLimitMarks: a limit's mark is the weakest evidence of every length
// up to it, and "*" where some length up to it was neither checked nor
// covered by the analysis of every length (but not for a sampled limit,
// which says as much already). Rows built by hand: checked lengths with
// their levels, and what the analysis of every length covered.
func TestLimitMarks(t *testing.T) {
	lengths := func(level check.Level, ns ...int) []check.LengthReport {
		var out []check.LengthReport
		for _, n := range ns {
			out = append(out, check.LengthReport{N: n, Cases: 1, Passed: 1, Exact: 1, Level: level, Exhaustive: level == check.Exhaustive})
		}
		return out
	}
	every := func(certified int, level check.Level) *check.EveryLength {
		return &check.EveryLength{From: 1, To: 10, Certified: certified, Level: level}
	}
	cases := []struct {
		name    string
		checked []check.LengthReport
		ev      *check.EveryLength
		want    string
		tally   string
	}{
		{"every length checked, proved", lengths(check.Faithful, 1, 2, 3, 4), nil, "≥ 4ᶠ", "1 proved against the construction only"},
		{"a gap, no analysis of every length", lengths(check.Faithful, 1, 2, 3, 5), nil, "≥ 5ᶠ*", "1 against the construction at the checked lengths only (ᶠ*)"},
		{"a gap, run whole elsewhere", lengths(check.Exhaustive, 1, 2, 4), nil, "≥ 4ᵉ*", "1 every input run at the checked lengths only (ᵉ*)"},
		{"a gap the analysis proved", lengths(check.Exhaustive, 1, 2, 4), every(4, check.Faithful), "≥ 4ᶠ", "1 proved against the construction only"},
		{"a gap run whole by the analysis of every length", lengths(check.Exhaustive, 1, 2, 4), every(4, check.Exhaustive), "≥ 4ᵉ", "1 every input run (ᵉ)"},
		{"the analysis stopped below the limit", lengths(check.Exhaustive, 1, 2, 4), every(2, check.Exhaustive), "≥ 4ᵉ*", "1 every input run at the checked lengths only (ᵉ*)"},
		{"sampled: no star", lengths(check.Sampled, 1, 2, 4), nil, "≥ 4ˢ", "1 sampled (ˢ)"},
	}
	for _, c := range cases {
		row := &Row{Precision: "fp16", Checked: c.checked, EveryLength: c.ev}
		row.summarise()
		if got := row.LimitText(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if got := Tally([]*Report{{Rows: []Row{*row}}}); !strings.Contains(got, c.tally) {
			t.Errorf("%s: tally %q, want it to say %q", c.name, got, c.tally)
		}
	}
}

// TestTallyNotApplicable: a cell whose exact values are irrational is
// counted apart from one that cannot run, so the tally does not present a
// layer norm's cells as failures of the tool.
func TestTallyNotApplicable(t *testing.T) {
	rep := &Report{Rows: []Row{
		{Precision: "fp16", Error: "not applicable: the reference is irrational (1/√2 at n = 2), which fp16 can only approximate; intervals confirm it"},
		{Precision: "fp16", Error: "the construction needs 2^40 inputs"},
		{Precision: "fp16", Error: "not applicable: the reference is irrational (sin 1 at n = 1), which fp16 can only approximate; intervals confirm it"},
	}}
	got := Tally([]*Report{rep})
	for _, want := range []string{"2 not applicable (irrational exact values)", "1 cannot run"} {
		if !strings.Contains(got, want) {
			t.Errorf("tally %q, want it to say %q", got, want)
		}
	}
}

// TestFailureLinesNameTheRecipe: the lines after the table name the
// recipe with the precision, since a run of several recipes prints them
// one after another ("lookup, fp16: first failure at n = 46 …").
func TestFailureLinesNameTheRecipe(t *testing.T) {
	rep := &Report{Recipe: "lookup", Seed: 1, Rows: []Row{
		{Precision: "fp16", Limit: 45, Failure: &Failure{Failure: check.Failure{N: 46, Case: 2, Position: 11, Input: "1:0"}}},
		{Precision: "fp8-e4m3", Error: "cannot run: a weight overflows"},
		{Precision: "fp32", Limit: 64, Prediction: &Prediction{Gap: "1", Magnitude: "n²", Why: "the gap stays resolved up to n = 64"}},
	}}
	var b strings.Builder
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nlookup, fp16: first failure at n = 46, position 11 (input index 2 of that length, seed 1)\n", "\nlookup, fp8-e4m3: cannot run: a weight overflows\n", "\nlookup, fp32: every checked length passed\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report:\n%s\nwant a line %q", b.String(), want)
		}
	}
}
