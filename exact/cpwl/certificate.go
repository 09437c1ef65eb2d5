package cpwl

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
)

// Certificate is what an Equal verdict of Verify or Equivalent rests on,
// in a form that CheckVerify and CheckEquivalent re-check from the
// networks, the domain and the pieces alone, without the enumeration of
// linear regions that produced it.
//
// Each cell names an activation pattern of f (and of g, for
// Equivalent) and, for Verify, a piece. The cell itself is not written
// out: the checker builds it as the domain, the piece's polyhedron and one
// sign row per hidden unit (pre-activation ≥ 0 where the pattern says
// active, ≤ 0 where it says inactive). So a cell lies in the domain and
// its pattern is valid on all of it by construction, and on it f is the
// pattern's affine map x ↦ W2 diag(s) W1 x + W2 diag(s) b1 + b2, since
// ReLU(t) = t for t ≥ 0 and 0 for t ≤ 0.
type Certificate struct {
	Cells []CertCell
}

// CertCell is one cell of a Certificate.
type CertCell struct {
	// Pattern is f's activation pattern on the cell.
	Pattern Pattern
	// PatternG is g's (Equivalent; nil for Verify).
	PatternG Pattern
	// Piece is the index of the reference's piece (Verify; −1 for
	// Equivalent).
	Piece int
}

// Report says what a certificate check did.
type Report struct {
	// Cells counts the cells checked, Covers the cover decisions made
	// (Cover), Parts the parts those decided, and LPs the linear programs
	// solved, for the covers and for the maps, each certified by
	// exact.LP.Check.
	Cells, Covers, Parts, LPs int
}

func (r *Report) addCover(c *CoverResult) {
	r.Covers++
	r.Parts += c.Parts
	r.LPs += c.LPs
}

// CertificateError is a certificate that does not prove its claim.
type CertificateError struct {
	Reason string
	// Gap, when the cells do not cover what they must, is a point there
	// that none of them contains (checked exactly).
	Gap exact.Vector
}

func (e *CertificateError) Error() string { return "cpwl: certificate rejected: " + e.Reason }

// IsCertificateError reports whether err is, or wraps, a rejected
// certificate (rather than malformed input).
func IsCertificateError(err error) bool {
	var ce *CertificateError
	return errors.As(err, &ce)
}

// CheckVerify re-checks an Equal verdict of Verify(f, domain, pieces):
//
//   - for each cell, the pattern's map of f equals the piece's map on the
//     cell: as affine maps, or, where they differ as maps (a lower-
//     dimensional domain), the difference is 0 on the cell, each output's
//     maximum and minimum over the cell being 0 by a certified LP;
//   - the pieces cover the domain (Cover);
//   - for each piece P, the cells of P cover domain ∩ P (Cover), so that
//     f equals P's map on all of domain ∩ P.
//
// Together these prove f = g on the domain. A certificate that fails is
// a *CertificateError; malformed input is another error.
func CheckVerify(f *FFN, domain *exact.Polyhedron, pieces []Piece, c *Certificate) (*Report, error) {
	if err := checkInputs(domain, f); err != nil {
		return nil, err
	}
	for i := range pieces {
		if err := pieces[i].validate(i, f.In(), f.Out()); err != nil {
			return nil, err
		}
	}
	if c == nil {
		return nil, &CertificateError{Reason: "no certificate"}
	}
	rep := &Report{}
	byPiece := make([][]*exact.Polyhedron, len(pieces))
	for i, cell := range c.Cells {
		if cell.Piece < 0 || cell.Piece >= len(pieces) {
			return nil, fmt.Errorf("cpwl: certificate cell %d names piece %d of %d", i, cell.Piece, len(pieces))
		}
		if cell.PatternG != nil {
			return nil, fmt.Errorf("cpwl: certificate cell %d has a second pattern, but Verify compares one network", i)
		}
		signs, err := signPolyhedron(f, cell.Pattern)
		if err != nil {
			return nil, fmt.Errorf("cpwl: certificate cell %d: %w", i, err)
		}
		p := pieces[cell.Piece]
		region, err := domain.Intersect(p.Domain)
		if err != nil {
			return nil, err
		}
		if region, err = region.Intersect(signs); err != nil {
			return nil, err
		}
		fm, err := patternMap(f, cell.Pattern)
		if err != nil {
			return nil, err
		}
		if err := sameOn(region, fm, p.Map, &rep.LPs); err != nil {
			return nil, &CertificateError{Reason: fmt.Sprintf("cell %d (pattern %v, piece %d): %v", i, cell.Pattern, cell.Piece, err)}
		}
		byPiece[cell.Piece] = append(byPiece[cell.Piece], signs)
		rep.Cells++
	}
	all := make([]*exact.Polyhedron, len(pieces))
	for r := range pieces {
		all[r] = pieces[r].Domain
	}
	cov, err := Cover(domain, all)
	if err != nil {
		return nil, err
	}
	rep.addCover(cov)
	if !cov.Covered {
		return nil, &CertificateError{Reason: fmt.Sprintf("the pieces miss %v", cov.Gap), Gap: cov.Gap}
	}
	for r := range pieces {
		q, err := domain.Intersect(pieces[r].Domain)
		if err != nil {
			return nil, err
		}
		cov, err := Cover(q, byPiece[r])
		if err != nil {
			return nil, err
		}
		rep.addCover(cov)
		if !cov.Covered {
			return nil, &CertificateError{Reason: fmt.Sprintf("the cells of piece %d miss %v, a point of the domain in that piece", r, cov.Gap), Gap: cov.Gap}
		}
	}
	return rep, nil
}

