package proofs

import (
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

// TestCertificateFailureIsNoProof: an equal answer whose certificate
// fails its check is an error, and an unchecked one is never worded as a
// proof.
func TestCertificateFailureIsNoProof(t *testing.T) {
	minFFN, err := FFNOf(blocks.Min("x", "y", "m"))
	if err != nil {
		t.Fatal(err)
	}
	pieces := []cpwl.Piece{
		Piece(Halfspaces(2, Row("1", "-1", "0")), Affine(Rows(Row("1", "0")))),
		Piece(Halfspaces(2, Row("-1", "1", "0")), Affine(Rows(Row("0", "1")))),
	}
	res, rep, err := DecideVerify(minFFN, Space(2), pieces)
	if err != nil || res.Verdict != cpwl.Equal || rep == nil || rep.Cells != 4 {
		t.Fatalf("min: %v, report %+v, %v", res, rep, err)
	}
	ev, err := CPWLEvidence(res, rep, []string{"x", "y"}, []string{"m"})
	if err != nil || ev.Verdict != Proved || !strings.Contains(ev.Summary, "4 cells, covering the domain") {
		t.Errorf("honest min: %+v, %v", ev, err)
	}
	res.Certificate.Cells = res.Certificate.Cells[1:]
	if _, err := CheckCertificate(res, func(c *cpwl.Certificate) (*cpwl.Report, error) {
		return cpwl.CheckVerify(minFFN, Space(2), pieces, c)
	}); err == nil || !cpwl.IsCertificateError(err) {
		t.Errorf("a certificate missing a cell: %v, want its rejection", err)
	}
	if ev, err := CPWLEvidence(res, nil, []string{"x", "y"}, []string{"m"}); err == nil {
		t.Errorf("an unchecked equal answer gave %+v", ev)
	}
}
