package proofs_test

import (
	"strings"
	"testing"

	"github.com/transformer-cookbook/verify/proofs"
	_ "github.com/transformer-cookbook/verify/proofs/all"
)

// TestFamiliesNameClaims: a family entry for a claim that no longer
// exists (renamed, say) would silently stop demoting it.
func TestFamiliesNameClaims(t *testing.T) {
	for id, f := range proofs.Families {
		if _, ok := proofs.Registry[id]; !ok {
			t.Errorf("families lists %q, which is not a registered claim", id)
		}
		if !strings.HasPrefix(f, "every ") {
			t.Errorf("%s: family %q should say what it ranges over (\"every …\")", id, f)
		}
	}
}
