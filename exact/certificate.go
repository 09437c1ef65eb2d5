package exact

import (
	"fmt"
	"math/big"
)

// Check verifies the certificate of s for lp in exact arithmetic (see
// Solution), and returns an error saying which condition fails. It does
// not trust the simplex: a Solution that passes Check is correct
// whichever way it was found.
func (lp *LP) Check(s *Solution) error {
	if err := lp.Validate(); err != nil {
		return err
	}
	if s == nil {
		return fmt.Errorf("exact: no solution to check")
	}
	n := len(lp.C)
	switch s.Status {
	case Optimal:
		if err := lp.checkFeasible(s.X); err != nil {
			return err
		}
		aty, err := lp.checkMultipliers(s.Y, s.W)
		if err != nil {
			return err
		}
		if !aty.Equal(lp.C) {
			return fmt.Errorf("exact: AᵀY + GᵀW = %v, want C = %v", aty, lp.C)
		}
		if s.Value == nil {
			return fmt.Errorf("exact: optimal solution without a value")
		}
		if v := dot(lp.C, s.X); v.Cmp(s.Value) != 0 {
			return fmt.Errorf("exact: CᵀX = %v, but Value = %v", v.RatString(), s.Value.RatString())
		}
		if d := lp.dualValue(s.Y, s.W); d.Cmp(s.Value) != 0 {
			return fmt.Errorf("exact: BᵀY + HᵀW = %v ≠ Value = %v: the dual does not prove optimality", d.RatString(), s.Value.RatString())
		}
	case Infeasible:
		aty, err := lp.checkMultipliers(s.Y, s.W)
		if err != nil {
			return err
		}
		if !aty.IsZero() {
			return fmt.Errorf("exact: Farkas certificate with AᵀY + GᵀW = %v ≠ 0", aty)
		}
		if d := lp.dualValue(s.Y, s.W); d.Sign() >= 0 {
			return fmt.Errorf("exact: Farkas certificate with BᵀY + HᵀW = %v ≥ 0", d.RatString())
		}
	case Unbounded:
		if err := lp.checkFeasible(s.X); err != nil {
			return err
		}
		if err := s.Ray.check("Ray", n); err != nil {
			return fmt.Errorf("exact: %w", err)
		}
		for i, ad := range lp.A.mulVec(s.Ray) {
			if ad.Sign() > 0 {
				return fmt.Errorf("exact: ray leaves A x ≤ B: row %d of A Ray is %v > 0", i, ad.RatString())
			}
		}
		for i, gd := range lp.G.mulVec(s.Ray) {
			if gd.Sign() != 0 {
				return fmt.Errorf("exact: ray leaves G x = H: row %d of G Ray is %v", i, gd.RatString())
			}
		}
		if dot(lp.C, s.Ray).Sign() <= 0 {
			return fmt.Errorf("exact: the objective does not grow along the ray")
		}
	default:
		return fmt.Errorf("exact: unknown status %v", s.Status)
	}
	return nil
}

// checkFeasible reports a point that violates a constraint.
func (lp *LP) checkFeasible(x Vector) error {
	if err := x.check("X", len(lp.C)); err != nil {
		return fmt.Errorf("exact: %w", err)
	}
	for i, ax := range lp.A.mulVec(x) {
		if ax.Cmp(lp.B[i]) > 0 {
			return fmt.Errorf("exact: X violates inequality %d: %v > %v", i, ax.RatString(), lp.B[i].RatString())
		}
	}
	for i, gx := range lp.G.mulVec(x) {
		if gx.Cmp(lp.H[i]) != 0 {
			return fmt.Errorf("exact: X violates equality %d: %v ≠ %v", i, gx.RatString(), lp.H[i].RatString())
		}
	}
	return nil
}

// checkMultipliers checks the shapes of Y and W and the signs of Y, and
// returns AᵀY + GᵀW.
func (lp *LP) checkMultipliers(y, w Vector) (Vector, error) {
	if err := y.check("Y", lp.A.Rows); err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	if err := w.check("W", lp.G.Rows); err != nil {
		return nil, fmt.Errorf("exact: %w", err)
	}
	for i, yi := range y {
		if yi.Sign() < 0 {
			return nil, fmt.Errorf("exact: multiplier Y[%d] = %v of an inequality is negative", i, yi.RatString())
		}
	}
	s := NewVector(len(lp.C))
	t := new(big.Rat)
	add := func(m Matrix, u Vector) {
		for i, ui := range u {
			if ui.Sign() == 0 {
				continue
			}
			for j := range s {
				s[j].Add(s[j], t.Mul(ui, m.At(i, j)))
			}
		}
	}
	add(lp.A, y)
	add(lp.G, w)
	return s, nil
}

// dualValue returns BᵀY + HᵀW.
func (lp *LP) dualValue(y, w Vector) *big.Rat {
	d := dot(lp.B, y)
	return d.Add(d, dot(lp.H, w))
}
