package exact

import (
	"fmt"
	"math/big"
)

// StrictPoint returns a point of p, which satisfies the strict rows
// strictly, or ok = false when p is empty.
//
// It solves the LP in (x, t)
//
//	maximize t subject to a_i x + t ≤ B_i (strict rows), a_i x ≤ B_i
//	(other rows), G x = H, t ≤ 1,
//
// whose optimum t* is positive exactly when some x satisfies every strict
// row with slack t* > 0. (The bound t ≤ 1 keeps the LP bounded; without
// strict rows t* = 1 whenever p is nonempty.) The LP is solved for
// t' = t − s, where s ≤ 0 is the least right-hand side of a strict row (0
// if none is negative): the strict rows then have right-hand sides
// B_i − s ≥ 0, so they need no phase 1 — with every row strict, as in
// the decision procedure, the simplex starts from a feasible basis. The
// answer is certified either way: a point by evaluating every row
// exactly, an empty set by LP.Check of the dual solution, which proves
// t* ≤ 0 (or infeasibility) independently of the simplex.
func (p *Polyhedron) StrictPoint() (x Vector, ok bool, err error) {
	if err := p.Validate(); err != nil {
		return nil, false, err
	}
	return p.strictPoint()
}

func (p *Polyhedron) strictPoint() (Vector, bool, error) {
	n := p.Dim
	lp := &LP{C: NewVector(n + 1), A: NewMatrix(p.A.Rows+1, n+1), B: make(Vector, 0, p.A.Rows+1)}
	lp.C[n].SetInt64(1)
	shift := new(big.Rat)
	for i := 0; i < p.A.Rows; i++ {
		if p.strict(i) && p.B[i].Cmp(shift) < 0 {
			shift = p.B[i]
		}
	}
	for i := 0; i < p.A.Rows; i++ {
		for j := 0; j < n; j++ {
			lp.A.At(i, j).Set(p.A.At(i, j))
		}
		b := p.B[i]
		if p.strict(i) {
			lp.A.At(i, n).SetInt64(1)
			b = new(big.Rat).Sub(b, shift)
		}
		lp.B = append(lp.B, b)
	}
	lp.A.At(p.A.Rows, n).SetInt64(1)
	lp.B = append(lp.B, new(big.Rat).Sub(ratOne, shift))
	if p.G.Rows > 0 {
		lp.G = NewMatrix(p.G.Rows, n+1)
		for i := 0; i < p.G.Rows; i++ {
			for j := 0; j < n; j++ {
				lp.G.At(i, j).Set(p.G.At(i, j))
			}
		}
		lp.H = p.H
	}
	sol, err := lp.Solve()
	if err != nil {
		return nil, false, err
	}
	if err := lp.Check(sol); err != nil {
		return nil, false, fmt.Errorf("exact: internal error: uncertified LP answer: %w", err)
	}
	switch sol.Status {
	case Infeasible:
		return nil, false, nil
	case Unbounded:
		return nil, false, fmt.Errorf("exact: internal error: the slack LP is bounded by t ≤ 1")
	}
	if t := new(big.Rat).Add(sol.X[n], shift); t.Sign() <= 0 { // t = t' + s
		return nil, false, nil
	}
	x := sol.X[:n]
	if !p.contains(x) {
		return nil, false, fmt.Errorf("exact: internal error: the LP's point %v is not in the set", x)
	}
	return x, true, nil
}

// InteriorPoint returns a point of p at which every inequality is strict,
// or ok = false when there is none. Inequalities that are constant on the
// subspace {G x = H} (0 ≤ c, once written in its coordinates) are not
// asked to be strict, since they hold everywhere or nowhere; so for a
// closed p without equalities the answer is a point of the interior, and
// ok reports whether p is full-dimensional.
func (p *Polyhedron) InteriorPoint() (x Vector, ok bool, err error) {
	if err := p.Validate(); err != nil {
		return nil, false, err
	}
	param, ok, err := Solutions(p.Dim, p.G, p.H)
	if err != nil || !ok {
		return nil, false, err
	}
	q, err := (&Polyhedron{Dim: p.Dim, A: p.A, B: p.B, Strict: p.Strict}).Pullback(param)
	if err != nil {
		return nil, false, err
	}
	r := &Polyhedron{Dim: q.Dim}
	var rows []Vector
	for i := 0; i < q.A.Rows; i++ {
		a, b := q.A.Row(i), q.B[i]
		if a.IsZero() {
			if b.Sign() < 0 || (b.Sign() == 0 && p.strict(i)) {
				return nil, false, nil
			}
			continue
		}
		rows = append(rows, a)
		r.B = append(r.B, b)
		r.Strict = append(r.Strict, true)
	}
	if r.A, err = MatrixFromRows(q.Dim, rows...); err != nil {
		return nil, false, err
	}
	z, ok, err := r.strictPoint()
	if err != nil || !ok {
		return nil, false, err
	}
	x, err = param.Apply(z)
	return x, err == nil, err
}

