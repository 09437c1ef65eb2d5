package cpwl

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/transformer-cookbook/verify/exact"
)

// TestCoverByHand decides covers whose answer is worked out by hand; for
// each gap, the point must lie in the domain, in no cell, and where the
// hand derivation says the gap is.
func TestCoverByHand(t *testing.T) {
	x0 := func(lo, hi string) func(exact.Vector) bool { // lo < x₁ < hi
		return func(g exact.Vector) bool { return g[0].Cmp(rat(t, lo)) > 0 && g[0].Cmp(rat(t, hi)) < 0 }
	}
	tests := []struct {
		name   string
		domain *exact.Polyhedron
		cells  []*exact.Polyhedron
		want   bool
		where  func(exact.Vector) bool // the gap's region, by hand
	}{
		{name: "closed half-lines meeting at 0 cover ℝ", domain: poly(t, 1),
			cells: []*exact.Polyhedron{poly(t, 1, "1 <= 0"), poly(t, 1, "1 >= 0")}, want: true},
		{name: "x ≤ −1 and x ≥ 0 leave (−1, 0)", domain: poly(t, 1),
			cells: []*exact.Polyhedron{poly(t, 1, "1 <= -1"), poly(t, 1, "1 >= 0")}, where: x0("-1", "0")},
		{name: "two closed half-planes cover ℝ²", domain: poly(t, 2),
			cells: []*exact.Polyhedron{poly(t, 2, "1 1 <= 0"), poly(t, 2, "1 1 >= 0")}, want: true},
		{name: "two half-planes leave a strip", domain: poly(t, 2),
			cells: []*exact.Polyhedron{poly(t, 2, "1 0 <= -1"), poly(t, 2, "1 0 >= 0")}, where: x0("-1", "0")},
		{name: "four closed quadrants cover ℝ²", domain: poly(t, 2),
			cells: []*exact.Polyhedron{
				poly(t, 2, "1 0 >= 0", "0 1 >= 0"), poly(t, 2, "1 0 <= 0", "0 1 >= 0"),
				poly(t, 2, "1 0 <= 0", "0 1 <= 0"), poly(t, 2, "1 0 >= 0", "0 1 <= 0")},
			want: true},
		{name: "three quadrants miss the open fourth", domain: poly(t, 2),
			cells: []*exact.Polyhedron{
				poly(t, 2, "1 0 >= 0", "0 1 >= 0"), poly(t, 2, "1 0 <= 0", "0 1 >= 0"), poly(t, 2, "1 0 <= 0", "0 1 <= 0")},
			where: func(g exact.Vector) bool { return g[0].Sign() > 0 && g[1].Sign() < 0 }},
		{name: "overlapping halves cover a triangle", domain: poly(t, 2, "1 0 >= 0", "0 1 >= 0", "1 1 <= 2"),
			cells: []*exact.Polyhedron{poly(t, 2, "1 0 <= 1"), poly(t, 2, "1 0 >= 1/2")}, want: true},
		{name: "a cell given by an equality closes the gap at one point", domain: poly(t, 1),
			cells: []*exact.Polyhedron{poly(t, 1, "1 <= 0"), poly(t, 1, "1 = 0"), poly(t, 1, "1 >= 0")}, want: true},
		{name: "an equality cell does not close an interval", domain: poly(t, 1),
			cells: []*exact.Polyhedron{poly(t, 1, "1 <= 0"), poly(t, 1, "1 = 1/2"), poly(t, 1, "1 >= 1")},
			where: func(g exact.Vector) bool { return g[0].Sign() > 0 && g[0].Cmp(r(1, 1)) < 0 && g[0].Cmp(r(1, 2)) != 0 }},
		// A domain of measure zero in ℝ²: the line x = 0.
		{name: "the line x = 0 in neither of two half-planes", domain: poly(t, 2, "1 0 = 0"),
			cells: []*exact.Polyhedron{poly(t, 2, "1 0 <= -1"), poly(t, 2, "1 0 >= 1")},
			where: func(g exact.Vector) bool { return g[0].Sign() == 0 }},
		{name: "the line x = 0 covered by two closed rays", domain: poly(t, 2, "1 0 = 0"),
			cells: []*exact.Polyhedron{poly(t, 2, "0 1 <= 0"), poly(t, 2, "0 1 >= 0")}, want: true},
		{name: "the line x = 0 with a gap between two rays", domain: poly(t, 2, "1 0 = 0"),
			cells: []*exact.Polyhedron{poly(t, 2, "0 1 <= 0"), poly(t, 2, "1 0 >= 0", "0 1 >= 1")},
			where: func(g exact.Vector) bool { return g[0].Sign() == 0 && g[1].Sign() > 0 && g[1].Cmp(r(1, 1)) < 0 }},
		// The same segment pinned by two inequalities, not an equality.
		{name: "a segment pinned by inequalities, with a gap", domain: poly(t, 2, "1 0 <= 0", "1 0 >= 0", "0 1 >= -1", "0 1 <= 1"),
			cells: []*exact.Polyhedron{poly(t, 2, "0 1 <= 0"), poly(t, 2, "0 1 >= 1/2")},
			where: func(g exact.Vector) bool { return g[1].Sign() > 0 && g[1].Cmp(r(1, 2)) < 0 }},
		{name: "a one-point domain inside a cell", domain: poly(t, 2, "1 0 = 1", "0 1 = 2"),
			cells: []*exact.Polyhedron{poly(t, 2, "1 1 <= 3")}, want: true},
		{name: "a one-point domain outside the only cell", domain: poly(t, 2, "1 0 = 1", "0 1 = 2"),
			cells: []*exact.Polyhedron{poly(t, 2, "1 0 >= 2")},
			where: func(g exact.Vector) bool { return g.Equal(vec(t, "1 2")) }},
		{name: "the empty domain is covered by nothing", domain: poly(t, 1, "1 <= -1", "1 >= 1"), want: true},
		{name: "no cells leave all of ℝ", domain: poly(t, 1), where: func(exact.Vector) bool { return true }},
		// A row 0 ≤ −1 makes a cell empty.
		{name: "an empty cell covers nothing", domain: poly(t, 1, "1 >= 0", "1 <= 1"),
			cells: []*exact.Polyhedron{poly(t, 1, "0 <= -1")}, where: x0("-1/2", "3/2")},
		{name: "a row 0 ≤ 1 holds everywhere", domain: poly(t, 1, "1 >= 0", "1 <= 1"),
			cells: []*exact.Polyhedron{poly(t, 1, "0 <= 1")}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Cover(tc.domain, tc.cells)
			if err != nil {
				t.Fatal(err)
			}
			if res.Covered != tc.want {
				t.Fatalf("covered = %v, want %v (gap %v)", res.Covered, tc.want, res.Gap)
			}
			if tc.want {
				if res.Gap != nil {
					t.Errorf("covered, but a gap %v", res.Gap)
				}
				return
			}
			g := res.Gap
			if in, err := tc.domain.Contains(g); err != nil || !in {
				t.Errorf("gap %v not in the domain (%v)", g, err)
			}
			for i, c := range tc.cells {
				if in, _ := c.Contains(g); in {
					t.Errorf("gap %v lies in cell %d", g, i)
				}
			}
			if !tc.where(g) {
				t.Errorf("gap %v is not where the hand derivation puts it", g)
			}
		})
	}
}

