package exact

import (
	"fmt"
	"math/big"
)

// LP is the linear program
//
//	maximize Cᵀx subject to A x ≤ B, G x = H, x ∈ ℝⁿ free,
//
// with n = len(C). Either block of constraints may be empty: the zero
// Matrix (no rows) stands for none, whatever its Cols.
type LP struct {
	C Vector
	A Matrix
	B Vector
	G Matrix
	H Vector
}

// Status is the outcome of an LP.
type Status int

const (
	// Optimal: the LP has an optimal solution, and Solution holds one with
	// a dual solution proving it optimal.
	Optimal Status = iota + 1
	// Infeasible: no x satisfies the constraints; Solution holds a Farkas
	// certificate.
	Infeasible
	// Unbounded: the objective is unbounded above; Solution holds a
	// feasible point and a ray along which the objective grows.
	Unbounded
)

func (s Status) String() string {
	switch s {
	case Optimal:
		return "optimal"
	case Infeasible:
		return "infeasible"
	case Unbounded:
		return "unbounded"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Solution is the answer to an LP, with a certificate for it that
// LP.Check verifies in exact arithmetic without trusting the simplex:
//
//	Optimal     X feasible, Y ≥ 0, AᵀY + GᵀW = C, and CᵀX = BᵀY + HᵀW = Value
//	            (weak duality then makes X optimal)
//	Infeasible  Y ≥ 0, AᵀY + GᵀW = 0 and BᵀY + HᵀW < 0 (Farkas' lemma: a
//	            feasible x would give 0 = (AᵀY + GᵀW)ᵀx ≤ BᵀY + HᵀW < 0)
//	Unbounded   X feasible, A Ray ≤ 0, G Ray = 0 and CᵀRay > 0
type Solution struct {
	Status Status
	// X is an optimal basic solution (Optimal; a vertex of the feasible
	// set whenever that set has vertices) or a feasible point (Unbounded).
	X Vector
	// Value is CᵀX (Optimal).
	Value *big.Rat
	// Y and W are the multipliers of A x ≤ B and G x = H: an optimal dual
	// solution (Optimal) or a Farkas certificate (Infeasible).
	Y, W Vector
	// Ray is an unbounded direction (Unbounded).
	Ray Vector
	// Pivots counts the simplex pivots of both phases.
	Pivots int
}

// Validate reports constraint matrices and vectors whose dimensions do not
// fit n = len(C), and nil entries.
func (lp *LP) Validate() error {
	n := len(lp.C)
	if err := lp.C.check("C", n); err != nil {
		return fmt.Errorf("exact: LP: %w", err)
	}
	if err := lp.A.checkShape("A", -1, n); err != nil {
		return fmt.Errorf("exact: LP: %w", err)
	}
	if err := lp.B.check("B", lp.A.Rows); err != nil {
		return fmt.Errorf("exact: LP: %w (A has %d rows)", err, lp.A.Rows)
	}
	if err := lp.G.checkShape("G", -1, n); err != nil {
		return fmt.Errorf("exact: LP: %w", err)
	}
	if err := lp.H.check("H", lp.G.Rows); err != nil {
		return fmt.Errorf("exact: LP: %w (G has %d rows)", err, lp.G.Rows)
	}
	return nil
}

// Solve solves the LP exactly by the two-phase simplex method with Bland's
// rule (see the package documentation). The only errors are malformed
// inputs; every well-formed LP, including degenerate, empty and zero-size
// ones, ends with one of the three statuses.
func (lp *LP) Solve() (*Solution, error) {
	if err := lp.Validate(); err != nil {
		return nil, err
	}
	return newTableau(lp, nil).solve(lp.C)
}

// ratOne is 1; never modified.
var ratOne = big.NewRat(1, 1)
