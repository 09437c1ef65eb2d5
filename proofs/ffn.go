package proofs

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/internal/plural"
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

// The decision procedure's entry points, as variables so that a test can
// put a faulty enumeration in their place (one that loses a linear
// region) and see that no proof survives it.
var (
	cpwlVerify     = cpwl.Verify
	cpwlEquivalent = cpwl.Equivalent
	cpwlRegions    = cpwl.Regions
)

// decideVerify runs cpwl.Verify and, when it answers equal, checks the
// answer's certificate with cpwl.CheckVerify, which re-derives every
// cell from the network, the domain and the pieces and decides the cover
// by its own LPs, without the enumeration. A certificate that fails is an
// error (the engine is wrong), never a proof; the report is nil unless
// the verdict is equal.
func decideVerify(f *cpwl.FFN, domain *exact.Polyhedron, pieces []cpwl.Piece) (*cpwl.Result, *cpwl.Report, error) {
	res, err := cpwlVerify(f, domain, pieces, &cpwl.Options{Explain: true})
	if err != nil {
		return nil, nil, err
	}
	rep, err := checkCertificate(res, func(c *cpwl.Certificate) (*cpwl.Report, error) {
		return cpwl.CheckVerify(f, domain, pieces, c)
	})
	return res, rep, err
}

// decideEquivalent is decideVerify for two networks.
func decideEquivalent(f, g *cpwl.FFN, domain *exact.Polyhedron) (*cpwl.Result, *cpwl.Report, error) {
	res, err := cpwlEquivalent(f, g, domain, &cpwl.Options{Explain: true})
	if err != nil {
		return nil, nil, err
	}
	rep, err := checkCertificate(res, func(c *cpwl.Certificate) (*cpwl.Report, error) {
		return cpwl.CheckEquivalent(f, g, domain, c)
	})
	return res, rep, err
}

func checkCertificate(res *cpwl.Result, check func(*cpwl.Certificate) (*cpwl.Report, error)) (*cpwl.Report, error) {
	if res.Verdict != cpwl.Equal {
		return nil, nil
	}
	rep, err := check(res.Certificate)
	if err != nil {
		return nil, fmt.Errorf("the decision procedure answered equal, but its certificate fails the independent check: %w", err)
	}
	return rep, nil
}

// checkedRegions returns f's linear regions on domain after checking them
// with cpwl.CheckRegions (their maps are f's, and they cover the domain),
// so that what holds on every region holds on the domain.
func checkedRegions(f *cpwl.FFN, domain *exact.Polyhedron, opts *cpwl.Options) ([]cpwl.Region, *cpwl.Report, error) {
	rs, err := cpwlRegions(f, domain, opts)
	if err != nil {
		return nil, nil, err
	}
	rep, err := cpwl.CheckRegions(f, domain, rs)
	if err != nil {
		return nil, nil, fmt.Errorf("the linear regions fail the independent check: %w", err)
	}
	return rs, rep, nil
}

// certTally adds up the independent checks that a piece of evidence
// rests on.
type certTally struct{ checks, cells, lps int }

func (t *certTally) add(r *cpwl.Report) {
	if r != nil {
		t.checks++
		t.cells += r.Cells
		t.lps += r.LPs
	}
}

func (t *certTally) addAll(u certTally) {
	t.checks += u.checks
	t.cells += u.cells
	t.lps += u.lps
}

// note says what was checked, in the evidence's words.
func (t certTally) note() string {
	if t.checks == 1 {
		return fmt.Sprintf("certificate checked independently of the enumeration: %s, covering the domain, the maps agreeing on each (%s)", plural.Of(t.cells, "cell"), plural.Of(t.lps, "exact LP"))
	}
	return fmt.Sprintf("%d certificates checked independently of the enumeration: %s, covering the domains, the maps agreeing on each (%s)", t.checks, plural.Of(t.cells, "cell"), plural.Of(t.lps, "exact LP"))
}

// regionsNote is note's wording for checked lists of linear regions,
// whose maps are f's by definition rather than compared with a
// reference.
func (t certTally) regionsNote() string {
	return fmt.Sprintf("the regions' cover of ℝ^d and their maps checked independently of the enumeration (%s)", plural.Of(t.lps, "exact LP"))
}

// proveFFN decides whether the block f equals the CPWL reference given by
// pieces on domain: PROVED, or REFUTED with the exact counterexample.
func proveFFN(f *stream.FF, domain *exact.Polyhedron, pieces []cpwl.Piece) (*Evidence, error) {
	g, err := ffnOf(f)
	if err != nil {
		return nil, err
	}
	res, rep, err := decideVerify(g, domain, pieces)
	if err != nil {
		return nil, err
	}
	return cpwlEvidence(res, rep, f.In, f.Out)
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
	res, rep, err := decideEquivalent(a, b, domain)
	if err != nil {
		return nil, err
	}
	return cpwlEvidence(res, rep, f.In, f.Out)
}

