package cpwl

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
)

// ErrTooManyRegions is returned when the enumeration exceeds
// Options.MaxRegions.
var ErrTooManyRegions = errors.New("cpwl: too many linear regions")

// errStop ends an enumeration early (a counterexample was found).
var errStop = errors.New("stop")

// skipRegion, when positive, makes every enumeration drop the skipRegion-th
// full-dimensional region it finds (counting it, never visiting it): the
// mutation the certificate check must catch. Only tests set it.
var skipRegion int

// region is a full-dimensional linear region of a ReLU layer within the
// domain, in hull coordinates: its activation pattern, its constraints
// (the domain's rows and one sign row per non-constant unit) and a point
// strictly inside.
type region struct {
	pattern Pattern
	cons    halfspaces
	z       exact.Vector
}

// enumerator walks the activation patterns of the units w_i z + β_i depth
// first, one unit per level: a node is the set of points of the domain
// where units 1…i have the signs chosen so far, and it is expanded only if
// it is full-dimensional. Each node carries a point strictly inside, so a
// child that contains the point needs no LP. The other child is settled
// first by the node's rows parallel to the unit's hyperplane
// (halfspaces.parallel: units sharing a hyperplane), then by stepping from
// the point across the hyperplane along its normal, and only then by an
// LP, whose "no" is certified. Lower-dimensional nodes are dropped: no
// full-dimensional region lies in them.
type enumerator struct {
	w       []exact.Vector
	beta    []*big.Rat
	visit   func(*region) error
	max     int
	regions int
	lps     *int
}

func (e *enumerator) run(dom halfspaces, z0 exact.Vector) error {
	return e.dfs(0, dom, z0, make(Pattern, len(e.w)))
}

func (e *enumerator) dfs(i int, cons halfspaces, z exact.Vector, s Pattern) error {
	if i == len(e.w) {
		e.regions++
		if e.max > 0 && e.regions > e.max {
			return fmt.Errorf("%w: more than %d", ErrTooManyRegions, e.max)
		}
		if e.regions == skipRegion {
			return nil
		}
		return e.visit(&region{pattern: s.clone(), cons: cons, z: z})
	}
	w, beta := e.w[i], e.beta[i]
	if w.IsZero() {
		// A constant unit has one pattern on the whole domain; at β = 0
		// both patterns give ReLU = 0, and inactive is the one kept.
		s[i] = beta.Sign() > 0
		return e.dfs(i+1, cons, z, s)
	}
	v := dot(w, z)
	v.Add(v, beta)
	// The child that contains z first, so that the search goes deep along
	// points it already has.
	order := []bool{true, false}
	if v.Sign() < 0 {
		order = []bool{false, true}
	}
	for _, active := range order {
		// active: w z + β ≥ 0, i.e. −w z ≤ β; inactive: w z ≤ −β.
		a, b := neg(w), beta
		if !active {
			a, b = w, new(big.Rat).Neg(beta)
		}
		implied, flat := cons.parallel(a, b)
		if flat {
			continue
		}
		child := cons
		if !implied {
			child, _ = cons.with(a, b)
		}
		zc := z
		if (active && v.Sign() <= 0) || (!active && v.Sign() >= 0) {
			var ok bool
			var err error
			zc, ok, err = e.crossing(cons, child, z, w, v, active)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		s[i] = active
		if err := e.dfs(i+1, child, zc, s); err != nil {
			return err
		}
	}
	return nil
}

// crossing returns a point strictly inside child, which is cons cut by the
// unit's halfspace on the side away from z. It first steps from z along
// ±wᵀ (toward the side wanted): the unit's value moves from v at rate
// |w|², crossing 0 at λ₀ = |v|/|w|², and any λ strictly between λ₀ and
// the step limit of cons lands strictly inside child; it takes the
// simplest such λ. When cons ends before the hyperplane, an LP decides.
func (e *enumerator) crossing(cons, child halfspaces, z, w exact.Vector, v *big.Rat, active bool) (exact.Vector, bool, error) {
	d := w
	if !active {
		d = neg(w)
	}
	lambda0 := new(big.Rat).Abs(v)
	lambda0.Quo(lambda0, dot(w, w))
	lim := cons.stepLimit(z, d)
	if lim == nil || lim.Cmp(lambda0) > 0 {
		hi := lim
		if hi == nil {
			hi = new(big.Rat).Add(lambda0, big.NewRat(2, 1))
		}
		zc := axpy(z, simplest(lambda0, hi), d)
		if !child.strictlyInside(zc) {
			return nil, false, fmt.Errorf("cpwl: internal error: step across a hyperplane left the region")
		}
		return zc, true, nil
	}
	return child.interiorPoint(e.lps)
}

// Region is a linear region of a ReLU FFN on a domain: the closure of the
// set of points of the domain where the hidden units have the signs of
// Pattern. Regions lists only the full-dimensional ones (relative to the
// domain's affine hull), which cover the domain.
type Region struct {
	Pattern Pattern
	// Point is a point of the region's relative interior, in ℝ^d.
	Point exact.Vector
	// Map is the affine map that f computes on the region (FFN.RegionMap).
	Map exact.Affine
}

// Regions returns the full-dimensional linear regions of f on the closed
// polyhedron domain, in depth-first order (unit 1 active before inactive,
// except where the search meets the inactive side first). CheckRegions
// re-checks such a list without this search.
func Regions(f *FFN, domain *exact.Polyhedron, opts *Options) ([]Region, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if err := domain.Validate(); err != nil {
		return nil, err
	}
	if domain.Dim != f.In() {
		return nil, fmt.Errorf("cpwl: a domain in ℝ^%d for an FFN on ℝ^%d", domain.Dim, f.In())
	}
	fr, err := newFrame(domain)
	if err != nil {
		return nil, err
	}
	l, err := fr.layer(f)
	if err != nil {
		return nil, err
	}
	var out []Region
	e := &enumerator{w: rowsOf(l.w1), beta: l.b1, max: opts.maxRegions(), lps: &fr.lps}
	e.visit = func(r *region) error {
		x, err := fr.point(r.z)
		if err != nil {
			return err
		}
		m, err := f.RegionMap(r.pattern)
		if err != nil {
			return err
		}
		out = append(out, Region{Pattern: r.pattern, Point: x, Map: m})
		return nil
	}
	if err := e.run(fr.dom, fr.z0); err != nil {
		return nil, err
	}
	return out, nil
}

func rowsOf(m exact.Matrix) []exact.Vector {
	rows := make([]exact.Vector, m.Rows)
	for i := range rows {
		rows[i] = m.Row(i)
	}
	return rows
}
