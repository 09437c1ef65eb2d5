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
// §Conditionals

// face is {(p, x, y) : p = v, a ≤ x ≤ b, a ≤ y ≤ b} ("" for no bound on x, y).
func ffFace(v, a, b string) *exact.Polyhedron {
	rs := [][]string{ffRow("1", "0", "0", v), ffRow("-1", "0", "0", ffNeg(v))}
	if a != "" {
		rs = append(rs, ffRow("0", "-1", "0", ffNeg(a)), ffRow("0", "0", "-1", ffNeg(a)))
	}
	if b != "" {
		rs = append(rs, ffRow("0", "1", "0", b), ffRow("0", "0", "1", b))
	}
	return halfspaces(3, rs...)
}

// ffIfCases: if(1, x, y) = x and if(0, x, y) = y on [a, b]².
func ffIfCases(f *stream.FF, a, b string) []ffnCase {
	where := fmt.Sprintf("[%s, %s]", a, b)
	if a == "" && b == "" {
		where = "ℝ"
	}
	return []ffnCase{
		{label: "p = 1, x, y ∈ " + where, f: f, domain: ffFace("1", a, b), pieces: []cpwl.Piece{piece(ffFace("1", a, b), affine(ffRows(ffRow("0", "1", "0"))))}},
		{label: "p = 0, x, y ∈ " + where, f: f, domain: ffFace("0", a, b), pieces: []cpwl.Piece{piece(ffFace("0", a, b), affine(ffRows(ffRow("0", "0", "1"))))}},
	}
}

var ffIfIntervals = [][2]string{{"0", "1"}, {"-1", "1"}, {"-5/2", "3"}, {"2", "7"}, {"-8", "-1/2"}}

func ffCheckIfIntervals(build func(a, b *big.Rat) (*stream.FF, error)) (*Evidence, error) {
	var cases []ffnCase
	for _, ab := range ffIfIntervals {
		f, err := build(q(ab[0]), q(ab[1]))
		if err != nil {
			return nil, err
		}
		cases = append(cases, ffIfCases(f, ab[0], ab[1])...)
	}
	return ffProveCases(cases)
}

func ffIfInterval(a, b *big.Rat) (*stream.FF, error) {
	return blocks.IfInterval("p", "x", "y", "out", a, b)
}

func init() {
	Register(
		ffClaim("ffn.if.exact", ffSecIf, "sec:ffnn_conditional",
			"if(p, x, y) with W1 = [[1, 1, 0], [−1, 0, 1]], b1 = [−1; 0], W2 = [1, 1]: if(1, x, y) = ReLU(x) + ReLU(y − 1) = x, if(0, x, y) = ReLU(x − 1) + ReLU(y) = y",
			"the faces p = 1 and p = 0 with x, y ∈ [0, 1] (the paper's assumption), as polyhedra of ℝ³", Proved,
			ffAll(ffIfCases(blocks.If("p", "x", "y", "out"), "0", "1")...)),
		ffClaim("ffn.if.interval", ffSecIf, "sec:ffnn_conditional",
			"\"the construction is easily generalized for any bounded interval\": with r = b − a, W1 = [[r, 1, 0], [−r, 0, 1]], b1 = [−a − r; −a], W2 = [1, 1], b2 = a gives x at p = 1 and y at p = 0",
			"the faces p = 1 and p = 0 with x, y ∈ [a, b] for [a, b] = [0, 1], [−1, 1], [−5/2, 3], [2, 7], [−8, −1/2]", Holds,
			func() (*Evidence, error) { return ffCheckIfIntervals(ffIfInterval) }),
		ffClaim("ffn.if.bounds-needed", ffSecIf, "sec:ffnn_conditional",
			"the assumption x, y ∈ [0, 1] is needed: on the face p = 1 with x, y unbounded, if(1, x, y) ≠ x somewhere",
			"the face p = 1, (x, y) ∈ ℝ²", Proved,
			func() (*Evidence, error) {
				c := ffnCase{label: "p = 1, x, y ∈ ℝ", f: blocks.If("p", "x", "y", "out"), domain: ffFace("1", "", ""),
					pieces: []cpwl.Piece{piece(ffFace("1", "", ""), affine(ffRows(ffRow("0", "1", "0"))))}}
				return ffExpectDiffer(c, "if(1, x, y) ≠ x off [0, 1]²")
			}),
		// clip_δ is §Amplification's (ln.clip.exact).
	)
}
