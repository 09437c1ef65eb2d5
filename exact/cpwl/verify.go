package cpwl

import (
	"errors"
	"fmt"

	"github.com/transformer-cookbook/verify/exact"
)

// Verify decides whether the ReLU FFN f equals, on the closed polyhedron
// domain, the CPWL function g given by pieces: whether f(x) = M_r x + c_r
// for every piece r and every x in both the domain and the piece, with
// the pieces covering the domain. The verdict is Equal (proved), Differ
// (with a counterexample checked exactly) or Uncovered (with a point of
// the domain in no piece). The package documentation gives the method
// and the argument.
//
// The domain may be lower-dimensional (given with equalities, or with
// inequalities that pin it down): the procedure works in its affine hull.
// An empty domain is ErrEmptyDomain. Errors are for malformed or
// mismatched inputs, and ErrTooManyRegions for Options.MaxRegions.
func Verify(f *FFN, domain *exact.Polyhedron, pieces []Piece, opts *Options) (*Result, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if err := domain.Validate(); err != nil {
		return nil, fmt.Errorf("cpwl: domain: %w", err)
	}
	if domain.Dim != f.In() {
		return nil, fmt.Errorf("cpwl: a domain in ℝ^%d for an FFN on ℝ^%d", domain.Dim, f.In())
	}
	for i := range pieces {
		if err := pieces[i].validate(i, f.In(), f.Out()); err != nil {
			return nil, err
		}
	}
	fr, err := newFrame(domain)
	if err != nil {
		return nil, err
	}
	v := &verifier{f: f, domain: domain, pieces: pieces, opts: opts, fr: fr, res: &Result{Dim: fr.k()}}
	if err := v.run(); err != nil {
		return nil, err
	}
	return v.res, nil
}

type verifier struct {
	f      *FFN
	domain *exact.Polyhedron
	pieces []Piece
	opts   *Options
	fr     *frame
	res    *Result
}

// hullPiece is a piece that is full-dimensional in the domain, in hull
// coordinates.
type hullPiece struct {
	index int
	rows  halfspaces
	m     exact.Affine
}

func (v *verifier) run() error {
	full, all, lower, err := v.sortPieces()
	if err != nil {
		return err
	}
	fr := v.fr
	z, found, err := gap(fr.dom, fr.z0, all, &fr.lps)
	if err != nil {
		return err
	}
	if found {
		return v.uncovered(z)
	}
	cert := &Certificate{}
	if stopped, err := v.compareCells(full, cert); err != nil || stopped {
		return err
	}
	if stopped, err := v.checkLower(lower, cert); err != nil || stopped {
		return err
	}
	v.res.Verdict, v.res.Certificate = Equal, cert
	return nil
}

// sortPieces sorts the pieces by their intersection with the domain:
// empty (ignored), full-dimensional (compared cell by cell), or
// lower-dimensional (checked in their own affine hull at the end). all
// holds the rows of every piece that meets the domain's hull.
func (v *verifier) sortPieces() (full []hullPiece, all []halfspaces, lower []int, err error) {
	fr := v.fr
	for r := range v.pieces {
		rows, ok, err := fr.pull(v.pieces[r].Domain)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			continue
		}
		all = append(all, rows)
		both := fr.dom.and(rows)
		if _, ok, err := both.interiorPoint(&fr.lps); err != nil {
			return nil, nil, nil, err
		} else if ok {
			m, err := fr.affine(v.pieces[r].Map)
			if err != nil {
				return nil, nil, nil, err
			}
			full = append(full, hullPiece{index: r, rows: rows, m: m})
			continue
		}
		if ok, err := both.feasible(&fr.lps); err != nil {
			return nil, nil, nil, err
		} else if ok {
			lower = append(lower, r)
		}
	}
	return full, all, lower, nil
}

// compareCells compares f with the full-dimensional pieces on every cell
// of the domain where both are affine, adding the cells to cert; stopped
// says a cell differs and the verdict is recorded.
func (v *verifier) compareCells(full []hullPiece, cert *Certificate) (stopped bool, err error) {
	fr := v.fr
	l, err := fr.layer(v.f)
	if err != nil {
		return false, err
	}
	e := &enumerator{w: rowsOf(l.w1), beta: l.b1, max: v.opts.maxRegions(), lps: &fr.lps}
	e.visit = func(reg *region) error { return v.visitRegion(reg, l, full, cert) }
	err = e.run(fr.dom, fr.z0)
	v.res.Regions, v.res.LPs = e.regions, fr.lps
	if errors.Is(err, errStop) {
		return true, nil
	}
	return false, err
}

