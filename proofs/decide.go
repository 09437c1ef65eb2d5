package proofs

import (
	"fmt"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// FFNOf is a feed-forward block as an FFN over its own inputs and
// outputs (the block before routing): every weight must be rational.
func FFNOf(f *stream.FF) (*cpwl.FFN, error) {
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
	return FFNFromModel(&model.FeedForward{W1: f.W1, B1: b1, W2: f.W2, B2: b2, Activation: model.ReLU})
}

// The decision procedure's entry points, as variables so that a test can
// put a faulty enumeration in their place (one that loses a linear
// region) and see that no proof survives it.
var (
	cpwlVerify     = cpwl.Verify
	cpwlEquivalent = cpwl.Equivalent
	cpwlRegions    = cpwl.Regions
)

// Regions is cpwl.Regions through its variable, for checkers that count
// the linear regions of a network without a certificate to check.
func Regions(f *cpwl.FFN, domain *exact.Polyhedron, opts *cpwl.Options) ([]cpwl.Region, error) {
	return cpwlRegions(f, domain, opts)
}

// DecideVerify runs cpwl.Verify and, when it answers equal, checks the
// answer's certificate with cpwl.CheckVerify, which re-derives every
// cell from the network, the domain and the pieces and decides the cover
// by its own LPs, without the enumeration. A certificate that fails is an
// error (the engine is wrong), never a proof; the report is nil unless
// the verdict is equal.
func DecideVerify(f *cpwl.FFN, domain *exact.Polyhedron, pieces []cpwl.Piece) (*cpwl.Result, *cpwl.Report, error) {
	res, err := cpwlVerify(f, domain, pieces, &cpwl.Options{Explain: true})
	if err != nil {
		return nil, nil, err
	}
	rep, err := CheckCertificate(res, func(c *cpwl.Certificate) (*cpwl.Report, error) {
		return cpwl.CheckVerify(f, domain, pieces, c)
	})
	return res, rep, err
}

// DecideEquivalent is DecideVerify for two networks.
func DecideEquivalent(f, g *cpwl.FFN, domain *exact.Polyhedron) (*cpwl.Result, *cpwl.Report, error) {
	res, err := cpwlEquivalent(f, g, domain, &cpwl.Options{Explain: true})
	if err != nil {
		return nil, nil, err
	}
	rep, err := CheckCertificate(res, func(c *cpwl.Certificate) (*cpwl.Report, error) {
		return cpwl.CheckEquivalent(f, g, domain, c)
	})
	return res, rep, err
}

// CheckCertificate checks the certificate of an equal answer with
// check; a certificate that fails is an error, never a proof.
func CheckCertificate(res *cpwl.Result, check func(*cpwl.Certificate) (*cpwl.Report, error)) (*cpwl.Report, error) {
	if res.Verdict != cpwl.Equal {
		return nil, nil
	}
	rep, err := check(res.Certificate)
	if err != nil {
		return nil, fmt.Errorf("the decision procedure answered equal, but its certificate fails the independent check: %w", err)
	}
	return rep, nil
}

// CheckedRegions returns f's linear regions on domain after checking them
// with cpwl.CheckRegions (their maps are f's, and they cover the domain),
// so that what holds on every region holds on the domain.
func CheckedRegions(f *cpwl.FFN, domain *exact.Polyhedron, opts *cpwl.Options) ([]cpwl.Region, *cpwl.Report, error) {
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

// CertTally adds up the independent checks that a piece of evidence
// rests on.
type CertTally struct{ checks, cells, lps int }

// Add counts the certificate checks of one report.
func (t *CertTally) Add(r *cpwl.Report) {
	if r != nil {
		t.checks++
		t.cells += r.Cells
		t.lps += r.LPs
	}
}

// AddAll adds the counts of another tally.
func (t *CertTally) AddAll(u CertTally) {
	t.checks += u.checks
	t.cells += u.cells
	t.lps += u.lps
}

// Note says what was checked, in the evidence's words.
func (t CertTally) Note() string {
	if t.checks == 1 {
		return fmt.Sprintf("certificate checked independently of the enumeration: %s, covering the domain, the maps agreeing on each (%s)", plural.Of(t.cells, "cell"), plural.Of(t.lps, "exact LP"))
	}
	return fmt.Sprintf("%d certificates checked independently of the enumeration: %s, covering the domains, the maps agreeing on each (%s)", t.checks, plural.Of(t.cells, "cell"), plural.Of(t.lps, "exact LP"))
}

// RegionsNote is note's wording for checked lists of linear regions,
// whose maps are f's by definition rather than compared with a
// reference.
func (t CertTally) RegionsNote() string {
	return fmt.Sprintf("the regions' cover of ℝ^d and their maps checked independently of the enumeration (%s)", plural.Of(t.lps, "exact LP"))
}

// ProveFFN decides whether the block f equals the CPWL reference given by
// pieces on domain: PROVED, or REFUTED with the exact counterexample.
func ProveFFN(f *stream.FF, domain *exact.Polyhedron, pieces []cpwl.Piece) (*Evidence, error) {
	g, err := FFNOf(f)
	if err != nil {
		return nil, err
	}
	res, rep, err := DecideVerify(g, domain, pieces)
	if err != nil {
		return nil, err
	}
	return CPWLEvidence(res, rep, f.In, f.Out)
}

// ProveEquivalent decides whether two blocks over the same inputs compute
// the same function on domain.
func ProveEquivalent(f, g *stream.FF, domain *exact.Polyhedron) (*Evidence, error) {
	a, err := FFNOf(f)
	if err != nil {
		return nil, err
	}
	b, err := FFNOf(g)
	if err != nil {
		return nil, err
	}
	res, rep, err := DecideEquivalent(a, b, domain)
	if err != nil {
		return nil, err
	}
	return CPWLEvidence(res, rep, f.In, f.Out)
}

// CPWLEvidence words a decision; rep is the check of an equal verdict's
// certificate, without which the verdict is not a proof (an error).
func CPWLEvidence(res *cpwl.Result, rep *cpwl.Report, in, out []string) (*Evidence, error) {
	switch res.Verdict {
	case cpwl.Equal:
		if rep == nil {
			return nil, fmt.Errorf("the decision procedure answered equal, but its certificate was not checked")
		}
		ev := &Evidence{Verdict: Proved}
		ev.Cert.Add(rep)
		ev.Summary = fmt.Sprintf("on the whole domain: %s, %s compared exactly (exact LP); %s", plural.Of(res.Regions, "linear region"), plural.Of(res.Cells, "cell"), ev.Cert.Note())
		for _, c := range res.Explained {
			ev.Explain = append(ev.Explain, fmt.Sprintf("cell: activation pattern %v, reference piece %d, dimension %d, interior point %s", c.Pattern, c.Piece+1, c.Dim, Point(in, c.Point)))
		}
		return ev, nil
	case cpwl.Differ:
		ce := res.Counterexample
		s := fmt.Sprintf("at %s the FFN gives %s, the reference %s", Point(in, ce.X), Point(out, ce.F), Point(out, ce.G))
		return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{"counterexample (exact): " + s,
			fmt.Sprintf("activation pattern there: %v", ce.Pattern)}}, nil
	}
	s := fmt.Sprintf("the reference's pieces miss %s", Point(in, res.Gap))
	return &Evidence{Verdict: Refuted, Summary: s, Explain: []string{s}}, nil
}

// ---------------------------------------------------------------------
// Deciding blocks case by case, and writing rationals: the helpers of the
// §Feed-Forward Layers claims (ffn_*.go), shared with other chapters.
