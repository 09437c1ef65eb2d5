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
// §Conditionals

// face is {(p, x, y) : p = v, a ≤ x ≤ b, a ≤ y ≤ b} ("" for no bound on x, y).
func face(v, a, b string) *exact.Polyhedron {
	rs := [][]string{proofs.Row("1", "0", "0", v), proofs.Row("-1", "0", "0", proofs.Neg(v))}
	if a != "" {
		rs = append(rs, proofs.Row("0", "-1", "0", proofs.Neg(a)), proofs.Row("0", "0", "-1", proofs.Neg(a)))
	}
	if b != "" {
		rs = append(rs, proofs.Row("0", "1", "0", b), proofs.Row("0", "0", "1", b))
	}
	return proofs.Halfspaces(3, rs...)
}

// ifCases: if(1, x, y) = x and if(0, x, y) = y on [a, b]².
func ifCases(f *stream.FF, a, b string) []proofs.FFNCase {
	where := fmt.Sprintf("[%s, %s]", a, b)
	if a == "" && b == "" {
		where = "ℝ"
	}
	return []proofs.FFNCase{
		{Label: "p = 1, x, y ∈ " + where, F: f, Domain: face("1", a, b), Pieces: []cpwl.Piece{proofs.Piece(face("1", a, b), proofs.Affine(proofs.Rows(proofs.Row("0", "1", "0"))))}},
		{Label: "p = 0, x, y ∈ " + where, F: f, Domain: face("0", a, b), Pieces: []cpwl.Piece{proofs.Piece(face("0", a, b), proofs.Affine(proofs.Rows(proofs.Row("0", "0", "1"))))}},
	}
}

var ifIntervals = [][2]string{{"0", "1"}, {"-1", "1"}, {"-5/2", "3"}, {"2", "7"}, {"-8", "-1/2"}}

func checkIfIntervals(build func(a, b *big.Rat) (*stream.FF, error)) (*proofs.Evidence, error) {
	var cases []proofs.FFNCase
	for _, ab := range ifIntervals {
		f, err := build(proofs.Q(ab[0]), proofs.Q(ab[1]))
		if err != nil {
			return nil, err
		}
		cases = append(cases, ifCases(f, ab[0], ab[1])...)
	}
	return proofs.ProveCases(cases)
}

func ifInterval(a, b *big.Rat) (*stream.FF, error) {
	return blocks.IfInterval("p", "x", "y", "out", a, b)
}

var conditionalClaims = []*proofs.Claim{
	claim("ffn.if.exact", secIf, "sec:ffnn_conditional",
		"if(p, x, y) with W1 = [[1, 1, 0], [−1, 0, 1]], b1 = [−1; 0], W2 = [1, 1]: if(1, x, y) = ReLU(x) + ReLU(y − 1) = x, if(0, x, y) = ReLU(x − 1) + ReLU(y) = y",
		"the faces p = 1 and p = 0 with x, y ∈ [0, 1] (the paper's assumption), as polyhedra of ℝ³", proofs.Proved,
		all(ifCases(blocks.If("p", "x", "y", "out"), "0", "1")...)),
	claim("ffn.if.interval", secIf, "sec:ffnn_conditional",
		"\"the construction is easily generalized for any bounded interval\": with r = b − a, W1 = [[r, 1, 0], [−r, 0, 1]], b1 = [−a − r; −a], W2 = [1, 1], b2 = a gives x at p = 1 and y at p = 0",
		"the faces p = 1 and p = 0 with x, y ∈ [a, b] for [a, b] = [0, 1], [−1, 1], [−5/2, 3], [2, 7], [−8, −1/2]", proofs.Holds,
		func() (*proofs.Evidence, error) { return checkIfIntervals(ifInterval) }),
	claim("ffn.if.bounds-needed", secIf, "sec:ffnn_conditional",
		"the assumption x, y ∈ [0, 1] is needed: on the face p = 1 with x, y unbounded, if(1, x, y) ≠ x somewhere",
		"the face p = 1, (x, y) ∈ ℝ²", proofs.Proved,
		func() (*proofs.Evidence, error) {
			c := proofs.FFNCase{Label: "p = 1, x, y ∈ ℝ", F: blocks.If("p", "x", "y", "out"), Domain: face("1", "", ""),
				Pieces: []cpwl.Piece{proofs.Piece(face("1", "", ""), proofs.Affine(proofs.Rows(proofs.Row("0", "1", "0"))))}}
			return proofs.ExpectDiffer(c, "if(1, x, y) ≠ x off [0, 1]²")
		}),
	// clip_δ is §Amplification's (ln.clip.exact).
}
