package proofs_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/internal/testenv"
	"github.com/transformer-cookbook/verify/proofs"
	_ "github.com/transformer-cookbook/verify/proofs/all"
)

// mutationProved are the claims the review's mutation left PROVED.
var mutationProved = []string{"ffn.min.exact", "ffn.identity.vector", "ffn.cpwl.exact", "ln.ffn.homogeneous", "repr.bool.zero-one.ops", "round.error.residual"}

// TestLostRegionProvesNothing runs every claim whose evidence rests on a
// Checked certificate (those docs/claims.md, kept current by
// TestLongVerdicts, says so of) with an enumeration that loses a region: not
// one may still be PROVED.
func TestLostRegionProvesNothing(t *testing.T) {
	b, err := os.ReadFile("../docs/claims.md")
	if err != nil {
		t.Fatal(err)
	}
	var claims []*proofs.Claim
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, "checked independently of the enumeration") {
			continue
		}
		// The row starts "| <a id="ID"></a>`ID` |".
		_, rest, _ := strings.Cut(line, "`")
		id, _, _ := strings.Cut(rest, "`")
		c, err := proofs.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, c)
	}
	// The claims the review's mutation left PROVED, among them.
	for _, id := range mutationProved {
		if !slices.ContainsFunc(claims, func(c *proofs.Claim) bool { return c.ID == id }) {
			t.Errorf("%s does not rest on a checked certificate", id)
		}
	}
	if testenv.Race {
		// Under the race detector the claims still run concurrently,
		// which is what it checks, but only the six: every claim's
		// checker is sequential exact arithmetic, about ten times
		// slower there (370 s for the whole list), and the whole list
		// runs in the default tier.
		claims = slices.DeleteFunc(claims, func(c *proofs.Claim) bool {
			return !slices.Contains(mutationProved, c.ID)
		})
	}
	lost := proofs.LoseRegion(t)
	for _, r := range proofs.CheckAll(claims) {
		if r.Err == nil && r.Evidence.Verdict == proofs.Proved {
			t.Errorf("%s: still PROVED with a region lost: %s", r.Claim.ID, r.Evidence.Summary)
		}
	}
	if lost.Load() < int64(len(claims)) {
		t.Errorf("%d answers spoiled for %d claims: the faulty enumeration was not used", lost.Load(), len(claims))
	}
}
