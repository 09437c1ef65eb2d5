package ffn

import (
	"slices"

	"github.com/transformer-cookbook/verify/proofs"
)

// Claims returns the claims of §Feed-Forward Layers, a table per section in the
// paper's order (the registry lists them by ID).
func Claims() []*proofs.Claim {
	return slices.Concat(cpwlClaims, residualClaims, arithmeticClaims, multiplicationClaims, geluClaims(), comparisonClaims, booleanClaims, conditionalClaims, cheatsheetClaims)
}

func init() { proofs.Register(Claims()...) }
