package proofs

import (
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// loseRegion puts in place of the decision procedure one whose
// enumeration loses a linear region, as a review's mutation of exact/cpwl
// did: an equal verdict comes back without the cells of its first region
// (fewer cells compared, the verdict unchanged), and Regions without its
// first region. It returns the count of answers spoiled.
func loseRegion(t *testing.T) *atomic.Int64 {
	v, e, r := cpwlVerify, cpwlEquivalent, cpwlRegions
	t.Cleanup(func() { cpwlVerify, cpwlEquivalent, cpwlRegions = v, e, r })
	var lost atomic.Int64
	drop := func(res *cpwl.Result) {
		if res.Verdict != cpwl.Equal || len(res.Certificate.Cells) == 0 {
			return
		}
		first := res.Certificate.Cells[0]
		kept := slices.DeleteFunc(slices.Clone(res.Certificate.Cells), func(c cpwl.CertCell) bool {
			return c.Pattern.String() == first.Pattern.String() && c.PatternG.String() == first.PatternG.String()
		})
		res.Cells -= len(res.Certificate.Cells) - len(kept)
		res.Certificate = &cpwl.Certificate{Cells: kept}
		lost.Add(1)
	}
	cpwlVerify = func(f *cpwl.FFN, d *exact.Polyhedron, p []cpwl.Piece, o *cpwl.Options) (*cpwl.Result, error) {
		res, err := v(f, d, p, o)
		if err == nil {
			drop(res)
		}
		return res, err
	}
	cpwlEquivalent = func(f, g *cpwl.FFN, d *exact.Polyhedron, o *cpwl.Options) (*cpwl.Result, error) {
		res, err := e(f, g, d, o)
		if err == nil {
			drop(res)
		}
		return res, err
	}
	cpwlRegions = func(f *cpwl.FFN, d *exact.Polyhedron, o *cpwl.Options) ([]cpwl.Region, error) {
		rs, err := r(f, d, o)
		if err == nil && len(rs) > 0 {
			rs = rs[1:]
			lost.Add(1)
		}
		return rs, err
	}
	return &lost
}

// TestLostRegionProvesNothing runs every claim whose evidence rests on a
// checked certificate (those docs/claims.md, kept current by
// TestLongVerdicts, says so of) with an enumeration that loses a region: not
// one may still be PROVED.
func TestLostRegionProvesNothing(t *testing.T) {
	b, err := os.ReadFile("../docs/claims.md")
	if err != nil {
		t.Fatal(err)
	}
	var claims []*Claim
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, "checked independently of the enumeration") {
			continue
		}
		// The row starts "| <a id="ID"></a>`ID` |".
		_, rest, _ := strings.Cut(line, "`")
		id, _, _ := strings.Cut(rest, "`")
		c, err := Get(id)
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, c)
	}
	// The claims the review's mutation left PROVED, among them.
	for _, id := range []string{"ffn.min.exact", "ffn.identity.vector", "ffn.cpwl.exact", "ln.ffn.homogeneous", "repr.bool.zero-one.ops", "round.error.residual"} {
		if !slices.ContainsFunc(claims, func(c *Claim) bool { return c.ID == id }) {
			t.Errorf("%s does not rest on a checked certificate", id)
		}
	}
	lost := loseRegion(t)
	for _, r := range CheckAll(claims) {
		if r.Err == nil && r.Evidence.Verdict == Proved {
			t.Errorf("%s: still PROVED with a region lost: %s", r.Claim.ID, r.Evidence.Summary)
		}
	}
	if lost.Load() < int64(len(claims)) {
		t.Errorf("%d answers spoiled for %d claims: the faulty enumeration was not used", lost.Load(), len(claims))
	}
}

// TestCertificateFailureIsNoProof: an equal answer whose certificate
// fails its check is an error, and an unchecked one is never worded as a
// proof.
func TestCertificateFailureIsNoProof(t *testing.T) {
	minFFN, err := ffnOf(blocks.Min("x", "y", "m"))
	if err != nil {
		t.Fatal(err)
	}
	pieces := []cpwl.Piece{
		piece(halfspaces(2, ffRow("1", "-1", "0")), affine(ffRows(ffRow("1", "0")))),
		piece(halfspaces(2, ffRow("-1", "1", "0")), affine(ffRows(ffRow("0", "1")))),
	}
	res, rep, err := decideVerify(minFFN, space(2), pieces)
	if err != nil || res.Verdict != cpwl.Equal || rep == nil || rep.Cells != 4 {
		t.Fatalf("min: %v, report %+v, %v", res, rep, err)
	}
	ev, err := cpwlEvidence(res, rep, []string{"x", "y"}, []string{"m"})
	if err != nil || ev.Verdict != Proved || !strings.Contains(ev.Summary, "4 cells, covering the domain") {
		t.Errorf("honest min: %+v, %v", ev, err)
	}
	res.Certificate.Cells = res.Certificate.Cells[1:]
	if _, err := checkCertificate(res, func(c *cpwl.Certificate) (*cpwl.Report, error) {
		return cpwl.CheckVerify(minFFN, space(2), pieces, c)
	}); err == nil || !cpwl.IsCertificateError(err) {
		t.Errorf("a certificate missing a cell: %v, want its rejection", err)
	}
	if ev, err := cpwlEvidence(res, nil, []string{"x", "y"}, []string{"m"}); err == nil {
		t.Errorf("an unchecked equal answer gave %+v", ev)
	}
}