// CheckEquivalent re-checks an Equal verdict of Equivalent(f, g,
// domain): on each cell the two patterns' maps agree (as CheckVerify
// compares a map with a piece's), and the cells cover the domain.
func CheckEquivalent(f, g *FFN, domain *exact.Polyhedron, c *Certificate) (*Report, error) {
	if err := checkInputs(domain, f); err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if f.In() != g.In() || f.Out() != g.Out() {
		return nil, fmt.Errorf("cpwl: comparing an FFN ℝ^%d → ℝ^%d with one ℝ^%d → ℝ^%d", f.In(), f.Out(), g.In(), g.Out())
	}
	if c == nil {
		return nil, &CertificateError{Reason: "no certificate"}
	}
	rep := &Report{}
	cells := make([]*exact.Polyhedron, 0, len(c.Cells))
	for i, cell := range c.Cells {
		sf, err := signPolyhedron(f, cell.Pattern)
		if err != nil {
			return nil, fmt.Errorf("cpwl: certificate cell %d: %w", i, err)
		}
		sg, err := signPolyhedron(g, cell.PatternG)
		if err != nil {
			return nil, fmt.Errorf("cpwl: certificate cell %d, second network: %w", i, err)
		}
		signs, err := sf.Intersect(sg)
		if err != nil {
			return nil, err
		}
		region, err := domain.Intersect(signs)
		if err != nil {
			return nil, err
		}
		fm, err := patternMap(f, cell.Pattern)
		if err != nil {
			return nil, err
		}
		gm, err := patternMap(g, cell.PatternG)
		if err != nil {
			return nil, err
		}
		if err := sameOn(region, fm, gm, &rep.LPs); err != nil {
			return nil, &CertificateError{Reason: fmt.Sprintf("cell %d (patterns %v, %v): %v", i, cell.Pattern, cell.PatternG, err)}
		}
		cells = append(cells, signs)
		rep.Cells++
	}
	if err := coverAll(domain, cells, "cells", rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// CheckRegions re-checks a list of linear regions of f on domain (from
// Regions, or anywhere): each region's Map is f's map for its pattern,
// its Point lies in the domain with the pattern valid there, and the
// regions (closed, as sign conditions) cover the domain. Whatever is
// proved region by region then holds on the whole domain.
func CheckRegions(f *FFN, domain *exact.Polyhedron, regions []Region) (*Report, error) {
	if err := checkInputs(domain, f); err != nil {
		return nil, err
	}
	rep := &Report{}
	cells := make([]*exact.Polyhedron, 0, len(regions))
	for i, r := range regions {
		signs, err := signPolyhedron(f, r.Pattern)
		if err != nil {
			return nil, fmt.Errorf("cpwl: region %d: %w", i, err)
		}
		m, err := patternMap(f, r.Pattern)
		if err != nil {
			return nil, err
		}
		if !m.Equal(r.Map) {
			return nil, &CertificateError{Reason: fmt.Sprintf("region %d (pattern %v): its map is not f's map for the pattern", i, r.Pattern)}
		}
		if len(r.Point) != f.In() {
			return nil, &CertificateError{Reason: fmt.Sprintf("region %d (pattern %v) has a point of ℝ^%d", i, r.Pattern, len(r.Point))}
		}
		inD, err := domain.Contains(r.Point)
		if err != nil {
			return nil, err
		}
		inS, err := signs.Contains(r.Point)
		if err != nil {
			return nil, err
		}
		if !inD || !inS {
			return nil, &CertificateError{Reason: fmt.Sprintf("region %d (pattern %v): its point %v is not in it", i, r.Pattern, r.Point)}
		}
		cells = append(cells, signs)
		rep.Cells++
	}
	if err := coverAll(domain, cells, "regions", rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// coverAll decides that cells cover domain, adds the work to rep, and
// returns a CertificateError naming a point they miss (what: "cells",
// "regions").
func coverAll(domain *exact.Polyhedron, cells []*exact.Polyhedron, what string, rep *Report) error {
	cov, err := Cover(domain, cells)
	if err != nil {
		return err
	}
	rep.addCover(cov)
	if !cov.Covered {
		return &CertificateError{Reason: fmt.Sprintf("the %s miss %v", what, cov.Gap), Gap: cov.Gap}
	}
	return nil
}

func checkInputs(domain *exact.Polyhedron, f *FFN) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if err := domain.Validate(); err != nil {
		return fmt.Errorf("cpwl: domain: %w", err)
	}
	if !domain.Closed() {
		return fmt.Errorf("cpwl: the domain must be closed (it has strict rows)")
	}
	if domain.Dim != f.In() {
		return fmt.Errorf("cpwl: a domain in ℝ^%d for an FFN on ℝ^%d", domain.Dim, f.In())
	}
	return nil
}

// signPolyhedron is the closed set where f's hidden units have the signs
// of s: −(W1 x + b1)_i ≤ 0 for an active unit, (W1 x + b1)_i ≤ 0 for an
// inactive one.
func signPolyhedron(f *FFN, s Pattern) (*exact.Polyhedron, error) {
	h, d := f.Hidden(), f.In()
	if len(s) != h {
		return nil, fmt.Errorf("pattern of %d units for an FFN with %d", len(s), h)
	}
	p := &exact.Polyhedron{Dim: d, A: exact.NewMatrix(h, d), B: exact.NewVector(h)}
	for i := 0; i < h; i++ {
		sign := big.NewRat(1, 1)
		if s[i] {
			sign.SetInt64(-1)
		}
		for j := 0; j < d; j++ {
			p.A.At(i, j).Mul(sign, f.W1.At(i, j))
		}
		if f.B1 != nil {
			p.B[i].Mul(sign, f.B1[i])
			p.B[i].Neg(p.B[i])
		}
	}
	return p, nil
}

// patternMap is f's map on the cell of pattern s, W2 diag(s) W1 x +
// W2 diag(s) b1 + b2, computed with the matrix product of package exact
// (not the enumeration's own routine).
func patternMap(f *FFN, s Pattern) (exact.Affine, error) {
	h, d := f.Hidden(), f.In()
	if len(s) != h {
		return exact.Affine{}, fmt.Errorf("cpwl: pattern of %d units for an FFN with %d", len(s), h)
	}
	masked := exact.NewMatrix(h, d)
	mb := exact.NewVector(h)
	for i := 0; i < h; i++ {
		if !s[i] {
			continue
		}
		for j := 0; j < d; j++ {
			masked.At(i, j).Set(f.W1.At(i, j))
		}
		if f.B1 != nil {
			mb[i].Set(f.B1[i])
		}
	}
	a, err := f.W2.Mul(masked)
	if err != nil {
		return exact.Affine{}, err
	}
	c, err := f.W2.MulVec(mb)
	if err != nil {
		return exact.Affine{}, err
	}
	if f.B2 != nil {
		for o := range c {
			c[o].Add(c[o], f.B2[o])
		}
	}
	return exact.Affine{A: a, C: c}, nil
}

// sameOn returns nil when the affine maps f and g agree at every point of
// the closed polyhedron p. Equal maps agree everywhere; otherwise each
// output o where they differ, δ x + γ with δ = (f − g)'s row and γ its
// offset, must have maximum 0 and minimum 0 over p (or p be empty): two
// LPs whose answers exact.LP.Check certifies.
func sameOn(p *exact.Polyhedron, f, g exact.Affine, lps *int) error {
	if f.Equal(g) {
		return nil
	}
	n := p.Dim
	for o := 0; o < f.A.Rows; o++ {
		delta := make(exact.Vector, n)
		for j := range delta {
			delta[j] = new(big.Rat).Sub(f.A.At(o, j), g.A.At(o, j))
		}
		gamma := new(big.Rat).Sub(f.C[o], g.C[o])
		if delta.IsZero() && gamma.Sign() == 0 {
			continue
		}
		for _, sign := range []int64{1, -1} {
			c := make(exact.Vector, n)
			for j := range c {
				c[j] = new(big.Rat).Mul(big.NewRat(sign, 1), delta[j])
			}
			lp := &exact.LP{C: c, A: p.A, B: p.B, G: p.G, H: p.H}
			*lps++
			sol, err := lp.Solve()
			if err != nil {
				return err
			}
			if err := lp.Check(sol); err != nil {
				return fmt.Errorf("uncertified LP answer: %w", err)
			}
			switch sol.Status {
			case exact.Infeasible:
				return nil // the cell is empty
			case exact.Unbounded:
				return fmt.Errorf("output %d of the two maps differs without bound on the cell (at %v and along %v)", o, sol.X, sol.Ray)
			}
			// max sign·(δ x) + sign·γ must be 0.
			v := new(big.Rat).Mul(big.NewRat(sign, 1), gamma)
			v.Add(v, sol.Value)
			if v.Sign() != 0 {
				return fmt.Errorf("output %d of the two maps differs on the cell (by %s at %v)", o, new(big.Rat).Mul(big.NewRat(sign, 1), v).RatString(), sol.X)
			}
		}
	}
	return nil
}