func TestCoverErrors(t *testing.T) {
	strict := poly(t, 1, "1 <= 0")
	strict.Strict = []bool{true}
	tests := []struct {
		name   string
		domain *exact.Polyhedron
		cells  []*exact.Polyhedron
	}{
		{"strict domain", strict, nil},
		{"strict cell", poly(t, 1), []*exact.Polyhedron{strict}},
		{"cell in another space", poly(t, 1), []*exact.Polyhedron{poly(t, 2)}},
		{"nil cell", poly(t, 1), []*exact.Polyhedron{nil}},
	}
	for _, tc := range tests {
		if _, err := Cover(tc.domain, tc.cells); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// certCase is a proof of the decision procedure whose certificate the
// tests spoil.
type certCase struct {
	name   string
	f, g   *FFN // g: Equivalent; nil for Verify
	domain *exact.Polyhedron
	pieces []Piece
	// keep lists cells whose flipped pattern still proves the claim (by
	// hand, below), so the flip must be accepted.
	keep map[[2]int]bool
}

func (c certCase) decide(t *testing.T) *Result {
	t.Helper()
	var res *Result
	var err error
	if c.g != nil {
		res, err = Equivalent(c.f, c.g, c.domain, nil)
	} else {
		res, err = Verify(c.f, c.domain, c.pieces, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (c certCase) check(cert *Certificate) (*Report, error) {
	return c.checkFor(c.f, cert)
}

func (c certCase) checkFor(f *FFN, cert *Certificate) (*Report, error) {
	if c.g != nil {
		return CheckEquivalent(f, c.g, c.domain, cert)
	}
	return CheckVerify(f, c.domain, c.pieces, cert)
}

func certCases(t *testing.T) []certCase {
	var cs []certCase
	for _, pc := range proofCases(t) {
		switch pc.name {
		case "min", "max", "add", "identity", "gtzero", "eqzero", "if p=1", "gtzero-eps":
			cs = append(cs, certCase{name: pc.name, f: pc.f, domain: pc.domain, pieces: pc.pieces})
		case "gtzero with a point piece":
			// The cell of the piece {x = 0} (the fourth) is the point 0,
			// where unit 1's pre-activation x is 0: active or inactive,
			// ReLU(0) = 0 and the map 4x is 0 there, so flipping unit 1
			// of that cell leaves a valid certificate. Unit 2 (x − 1/4 =
			// −1/4 there) cannot be flipped.
			cs = append(cs, certCase{name: pc.name, f: pc.f, domain: pc.domain, pieces: pc.pieces, keep: map[[2]int]bool{{3, 0}: true}})
		}
	}
	minFFN := ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", "")
	maxFFN := ffn(t, 2, "1 0; -1 0; -1 1", "", "1 -1 1", "")
	cs = append(cs,
		certCase{name: "min two ways", f: minFFN, g: ffn(t, 2, "0 1; 0 -1; -1 1", "", "1 -1 -1", ""), domain: poly(t, 2)},
		// On the diagonal min's third unit, x − y, is 0 everywhere: either
		// sign holds on both cells (x < 0 and x > 0), and its term
		// −ReLU(x − y) is 0 either way, so its flips stay valid.
		certCase{name: "min and max on the diagonal", f: minFFN, g: maxFFN, domain: poly(t, 2, "1 -1 = 0"),
			keep: map[[2]int]bool{{0, 2}: true, {1, 2}: true}},
	)
	return cs
}

// TestCertificateMutations: the honest certificate of each proof passes
// its check; a certificate with a cell dropped, a pattern bit flipped or
// a piece changed, or checked against a slightly different network, is
// rejected. A dropped cell is rejected with a gap point, which must lie
// in the dropped cell (the others cover everything else): checked here by
// the network's own pre-activations.
func TestCertificateMutations(t *testing.T) {
	for _, tc := range certCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.decide(t)
			if res.Verdict != Equal || res.Certificate == nil {
				t.Fatalf("verdict %v, certificate %v", res.Verdict, res.Certificate)
			}
			cells := res.Certificate.Cells
			rep, err := tc.check(res.Certificate)
			if err != nil {
				t.Fatalf("honest certificate rejected: %v", err)
			}
			if rep.Cells != len(cells) || rep.Cells != res.Cells || rep.LPs == 0 {
				t.Errorf("report %+v for %d cells compared", rep, res.Cells)
			}

			for i := range cells {
				spoiled := &Certificate{Cells: slices.Delete(slices.Clone(cells), i, i+1)}
				_, err := tc.check(spoiled)
				ce, ok := err.(*CertificateError)
				if !ok {
					t.Errorf("cell %d dropped: %v, want a rejected certificate", i, err)
					continue
				}
				if ce.Gap == nil {
					t.Errorf("cell %d dropped: rejected without a gap: %v", i, ce)
					continue
				}
				if !inCell(t, tc, cells[i], ce.Gap) {
					t.Errorf("cell %d (%+v) dropped: the gap %v is not in it", i, cells[i], ce.Gap)
				}
			}

			for i, c := range cells {
				for u := range c.Pattern {
					flipped := slices.Clone(cells)
					s := slices.Clone(c.Pattern)
					s[u] = !s[u]
					flipped[i].Pattern = s
					_, err := tc.check(&Certificate{Cells: flipped})
					if tc.keep[[2]int{i, u}] {
						if err != nil {
							t.Errorf("cell %d, unit %d flipped (still valid): %v", i, u, err)
						}
						continue
					}
					if !IsCertificateError(err) {
						t.Errorf("cell %d, unit %d flipped: %v, want a rejected certificate", i, u, err)
					}
				}
			}

			if tc.g == nil && len(tc.pieces) > 1 {
				for i, c := range cells {
					moved := slices.Clone(cells)
					moved[i].Piece = (c.Piece + 1) % len(tc.pieces)
					if _, err := tc.check(&Certificate{Cells: moved}); !IsCertificateError(err) {
						t.Errorf("cell %d moved to piece %d: %v, want a rejected certificate", i, moved[i].Piece, err)
					}
				}
			}

			// The same certificate for a network with its first output
			// weight moved by 1/1000: some cell has unit 1 active (every
			// network here uses it), and there the maps differ.
			g := &FFN{W1: tc.f.W1, B1: tc.f.B1, W2: exact.NewMatrix(tc.f.W2.Rows, tc.f.W2.Cols), B2: tc.f.B2}
			for i := range g.W2.Data {
				g.W2.Data[i].Set(tc.f.W2.Data[i])
			}
			g.W2.Data[0].Add(g.W2.Data[0], r(1, 1000))
			if _, err := tc.checkFor(g, res.Certificate); !IsCertificateError(err) {
				t.Errorf("certificate accepted for a perturbed network: %v", err)
			}
		})
	}
}

// inCell reports whether x lies in the domain, in the cell's piece, and
// where the cell's patterns hold (non-strictly), evaluated from the
// networks' pre-activations.
func inCell(t *testing.T, tc certCase, c CertCell, x exact.Vector) bool {
	t.Helper()
	if in, _ := tc.domain.Contains(x); !in {
		return false
	}
	if tc.pieces != nil {
		if in, _ := tc.pieces[c.Piece].Domain.Contains(x); !in {
			return false
		}
	}
	holds := func(f *FFN, s Pattern) bool {
		pre, err := f.Pre(x)
		if err != nil {
			t.Fatal(err)
		}
		for u, z := range pre {
			if (s[u] && z.Sign() < 0) || (!s[u] && z.Sign() > 0) {
				return false
			}
		}
		return true
	}
	return holds(tc.f, c.Pattern) && (tc.g == nil || holds(tc.g, c.PatternG))
}

// TestSkippedRegionCaught is the mutation a review made: the enumeration
// drops one linear region. Verify and Equivalent still answer equal (they
// compare fewer cells), and the certificate check must reject every such
// answer.
func TestSkippedRegionCaught(t *testing.T) {
	t.Cleanup(func() { skipRegion = 0 })
	for _, tc := range certCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			skipRegion = 0
			honest := tc.decide(t)
			for k := 1; k <= honest.Regions; k++ {
				skipRegion = k
				res := tc.decide(t)
				skipRegion = 0
				if res.Verdict != Equal || res.Cells >= honest.Cells {
					t.Fatalf("region %d skipped: verdict %v, %d cells of %d; the hook has no effect", k, res.Verdict, res.Cells, honest.Cells)
				}
				if _, err := tc.check(res.Certificate); !IsCertificateError(err) {
					t.Errorf("region %d skipped: the certificate check answers %v", k, err)
				}
			}
		})
	}
}

