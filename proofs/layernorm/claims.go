package layernorm

import (
	"slices"

	"github.com/transformer-cookbook/verify/proofs"
)

// Claims returns the claims of §Layer Normalization, a table per section in the
// paper's order (the registry lists them by ID).
func Claims() []*proofs.Claim {
	return slices.Concat(definitionClaims, propertiesClaims, hashClaims, circumventClaims)
}

func init() { proofs.Register(Claims()...) }
