package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestClaimsOne checks one claim through every output form: the table
// row, the explanation with the paper's statement, and the JSON fields.
// ln.hash.literal is the paper's "lh(kx) = lh(x)", false at k = 2, x = 1.
func TestClaimsOne(t *testing.T) {
	out, errOut, status := runCmd("claims", "--id", "ln.hash.literal")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	if f := field(t, out, "ln.hash.literal"); !strings.Contains(strings.Join(f, " "), "REFUTED") {
		t.Errorf("row %q does not say REFUTED", f)
	}
	if !strings.Contains(out, "\n1 claim: 1 REFUTED\n") {
		t.Errorf("no tally line in:\n%s", out)
	}

	out, _, status = runCmd("claims", "--id", "ln.hash.literal", "--explain")
	if status != 0 || !strings.Contains(out, "statement") || !strings.Contains(out, "lh(kx) = lh(x)") || !strings.Contains(out, "verdict    REFUTED (recorded REFUTED)") {
		t.Errorf("--explain (status %d):\n%s", status, out)
	}

	out, _, status = runCmd("claims", "--id", "ffn.min.exact", "--json")
	var doc struct {
		Schema string
		Claims []claimJSON
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || status != 0 || doc.Schema != "verify/claims/1" {
		t.Fatalf("--json (status %d, %v):\n%s", status, err, out)
	}
	got := doc.Claims
	if len(got) != 1 || got[0].ID != "ffn.min.exact" || got[0].Verdict != "PROVED" || got[0].Recorded != "PROVED" || got[0].Label == "" || len(got[0].Explain) == 0 {
		t.Errorf("--json: %+v", got)
	}
}

func TestClaimsBadInput(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"claims", "--id", "no.such.claim"}, "no.such.claim"},
		{[]string{"claims", "--explain", "extra"}, "unexpected argument"},
		{[]string{"claims", "extra"}, "unexpected argument"},
		{[]string{"claims", "--bogus"}, "unknown flag"},
	}
	for _, tc := range tests {
		out, errOut, status := runCmd(tc.args...)
		if status != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want 2, nothing, one line with %q", tc.args, status, out, errOut, tc.msg)
		}
	}
}
