package cpwl

import (
	"errors"
	"fmt"

	"github.com/transformer-cookbook/verify/exact"
)

// Equivalent decides whether the ReLU FFNs f and g are equal on the closed
// polyhedron domain. It enumerates the common refinement of their linear
// regions, the regions of the network whose hidden layer stacks f's units
// on g's (the pair of activation patterns), and compares f's and g's
// affine maps on each; the argument is Verify's with one piece per
// region. Verdicts are Equal or Differ (never Uncovered).
func Equivalent(f, g *FFN, domain *exact.Polyhedron, opts *Options) (*Result, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if err := domain.Validate(); err != nil {
		return nil, fmt.Errorf("cpwl: domain: %w", err)
	}
	if f.In() != g.In() || f.Out() != g.Out() {
		return nil, fmt.Errorf("cpwl: comparing an FFN ℝ^%d → ℝ^%d with one ℝ^%d → ℝ^%d", f.In(), f.Out(), g.In(), g.Out())
	}
	if domain.Dim != f.In() {
		return nil, fmt.Errorf("cpwl: a domain in ℝ^%d for FFNs on ℝ^%d", domain.Dim, f.In())
	}
	fr, err := newFrame(domain)
	if err != nil {
		return nil, err
	}
	lf, err := fr.layer(f)
	if err != nil {
		return nil, err
	}
	lg, err := fr.layer(g)
	if err != nil {
		return nil, err
	}
	res := &Result{Dim: fr.k()}
	cert := &Certificate{}
	hf := f.Hidden()
	e := &enumerator{
		w:    append(rowsOf(lf.w1), rowsOf(lg.w1)...),
		beta: append(append(exact.Vector(nil), lf.b1...), lg.b1...),
		max:  opts.maxRegions(),
		lps:  &fr.lps,
	}
	e.visit = func(reg *region) error {
		sf, sg := reg.pattern[:hf], reg.pattern[hf:]
		fm, gm := lf.regionMap(sf), lg.regionMap(sg)
		res.Cells++
		cert.Cells = append(cert.Cells, CertCell{Pattern: sf, PatternG: sg, Piece: -1})
		if opts.explain() {
			x, err := fr.point(reg.z)
			if err != nil {
				return err
			}
			res.Explained = append(res.Explained, Cell{Pattern: sf, PatternG: sg, Piece: -1, Dim: fr.k(), Point: x})
		}
		if fm.Equal(gm) {
			return nil
		}
		z, err := separate(reg.cons, reg.z, fm, gm)
		if err != nil {
			return err
		}
		x, err := fr.point(z)
		if err != nil {
			return err
		}
		ce, err := counterexample(f, domain, x)
		if err != nil {
			return err
		}
		if ce.G, err = g.Eval(x); err != nil {
			return err
		}
		if ce.PatternG, err = g.PatternAt(x); err != nil {
			return err
		}
		if ce.F.Equal(ce.G) {
			return fmt.Errorf("cpwl: internal error: f and g agree at the counterexample %v", x)
		}
		res.Verdict, res.Counterexample = Differ, ce
		return errStop
	}
	err = e.run(fr.dom, fr.z0)
	res.Regions, res.LPs = e.regions, fr.lps
	if errors.Is(err, errStop) {
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	res.Verdict, res.Certificate = Equal, cert
	return res, nil
}
