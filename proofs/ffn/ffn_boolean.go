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
// §Boolean Functions

// index is the number of the assignment x (x_1 the most significant bit),
// as the paper's matrix numbers ξ_0 … ξ_{2^m−1}.
func index(x []int) int {
	k := 0
	for _, b := range x {
		k = 2*k + b
	}
	return k
}

func assignment(k, m int) []int {
	x := make([]int, m)
	for i := m - 1; i >= 0; i-- {
		x[i] = k & 1
		k >>= 1
	}
	return x
}

func ratVec(x []int) exact.Vector {
	v := make(exact.Vector, len(x))
	for i, b := range x {
		v[i] = big.NewRat(int64(b), 1)
	}
	return v
}

// checkBooleanTables evaluates ff_φ exactly at every x ∈ {0,1}^m for every
// truth table φ of m ≤ maxM bits.
func checkBooleanTables(build func(xs []string, out string, table []bool) (*stream.FF, error), maxM int) (*proofs.Evidence, error) {
	tables, evals := 0, 0
	for m := 1; m <= maxM; m++ {
		xs := proofs.Names("x", m)
		for t := 0; t < 1<<(1<<m); t++ {
			table := make([]bool, 1<<m)
			for k := range table {
				table[k] = t>>k&1 == 1
			}
			f, err := build(xs, "phi", table)
			if err != nil {
				return nil, err
			}
			g, err := proofs.FFNOf(f)
			if err != nil {
				return nil, err
			}
			for k := 0; k < 1<<m; k++ {
				x := assignment(k, m)
				y, err := g.Eval(ratVec(x))
				if err != nil {
					return nil, err
				}
				want := int64(0)
				if table[index(x)] {
					want = 1
				}
				evals++
				if y[0].Cmp(big.NewRat(want, 1)) != 0 {
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("m = %d, truth table %0*b (φ(ξ_0) first): at x = %v ff_φ gives %s, φ(x) = %d (exact)",
						m, 1<<m, reverseBits(t, 1<<m), x, y[0].RatString(), want)}, nil
				}
			}
			tables++
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("every truth table φ of m ≤ %d bits (%d tables) at every x ∈ {0,1}^m: %d exact evaluations", maxM, tables, evals)}, nil
}

func reverseBits(t, n int) int {
	r := 0
	for k := 0; k < n; k++ {
		r = r<<1 | t>>k&1
	}
	return r
}

