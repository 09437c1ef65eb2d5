package rounding

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// §Error Analysis: FFNs

var errorFFNClaims = []*proofs.Claim{
	{ID: "round.error.ffn.literal", Section: secError, Label: "",
		Statement: "Error analysis of FFNNs, as printed: if ‖x̂ − x‖ ≤ δ and ff is a ReLU FFN, there is a K with ‖ff(x̂) − ff(x̂)‖ ≤ Kδ (sic: x̂ twice)",
		Domain:    "ReLU FFNs on ℝ^d (5 seeded random ones checked)",
		Recorded:  proofs.Proved, Check: func() (*proofs.Evidence, error) { return checkFFNLiteral(randomFFNs(3, 5)) }},
	{ID: "round.error.ffn", Section: secError, Label: "",
		Statement: "Error analysis of FFNNs, as intended: ‖ff(x̂) − ff(x)‖ ≤ Kδ, with K = ‖W2‖ ‖W1‖ in the L_{∞,1} norm the paper suggests",
		Domain:    "ℓ1 vector norms (for which ‖·‖_{∞,1} bounds the operator norm); 40 seeded random ReLU FFNs ℝ^d → ℝ^k (d, k ≤ 3, ≤ 4 units), their exact Lipschitz constants over their linear regions, and random pairs",
		Recorded:  proofs.Holds, Check: func() (*proofs.Evidence, error) { return checkFFNLipschitz(randomFFNs(5, 40), 5, big.NewRat(1, 1)) }},
	{ID: "round.error.linf1-norm", Section: secError, Label: "",
		Statement: "\"‖·‖ around matrices is the operator norm. For simplicity, one can use the L_{∞,1} norm instead\": K = ‖W2‖_{∞,1}‖W1‖_{∞,1} in the FFN error bound",
		Domain:    "Euclidean vector norms; ff(x) = ReLU(x₁ + x₂ + x₃), x = 0, x̂ = (2/3, 2/3, 1/3)",
		Recorded:  proofs.Refuted, Check: func() (*proofs.Evidence, error) {
			f := &stream.FF{Name: "sum", In: proofs.Names("x", 3), Out: []string{"y"}, W1: model.Ints([]int64{1, 1, 1}), W2: model.Ints([]int64{1})}
			return checkLinf1Euclidean(f, []*big.Rat{new(big.Rat), new(big.Rat), new(big.Rat)}, []*big.Rat{big.NewRat(2, 3), big.NewRat(2, 3), big.NewRat(1, 3)})
		}},
}

// norm1 is ‖v‖₁.
func norm1(v []*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, x := range v {
		s.Add(s, new(big.Rat).Abs(x))
	}
	return s
}

// linf1 is the paper's ‖A‖_{∞,1} = Σ_i max_j |A_ij|.
func linf1(a exact.Matrix) *big.Rat {
	s := new(big.Rat)
	for i := 0; i < a.Rows; i++ {
		m := new(big.Rat)
		for j := 0; j < a.Cols; j++ {
			if v := new(big.Rat).Abs(a.At(i, j)); v.Cmp(m) > 0 {
				m = v
			}
		}
		s.Add(s, m)
	}
	return s
}

// op11 is the ℓ1 operator norm: the largest column sum of |A|.
func op11(a exact.Matrix) *big.Rat {
	m := new(big.Rat)
	for j := 0; j < a.Cols; j++ {
		s := new(big.Rat)
		for i := 0; i < a.Rows; i++ {
			s.Add(s, new(big.Rat).Abs(a.At(i, j)))
		}
		if s.Cmp(m) > 0 {
			m = s
		}
	}
	return m
}

