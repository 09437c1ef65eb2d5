package cpwl

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
)

// ErrEmptyDomain is returned for a claim over an empty domain. Such a
// claim holds vacuously, but in a claim registry it is almost certainly a
// mistyped domain, so it is reported rather than proved.
var ErrEmptyDomain = errors.New("cpwl: the domain is empty")

// frame is the domain D written in coordinates of its affine hull: the
// injective map hull: ℝ^k → ℝ^d, z ↦ x₀ + N z, is onto aff(D), and in z
// the domain is the full-dimensional polyhedron dom with interior point
// z0. Everything the procedure compares (regions, pieces, maps) is pulled
// back along hull, so a domain given with equalities, or with
// inequalities that happen to pin it to a subspace, is handled exactly
// like a full-dimensional one of lower dimension.
type frame struct {
	d    int
	hull exact.Affine
	dom  halfspaces
	z0   exact.Vector
	// lps counts the LPs solved for this domain.
	lps int
}

func newFrame(domain *exact.Polyhedron) (*frame, error) {
	if !domain.Closed() {
		return nil, fmt.Errorf("cpwl: the domain must be closed (it has strict rows)")
	}
	hull, ok, err := domain.AffineHull()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ErrEmptyDomain
	}
	fr := &frame{d: domain.Dim, hull: hull}
	dom, ok, err := fr.pull(domain)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("cpwl: internal error: the domain misses its own affine hull")
	}
	fr.dom = dom
	z0, ok, err := dom.interiorPoint(&fr.lps)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("cpwl: internal error: the domain is not full-dimensional in its affine hull")
	}
	fr.z0 = z0
	return fr, nil
}

// k is the dimension of the domain.
func (fr *frame) k() int { return fr.hull.In() }

// pull returns the closed polyhedron p ∩ aff(D) in hull coordinates, each
// equality as two inequalities, or ok = false when it is empty because a
// row constant on the hull fails.
func (fr *frame) pull(p *exact.Polyhedron) (halfspaces, bool, error) {
	q, err := p.Pullback(fr.hull)
	if err != nil {
		return halfspaces{}, false, err
	}
	h := halfspaces{k: fr.k()}
	ok := true
	add := func(a exact.Vector, b *big.Rat) {
		if ok {
			h, ok = h.with(a, b)
		}
	}
	for i := 0; i < q.A.Rows; i++ {
		add(q.A.Row(i), q.B[i])
	}
	for i := 0; i < q.G.Rows; i++ {
		add(q.G.Row(i), q.H[i])
		add(neg(q.G.Row(i)), new(big.Rat).Neg(q.H[i]))
	}
	return h, ok, nil
}

// point maps z back to ℝ^d.
func (fr *frame) point(z exact.Vector) (exact.Vector, error) { return fr.hull.Apply(z) }

// affine returns g∘hull, g in hull coordinates.
func (fr *frame) affine(g exact.Affine) (exact.Affine, error) { return g.Compose(fr.hull) }

// layer is a ReLU layer's pre-activations W1 x + b1 pulled back to hull
// coordinates, W1 N z + (W1 x₀ + b1), with the second layer kept as is.
type layer struct {
	w1 exact.Matrix
	b1 exact.Vector
	w2 exact.Matrix
	b2 exact.Vector
}

func (fr *frame) layer(f *FFN) (layer, error) {
	pre, err := (exact.Affine{A: f.W1, C: f.b1()}).Compose(fr.hull)
	if err != nil {
		return layer{}, err
	}
	return layer{w1: pre.A, b1: pre.C, w2: f.W2, b2: f.b2()}, nil
}

// regionMap is the map of pattern s in hull coordinates.
func (l layer) regionMap(s Pattern) exact.Affine { return regionMap(l.w1, l.b1, l.w2, l.b2, s) }