// checkBooleanHidden: the hidden layer ReLU(W1 x + b1) of ff_φ is
// h_k = 𝕀[ξ_k = x] at every x ∈ {0,1}^m, m ≤ maxM (any table: the hidden
// layer does not depend on φ).
func checkBooleanHidden(build func(xs []string, out string, table []bool) (*stream.FF, error), maxM int) (*proofs.Evidence, error) {
	evals := 0
	for m := 1; m <= maxM; m++ {
		g, err := booleanFFN(build, m)
		if err != nil {
			return nil, err
		}
		for k := 0; k < 1<<m; k++ {
			x := assignment(k, m)
			z, err := g.Pre(ratVec(x))
			if err != nil {
				return nil, err
			}
			for u, zu := range z {
				h := new(big.Rat).Set(zu)
				if h.Sign() < 0 {
					h.SetInt64(0)
				}
				want := int64(0)
				if u == k {
					want = 1
				}
				evals++
				if h.Cmp(big.NewRat(want, 1)) != 0 {
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("m = %d, x = %v: hidden unit h_%d = %s, 𝕀[ξ_%d = x] = %d (exact)", m, x, u, h.RatString(), u, want)}, nil
				}
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("every hidden unit at every x ∈ {0,1}^m for m ≤ %d: %d exact evaluations", maxM, evals)}, nil
}

// checkBooleanDerivation: for every m ≤ maxM and k, the three printed
// forms of the pre-activation, ½(2ξ_k − 1)·(2x − 1) − (m/2 − 1),
// 2ξ_k·x − x·1 − ξ_k·1 + 1 and (2ξ_k − 1)·x − 1·ξ_k + 1, are the same
// Affine function of x ∈ ℝ^m (coefficients and constants compared
// exactly), and it is row k of the block's W1 with b1[k].
func checkBooleanDerivation(build func(xs []string, out string, table []bool) (*stream.FF, error), maxM int) (*proofs.Evidence, error) {
	forms := 0
	for m := 1; m <= maxM; m++ {
		g, err := booleanFFN(build, m)
		if err != nil {
			return nil, err
		}
		for k := 0; k < 1<<m; k++ {
			xi := assignment(k, m)
			ones := 0
			for _, b := range xi {
				ones += b
			}
			// each form as (coefficients of x, constant)
			type form struct {
				a []*big.Rat
				c *big.Rat
			}
			var fs []form
			// ½(2ξ − 1)·(2x − 1) − (m/2 − 1) = Σ (2ξ_i − 1) x_i − ½ Σ (2ξ_i − 1) − m/2 + 1
			a1 := make([]*big.Rat, m)
			s := new(big.Rat)
			for i, b := range xi {
				a1[i] = big.NewRat(int64(2*b-1), 1)
				s.Add(s, big.NewRat(int64(2*b-1), 1))
			}
			c1 := new(big.Rat).Mul(s, big.NewRat(-1, 2))
			c1.Sub(c1, big.NewRat(int64(m), 2)).Add(c1, big.NewRat(1, 1))
			fs = append(fs, form{a1, c1})
			// 2ξ·x − x·1 − ξ·1 + 1
			a2 := make([]*big.Rat, m)
			for i, b := range xi {
				a2[i] = big.NewRat(int64(2*b), 1)
				a2[i].Sub(a2[i], big.NewRat(1, 1))
			}
			fs = append(fs, form{a2, big.NewRat(int64(1-ones), 1)})
			// (2ξ − 1)·x − 1·ξ + 1, as W1 and b1 of the block
			a3 := make([]*big.Rat, m)
			for i := range a3 {
				a3[i] = g.W1.At(k, i)
			}
			c3 := new(big.Rat)
			if g.B1 != nil {
				c3 = g.B1[k]
			}
			fs = append(fs, form{a3, c3})
			for j := 1; j < len(fs); j++ {
				same := fs[j].c.Cmp(fs[0].c) == 0
				for i := 0; i < m; i++ {
					same = same && fs[j].a[i].Cmp(fs[0].a[i]) == 0
				}
				if !same {
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("m = %d, k = %d: form %d of the pre-activation, %v·x + %s, differs from ½(2ξ_k − 1)·(2x − 1) − (m/2 − 1) = %v·x + %s (exact)",
						m, k, j+1, fs[j].a, fs[j].c.RatString(), fs[0].a, fs[0].c.RatString())}, nil
				}
			}
			forms++
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("the three printed forms and the block's row (W1, b1) are one affine function of x ∈ ℝ^m, for every k and m ≤ %d (%d rows, coefficients compared exactly)", maxM, forms)}, nil
}

// checkConnectives: ∧ = min, ∨ = max and ¬ = 1 − x on {0,1}^m, exactly.
func checkConnectives(and, or func(x, y, out string) *stream.FF, not func(x, out string) *stream.FF) (*proofs.Evidence, error) {
	type conn struct {
		name string
		f    *stream.FF
		m    int
		want func(x []int) int
	}
	cs := []conn{
		{"x ∧ y", and("x", "y", "z"), 2, func(x []int) int { return x[0] & x[1] }},
		{"x ∨ y", or("x", "y", "z"), 2, func(x []int) int { return x[0] | x[1] }},
		{"¬x", not("x", "z"), 1, func(x []int) int { return 1 - x[0] }},
	}
	for _, c := range cs {
		g, err := proofs.FFNOf(c.f)
		if err != nil {
			return nil, err
		}
		for k := 0; k < 1<<c.m; k++ {
			x := assignment(k, c.m)
			y, err := g.Eval(ratVec(x))
			if err != nil {
				return nil, err
			}
			if y[0].Cmp(big.NewRat(int64(c.want(x)), 1)) != 0 {
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("%s at %v: the FFN gives %s, the truth table %d (exact)", c.name, x, y[0].RatString(), c.want(x))}, nil
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "∧ (min), ∨ (max) and ¬ (1 − x) at every input of {0,1}² and {0,1}: 10 exact evaluations against the truth tables"}, nil
}

// booleanFFN is ff_φ for m inputs and the all-false table, as a ReLU
// FFN: its hidden layer and W1 do not depend on φ.
func booleanFFN(build func(xs []string, out string, table []bool) (*stream.FF, error), m int) (*cpwl.FFN, error) {
	f, err := build(proofs.Names("x", m), "phi", make([]bool, 1<<m))
	if err != nil {
		return nil, err
	}
	return proofs.FFNOf(f)
}

var booleanClaims = []*proofs.Claim{
	claim("ffn.boolean.exact", secBoolean, "sec:ffnn_boolean",
		"ff_φ (W1 rows (2ξ_k − 1)ᵀ, b1_k = 1 − 1·ξ_k, W2 = [φ(ξ_0) … φ(ξ_{2^m−1})]) computes any φ: {0,1}^m → {0,1}",
		"every φ of m ≤ 3 bits (4 + 16 + 256 truth tables), every x ∈ {0,1}^m", proofs.Holds,
		func() (*proofs.Evidence, error) { return checkBooleanTables(blocks.Boolean, 3) }),
	claim("ffn.boolean.hidden", secBoolean, "sec:ffnn_boolean",
		"the hidden units are h_k = ReLU((2ξ_k − 1)·x − 1·ξ_k + 1) = 𝕀[ξ_k = x], so y = Σ_k φ(ξ_k) h_k = φ(x)",
		"every x ∈ {0,1}^m, m ≤ 6", proofs.Holds,
		func() (*proofs.Evidence, error) { return checkBooleanHidden(blocks.Boolean, 6) }),
	claim("ffn.boolean.derivation", secBoolean, "sec:ffnn_boolean",
		"½(2ξ_k − 1)·(2x − 1) − (m/2 − 1) = 2ξ_k·x − x·1 − ξ_k·1 + 1 = (2ξ_k − 1)·x − 1·ξ_k + 1 = (ff_φ.W1 x + ff_φ.b1)_k",
		"x ∈ ℝ^m (affine identities, coefficients compared exactly), every k, m ≤ 6", proofs.Holds,
		func() (*proofs.Evidence, error) { return checkBooleanDerivation(blocks.Boolean, 6) }),
	claim("ffn.boolean.connectives", secBoolean, "sec:ffnn_boolean",
		"conjunction is equivalent to min, disjunction to max, and negation is 1 − x",
		"x ∈ {0,1}² (∧, ∨) and {0,1} (¬), exhaustively", proofs.Proved,
		func() (*proofs.Evidence, error) { return checkConnectives(blocks.And, blocks.Or, blocks.Not) }),
	claim("ffn.not.exact", secBoolean, "sec:ffnn_boolean",
		"¬x is \"just 1 − x\": the block W1 = [1; −1], W2 = [−1, 1], b2 = 1 is 1 − x",
		"x ∈ ℝ (not only {0,1})", proofs.Proved,
		one(proofs.FFNCase{F: blocks.Not("x", "y"), Domain: proofs.Space(1), Pieces: []cpwl.Piece{proofs.Piece(proofs.Space(1), proofs.Line("-1", "1"))}})),
}
