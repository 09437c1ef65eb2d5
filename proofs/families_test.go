package proofs

import (
	"strings"
	"testing"
)

// TestRunDemotesInstancesOfAFamily: a checker that proves each instance
// it reaches does not prove the family, so Run reports HOLDS and says
// so; a refutation found on an instance stays a refutation, and a claim
// outside the table keeps its checker's verdict.
func TestRunDemotesInstancesOfAFamily(t *testing.T) {
	proving := func(v Verdict) func() (*Evidence, error) {
		return func() (*Evidence, error) { return &Evidence{Verdict: v, Summary: "every input of length ≤ 3"}, nil }
	}
	const member = "test.family.member"
	families[member] = "every length n"
	defer delete(families, member)
	for _, tc := range []struct {
		id      string
		checker Verdict
		want    Verdict
		says    string
	}{
		{member, Proved, Holds, "the paper states it for every length n: proved on these instances only"},
		{member, Refuted, Refuted, ""},
		{"test.family.whole", Proved, Proved, ""},
	} {
		c := &Claim{ID: tc.id, Check: proving(tc.checker)}
		ev, err := Run(c)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Verdict != tc.want {
			t.Errorf("%s, checker %s: Run says %s, want %s", tc.id, tc.checker, ev.Verdict, tc.want)
		}
		if tc.says != "" && !strings.Contains(ev.Summary, tc.says) {
			t.Errorf("%s: summary %q does not say %q", tc.id, ev.Summary, tc.says)
		}
		if !strings.HasPrefix(ev.Summary, "every input of length ≤ 3") {
			t.Errorf("%s: summary %q lost the checker's instances", tc.id, ev.Summary)
		}
	}
}
