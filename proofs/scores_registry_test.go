package proofs_test

import (
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/proofs"
	_ "github.com/transformer-cookbook/verify/proofs/all"
)

// TestAttnScaledClaimsNameTheirReading: every claim of a pair says which
// reading it is in, and every .sqrt-dkey claim has its q·k companion.
func TestAttnScaledClaimsNameTheirReading(t *testing.T) {
	n := 0
	for _, c := range proofs.All() {
		base, ok := strings.CutSuffix(c.ID, ".sqrt-dkey")
		if !ok {
			continue
		}
		n++
		if !strings.HasSuffix(c.Statement, proofs.ReadScaled) {
			t.Errorf("%s: the statement does not end %q", c.ID, proofs.ReadScaled)
		}
		b, err := proofs.Get(base)
		if err != nil {
			t.Errorf("%s: no q·k companion: %v", c.ID, err)
			continue
		}
		if !strings.HasSuffix(b.Statement, proofs.ReadQK) {
			t.Errorf("%s: the statement does not end %q", b.ID, proofs.ReadQK)
		}
	}
	if n < 16 {
		t.Errorf("%d claims read under def:attn, want 16", n)
	}
}
