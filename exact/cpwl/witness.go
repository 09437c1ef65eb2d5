package cpwl

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
)

// separate returns a point strictly inside cell at which the affine maps
// f and g (hull coordinates) differ, given a point z strictly inside and
// f ≠ g as maps.
//
// Usually f(z) ≠ g(z) already. If not, the difference Δ = f − g vanishes
// at z but not identically, so some row δ of Δ's matrix is nonzero
// (were the matrix 0, Δ would be the constant Δ(z) = 0). Stepping along
// d = δᵀ changes that output of Δ by λ|δ|² ≠ 0, and a step λ below the
// cell's step limit keeps the point strictly inside (λ = 1 when the limit
// allows, else the simplest rational below it).
func separate(cell halfspaces, z exact.Vector, f, g exact.Affine) (exact.Vector, error) {
	fz, err := f.Apply(z)
	if err != nil {
		return nil, err
	}
	gz, err := g.Apply(z)
	if err != nil {
		return nil, err
	}
	if !fz.Equal(gz) {
		return z, nil
	}
	for o := 0; o < f.A.Rows; o++ {
		delta := make(exact.Vector, f.A.Cols)
		for j := range delta {
			delta[j] = new(big.Rat).Sub(f.A.At(o, j), g.A.At(o, j))
		}
		if delta.IsZero() {
			continue
		}
		lambda := big.NewRat(1, 1)
		if lim := cell.stepLimit(z, delta); lim != nil && lim.Cmp(lambda) <= 0 {
			lambda = simplest(new(big.Rat), lim)
		}
		w := axpy(z, lambda, delta)
		if !cell.strictlyInside(w) {
			return nil, fmt.Errorf("cpwl: internal error: the step toward a difference left the cell")
		}
		return w, nil
	}
	return nil, fmt.Errorf("cpwl: internal error: maps reported different agree")
}