// TestCheckRegions: the regions of min (and of a random network on a
// box) pass; a region dropped (by the enumeration's hook or from the
// list), a wrong map or a point outside its region is rejected.
func TestCheckRegions(t *testing.T) {
	t.Cleanup(func() { skipRegion = 0 })
	cases := []struct {
		name   string
		f      *FFN
		domain *exact.Polyhedron
	}{
		{"min", ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", ""), poly(t, 2)},
		{"identity on ℝ³", ffn(t, 3, "1 0 0; 0 1 0; 0 0 1; -1 0 0; 0 -1 0; 0 0 -1", "", "1 0 0 -1 0 0; 0 1 0 0 -1 0; 0 0 1 0 0 -1", ""), poly(t, 3)},
		{"eqzero", ffn(t, 1, "1; 1; 1", "1/4 0 -1/4", "4 -8 4", ""), poly(t, 1)},
		{"random on a box", randomFFN(rand.New(rand.NewPCG(5, 5)), 2, 6, 1), box(2, -4, 4)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			regs, err := Regions(tc.f, tc.domain, nil)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := CheckRegions(tc.f, tc.domain, regs)
			if err != nil || rep.Cells != len(regs) {
				t.Fatalf("honest regions: %+v, %v", rep, err)
			}
			for _, k := range []int{1, len(regs)} {
				skipRegion = k
				fewer, err := Regions(tc.f, tc.domain, nil)
				skipRegion = 0
				if err != nil || len(fewer) != len(regs)-1 {
					t.Fatalf("region %d skipped: %d regions of %d (%v)", k, len(fewer), len(regs), err)
				}
				_, err = CheckRegions(tc.f, tc.domain, fewer)
				ce, ok := err.(*CertificateError)
				if !ok || ce.Gap == nil {
					t.Errorf("region %d skipped: %v, want a gap", k, err)
					continue
				}
				if !inCell(t, certCase{f: tc.f, domain: tc.domain}, CertCell{Pattern: regs[k-1].Pattern}, ce.Gap) {
					t.Errorf("region %d skipped: the gap %v is not in it", k, ce.Gap)
				}
			}
			wrong := slices.Clone(regs)
			m := wrong[0].Map
			c := m.C.Clone()
			c[0] = new(big.Rat).Add(c[0], r(1, 2))
			wrong[0].Map = exact.Affine{A: m.A, C: c}
			if _, err := CheckRegions(tc.f, tc.domain, wrong); !IsCertificateError(err) {
				t.Errorf("wrong map: %v", err)
			}
			away := slices.Clone(regs)
			away[0].Point = regs[len(regs)-1].Point
			if _, err := CheckRegions(tc.f, tc.domain, away); !IsCertificateError(err) {
				t.Errorf("region 1 with region %d's point: %v", len(regs), err)
			}
		})
	}
}

