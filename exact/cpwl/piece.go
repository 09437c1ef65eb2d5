package cpwl

import (
	"fmt"

	"github.com/transformer-cookbook/verify/exact"
)

// Piece is one piece of a CPWL function given by cases (Definition
// Continuous Piecewise Linear Function): on the closed polyhedron Domain
// the function is the affine map Map. Pieces may overlap; the reference
// they define is a function only where overlapping pieces agree, and
// Verify proves that too when it answers Equal.
type Piece struct {
	Domain *exact.Polyhedron
	Map    exact.Affine
}

func (p *Piece) validate(i, d, k int) error {
	if err := p.Domain.Validate(); err != nil {
		return fmt.Errorf("cpwl: piece %d: %w", i, err)
	}
	if p.Domain.Dim != d {
		return fmt.Errorf("cpwl: piece %d lies in ℝ^%d, the FFN's inputs in ℝ^%d", i, p.Domain.Dim, d)
	}
	if !p.Domain.Closed() {
		return fmt.Errorf("cpwl: piece %d is not closed (it has strict rows); pieces are closed polyhedra", i)
	}
	if err := p.Map.Validate(); err != nil {
		return fmt.Errorf("cpwl: piece %d: %w", i, err)
	}
	if p.Map.In() != d || p.Map.Out() != k {
		return fmt.Errorf("cpwl: piece %d maps ℝ^%d → ℝ^%d, the FFN ℝ^%d → ℝ^%d", i, p.Map.In(), p.Map.Out(), d, k)
	}
	return nil
}
