package assembly

import (
	"slices"

	"github.com/transformer-cookbook/verify/proofs"
)

// Claims returns the claims of §Assembly, a table per section in the
// paper's order (the registry lists them by ID).
func Claims() []*proofs.Claim {
	return slices.Concat(compositionClaims, routingClaims)
}

func init() { proofs.Register(Claims()...) }