// RelativeInteriorPoint returns a point in the relative interior of the
// closed polyhedron p (the interior within its affine hull), the rows of
// A that are implicit equalities (a_i x = B_i on all of p), and ok =
// false when p is empty.
//
// It maximizes the common slack t of the inequalities, as StrictPoint
// does. An optimum t* > 0 gives the point; t* < 0 means p is empty; at
// t* = 0 the optimal dual multipliers sum to 1 over the inequalities
// (they price t), and complementary slackness makes every row with a
// positive multiplier tight at every optimum, hence on all of p, since
// each x ∈ p with t = 0 is optimal. Those rows become equalities and the
// LP is solved again; each round moves at least one row, so there are at
// most len(B) + 1 rounds.
func (p *Polyhedron) RelativeInteriorPoint() (x Vector, implicit []int, ok bool, err error) {
	if err := p.Validate(); err != nil {
		return nil, nil, false, err
	}
	if !p.Closed() {
		return nil, nil, false, fmt.Errorf("exact: the relative interior is taken of a closed polyhedron; this one has strict rows")
	}
	n := p.Dim
	isEq := make([]bool, p.A.Rows)
	for {
		lp := &LP{C: NewVector(n + 1)}
		lp.C[n].SetInt64(1)
		var ineq, eq []Vector
		var ineqRow []int
		for i := 0; i < p.A.Rows; i++ {
			row := append(p.A.Row(i).Clone(), new(big.Rat))
			if isEq[i] {
				eq = append(eq, row)
				lp.H = append(lp.H, p.B[i])
				continue
			}
			row[n].SetInt64(1)
			ineq = append(ineq, row)
			lp.B = append(lp.B, p.B[i])
			ineqRow = append(ineqRow, i)
		}
		tRow := NewVector(n + 1)
		tRow[n].SetInt64(1)
		ineq = append(ineq, tRow)
		lp.B = append(lp.B, ratOne)
		for i := 0; i < p.G.Rows; i++ {
			eq = append(eq, append(p.G.Row(i).Clone(), new(big.Rat)))
			lp.H = append(lp.H, p.H[i])
		}
		if lp.A, err = MatrixFromRows(n+1, ineq...); err != nil {
			return nil, nil, false, err
		}
		if lp.G, err = MatrixFromRows(n+1, eq...); err != nil {
			return nil, nil, false, err
		}
		sol, err := lp.Solve()
		if err != nil {
			return nil, nil, false, err
		}
		if err := lp.Check(sol); err != nil {
			return nil, nil, false, fmt.Errorf("exact: internal error: uncertified LP answer: %w", err)
		}
		if sol.Status != Optimal {
			if sol.Status == Infeasible {
				return nil, nil, false, nil
			}
			return nil, nil, false, fmt.Errorf("exact: internal error: the slack LP is bounded by t ≤ 1")
		}
		t := sol.X[n]
		if t.Sign() < 0 {
			return nil, nil, false, nil
		}
		if t.Sign() > 0 {
			for i, e := range isEq {
				if e {
					implicit = append(implicit, i)
				}
			}
			return sol.X[:n], implicit, true, nil
		}
		moved := false
		for k, i := range ineqRow {
			if sol.Y[k].Sign() > 0 {
				isEq[i], moved = true, true
			}
		}
		if !moved {
			return nil, nil, false, fmt.Errorf("exact: internal error: zero slack without a tight row")
		}
	}
}

// AffineHull returns the affine hull of the closed polyhedron p as an
// injective affine map z ↦ x₀ + N z from ℝ^k onto it (k is the dimension
// of p), or ok = false when p is empty. The hull is cut out by the
// equalities G x = H and the implicit equalities found by
// RelativeInteriorPoint.
func (p *Polyhedron) AffineHull() (param Affine, ok bool, err error) {
	_, implicit, ok, err := p.RelativeInteriorPoint()
	if err != nil || !ok {
		return Affine{}, false, err
	}
	rows := make([]Vector, 0, p.G.Rows+len(implicit))
	var h Vector
	for i := 0; i < p.G.Rows; i++ {
		rows = append(rows, p.G.Row(i))
		h = append(h, p.H[i])
	}
	for _, i := range implicit {
		rows = append(rows, p.A.Row(i))
		h = append(h, p.B[i])
	}
	G, err := MatrixFromRows(p.Dim, rows...)
	if err != nil {
		return Affine{}, false, err
	}
	param, ok, err = Solutions(p.Dim, G, h)
	if err == nil && !ok {
		err = fmt.Errorf("exact: internal error: the affine hull of a nonempty polyhedron is empty")
	}
	return param, ok, err
}
