package proofs

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// §Comparisons

var epsilons = []string{"1/4", "1", "3"}

// The three-piece definitions, gray regions included, for fixed ε.
func ffGtzeroPieces(eps *big.Rat) []cpwl.Piece {
	e := ffRat(eps)
	return []cpwl.Piece{piece(ffInterval("", "0"), ffLine("0", "0")),
		piece(ffInterval("0", e), ffLine(ffRat(new(big.Rat).Inv(eps)), "0")),
		piece(ffInterval(e, ""), ffLine("0", "1"))}
}

func ffGezeroPieces(eps *big.Rat) []cpwl.Piece {
	e := ffRat(eps)
	return []cpwl.Piece{piece(ffInterval("", ffNeg(e)), ffLine("0", "0")),
		piece(ffInterval(ffNeg(e), "0"), ffLine(ffRat(new(big.Rat).Inv(eps)), "1")),
		piece(ffInterval("0", ""), ffLine("0", "1"))}
}

func ffEqzeroPieces(eps *big.Rat) []cpwl.Piece {
	e, inv := ffRat(eps), ffRat(new(big.Rat).Inv(eps))
	return []cpwl.Piece{piece(ffInterval("", ffNeg(e)), ffLine("0", "0")),
		piece(ffInterval(ffNeg(e), "0"), ffLine(inv, "1")),
		piece(ffInterval("0", e), ffLine(ffNeg(inv), "1")),
		piece(ffInterval(e, ""), ffLine("0", "0"))}
}

func ffGtzeroEps(eps *big.Rat) *stream.FF { return blocks.GTZeroEps("x", "y", eps, new(big.Rat)) }
func ffGezeroEps(eps *big.Rat) *stream.FF { return blocks.GEZeroEps("x", "y", eps, new(big.Rat)) }
func ffEqzeroEps(eps *big.Rat) *stream.FF { return blocks.EqZeroEps("x", "y", eps, new(big.Rat)) }

// exactRegions proves a fixed-ε comparison equal to its indicator on each
// polyhedron of its exact region (given as (lo, hi, value) intervals of
// multiples of ε), for every ε.
func ffExactRegions(build func(eps *big.Rat) *stream.FF, regions [][3]string) func() (*Evidence, error) {
	// The regions' bounds are multiples of ε and the indicator's values do
	// not scale, so the proof at ε = 1 covers every ε (ffEveryEps).
	return ffEveryEps(build, 0, epsilons, func() (*Evidence, error) {
		var cases []ffnCase
		for _, e := range []string{"1"} {
			eps := q(e)
			for _, r := range regions {
				lo, hi := ffScaled(r[0], eps), ffScaled(r[1], eps)
				cases = append(cases, ffnCase{label: fmt.Sprintf("ε = %s, %s", e, ffDescribeInterval(lo, hi)), f: build(eps),
					domain: ffInterval(lo, hi), pieces: []cpwl.Piece{piece(ffInterval(lo, hi), ffLine("0", r[2]))}})
			}
		}
		return ffProveCases(cases)
	})
}

// scaled is k·ε for the multiple k ("" stays unbounded).
func ffScaled(k string, eps *big.Rat) string {
	if k == "" {
		return ""
	}
	return ffRat(new(big.Rat).Mul(q(k), eps))
}