// checkFFNLipschitz: for seeded random ReLU FFNs, the exact ℓ1 Lipschitz
// constant L (the largest ℓ1 operator norm of the FFN's Jacobian over its
// linear regions, enumerated exactly) is at most K = ‖W2‖_{∞,1}‖W1‖_{∞,1};
// and at random pairs (x, x̂), ‖ff(x̂) − ff(x)‖₁ ≤ L‖x̂ − x‖₁ ≤ K‖x̂ − x‖₁.
//
// kScale multiplies K (1 for the claim; the tests shrink it to see the
// check fail).
func checkFFNLipschitz(ffs []*stream.FF, seed uint64, kScale *big.Rat) (*proofs.Evidence, error) {
	r := newSeeded(seed)
	worst, pairs := new(big.Rat), 0
	worstAt := ""
	attained := 0
	var cert proofs.CertTally
	for n, f := range ffs {
		g, err := proofs.FFNOf(f)
		if err != nil {
			return nil, err
		}
		d := g.In()
		regions, rep, err := proofs.CheckedRegions(g, proofs.Space(d), nil)
		if err != nil {
			return nil, err
		}
		cert.Add(rep)
		L := new(big.Rat)
		for _, reg := range regions {
			if v := op11(reg.Map.A); v.Cmp(L) > 0 {
				L = v
			}
		}
		K := new(big.Rat).Mul(linf1(g.W2), linf1(g.W1))
		K.Mul(K, kScale)
		if L.Cmp(K) > 0 {
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("FFN %d (ℝ^%d → ℝ^%d, %s): the Lipschitz constant %s exceeds K = ‖W2‖‖W1‖ = %s", n+1, d, g.Out(), plural.Of(g.Hidden(), "unit"), L.RatString(), K.RatString())}, nil
		}
		if L.Cmp(K) == 0 {
			attained++
		}
		if K.Sign() > 0 {
			if ratio := new(big.Rat).Quo(L, K); ratio.Cmp(worst) > 0 {
				worst, worstAt = ratio, fmt.Sprintf("FFN %d: L = %s, K = %s", n+1, L.RatString(), K.RatString())
			}
		}
		for p := 0; p < 20; p++ {
			x := r.vector(d, 4, 8)
			dx := r.vector(d, 1, 1<<uint(r.IntN(10)))
			xh, fx, fxh, err := perturbed(g, x, dx)
			if err != nil {
				return nil, err
			}
			diff := make([]*big.Rat, len(fx))
			for i := range fx {
				diff[i] = new(big.Rat).Sub(fxh[i], fx[i])
			}
			lhs, delta := norm1(diff), norm1(dx)
			if lhs.Cmp(new(big.Rat).Mul(K, delta)) > 0 {
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("FFN %d at x = %v, x̂ = %v: ‖ff(x̂) − ff(x)‖₁ = %s > K δ = %s·%s", n+1, x, xh, lhs.RatString(), K.RatString(), delta.RatString())}, nil
			}
			if lhs.Cmp(new(big.Rat).Mul(L, delta)) > 0 {
				return nil, fmt.Errorf("FFN %d: a pair exceeds the Lipschitz constant of the regions, %s: the region enumeration is wrong", n+1, L.RatString())
			}
			pairs++
		}
	}
	return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random ReLU FFNs (ℝ^d → ℝ^k, d, k ≤ 3, 1 … 4 units, seed %d), each with its exact ℓ1 Lipschitz constant L over its linear regions, and %d random pairs (x, x̂), all exact; largest L/K = %s (%s); L = K for %d of them; %s",
		len(ffs), seed, pairs, worst.FloatString(4), worstAt, attained, cert.RegionsNote()),
		Explain: []string{
			"Norms: ℓ1 on vectors, so that the paper's ‖A‖_{∞,1} = Σ_i max_j |A_ij| bounds the operator norm (its largest column sum of |A|).",
			"A CPWL f is affine with matrix J_R on each linear region R, and a segment from x to x̂ crosses finitely many regions, so ‖f(x̂) − f(x)‖₁ ≤ max_R ‖J_R‖ ‖x̂ − x‖₁: L = max_R ‖J_R‖ is f's exact Lipschitz constant, and ReLU being 1-Lipschitz componentwise gives L ≤ ‖W2‖ ‖W1‖.",
		}}, nil
}

