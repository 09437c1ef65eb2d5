package basics

import (
	"slices"

	"github.com/transformer-cookbook/verify/proofs"
)

// Claims returns the claims of §the Basic Ingredients, a table per section in the
// paper's order (the registry lists them by ID).
func Claims() []*proofs.Claim {
	return slices.Concat(booleanClaims, tableClaims(), valuesClaims, positionalClaims)
}

func init() { proofs.Register(Claims()...) }
