package examples

import (
	"slices"

	"github.com/transformer-cookbook/verify/proofs"
)

// Claims returns the claims of §Putting It All Together: Example Constructions, a table per section in the
// paper's order (the registry lists them by ID).
func Claims() []*proofs.Claim {
	return slices.Concat(lowerBoundClaims, dyckClaims, dyck12Claims, inductionClaims)
}

func init() { proofs.Register(Claims()...) }