func randomFFNs(seed uint64, count int) []*stream.FF {
	r := newSeeded(seed)
	var fs []*stream.FF
	for n := 0; n < count; n++ {
		d, h, k := 1+r.IntN(3), 1+r.IntN(4), 1+r.IntN(3)
		fs = append(fs, randomFFN(r, d, h, k))
	}
	return fs
}

// checkFFNLiteral: the printed ‖ff(x̂) − ff(x̂)‖ ≤ Kδ compares ff(x̂) with
// itself; the decision procedure proves ff = ff on ℝ^d, so the left side
// is 0 and any K ≥ 0 works.
func checkFFNLiteral(ffs []*stream.FF) (*proofs.Evidence, error) {
	var cert proofs.CertTally
	for n, f := range ffs {
		ev, err := proofs.ProveEquivalent(f, f, proofs.Space(len(f.In)))
		if err != nil {
			return nil, err
		}
		if ev.Verdict != proofs.Proved {
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("FFN %d: ff(x̂) ≠ ff(x̂): %s", n+1, ev.Summary)}, nil
		}
		cert.AddAll(ev.Cert)
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("vacuous: ff(x̂) − ff(x̂) = 0 on all of ℝ^d (proved for %d FFNs by the decision procedure, %s; and true of any function), so any K ≥ 0 works; the intended ‖ff(x̂) − ff(x)‖ ≤ Kδ is round.error.ffn", len(ffs), cert.Note())}, nil
}

// checkLinf1Euclidean: with Euclidean vector norms, K = ‖W2‖_{∞,1}‖W1‖_{∞,1}
// is not a valid constant: ff(x) = ReLU(x1 + x2 + x3) has K = 1, and at
// x = 0, x̂ = (2/3, 2/3, 1/3) (‖x̂ − x‖₂ = 1) it changes by 5/3.
func checkLinf1Euclidean(f *stream.FF, x, xh []*big.Rat) (*proofs.Evidence, error) {
	g, err := proofs.FFNOf(f)
	if err != nil {
		return nil, err
	}
	K := new(big.Rat).Mul(linf1(g.W2), linf1(g.W1))
	fx, err := g.Eval(x)
	if err != nil {
		return nil, err
	}
	fxh, err := g.Eval(xh)
	if err != nil {
		return nil, err
	}
	diff, dx := make([]*big.Rat, len(fx)), make([]*big.Rat, len(x))
	for i := range fx {
		diff[i] = new(big.Rat).Sub(fxh[i], fx[i])
	}
	for i := range x {
		dx[i] = new(big.Rat).Sub(xh[i], x[i])
	}
	lhs, d2 := normSq(diff), normSq(dx)
	rhs := new(big.Rat).Mul(new(big.Rat).Mul(K, K), d2)
	if lhs.Cmp(rhs) <= 0 {
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("no counterexample at the one pair checked: ‖Δff‖₂² = %s ≤ K²δ² = %s", lhs.RatString(), rhs.RatString())}, nil
	}
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("ff(x) = ReLU(x₁ + x₂ + x₃) has ‖W2‖_{∞,1}‖W1‖_{∞,1} = %s; at x = %v, x̂ = %v, ‖x̂ − x‖₂² = %s but ‖ff(x̂) − ff(x)‖₂² = %s > K²δ² = %s (exact)",
		K.RatString(), ratStrings(x), ratStrings(xh), d2.RatString(), lhs.RatString(), rhs.RatString()),
		Explain: []string{"‖A‖_{∞,1} = Σ_i max_j |A_ij| bounds the ℓ1 operator norm (the largest column sum) but not the Euclidean one: ‖[1 1 1]‖_{∞,1} = 1 < √3 = ‖[1 1 1]‖₂, nor the ℓ∞ one (3, the largest row sum).",
			"With ℓ1 vector norms the substitution is valid (round.error.ffn)."}}, nil
}
