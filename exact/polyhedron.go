package exact

import (
	"fmt"
	"math/big"
)

// Polyhedron is the set of x ∈ ℝ^Dim with
//
//	a_i x ≤ B_i  for each row a_i of A (a_i x < B_i where Strict[i]),
//	G x = H.
//
// Strict may be nil (no strict rows); with strict rows the set is convex
// but not closed, which is what a search for an interior point needs.
// A or G may have no rows (the zero Matrix), and a Polyhedron with
// neither is all of ℝ^Dim.
type Polyhedron struct {
	Dim    int
	A      Matrix
	B      Vector
	Strict []bool
	G      Matrix
	H      Vector
}

// Validate reports blocks whose dimensions do not fit Dim, and nil entries.
func (p *Polyhedron) Validate() error {
	if p == nil {
		return fmt.Errorf("exact: nil polyhedron")
	}
	if p.Dim < 0 {
		return fmt.Errorf("exact: polyhedron of dimension %d", p.Dim)
	}
	if err := p.A.checkShape("A", -1, p.Dim); err != nil {
		return fmt.Errorf("exact: polyhedron in ℝ^%d: %w", p.Dim, err)
	}
	if err := p.B.check("B", p.A.Rows); err != nil {
		return fmt.Errorf("exact: polyhedron: %w (A has %d rows)", err, p.A.Rows)
	}
	if p.Strict != nil && len(p.Strict) != p.A.Rows {
		return fmt.Errorf("exact: polyhedron: Strict has length %d for %d rows", len(p.Strict), p.A.Rows)
	}
	if err := p.G.checkShape("G", -1, p.Dim); err != nil {
		return fmt.Errorf("exact: polyhedron in ℝ^%d: %w", p.Dim, err)
	}
	if err := p.H.check("H", p.G.Rows); err != nil {
		return fmt.Errorf("exact: polyhedron: %w (G has %d rows)", err, p.G.Rows)
	}
	return nil
}

// Closed reports whether p has no strict rows.
func (p *Polyhedron) Closed() bool {
	for _, s := range p.Strict {
		if s {
			return false
		}
	}
	return true
}

func (p *Polyhedron) strict(i int) bool { return p.Strict != nil && p.Strict[i] }

// Contains reports whether x ∈ p, exactly.
func (p *Polyhedron) Contains(x Vector) (bool, error) {
	if err := p.Validate(); err != nil {
		return false, err
	}
	if err := x.check("point", p.Dim); err != nil {
		return false, fmt.Errorf("exact: %w", err)
	}
	return p.contains(x), nil
}

func (p *Polyhedron) contains(x Vector) bool {
	for i := 0; i < p.A.Rows; i++ {
		c := dot(p.A.Row(i), x).Cmp(p.B[i])
		if c > 0 || (c == 0 && p.strict(i)) {
			return false
		}
	}
	for i := 0; i < p.G.Rows; i++ {
		if dot(p.G.Row(i), x).Cmp(p.H[i]) != 0 {
			return false
		}
	}
	return true
}

// Intersect returns p ∩ q (both in the same ℝ^Dim).
func (p *Polyhedron) Intersect(q *Polyhedron) (*Polyhedron, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	if p.Dim != q.Dim {
		return nil, fmt.Errorf("exact: intersection of polyhedra in ℝ^%d and ℝ^%d", p.Dim, q.Dim)
	}
	r := &Polyhedron{Dim: p.Dim}
	r.A, r.B = stackRows(p.Dim, p.A, p.B, q.A, q.B)
	r.G, r.H = stackRows(p.Dim, p.G, p.H, q.G, q.H)
	if !p.Closed() || !q.Closed() {
		r.Strict = make([]bool, 0, r.A.Rows)
		for i := 0; i < p.A.Rows; i++ {
			r.Strict = append(r.Strict, p.strict(i))
		}
		for i := 0; i < q.A.Rows; i++ {
			r.Strict = append(r.Strict, q.strict(i))
		}
	}
	return r, nil
}

// stackRows returns [A1; A2] and [b1; b2], sharing the entries.
func stackRows(n int, a1 Matrix, b1 Vector, a2 Matrix, b2 Vector) (Matrix, Vector) {
	m := Matrix{Rows: a1.Rows + a2.Rows, Cols: n}
	m.Data = append(append(make([]*big.Rat, 0, m.Rows*n), a1.Data...), a2.Data...)
	b := append(append(make(Vector, 0, m.Rows), b1...), b2...)
	return m, b
}

// Pullback returns the preimage {z : f(z) ∈ p} of p under the affine map
// f: ℝ^k → ℝ^Dim, a polyhedron in ℝ^k with the same strict rows. With f
// the parametrization of p's affine hull (AffineHull) it is p written in
// coordinates in which it is full-dimensional.
func (p *Polyhedron) Pullback(f Affine) (*Polyhedron, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if f.Out() != p.Dim {
		return nil, fmt.Errorf("exact: pullback of a polyhedron in ℝ^%d along a map into ℝ^%d", p.Dim, f.Out())
	}
	k := f.In()
	q := &Polyhedron{Dim: k, Strict: append([]bool(nil), p.Strict...)}
	pull := func(a Matrix, b Vector) (Matrix, Vector) {
		if a.Rows == 0 {
			return Matrix{Cols: k}, nil
		}
		af := a.mul(f.A)
		ac := a.mulVec(f.C)
		for i := range ac {
			ac[i].Sub(b[i], ac[i])
		}
		return af, ac
	}
	q.A, q.B = pull(p.A, p.B)
	q.G, q.H = pull(p.G, p.H)
	return q, nil
}
