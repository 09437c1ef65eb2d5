package cpwl

import (
	"github.com/transformer-cookbook/verify/exact"
)

// gap looks for a point of the full-dimensional polyhedron q (with z
// strictly inside) that lies in none of the closed pieces, and returns
// one strictly outside each of them.
//
// Points outside a piece {a_j z ≤ b_j, j = 1…m} are those violating some
// row; splitting by the first violated row,
//
//	q ∖ P = ⋃_j q ∩ {a_j z > b_j} ∩ {a_i z ≤ b_i, i < j},
//
// a disjoint union. Each part whose closure is full-dimensional is
// searched against the remaining pieces, and once no piece remains an
// interior point of the part is the answer: it violates a row of every
// piece strictly. Parts that are not full-dimensional are dropped safely:
// D ∖ ⋃P is open in D, so if it is nonempty it contains a full-
// dimensional ball of D, which some full-dimensional part contains.
//
// The search may branch on every row of every piece, so it is
// exponential in the number of pieces in the worst case; references in
// the cookbook have a handful.
func gap(q halfspaces, z exact.Vector, pieces []halfspaces, lps *int) (exact.Vector, bool, error) {
	if len(pieces) == 0 {
		return z, true, nil
	}
	p := pieces[0]
	prefix := q
	for j, a := range p.a {
		part, _ := prefix.withGE(a, p.b[j])
		zj := z
		if !part.strictlyInside(z) {
			var ok bool
			var err error
			zj, ok, err = part.interiorPoint(lps)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				prefix, _ = prefix.with(a, p.b[j])
				continue
			}
		}
		if w, found, err := gap(part, zj, pieces[1:], lps); err != nil || found {
			return w, found, err
		}
		prefix, _ = prefix.with(a, p.b[j])
	}
	return nil, false, nil
}
