package attention

import (
	"slices"

	"github.com/transformer-cookbook/verify/proofs"
)

// Claims returns the claims of §Self-Attention Layers, a table per section in the
// paper's order (the registry lists them by ID).
func Claims() []*proofs.Claim {
	return slices.Concat(hardmaxClaims, trivialClaims, lookupClaims, valuesClaims(), predecessorClaims, tiebreakClaims, multiheadClaims, softmaxClaims, scaledClaims)
}

func init() { proofs.Register(Claims()...) }
