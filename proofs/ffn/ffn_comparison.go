package ffn

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// §Comparisons

var epsilons = []string{"1/4", "1", "3"}

// The three-piece definitions, gray regions included, for fixed ε.
func gtzeroPieces(eps *big.Rat) []cpwl.Piece {
	e := proofs.Rat(eps)
	return []cpwl.Piece{proofs.Piece(proofs.Interval("", "0"), proofs.Line("0", "0")),
		proofs.Piece(proofs.Interval("0", e), proofs.Line(proofs.Rat(new(big.Rat).Inv(eps)), "0")),
		proofs.Piece(proofs.Interval(e, ""), proofs.Line("0", "1"))}
}

func gezeroPieces(eps *big.Rat) []cpwl.Piece {
	e := proofs.Rat(eps)
	return []cpwl.Piece{proofs.Piece(proofs.Interval("", proofs.Neg(e)), proofs.Line("0", "0")),
		proofs.Piece(proofs.Interval(proofs.Neg(e), "0"), proofs.Line(proofs.Rat(new(big.Rat).Inv(eps)), "1")),
		proofs.Piece(proofs.Interval("0", ""), proofs.Line("0", "1"))}
}

func eqzeroPieces(eps *big.Rat) []cpwl.Piece {
	e, inv := proofs.Rat(eps), proofs.Rat(new(big.Rat).Inv(eps))
	return []cpwl.Piece{proofs.Piece(proofs.Interval("", proofs.Neg(e)), proofs.Line("0", "0")),
		proofs.Piece(proofs.Interval(proofs.Neg(e), "0"), proofs.Line(inv, "1")),
		proofs.Piece(proofs.Interval("0", e), proofs.Line(proofs.Neg(inv), "1")),
		proofs.Piece(proofs.Interval(e, ""), proofs.Line("0", "0"))}
}

func gtzeroEps(eps *big.Rat) *stream.FF { return blocks.GTZeroEps("x", "y", eps, new(big.Rat)) }
func gezeroEps(eps *big.Rat) *stream.FF { return blocks.GEZeroEps("x", "y", eps, new(big.Rat)) }
func eqzeroEps(eps *big.Rat) *stream.FF { return blocks.EqZeroEps("x", "y", eps, new(big.Rat)) }

// exactRegions proves a fixed-ε comparison equal to its indicator on each
// polyhedron of its exact region (given as (lo, hi, value) intervals of
// multiples of ε), for every ε.
func exactRegions(build func(eps *big.Rat) *stream.FF, regions [][3]string) func() (*proofs.Evidence, error) {
	// The regions' bounds are multiples of ε and the indicator's values do
	// not scale, so the proof at ε = 1 covers every ε (EveryEps).
	return proofs.EveryEps(build, 0, epsilons, func() (*proofs.Evidence, error) {
		var cases []proofs.FFNCase
		for _, e := range []string{"1"} {
			eps := proofs.Q(e)
			for _, r := range regions {
				lo, hi := scaled(r[0], eps), scaled(r[1], eps)
				cases = append(cases, proofs.FFNCase{Label: fmt.Sprintf("ε = %s, %s", e, describeInterval(lo, hi)), F: build(eps),
					Domain: proofs.Interval(lo, hi), Pieces: []cpwl.Piece{proofs.Piece(proofs.Interval(lo, hi), proofs.Line("0", r[2]))}})
			}
		}
		return proofs.ProveCases(cases)
	})
}

// scaled is k·ε for the multiple k ("" stays unbounded).
func scaled(k string, eps *big.Rat) string {
	if k == "" {
		return ""
	}
	return proofs.Rat(new(big.Rat).Mul(proofs.Q(k), eps))
}

func describeInterval(lo, hi string) string {
	switch {
	case lo == "":
		return "x ≤ " + hi
	case hi == "":
		return "x ≥ " + lo
	case lo == hi:
		return "x = " + lo
	}
	return lo + " ≤ x ≤ " + hi
}

func gtzeroXEps() []cpwl.Piece {
	return []cpwl.Piece{
		proofs.Piece(proofs.EpsHalf(proofs.Row("1", "0", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "0")))),                              // x ≤ 0: 0
		proofs.Piece(proofs.EpsHalf(proofs.Row("-1", "0", "0"), proofs.Row("1", "-1", "0")), proofs.Affine(proofs.Rows(proofs.Row("1", "0")))), // 0 ≤ x ≤ ε: x
		proofs.Piece(proofs.EpsHalf(proofs.Row("-1", "1", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "1"))))}                             // x ≥ ε: ε
}

func eqzeroXEps() []cpwl.Piece {
	return []cpwl.Piece{
		proofs.Piece(proofs.EpsHalf(proofs.Row("1", "1", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "0")))),                               // x ≤ −ε: 0
		proofs.Piece(proofs.EpsHalf(proofs.Row("-1", "-1", "0"), proofs.Row("1", "0", "0")), proofs.Affine(proofs.Rows(proofs.Row("1", "1")))),  // −ε ≤ x ≤ 0: ε − |x|
		proofs.Piece(proofs.EpsHalf(proofs.Row("-1", "0", "0"), proofs.Row("1", "-1", "0")), proofs.Affine(proofs.Rows(proofs.Row("-1", "1")))), // 0 ≤ x ≤ ε: ε − |x|
		proofs.Piece(proofs.EpsHalf(proofs.Row("-1", "1", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "0"))))}                              // x ≥ ε: 0
}