func ffDescribeInterval(lo, hi string) string {
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

// The input-dependent comparisons on {(x, ε) : ε ≥ 0}.
func ffEpsHalf(rs ...[]string) *exact.Polyhedron {
	return halfspaces(2, append([][]string{ffRow("0", "-1", "0")}, rs...)...)
}

func ffGtzeroXEps() []cpwl.Piece {
	return []cpwl.Piece{
		piece(ffEpsHalf(ffRow("1", "0", "0")), affine(ffRows(ffRow("0", "0")))),                         // x ≤ 0: 0
		piece(ffEpsHalf(ffRow("-1", "0", "0"), ffRow("1", "-1", "0")), affine(ffRows(ffRow("1", "0")))), // 0 ≤ x ≤ ε: x
		piece(ffEpsHalf(ffRow("-1", "1", "0")), affine(ffRows(ffRow("0", "1"))))}                        // x ≥ ε: ε
}

func ffGezeroXEps() []cpwl.Piece {
	return []cpwl.Piece{
		piece(ffEpsHalf(ffRow("1", "1", "0")), affine(ffRows(ffRow("0", "0")))),                         // x ≤ −ε: 0
		piece(ffEpsHalf(ffRow("-1", "-1", "0"), ffRow("1", "0", "0")), affine(ffRows(ffRow("1", "1")))), // −ε ≤ x ≤ 0: x + ε
		piece(ffEpsHalf(ffRow("-1", "0", "0")), affine(ffRows(ffRow("0", "1"))))}                        // x ≥ 0: ε
}

func ffEqzeroXEps() []cpwl.Piece {
	return []cpwl.Piece{
		piece(ffEpsHalf(ffRow("1", "1", "0")), affine(ffRows(ffRow("0", "0")))),                          // x ≤ −ε: 0
		piece(ffEpsHalf(ffRow("-1", "-1", "0"), ffRow("1", "0", "0")), affine(ffRows(ffRow("1", "1")))),  // −ε ≤ x ≤ 0: ε − |x|
		piece(ffEpsHalf(ffRow("-1", "0", "0"), ffRow("1", "-1", "0")), affine(ffRows(ffRow("-1", "1")))), // 0 ≤ x ≤ ε: ε − |x|
		piece(ffEpsHalf(ffRow("-1", "1", "0")), affine(ffRows(ffRow("0", "0"))))}                         // x ≥ ε: 0
}

// grayPoints: a point of each comparison's gray region where it differs
// from the indicator it stands for (the cheat sheet's "No").
func ffCheckComparatorsNotExact(gt, ge, eq func(eps *big.Rat) *stream.FF) (*Evidence, error) {
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
			eps := q(e)
			x := new(big.Rat).Mul(q(p.at), eps)
			g, err := ffnOf(p.build(eps))
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
				return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("%s with ε = %s is exact at the gray-region point x = %s: %s = 𝕀", p.name, e, x.RatString(), y[0].RatString())}, nil
			}
			if e == epsilons[0] {
				parts = append(parts, fmt.Sprintf("%s(%s) = %s ≠ %s", p.name, x.RatString(), y[0].RatString(), want.RatString()))
			}
		}
	}
	return &Evidence{Verdict: Proved, Summary: fmt.Sprintf("each differs from its indicator in its gray region, for every ε ∈ {%s} (exact): at ε = %s, %s",
		joinComma(epsilons), epsilons[0], joinComma(parts)),
		Explain: []string{"No FFN computes an indicator exactly on ℝ: FFNs are continuous, 𝕀[x > 0], 𝕀[x ≥ 0] and 𝕀[x = 0] jump at 0 (§Comparisons: \"not CPWL because there is a jump\")."}}, nil
}