// cpwlEvidence words a decision; rep is the check of an equal verdict's
// certificate, without which the verdict is not a proof (an error).
func cpwlEvidence(res *cpwl.Result, rep *cpwl.Report, in, out []string) (*Evidence, error) {
	switch res.Verdict {
	case cpwl.Equal:
		if rep == nil {
			return nil, fmt.Errorf("the decision procedure answered equal, but its certificate was not checked")
		}
		ev := &Evidence{Verdict: Proved}
		ev.cert.add(rep)
		ev.Summary = fmt.Sprintf("on the whole domain: %s, %s compared exactly (exact LP); %s", plural.Of(res.Regions, "linear region"), plural.Of(res.Cells, "cell"), ev.cert.note())
		for _, c := range res.Explained {
			ev.Explain = append(ev.Explain, fmt.Sprintf("cell: activation pattern %v, reference piece %d, dimension %d, interior point %s", c.Pattern, c.Piece+1, c.Dim, point(in, c.Point)))
		}
		return ev, nil
	case cpwl.Differ:
		ce := res.Counterexample
		s := fmt.Sprintf("at %s the FFN gives %s, the reference %s", point(in, ce.X), point(out, ce.F), point(out, ce.G))
		return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{"counterexample (exact): " + s,
			fmt.Sprintf("activation pattern there: %v", ce.Pattern)}}, nil
	}
	s := fmt.Sprintf("the reference's pieces miss %s", point(in, res.Gap))
	return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
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

// ---------------------------------------------------------------------
// Deciding blocks case by case, and writing rationals: the helpers of the
// §Feed-Forward Layers claims (ffn_*.go), shared with other chapters.

// proveAt proves a fixed-ε block for several ε, each on all of ℝ.
func proveAt(epsilons []string, build func(eps *big.Rat) *stream.FF, pieces func(eps *big.Rat) []cpwl.Piece) func() (*Evidence, error) {
	return func() (*Evidence, error) {
		var cases []ffnCase
		for _, e := range epsilons {
			eps := q(e)
			cases = append(cases, ffnCase{label: "ε = " + e, f: build(eps), domain: space(1), pieces: pieces(eps)})
		}
		return ffProveCases(cases)
	}
}

func joinComma(xs []string) string { return strings.Join(xs, ", ") }

// ffnCase is one decision of the procedure: the block f against the
// reference pieces, or against the block g when pieces is nil, on domain.
type ffnCase struct {
	label  string
	f      *stream.FF
	domain *exact.Polyhedron
	pieces []cpwl.Piece
	g      *stream.FF
}

func (c ffnCase) decide() (*cpwl.Result, *cpwl.Report, error) {
	f, err := ffnOf(c.f)
	if err != nil {
		return nil, nil, err
	}
	if c.pieces == nil {
		g, err := ffnOf(c.g)
		if err != nil {
			return nil, nil, err
		}
		return decideEquivalent(f, g, c.domain)
	}
	return decideVerify(f, c.domain, c.pieces)
}

// ffProveCases decides every case: PROVED when each is, else the first
// counterexample (or uncovered point), labelled with its case.
func ffProveCases(cases []ffnCase) (*Evidence, error) {
	var parts, explain []string
	cells := 0
	var cert certTally
	for _, c := range cases {
		res, rep, err := c.decide()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.label, err)
		}
		ev, err := cpwlEvidence(res, rep, c.f.In, c.f.Out)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.label, err)
		}
		if ev.Verdict != Proved {
			if c.label != "" {
				ev.Summary = c.label + ": " + ev.Summary
			}
			return ev, nil
		}
		if len(cases) == 1 {
			return ev, nil
		}
		cells += res.Cells
		cert.addAll(ev.cert)
		parts = append(parts, fmt.Sprintf("%s (%s)", c.label, plural.Of(res.Regions, "region")))
		for _, e := range ev.Explain {
			explain = append(explain, c.label+": "+e)
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("on the whole domain of every case: %s; %s compared exactly (exact LP); %s",
		joinComma(parts), plural.Of(cells, "cell"), cert.note()), Explain: explain, cert: cert}, nil
}

// ffExpectDiffer turns a refutation into the proof of a negative claim ("the
// bound is needed", "not exact"): PROVED with the counterexample when the
// procedure finds one, REFUTED when the block turns out equal after all.
func ffExpectDiffer(c ffnCase, what string) (*Evidence, error) {
	res, rep, err := c.decide()
	if err != nil {
		return nil, err
	}
	ev, err := cpwlEvidence(res, rep, c.f.In, c.f.Out)
	if err != nil {
		return nil, err
	}
	if ev.Verdict == Proved {
		return &Evidence{Verdict: Refuted, Summary: c.label + ": the block equals the reference on the whole domain after all (" + ev.Summary + ")", Explain: ev.Explain}, nil
	}
	return &Evidence{Verdict: Proved, Summary: what + ": " + ev.Summary + " (exact)", Explain: ev.Explain}, nil
}

// interval is the closed interval {x : lo ≤ x ≤ hi} of ℝ ("" for an
// unbounded end).
func ffInterval(lo, hi string) *exact.Polyhedron {
	var rs [][]string
	if lo != "" {
		rs = append(rs, []string{"-1", ffNeg(lo)})
	}
	if hi != "" {
		rs = append(rs, []string{"1", hi})
	}
	return halfspaces(1, rs...)
}

// line is x ↦ a x + b on ℝ.
func ffLine(a, b string) exact.Affine { return affine([][]string{{a}}, b) }

func ffNeg(s string) string { return new(big.Rat).Neg(q(s)).RatString() }

func ffRat(r *big.Rat) string { return r.RatString() }

// rows and row write matrices for affine and halfspaces.
func ffRows(rs ...[]string) [][]string { return rs }
func ffRow(xs ...string) []string      { return xs }

func ffNames(prefix string, d int) []string {
	xs := make([]string, d)
	for k := range xs {
		xs[k] = fmt.Sprintf("%s%d", prefix, k+1)
	}
	return xs
}
