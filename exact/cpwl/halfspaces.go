package cpwl

import (
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
)

// halfspaces is the closed polyhedron {z ∈ ℝ^k : a_i z ≤ b_i} in the
// coordinates of the domain's affine hull, where the decision procedure
// works. Every a_i is nonzero (with resolves constant rows), so the
// polyhedron is full-dimensional exactly when some z satisfies every row
// strictly; that is the only notion of "nonempty" the procedure needs.
//
// A halfspaces value is never modified: with returns a new one, so
// siblings in the depth-first search share their parent's rows safely.
type halfspaces struct {
	k int
	a []exact.Vector
	b []*big.Rat
}

// with returns h ∩ {a z ≤ b}, or ok = false when that is empty for a
// constant row (a = 0, b < 0). A constant row that always holds adds
// nothing.
func (h halfspaces) with(a exact.Vector, b *big.Rat) (halfspaces, bool) {
	if a.IsZero() {
		return h, b.Sign() >= 0
	}
	n := len(h.a)
	r := halfspaces{k: h.k, a: make([]exact.Vector, n+1), b: make([]*big.Rat, n+1)}
	copy(r.a, h.a)
	copy(r.b, h.b)
	r.a[n], r.b[n] = a, b
	return r, true
}

// withGE returns h ∩ {a z ≥ b}.
func (h halfspaces) withGE(a exact.Vector, b *big.Rat) (halfspaces, bool) {
	return h.with(neg(a), new(big.Rat).Neg(b))
}

// and returns h ∩ g.
func (h halfspaces) and(g halfspaces) halfspaces {
	r := halfspaces{k: h.k, a: make([]exact.Vector, 0, len(h.a)+len(g.a)), b: make([]*big.Rat, 0, len(h.b)+len(g.b))}
	r.a = append(append(r.a, h.a...), g.a...)
	r.b = append(append(r.b, h.b...), g.b...)
	return r
}

// parallel compares the row a z ≤ b (a ≠ 0) with the rows of h that are
// parallel to it, a' = λa. With λ > 0 the row a' z ≤ b' reads
// a z ≤ b'/λ, and when b'/λ ≤ b the new row is implied: adding it
// changes nothing. With λ < 0 it reads a z ≥ b'/λ, and when b'/λ ≥ b
// the new row leaves no room strictly between the two: h ∩ {a z ≤ b} is
// flat (not full-dimensional). Units that share a hyperplane, as x and
// −x in the identity FFN or the units of a network and of a rescaled
// copy, are settled this way without an LP.
func (h halfspaces) parallel(a exact.Vector, b *big.Rat) (implied, flat bool) {
	j := 0
	for a[j].Sign() == 0 {
		j++
	}
	lambda, t := new(big.Rat), new(big.Rat)
	for i, ai := range h.a {
		if ai[j].Sign() == 0 {
			continue
		}
		lambda.Quo(ai[j], a[j])
		same := true
		for c := range a {
			if ai[c].Cmp(t.Mul(lambda, a[c])) != 0 {
				same = false
				break
			}
		}
		if !same {
			continue
		}
		c := t.Quo(h.b[i], lambda).Cmp(b)
		if lambda.Sign() > 0 && c <= 0 {
			implied = true
		}
		if lambda.Sign() < 0 && c >= 0 {
			flat = true
		}
	}
	return implied, flat
}

// strictlyInside reports whether every row holds strictly at z.
func (h halfspaces) strictlyInside(z exact.Vector) bool {
	for i, a := range h.a {
		if dot(a, z).Cmp(h.b[i]) >= 0 {
			return false
		}
	}
	return true
}

// interiorPoint returns a point at which every row holds strictly, or ok
// = false when h is not full-dimensional. The answer is certified
// (exact.Polyhedron.StrictPoint checks the point row by row, and the LP's
// dual certificate when there is none). It counts the LP in *lps.
func (h halfspaces) interiorPoint(lps *int) (exact.Vector, bool, error) {
	*lps++
	p := &exact.Polyhedron{Dim: h.k, B: h.b, Strict: make([]bool, len(h.a))}
	var err error
	if p.A, err = exact.MatrixFromRows(h.k, h.a...); err != nil {
		return nil, false, err
	}
	for i := range p.Strict {
		p.Strict[i] = true
	}
	return p.StrictPoint()
}

// feasible reports whether h is nonempty (lower-dimensional or not).
func (h halfspaces) feasible(lps *int) (bool, error) {
	*lps++
	p := &exact.Polyhedron{Dim: h.k, B: h.b}
	var err error
	if p.A, err = exact.MatrixFromRows(h.k, h.a...); err != nil {
		return false, err
	}
	_, ok, err := p.StrictPoint()
	return ok, err
}

// stepLimit returns the supremum of the λ ≥ 0 for which z + λd stays
// strictly inside h (z strictly inside), or nil for +∞.
func (h halfspaces) stepLimit(z, d exact.Vector) *big.Rat {
	var lim *big.Rat
	for i, a := range h.a {
		ad := dot(a, d)
		if ad.Sign() <= 0 {
			continue
		}
		s := new(big.Rat).Sub(h.b[i], dot(a, z))
		s.Quo(s, ad)
		if lim == nil || s.Cmp(lim) < 0 {
			lim = s
		}
	}
	return lim
}

func dot(a, b exact.Vector) *big.Rat {
	s, t := new(big.Rat), new(big.Rat)
	for i, x := range a {
		if x.Sign() != 0 && b[i].Sign() != 0 {
			s.Add(s, t.Mul(x, b[i]))
		}
	}
	return s
}

func neg(a exact.Vector) exact.Vector {
	r := make(exact.Vector, len(a))
	for i, x := range a {
		r[i] = new(big.Rat).Neg(x)
	}
	return r
}

// axpy returns z + λd.
func axpy(z exact.Vector, lambda *big.Rat, d exact.Vector) exact.Vector {
	r := make(exact.Vector, len(z))
	t := new(big.Rat)
	for i := range z {
		r[i] = new(big.Rat).Add(z[i], t.Mul(lambda, d[i]))
	}
	return r
}
