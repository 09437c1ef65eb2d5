package cpwl

import (
	"testing"

	"github.com/transformer-cookbook/verify/exact"
)

// TestForgedCertificatesRejected: certificates for false claims, each
// made of the cells a faulty enumeration would compare (every region
// with the piece it lies in), must be rejected, and the same certificate
// for the true claim beside each accepted, so that the rejection is not
// the checker refusing everything. The decision procedure must answer the
// false claims with a counterexample, and the true ones Equal. Each claim
// is false in one way only, derived by hand:
//
//   - ReLU(x) against |x| on [−1, 1]: on the cell x ≤ 0 the difference
//     f − g is x, at most 0 but down to −1 (a check of f ≤ g alone passes);
//   - ReLU(x) against 0: on x ≥ 0 the difference is x, at least 0 but up to
//     1 (a check of f ≥ g alone passes);
//   - ReLU(x) + 1 against ReLU(x): on each cell the maps differ by the
//     constant 1, with the same linear part;
//   - ReLU(x) against the single piece x ≤ 0 ↦ 0: the maps agree where the
//     piece is, but no piece covers (0, 1].
//
// For Equivalent: ReLU(x) against ReLU(x) − ReLU(−x) = x on ℝ, with the
// cells (f active, g's first unit active) and (f inactive, both of g's
// inactive): the maps agree on each, but g's second pattern holds at 0
// alone, so the cells miss x < 0; and ReLU(x) against ReLU(x) + 1 with
// the cells of their one shared unit, where the maps differ by 1.
func TestForgedCertificatesRejected(t *testing.T) {
	relu := ffn(t, 1, "1", "", "1", "")
	reluPlus1 := ffn(t, 1, "1", "", "1", "1")
	unit := poly(t, 1, "1 >= -1", "1 <= 1")
	off, on := Pattern{false}, Pattern{true}
	cells := func(cs ...CertCell) *Certificate { return &Certificate{Cells: cs} }
	verify := []struct {
		name         string
		f            *FFN
		domain       *exact.Polyhedron
		wrong, right []Piece
		cert         *Certificate
		verdict      Verdict // the decision procedure's on the false claim
	}{
		{"ReLU against |x|: f − g ≤ 0 but not 0", relu, unit,
			[]Piece{piece(t, 1, "-1 | 0", "1 <= 0"), piece(t, 1, "1 | 0", "1 >= 0")},
			[]Piece{piece(t, 1, "0 | 0", "1 <= 0"), piece(t, 1, "1 | 0", "1 >= 0")},
			cells(CertCell{Pattern: off, Piece: 0}, CertCell{Pattern: on, Piece: 1}), Differ},
		{"ReLU against 0: f − g ≥ 0 but not 0", relu, unit,
			[]Piece{piece(t, 1, "0 | 0")},
			[]Piece{piece(t, 1, "0 | 0", "1 <= 0"), piece(t, 1, "1 | 0", "1 >= 0")},
			cells(CertCell{Pattern: off, Piece: 0}, CertCell{Pattern: on, Piece: 0}), Differ},
		{"ReLU + 1 against ReLU: a constant difference", reluPlus1, unit,
			[]Piece{piece(t, 1, "0 | 0", "1 <= 0"), piece(t, 1, "1 | 0", "1 >= 0")},
			[]Piece{piece(t, 1, "0 | 1", "1 <= 0"), piece(t, 1, "1 | 1", "1 >= 0")},
			cells(CertCell{Pattern: off, Piece: 0}, CertCell{Pattern: on, Piece: 1}), Differ},
		{"ReLU against a piece that covers x ≤ 0 alone", relu, unit,
			[]Piece{piece(t, 1, "0 | 0", "1 <= 0")},
			[]Piece{piece(t, 1, "0 | 0", "1 <= 0"), piece(t, 1, "1 | 0", "1 >= 0")},
			cells(CertCell{Pattern: off, Piece: 0}), Uncovered},
	}
	for _, tc := range verify {
		res, err := Verify(tc.f, tc.domain, tc.wrong, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tc.verdict {
			t.Errorf("%s: Verify answers %v, want %v: the claim is not what it says", tc.name, res.Verdict, tc.verdict)
		}
		if _, err := CheckVerify(tc.f, tc.domain, tc.wrong, tc.cert); !IsCertificateError(err) {
			t.Errorf("%s: the forged certificate is not rejected: %v", tc.name, err)
		}
		// The true claim beside it, with the natural certificate: one cell
		// per region, each with the piece it lies in.
		res, err = Verify(tc.f, tc.domain, tc.right, nil)
		if err != nil || res.Verdict != Equal {
			t.Fatalf("%s: the true claim: %v, %v", tc.name, res, err)
		}
		honest := cells(CertCell{Pattern: off, Piece: 0}, CertCell{Pattern: on, Piece: 1})
		if _, err := CheckVerify(tc.f, tc.domain, tc.right, honest); err != nil {
			t.Errorf("%s: the true claim's certificate rejected: %v", tc.name, err)
		}
	}

	identity := ffn(t, 1, "1; -1", "", "1 -1", "")
	equivalent := []struct {
		name   string
		f, g   *FFN
		cert   *Certificate
		honest *Certificate // the true claim f ≡ f's
	}{
		{"ReLU against x: g's patterns hold at 0 alone on x ≤ 0", relu, identity,
			cells(CertCell{Pattern: on, PatternG: Pattern{true, false}, Piece: -1}, CertCell{Pattern: off, PatternG: Pattern{false, false}, Piece: -1}),
			cells(CertCell{Pattern: on, PatternG: on, Piece: -1}, CertCell{Pattern: off, PatternG: off, Piece: -1})},
		{"ReLU against ReLU + 1: a constant difference", relu, reluPlus1,
			cells(CertCell{Pattern: on, PatternG: on, Piece: -1}, CertCell{Pattern: off, PatternG: off, Piece: -1}),
			cells(CertCell{Pattern: on, PatternG: on, Piece: -1}, CertCell{Pattern: off, PatternG: off, Piece: -1})},
	}
	for _, tc := range equivalent {
		res, err := Equivalent(tc.f, tc.g, poly(t, 1), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Differ {
			t.Errorf("%s: Equivalent answers %v, want %v", tc.name, res.Verdict, Differ)
		}
		if _, err := CheckEquivalent(tc.f, tc.g, poly(t, 1), tc.cert); !IsCertificateError(err) {
			t.Errorf("%s: the forged certificate is not rejected: %v", tc.name, err)
		}
		if _, err := CheckEquivalent(tc.f, tc.f, poly(t, 1), tc.honest); err != nil {
			t.Errorf("%s: f against itself, the honest certificate rejected: %v", tc.name, err)
		}
	}
}
