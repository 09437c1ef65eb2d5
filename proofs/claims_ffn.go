package proofs

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Feed-Forward Layers: each ReLU construction is decided
// on its whole domain by the exact decision procedure (exact/cpwl).

// proveAt proves a fixed-ε block for several ε, each on all of ℝ.
func proveAt(epsilons []string, build func(eps *big.Rat) *stream.FF, pieces func(eps *big.Rat) []cpwl.Piece) func() (*Evidence, error) {
	return func() (*Evidence, error) {
		var last *Evidence
		regions := ""
		for _, e := range epsilons {
			eps := q(e)
			ev, err := proveFFN(build(eps), space(1), pieces(eps))
			if err != nil {
				return nil, err
			}
			if ev.Verdict != Proved {
				ev.Summary = "ε = " + e + ": " + ev.Summary
				return ev, nil
			}
			last = ev
			regions += fmt.Sprintf(" ε = %s: %s;", e, ev.Summary)
		}
		last.Summary = "on ℝ for each ε in {" + joinComma(epsilons) + "}:" + regions[:len(regions)-1]
		return last, nil
	}
}

func joinComma(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += x
	}
	return s
}

var epsilons = []string{"1/4", "1", "3"}

func init() {
	r := func(rows ...[]string) [][]string { return rows }
	row := func(xs ...string) []string { return xs }
	Register(
		&Claim{ID: "ffn.min.exact", Section: "Min and Max", Label: "sec:ffnn_minmax",
			Statement: "min(x, y) = ReLU(x) − ReLU(−x) − ReLU(x − y) with W1 = [[1,0],[−1,0],[1,−1]], W2 = [1,−1,−1]",
			Domain:    "(x, y) ∈ ℝ²", Recorded: Proved,
			Check: func() (*Evidence, error) {
				return proveFFN(blocks.Min("x", "y", "min"), space(2), []cpwl.Piece{
					piece(halfspaces(2, row("1", "-1", "0")), affine(r(row("1", "0")))),
					piece(halfspaces(2, row("-1", "1", "0")), affine(r(row("0", "1"))))})
			}},
	)
}