// grayPoints: a point of each comparison's gray region where it differs
// from the indicator it stands for (the cheat sheet's "No").
func checkComparatorsNotExact(gt, ge, eq func(eps *big.Rat) *stream.FF) (*proofs.Evidence, error) {
	type probe struct {
		name  string
		build func(eps *big.Rat) *stream.FF
		at    string // the point as a multiple of ε
		ind   func(x *big.Rat) bool
	}
	probes := []probe{
		{"GTZero_ε", gt, "1/2", func(x *big.Rat) bool { return x.Sign() > 0 }},
		{"GEZero_ε", ge, "-1/2", func(x *big.Rat) bool { return x.Sign() >= 0 }},
		{"EqZero_ε", eq, "1/2", func(x *big.Rat) bool { return x.Sign() == 0 }},
	}
	var parts []string
	for _, p := range probes {
		for _, e := range epsilons {
			eps := proofs.Q(e)
			x := new(big.Rat).Mul(proofs.Q(p.at), eps)
			g, err := proofs.FFNOf(p.build(eps))
			if err != nil {
				return nil, err
			}
			y, err := g.Eval(exact.Vector{x})
			if err != nil {
				return nil, err
			}
			want := new(big.Rat)
			if p.ind(x) {
				want.SetInt64(1)
			}
			if y[0].Cmp(want) == 0 {
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("%s with ε = %s is exact at the gray-region point x = %s: %s = 𝕀", p.name, e, x.RatString(), y[0].RatString())}, nil
			}
			if e == epsilons[0] {
				parts = append(parts, fmt.Sprintf("%s(%s) = %s ≠ %s", p.name, x.RatString(), y[0].RatString(), want.RatString()))
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("each differs from its indicator in its gray region, for every ε ∈ {%s} (exact): at ε = %s, %s",
		proofs.JoinComma(epsilons), epsilons[0], proofs.JoinComma(parts)),
		Explain: []string{"No FFN computes an indicator exactly on ℝ: FFNs are continuous, 𝕀[x > 0], 𝕀[x ≥ 0] and 𝕀[x = 0] jump at 0 (§Comparisons: \"not CPWL because there is a jump\")."}}, nil
}

var comparisonClaims = []*proofs.Claim{
	claim("ffn.gtzero-eps.definition", secCompare, "sec:comparison",
		"GTZero_ε (W1 = [1; 1], b1 = [0; −ε], W2 = [1/ε, −1/ε]) is 0 for x ≤ 0, x/ε for 0 < x < ε (gray), 1 for x ≥ ε",
		"x ∈ ℝ and every ε > 0 (the region proof at ε = 1, and positive homogeneity)", proofs.Proved,
		proofs.EveryEps(gtzeroEps, 0, epsilons, proofs.ProveAt([]string{"1"}, gtzeroEps, gtzeroPieces))),
	claim("ffn.gezero-eps.definition", secCompare, "sec:comparison",
		"GEZero_ε (W1 = [1; 1], b1 = [ε; 0], W2 = [1/ε, −1/ε]) is 0 for x ≤ −ε, 1 + x/ε for −ε < x < 0 (gray), 1 for x ≥ 0",
		"x ∈ ℝ and every ε > 0 (the region proof at ε = 1, and positive homogeneity)", proofs.Proved,
		proofs.EveryEps(gezeroEps, 0, epsilons, proofs.ProveAt([]string{"1"}, gezeroEps, gezeroPieces))),
	claim("ffn.eqzero-eps.definition", secCompare, "sec:comparison",
		"EqZero_ε (W1 = [1; 1; 1], b1 = [ε; 0; −ε], W2 = [1/ε, −2/ε, 1/ε]) is 0 for |x| ≥ ε, 1 − |x/ε| for 0 < |x| < ε (gray), 1 at x = 0",
		"x ∈ ℝ and every ε > 0 (the region proof at ε = 1, and positive homogeneity)", proofs.Proved,
		proofs.EveryEps(eqzeroEps, 0, epsilons, proofs.ProveAt([]string{"1"}, eqzeroEps, eqzeroPieces))),
	claim("ffn.gtzero-eps.indicator", secCompare, "sec:comparison",
		"GTZero_ε computes 𝕀[x > 0] exactly outside the gray region",
		"x ≤ 0 and x ≥ ε as separate polyhedra, every ε > 0 (the proof at ε = 1, and positive homogeneity)", proofs.Proved,
		exactRegions(gtzeroEps, [][3]string{{"", "0", "0"}, {"1", "", "1"}})),
	claim("ffn.gezero-eps.indicator", secCompare, "sec:comparison",
		"GEZero_ε computes 𝕀[x ≥ 0] exactly outside the gray region",
		"x ≤ −ε and x ≥ 0 as separate polyhedra, every ε > 0 (the proof at ε = 1, and positive homogeneity)", proofs.Proved,
		exactRegions(gezeroEps, [][3]string{{"", "-1", "0"}, {"0", "", "1"}})),
	claim("ffn.eqzero-eps.indicator", secCompare, "sec:comparison",
		"EqZero_ε computes 𝕀[x = 0] exactly outside the gray region",
		"x ≤ −ε, x = 0 and x ≥ ε as separate polyhedra, every ε > 0 (the proof at ε = 1, and positive homogeneity)", proofs.Proved,
		exactRegions(eqzeroEps, [][3]string{{"", "-1", "0"}, {"0", "0", "1"}, {"1", "", "0"}})),
	claim("ffn.gtzero.definition", secCompare, "sec:comparison",
		"GTZero(x, ε) (W1 = [[1, 0], [1, −1]], W2 = [1, −1]) is 0 for x ≤ 0, x for 0 < x < ε (gray), ε for x ≥ ε",
		"{(x, ε) ∈ ℝ² : ε ≥ 0}: every ε at once", proofs.Proved,
		one(proofs.FFNCase{F: blocks.GTZero("x", "eps", "out"), Domain: proofs.EpsHalf(), Pieces: gtzeroXEps()})),
	claim("ffn.gezero.definition", secCompare, "sec:comparison",
		"GEZero(x, ε) (W1 = [[1, 1], [1, 0]], W2 = [1, −1]) is 0 for x ≤ −ε, x + ε for −ε < x < 0 (gray), ε for x ≥ 0",
		"{(x, ε) ∈ ℝ² : ε ≥ 0}: every ε at once", proofs.Proved,
		one(proofs.FFNCase{F: blocks.GEZero("x", "eps", "out"), Domain: proofs.EpsHalf(), Pieces: proofs.GEZeroPieces()})),
	claim("ffn.eqzero.definition", secCompare, "sec:comparison",
		"EqZero(x, ε) (W1 = [[1, 1], [1, 0], [1, −1]], W2 = [1, −2, 1]) is 0 for |x| ≥ ε, ε − |x| for 0 < |x| < ε (gray), ε at x = 0",
		"{(x, ε) ∈ ℝ² : ε ≥ 0}: every ε at once", proofs.Proved,
		one(proofs.FFNCase{F: blocks.EqZero("x", "eps", "out"), Domain: proofs.EpsHalf(), Pieces: eqzeroXEps()})),
	claim("ffn.comparisons.input-dependent.indicator", secCompare, "sec:comparison",
		"outside the gray regions GTZero(x, ε) = ε·𝕀[x > 0], GEZero(x, ε) = ε·𝕀[x ≥ 0], EqZero(x, ε) = ε·𝕀[x = 0] (\"accept values as small as x ≥ ε as true\")",
		"ε ≥ 0 and x outside the gray region, each exact region a polyhedron of (x, ε)-space: every ε at once", proofs.Proved,
		all(
			proofs.FFNCase{Label: "GTZero, x ≤ 0", F: blocks.GTZero("x", "eps", "out"), Domain: proofs.EpsHalf(proofs.Row("1", "0", "0")), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(proofs.Rows(proofs.Row("0", "0"))))}},
			proofs.FFNCase{Label: "GTZero, x ≥ ε", F: blocks.GTZero("x", "eps", "out"), Domain: proofs.EpsHalf(proofs.Row("-1", "1", "0")), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(proofs.Rows(proofs.Row("0", "1"))))}},
			proofs.FFNCase{Label: "GEZero, x ≤ −ε", F: blocks.GEZero("x", "eps", "out"), Domain: proofs.EpsHalf(proofs.Row("1", "1", "0")), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(proofs.Rows(proofs.Row("0", "0"))))}},
			proofs.FFNCase{Label: "GEZero, x ≥ 0", F: blocks.GEZero("x", "eps", "out"), Domain: proofs.EpsHalf(proofs.Row("-1", "0", "0")), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(proofs.Rows(proofs.Row("0", "1"))))}},
			proofs.FFNCase{Label: "EqZero, x ≤ −ε", F: blocks.EqZero("x", "eps", "out"), Domain: proofs.EpsHalf(proofs.Row("1", "1", "0")), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(proofs.Rows(proofs.Row("0", "0"))))}},
			proofs.FFNCase{Label: "EqZero, x = 0", F: blocks.EqZero("x", "eps", "out"), Domain: proofs.EpsHalf(proofs.Row("1", "0", "0"), proofs.Row("-1", "0", "0")), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(proofs.Rows(proofs.Row("0", "1"))))}},
			proofs.FFNCase{Label: "EqZero, x ≥ ε", F: blocks.EqZero("x", "eps", "out"), Domain: proofs.EpsHalf(proofs.Row("-1", "1", "0")), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(2), proofs.Affine(proofs.Rows(proofs.Row("0", "0"))))}},
		)),
}