func init() {
	Register(
		ffClaim("ffn.gtzero-eps.definition", ffSecCompare, "sec:comparison",
			"GTZero_ε (W1 = [1; 1], b1 = [0; −ε], W2 = [1/ε, −1/ε]) is 0 for x ≤ 0, x/ε for 0 < x < ε (gray), 1 for x ≥ ε",
			"x ∈ ℝ and every ε > 0 (the region proof at ε = 1, and positive homogeneity)", Proved,
			ffEveryEps(ffGtzeroEps, 0, epsilons, proveAt([]string{"1"}, ffGtzeroEps, ffGtzeroPieces))),
		ffClaim("ffn.gezero-eps.definition", ffSecCompare, "sec:comparison",
			"GEZero_ε (W1 = [1; 1], b1 = [ε; 0], W2 = [1/ε, −1/ε]) is 0 for x ≤ −ε, 1 + x/ε for −ε < x < 0 (gray), 1 for x ≥ 0",
			"x ∈ ℝ and every ε > 0 (the region proof at ε = 1, and positive homogeneity)", Proved,
			ffEveryEps(ffGezeroEps, 0, epsilons, proveAt([]string{"1"}, ffGezeroEps, ffGezeroPieces))),
		ffClaim("ffn.eqzero-eps.definition", ffSecCompare, "sec:comparison",
			"EqZero_ε (W1 = [1; 1; 1], b1 = [ε; 0; −ε], W2 = [1/ε, −2/ε, 1/ε]) is 0 for |x| ≥ ε, 1 − |x/ε| for 0 < |x| < ε (gray), 1 at x = 0",
			"x ∈ ℝ and every ε > 0 (the region proof at ε = 1, and positive homogeneity)", Proved,
			ffEveryEps(ffEqzeroEps, 0, epsilons, proveAt([]string{"1"}, ffEqzeroEps, ffEqzeroPieces))),
		ffClaim("ffn.gtzero-eps.indicator", ffSecCompare, "sec:comparison",
			"GTZero_ε computes 𝕀[x > 0] exactly outside the gray region",
			"x ≤ 0 and x ≥ ε as separate polyhedra, every ε > 0 (the proof at ε = 1, and positive homogeneity)", Proved,
			ffExactRegions(ffGtzeroEps, [][3]string{{"", "0", "0"}, {"1", "", "1"}})),
		ffClaim("ffn.gezero-eps.indicator", ffSecCompare, "sec:comparison",
			"GEZero_ε computes 𝕀[x ≥ 0] exactly outside the gray region",
			"x ≤ −ε and x ≥ 0 as separate polyhedra, every ε > 0 (the proof at ε = 1, and positive homogeneity)", Proved,
			ffExactRegions(ffGezeroEps, [][3]string{{"", "-1", "0"}, {"0", "", "1"}})),
		ffClaim("ffn.eqzero-eps.indicator", ffSecCompare, "sec:comparison",
			"EqZero_ε computes 𝕀[x = 0] exactly outside the gray region",
			"x ≤ −ε, x = 0 and x ≥ ε as separate polyhedra, every ε > 0 (the proof at ε = 1, and positive homogeneity)", Proved,
			ffExactRegions(ffEqzeroEps, [][3]string{{"", "-1", "0"}, {"0", "0", "1"}, {"1", "", "0"}})),
		ffClaim("ffn.gtzero.definition", ffSecCompare, "sec:comparison",
			"GTZero(x, ε) (W1 = [[1, 0], [1, −1]], W2 = [1, −1]) is 0 for x ≤ 0, x for 0 < x < ε (gray), ε for x ≥ ε",
			"{(x, ε) ∈ ℝ² : ε ≥ 0}: every ε at once", Proved,
			ffOne(ffnCase{f: blocks.GTZero("x", "eps", "out"), domain: ffEpsHalf(), pieces: ffGtzeroXEps()})),
		ffClaim("ffn.gezero.definition", ffSecCompare, "sec:comparison",
			"GEZero(x, ε) (W1 = [[1, 1], [1, 0]], W2 = [1, −1]) is 0 for x ≤ −ε, x + ε for −ε < x < 0 (gray), ε for x ≥ 0",
			"{(x, ε) ∈ ℝ² : ε ≥ 0}: every ε at once", Proved,
			ffOne(ffnCase{f: blocks.GEZero("x", "eps", "out"), domain: ffEpsHalf(), pieces: ffGezeroXEps()})),
		ffClaim("ffn.eqzero.definition", ffSecCompare, "sec:comparison",
			"EqZero(x, ε) (W1 = [[1, 1], [1, 0], [1, −1]], W2 = [1, −2, 1]) is 0 for |x| ≥ ε, ε − |x| for 0 < |x| < ε (gray), ε at x = 0",
			"{(x, ε) ∈ ℝ² : ε ≥ 0}: every ε at once", Proved,
			ffOne(ffnCase{f: blocks.EqZero("x", "eps", "out"), domain: ffEpsHalf(), pieces: ffEqzeroXEps()})),
		ffClaim("ffn.comparisons.input-dependent.indicator", ffSecCompare, "sec:comparison",
			"outside the gray regions GTZero(x, ε) = ε·𝕀[x > 0], GEZero(x, ε) = ε·𝕀[x ≥ 0], EqZero(x, ε) = ε·𝕀[x = 0] (\"accept values as small as x ≥ ε as true\")",
			"ε ≥ 0 and x outside the gray region, each exact region a polyhedron of (x, ε)-space: every ε at once", Proved,
			ffAll(
				ffnCase{label: "GTZero, x ≤ 0", f: blocks.GTZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("1", "0", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "0"))))}},
				ffnCase{label: "GTZero, x ≥ ε", f: blocks.GTZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("-1", "1", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "1"))))}},
				ffnCase{label: "GEZero, x ≤ −ε", f: blocks.GEZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("1", "1", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "0"))))}},
				ffnCase{label: "GEZero, x ≥ 0", f: blocks.GEZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("-1", "0", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "1"))))}},
				ffnCase{label: "EqZero, x ≤ −ε", f: blocks.EqZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("1", "1", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "0"))))}},
				ffnCase{label: "EqZero, x = 0", f: blocks.EqZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("1", "0", "0"), ffRow("-1", "0", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "1"))))}},
				ffnCase{label: "EqZero, x ≥ ε", f: blocks.EqZero("x", "eps", "out"), domain: ffEpsHalf(ffRow("-1", "1", "0")), pieces: []cpwl.Piece{piece(space(2), affine(ffRows(ffRow("0", "0"))))}},
			)),
	)
}