// visitRegion compares f's map on one activation region with each
// full-dimensional piece the region meets, and stops the enumeration
// (errStop) at the first that differs.
func (v *verifier) visitRegion(reg *region, l layer, full []hullPiece, cert *Certificate) error {
	fr, res := v.fr, v.res
	fm := l.regionMap(reg.pattern)
	for _, p := range full {
		z := reg.z
		cell := reg.cons.and(p.rows)
		if !p.rows.strictlyInside(z) {
			var ok bool
			var err error
			if z, ok, err = cell.interiorPoint(&fr.lps); err != nil {
				return err
			} else if !ok {
				continue
			}
		}
		res.Cells++
		cert.Cells = append(cert.Cells, CertCell{Pattern: reg.pattern, Piece: p.index})
		if v.opts.explain() {
			x, err := fr.point(z)
			if err != nil {
				return err
			}
			res.Explained = append(res.Explained, Cell{Pattern: reg.pattern, Piece: p.index, Dim: fr.k(), Point: x})
		}
		if fm.Equal(p.m) {
			continue
		}
		w, err := separate(cell, z, fm, p.m)
		if err != nil {
			return err
		}
		if err := v.differ(w, p.index); err != nil {
			return err
		}
		return errStop
	}
	return nil
}

// checkLower verifies each lower-dimensional piece in its own
// intersection with the domain, adding its cells to cert; stopped says
// one differs and the verdict is recorded.
func (v *verifier) checkLower(lower []int, cert *Certificate) (stopped bool, err error) {
	res := v.res
	for _, r := range lower {
		sub, err := v.domain.Intersect(v.pieces[r].Domain)
		if err != nil {
			return false, err
		}
		sr, err := Verify(v.f, sub, []Piece{v.pieces[r]}, v.opts)
		if err != nil {
			return false, fmt.Errorf("cpwl: piece %d, lower-dimensional in the domain: %w", r, err)
		}
		res.Cells += sr.Cells
		res.LPs += sr.LPs
		if sr.Certificate != nil {
			for _, c := range sr.Certificate.Cells {
				c.Piece = r
				cert.Cells = append(cert.Cells, c)
			}
		}
		for _, c := range sr.Explained {
			c.Piece = r
			res.Explained = append(res.Explained, c)
		}
		switch sr.Verdict {
		case Differ:
			sr.Counterexample.Piece = r
			res.Verdict, res.Counterexample = Differ, sr.Counterexample
			return true, nil
		case Uncovered:
			return false, fmt.Errorf("cpwl: internal error: piece %d does not cover its own intersection with the domain", r)
		}
	}
	return false, nil
}

// uncovered records the gap point z after checking exactly that it lies
// in the domain and in no piece.
func (v *verifier) uncovered(z exact.Vector) error {
	x, err := v.fr.point(z)
	if err != nil {
		return err
	}
	if in, err := v.domain.Contains(x); err != nil || !in {
		return fmt.Errorf("cpwl: internal error: gap point %v outside the domain (%w)", x, err)
	}
	for r := range v.pieces {
		if in, err := v.pieces[r].Domain.Contains(x); err != nil || in {
			return fmt.Errorf("cpwl: internal error: gap point %v in piece %d (%w)", x, r, err)
		}
	}
	v.res.Verdict, v.res.Gap, v.res.LPs = Uncovered, x, v.fr.lps
	return nil
}

// differ records the counterexample at z (hull coordinates) against piece
// r after evaluating f and the piece's map exactly and checking that the
// point lies in the domain and in the piece.
func (v *verifier) differ(z exact.Vector, r int) error {
	x, err := v.fr.point(z)
	if err != nil {
		return err
	}
	ce, err := counterexample(v.f, v.domain, x)
	if err != nil {
		return err
	}
	p := &v.pieces[r]
	if in, err := p.Domain.Contains(x); err != nil || !in {
		return fmt.Errorf("cpwl: internal error: counterexample %v outside piece %d (%w)", x, r, err)
	}
	if ce.G, err = p.Map.Apply(x); err != nil {
		return err
	}
	if ce.F.Equal(ce.G) {
		return fmt.Errorf("cpwl: internal error: f and piece %d agree at the counterexample %v", r, x)
	}
	ce.Piece = r
	v.res.Verdict, v.res.Counterexample = Differ, ce
	return nil
}

// counterexample evaluates f at x, after checking that x is in the domain.
func counterexample(f *FFN, domain *exact.Polyhedron, x exact.Vector) (*Counterexample, error) {
	if in, err := domain.Contains(x); err != nil || !in {
		return nil, fmt.Errorf("cpwl: internal error: counterexample %v outside the domain (%w)", x, err)
	}
	fx, err := f.Eval(x)
	if err != nil {
		return nil, err
	}
	s, err := f.PatternAt(x)
	if err != nil {
		return nil, err
	}
	return &Counterexample{X: x, F: fx, Pattern: s, Piece: -1}, nil
}
