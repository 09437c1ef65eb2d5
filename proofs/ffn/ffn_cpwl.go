package ffn

import (
	"math/big"
	"strings"

	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// §Continuous Piecewise Linear Functions

// cpwlPoints are the point sets (x_1:y_1, …) the CPWL claims are checked
// for: the recipe's default, two pieces, a zero slope and a repeated
// slope (m_k = m_{k−1}, so a knot whose ReLU has weight 0), and six
// pieces with fractional knots.
var cpwlPoints = []string{
	"-2:1,0:-1,1:0,3:4",
	"0:0,1:1,2:0",
	"-1:2,0:2,1:3,2:4,5:-1",
	"-3:1/2,-5/4:-2,-1/3:7/3,0:0,1/2:1/2,7/2:-9,4:11",
}

func parsePts(s string) (xs, ys []*big.Rat) {
	for _, p := range strings.Split(s, ",") {
		a, b, _ := strings.Cut(p, ":")
		xs, ys = append(xs, proofs.Q(a)), append(ys, proofs.Q(b))
	}
	return xs, ys
}

// slopes are m_1 … m_n (0-based here: m[k] is the slope on [x_k, x_{k+1}]).
func slopes(xs, ys []*big.Rat) []*big.Rat {
	m := make([]*big.Rat, len(xs)-1)
	for k := range m {
		dy := new(big.Rat).Sub(ys[k+1], ys[k])
		m[k] = dy.Quo(dy, new(big.Rat).Sub(xs[k+1], xs[k]))
	}
	return m
}

// cpwlCases are the paper's case split for the points: y_1 + m_1(x − x_1)
// for x ≤ x_2, y_k + m_k(x − x_k) for x_k ≤ x ≤ x_{k+1}, and
// y_n + m_n(x − x_n) for x ≥ x_n (1-based as printed).
func cpwlCases(xs, ys []*big.Rat) []cpwl.Piece {
	m := slopes(xs, ys)
	n := len(m)
	var ps []cpwl.Piece
	for k := 0; k < n; k++ {
		lo, hi := proofs.Rat(xs[k]), proofs.Rat(xs[k+1])
		if k == 0 {
			lo = ""
		}
		if k == n-1 {
			hi = ""
		}
		c := new(big.Rat).Mul(m[k], xs[k])
		ps = append(ps, proofs.Piece(proofs.Interval(lo, hi), proofs.Line(proofs.Rat(m[k]), proofs.Rat(c.Sub(ys[k], c)))))
	}
	return ps
}

// cpwlRewrite builds the FFN of the paper's rewritten formula
// f(x) = y_1 + m_1(x − x_1) + Σ_{k=2}^n (m_k − m_{k−1}) ReLU(x − x_k),
// with its linear part m_1 x written as m_1 ReLU(x) − m_1 ReLU(−x) (the
// only way an FFN carries a linear term).
func cpwlRewrite(xs, ys []*big.Rat) *stream.FF {
	m := slopes(xs, ys)
	n := len(m)
	f := &stream.FF{Name: "cpwl formula", In: []string{"x"}, Out: []string{"f"},
		W1: model.Zeros(n+1, 1), B1: make(model.Vector, n+1), W2: model.Zeros(1, n+1)}
	f.W1.Set(0, 0, numeric.LitInt(1))
	f.W1.Set(1, 0, numeric.LitInt(-1))
	f.W2.Set(0, 0, numeric.Lit(m[0]))
	f.W2.Set(0, 1, numeric.Lit(new(big.Rat).Neg(m[0])))
	for k := 1; k < n; k++ { // the knot x_{k+1} (1-based), slope change m_{k+1} − m_k
		f.W1.Set(k+1, 0, numeric.LitInt(1))
		f.B1[k+1] = numeric.Lit(new(big.Rat).Neg(xs[k]))
		f.W2.Set(0, k+1, numeric.Lit(new(big.Rat).Sub(m[k], m[k-1])))
	}
	c := new(big.Rat).Mul(m[0], xs[0])
	f.B2 = model.RatVector(c.Sub(ys[0], c))
	return f
}

// interpolation is the reference "f(x_k) = y_k, linear in between and
// beyond the outer points", as pieces on [x_k, x_{k+1}] and the two rays,
// computed from the points alone (not from the slopes' formula).
func interpolation(xs, ys []*big.Rat) []cpwl.Piece {
	var ps []cpwl.Piece
	n := len(xs) - 1
	for k := 0; k < n; k++ {
		// the line through (x_k, y_k) and (x_{k+1}, y_{k+1}): y = a x + b
		a := new(big.Rat).Quo(new(big.Rat).Sub(ys[k+1], ys[k]), new(big.Rat).Sub(xs[k+1], xs[k]))
		b := new(big.Rat).Sub(ys[k], new(big.Rat).Mul(a, xs[k]))
		ps = append(ps, proofs.Piece(proofs.Interval(proofs.Rat(xs[k]), proofs.Rat(xs[k+1])), proofs.Line(proofs.Rat(a), proofs.Rat(b))))
		if k == 0 {
			ps = append(ps, proofs.Piece(proofs.Interval("", proofs.Rat(xs[0])), proofs.Line(proofs.Rat(a), proofs.Rat(b))))
		}
		if k == n-1 {
			ps = append(ps, proofs.Piece(proofs.Interval(proofs.Rat(xs[n]), ""), proofs.Line(proofs.Rat(a), proofs.Rat(b))))
		}
	}
	return ps
}

func checkCPWL(build func(xs, ys []*big.Rat) (*stream.FF, error), ref func(xs, ys []*big.Rat) []cpwl.Piece) func() (*proofs.Evidence, error) {
	return func() (*proofs.Evidence, error) {
		var cases []proofs.FFNCase
		for _, pts := range cpwlPoints {
			xs, ys := parsePts(pts)
			f, err := build(xs, ys)
			if err != nil {
				return nil, err
			}
			cases = append(cases, proofs.FFNCase{Label: "points " + pts, F: f, Domain: proofs.Space(1), Pieces: ref(xs, ys)})
		}
		return proofs.ProveCases(cases)
	}
}

func cpwlBlock(xs, ys []*big.Rat) (*stream.FF, error) { return blocks.CPWL("x", "f", xs, ys) }

var cpwlClaims = []*proofs.Claim{
	claim("ffn.cpwl.exact", secCPWL, "sec:ffnn_cpwl",
		"the FFN W1 = [−1; 1; …; 1], b1 = [0; 0; −x_2; …; −x_n], W2 = [−m_1, m_1, m_2 − m_1, …, m_n − m_{n−1}], b2 = y_1 − m_1 x_1 computes the CPWL f through (x_1, y_1), …, (x_{n+1}, y_{n+1})",
		"x ∈ ℝ, for 4 point sets (n = 2 … 6 pieces, a zero slope, a repeated slope, fractional knots)", proofs.Holds,
		checkCPWL(cpwlBlock, interpolation)),
	claim("ffn.cpwl.rewrite", secCPWL, "sec:ffnn_cpwl",
		"f(x) = y_1 + m_1(x − x_1) + Σ_{k=2}^n (m_k − m_{k−1}) ReLU(x − x_k) equals the cases y_1 + m_1(x − x_1) (x ≤ x_2), y_k + m_k(x − x_k) (x_k ≤ x ≤ x_{k+1}), y_n + m_n(x − x_n) (x ≥ x_n)",
		"x ∈ ℝ, for the same 4 point sets; the formula as an FFN (its linear part as m_1 ReLU(x) − m_1 ReLU(−x))", proofs.Holds,
		checkCPWL(func(xs, ys []*big.Rat) (*stream.FF, error) { return cpwlRewrite(xs, ys), nil }, cpwlCases)),
}
