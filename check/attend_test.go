package check

import (
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/certify/positionwise"
)

// TestFixedScoresLevels: the recipes of §Average and §Identity, whose
// scores do not depend on the input, get the analysis's evidence. avg
// and avg-prefix: length 1 proved (or run) for every input, length 2
// failing on an input the analysis finds and the engine's run confirms,
// and the limit of every length 1. identity-attn: its heads add 0, so
// the position-wise analysis of one position proves every length.
func TestFixedScoresLevels(t *testing.T) {
	for _, tc := range []struct {
		recipe, precision string
		level             Level
	}{
		{"avg", "fp8-e4m3", Exhaustive},
		{"avg", "fp16", Faithful},
		{"avg-prefix", "fp32", Faithful},
		{"avg", "53", Faithful},
	} {
		ck := positionwiseChecker(t, tc.recipe, tc.precision, nil)
		if !ck.lengthwise() {
			t.Fatalf("%s: not analysed one length at a time", tc.recipe)
		}
		lr := ck.Length(1)
		if Weaker(lr.Level, tc.level) != tc.level || lr.Level == Sampled || lr.Failure != nil {
			t.Errorf("%s at %s, n = 1: level %s (analysis %q), want %s", tc.recipe, tc.precision, lr.Level, lr.Analysis, tc.level)
		}
		if !strings.Contains(lr.Positionwise, "of length 1") || lr.Level != Exhaustive && !strings.Contains(lr.Positionwise, "scores do not depend on the input") {
			t.Errorf("%s at %s, n = 1: the statement %q", tc.recipe, tc.precision, lr.Positionwise)
		}
		an := ck.analyse(2)
		if an.pw == nil || an.pw.Verdict != positionwise.Fails || len(an.candidates) != 1 {
			t.Fatalf("%s at %s, n = 2: %+v", tc.recipe, tc.precision, an)
		}
		if f := ck.CaseFailure(an.candidates[0], 0); f == nil {
			t.Errorf("%s at %s, n = 2: the analysis's input %v passes the engine's run", tc.recipe, tc.precision, an.candidates[0].Stream)
		}
		ev := ck.Every(1, 64, 0)
		if ev.Certified != 1 || ev.At != 2 || !strings.Contains(ev.Why, "fails on the inputs of length 2") {
			t.Errorf("%s at %s: every length: %+v", tc.recipe, tc.precision, ev)
		}
	}
	for _, precision := range []string{"fp8-e5m2", "bf16", "fp64"} {
		ck := positionwiseChecker(t, "identity-attn", precision, nil)
		if ck.lengthwise() {
			t.Fatal("identity-attn is analysed one length at a time")
		}
		for _, n := range []int{1, 7, 64} {
			lr := ck.Length(n)
			if lr.Level == Sampled || lr.Failure != nil || !strings.HasPrefix(lr.Positionwise, zeroValuesPremise) {
				t.Errorf("identity-attn at %s, n = %d: level %s, statement %q, analysis %q", precision, n, lr.Level, lr.Positionwise, lr.Analysis)
			}
		}
		if ev := ck.Every(1, 64, 0); ev.Certified != 64 {
			t.Errorf("identity-attn at %s: every length: %+v", precision, ev)
		}
	}
}
