package rounding

import (
	"slices"

	"github.com/transformer-cookbook/verify/proofs"
)

// Claims returns the claims of §Rounding and Approximation, a table per section in the
// paper's order (the registry lists them by ID).
func Claims() []*proofs.Claim {
	return slices.Concat(comparisonClaims, errorFFNClaims, errorAttentionClaims, errorLayerNormClaims, errorResidualClaims, errorBoundedClaims)
}

func init() { proofs.Register(Claims()...) }