func TestCertificateInputErrors(t *testing.T) {
	minFFN := ffn(t, 2, "1 0; -1 0; 1 -1", "", "1 -1 -1", "")
	pieces := []Piece{piece(t, 2, "1 0 | 0", "1 -1 <= 0"), piece(t, 2, "0 1 | 0", "1 -1 >= 0")}
	tests := []struct {
		name string
		err  func() error
		cert bool // a rejected certificate rather than malformed input
	}{
		{"no certificate", func() error { _, err := CheckVerify(minFFN, poly(t, 2), pieces, nil); return err }, true},
		{"piece out of range", func() error {
			_, err := CheckVerify(minFFN, poly(t, 2), pieces, &Certificate{Cells: []CertCell{{Pattern: Pattern{true, false, true}, Piece: 2}}})
			return err
		}, false},
		{"short pattern", func() error {
			_, err := CheckVerify(minFFN, poly(t, 2), pieces, &Certificate{Cells: []CertCell{{Pattern: Pattern{true}, Piece: 0}}})
			return err
		}, false},
		{"domain in ℝ³", func() error { _, err := CheckVerify(minFFN, poly(t, 3), pieces, &Certificate{}); return err }, false},
		{"second pattern for Verify", func() error {
			_, err := CheckVerify(minFFN, poly(t, 2), pieces, &Certificate{Cells: []CertCell{{Pattern: Pattern{true, false, true}, PatternG: Pattern{true}, Piece: 0}}})
			return err
		}, false},
		{"Equivalent without g's pattern", func() error {
			_, err := CheckEquivalent(minFFN, minFFN, poly(t, 2), &Certificate{Cells: []CertCell{{Pattern: Pattern{true, false, true}, Piece: -1}}})
			return err
		}, false},
	}
	for _, tc := range tests {
		err := tc.err()
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if IsCertificateError(err) != tc.cert {
			t.Errorf("%s: %v (certificate error: %v, want %v)", tc.name, err, IsCertificateError(err), tc.cert)
		}
	}
}
