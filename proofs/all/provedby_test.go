package all_test

import (
	"testing"

	"github.com/transformer-cookbook/verify/proofs"
	_ "github.com/transformer-cookbook/verify/proofs/all"
	"github.com/transformer-cookbook/verify/recipes"
)

// TestProvedByNamesAProof: a recipe's ProvedBy makes a length the
// analysis proves faithful certified against the intended function, so
// it must name a claim of the registry that its checker proves (not one
// that merely holds on the cases checked).
func TestProvedByNamesAProof(t *testing.T) {
	named := 0
	for _, r := range recipes.All() {
		if r.ProvedBy == "" {
			continue
		}
		named++
		c, err := proofs.Get(r.ProvedBy)
		if err != nil {
			t.Errorf("%s: ProvedBy %q: %v", r.Name, r.ProvedBy, err)
			continue
		}
		ev, err := proofs.Run(c)
		if err != nil {
			t.Errorf("%s: %s could not run: %v", r.Name, c.ID, err)
			continue
		}
		if ev.Verdict != proofs.Proved {
			t.Errorf("%s: %s is %s, not proved", r.Name, c.ID, ev.Verdict)
		}
	}
	if named == 0 {
		t.Fatal("no recipe names a claim")
	}
}
