package proofs

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ffnOf is a feed-forward block as an FFN over its own inputs and
// outputs (the block before routing): every weight must be rational.
func ffnOf(f *stream.FF) (*cpwl.FFN, error) {
	if f.Activation != model.ReLU {
		return nil, fmt.Errorf("%s: the decision procedure covers ReLU FFNs, not %s", f.Name, f.Activation)
	}
	b1, b2 := f.B1, f.B2
	if b1 == nil {
		b1 = make(model.Vector, f.W1.Rows)
	}
	if b2 == nil {
		b2 = make(model.Vector, f.W2.Rows)
	}
	return ffnFromModel(&model.FeedForward{W1: f.W1, B1: b1, W2: f.W2, B2: b2, Activation: model.ReLU})
}

// proveFFN decides whether the block f equals the CPWL reference given by
// pieces on domain: PROVED, or REFUTED with the exact counterexample.
func proveFFN(f *stream.FF, domain *exact.Polyhedron, pieces []cpwl.Piece) (*Evidence, error) {
	g, err := ffnOf(f)
	if err != nil {
		return nil, err
	}
	res, err := cpwl.Verify(g, domain, pieces, &cpwl.Options{Explain: true})
	if err != nil {
		return nil, err
	}
	return cpwlEvidence(res, f.In, f.Out), nil
}

// proveEquivalent decides whether two blocks over the same inputs compute
// the same function on domain.
func proveEquivalent(f, g *stream.FF, domain *exact.Polyhedron) (*Evidence, error) {
	a, err := ffnOf(f)
	if err != nil {
		return nil, err
	}
	b, err := ffnOf(g)
	if err != nil {
		return nil, err
	}
	res, err := cpwl.Equivalent(a, b, domain, &cpwl.Options{Explain: true})
	if err != nil {
		return nil, err
	}
	return cpwlEvidence(res, f.In, f.Out), nil
}

func cpwlEvidence(res *cpwl.Result, in, out []string) *Evidence {
	switch res.Verdict {
	case cpwl.Equal:
		ev := &Evidence{Verdict: Proved, Summary: fmt.Sprintf("on the whole domain: %d linear regions, %d cells compared exactly (exact LP)", res.Regions, res.Cells)}
		for _, c := range res.Explained {
			ev.Explain = append(ev.Explain, fmt.Sprintf("cell: activation pattern %v, reference piece %d, dimension %d, interior point %s", c.Pattern, c.Piece+1, c.Dim, point(in, c.Point)))
		}
		return ev
	case cpwl.Differ:
		ce := res.Counterexample
		s := fmt.Sprintf("at %s the FFN gives %s, the reference %s", point(in, ce.X), point(out, ce.F), point(out, ce.G))
		return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{"counterexample (exact): " + s,
			fmt.Sprintf("activation pattern there: %v", ce.Pattern)}}
	}
	s := fmt.Sprintf("the reference's pieces miss %s", point(in, res.Gap))
	return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}
}

// point prints a vector with its components' names: (x = 1/2, y = −3).
func point(names []string, v exact.Vector) string {
	parts := make([]string, len(v))
	for k, x := range v {
		name := fmt.Sprintf("x%d", k+1)
		if k < len(names) {
			name = names[k]
		}
		parts[k] = name + " = " + x.RatString()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// space is ℝ^d as a polyhedron.
func space(d int) *exact.Polyhedron {
	return &exact.Polyhedron{Dim: d, A: exact.NewMatrix(0, d), B: exact.NewVector(0)}
}

// halfspaces is {x ∈ ℝ^d : a_r·x ≤ b_r} for rows (a_r, b_r) written as
// d+1 rationals "a1 … ad b".
func halfspaces(d int, rows ...[]string) *exact.Polyhedron {
	p := &exact.Polyhedron{Dim: d, A: exact.NewMatrix(len(rows), d), B: exact.NewVector(len(rows))}
	for r, row := range rows {
		if len(row) != d+1 {
			panic(fmt.Sprintf("proofs: halfspace row %v for dimension %d", row, d))
		}
		for k := 0; k < d; k++ {
			p.A.Set(r, k, q(row[k]))
		}
		p.B[r] = q(row[d])
	}
	return p
}

// affine is x ↦ A x + c with A given by rows of rationals.
func affine(rows [][]string, c ...string) exact.Affine {
	d := 0
	if len(rows) > 0 {
		d = len(rows[0])
	}
	a := exact.NewMatrix(len(rows), d)
	for r, row := range rows {
		for k, x := range row {
			a.Set(r, k, q(x))
		}
	}
	v := exact.NewVector(len(rows))
	for r := range v {
		v[r] = new(big.Rat)
		if r < len(c) {
			v[r] = q(c[r])
		}
	}
	return exact.Affine{A: a, C: v}
}

// piece is the piece of a CPWL reference on the polyhedron p with map f.
func piece(p *exact.Polyhedron, f exact.Affine) cpwl.Piece { return cpwl.Piece{Domain: p, Map: f} }

// q parses a rational written like "-3/7"; the claims' own constants.
func q(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("proofs: bad rational " + s)
	}
	return r
}
