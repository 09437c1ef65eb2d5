package rounding

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
)

// ---------------------------------------------------------------------
// §Error Analysis: layer normalization

var errorLayerNormClaims = []*proofs.Claim{
	{ID: "round.error.layernorm", Section: secError, Label: "",
		Statement: "Error analysis of layer normalization: if ‖x‖ ≤ X, ‖x̂ − x‖ ≤ δ ≤ 1 and LN.ε > 0, there is a K with ‖LN(x̂) − LN(x)‖ ≤ Kδ",
		Domain:    "Euclidean norms; 150 seeded random layer norms (d = 2 … 4, ε from 10⁻⁴ to 1, any γ, β) and pairs near constant vectors, against K = max|γ_k|/√ε",
		Recorded:  proofs.Holds, Check: func() (*proofs.Evidence, error) { return checkLayerNorm(17, 150, big.NewRat(1, 1)) }},
	{ID: "round.error.layernorm.needs-eps", Section: secError, Label: "",
		Statement: "the hypothesis LN.ε > 0 is needed: with LN.ε = 0 no constant K bounds ‖LN(x̂) − LN(x)‖ by Kδ, even for ‖x‖ ≤ X and δ ≤ 1",
		Domain:    "d = 2, γ = 1, β = 0, x = (t, 0), x̂ = (−t, 0), t ∈ (0, 1/2]",
		Recorded:  proofs.Proved, Check: func() (*proofs.Evidence, error) { return checkLayerNormNoEps(new(big.Rat), "exact") }},
}

// checkLayerNorm: for seeded random layer norms with ε > 0 and inputs
// pushed toward constant vectors (where LN is steepest), ‖LN(x̂) − LN(x)‖₂
// ≤ K δ with K = max|γ_k|/√ε, certified: K²δ² = max γ_k² δ²/ε is rational.
// kScale multiplies K.
func checkLayerNorm(seed uint64, cases int, kScale *big.Rat) (*proofs.Evidence, error) {
	r := newSeeded(seed)
	epss := []*big.Rat{big.NewRat(1, 10000), big.NewRat(1, 100), big.NewRat(1, 4), big.NewRat(1, 1)}
	spreads := []*big.Rat{new(big.Rat), big.NewRat(1, 1000), big.NewRat(1, 10), big.NewRat(1, 1), big.NewRat(3, 1)}
	deltas := []int64{1, 8, 1024, 1 << 20}
	worst := new(big.Rat)
	worstAt := ""
	var rows [][]*big.Rat
	type job struct {
		d            int
		eps, k2, dd2 *big.Rat
		m            *model.Model
	}
	var jobs []job
	for c := 0; c < cases; c++ {
		d := 2 + r.IntN(3)
		eps := epss[r.IntN(len(epss))]
		gamma, beta := r.vector(d, 2, 4), r.vector(d, 1, 4)
		g2 := new(big.Rat)
		for _, g := range gamma {
			if v := new(big.Rat).Mul(g, g); v.Cmp(g2) > 0 {
				g2 = v
			}
		}
		// x = c·1 + s·u, x̂ = x + dx with ‖dx‖ small or 1
		base := r.rat(2, 4)
		s := spreads[r.IntN(len(spreads))]
		x := make([]*big.Rat, d)
		for i := range x {
			x[i] = new(big.Rat).Add(base, new(big.Rat).Mul(s, r.rat(1, 8)))
		}
		den := deltas[r.IntN(len(deltas))]
		dx := make([]*big.Rat, d)
		xh := make([]*big.Rat, d)
		for i := range dx {
			dx[i] = big.NewRat(int64(r.IntN(129)-64), 64*int64(d)*den)
			xh[i] = new(big.Rat).Add(x[i], dx[i])
		}
		dd2 := normSq(dx)
		if dd2.Sign() == 0 {
			continue
		}
		k2 := new(big.Rat).Quo(g2, eps)
		k2.Mul(k2, new(big.Rat).Mul(kScale, kScale))
		jobs = append(jobs, job{d: d, eps: eps, k2: k2, dd2: dd2, m: proofs.AffineLayerNormModel(d, eps, gamma, beta)})
		rows = append(rows, x, xh)
	}
	for n, j := range jobs {
		out, err := proofs.RunRows(j.m, "interval:64", rows[2*n:2*n+2])
		if err != nil {
			return nil, err
		}
		lhsLo, lhs, err := diffNormSq(out[1].Values, out[0].Values)
		if err != nil {
			return nil, err
		}
		rhs := new(big.Rat).Mul(j.k2, j.dd2)
		if lhs.Cmp(rhs) > 0 {
			if lhsLo.Cmp(rhs) > 0 {
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("case %d (d = %d, ε = %s): x = %s, x̂ = %s: ‖ΔLN‖² ≥ %s exceeds K²δ² = %s (certified)", n+1, j.d, j.eps.RatString(), ratStrings(rows[2*n]), ratStrings(rows[2*n+1]), lhsLo.FloatString(10), rhs.FloatString(10))}, nil
			}
			return nil, fmt.Errorf("case %d: the enclosures are too wide to decide ‖ΔLN‖ ≤ Kδ", n+1)
		}
		if ratio := new(big.Rat).Quo(lhs, rhs); ratio.Cmp(worst) > 0 {
			worst = ratio
			worstAt = fmt.Sprintf("d = %d, ε = %s", j.d, j.eps.RatString())
		}
	}
	w, _ := worst.Float64()
	return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random layer norms and pairs (d = 2 … 4, ε ∈ {10⁻⁴, 1/100, 1/4, 1}, x near constant vectors, δ from 2⁻²⁰ to 1, seed %d), each certified (interval:64) against K = max|γ_k|/√ε (for every X; δ ≤ 1 is not needed); largest ‖ΔLN‖/(Kδ) = %.4f (%s)",
		len(jobs), seed, sqrtFloat(w), worstAt),
		Explain: []string{"LN(x) = γ ⊙ c/√(‖c‖²/d + ε) + β with c = x − μ1 (an orthogonal projection of x); the Jacobian of c ↦ c/√(‖c‖²/d + ε) has norm ≤ 1/√(σ² + ε) ≤ 1/√ε, so LN is (max|γ|/√ε)-Lipschitz on all of ℝ^d, the worst case near constant vectors."}}, nil
}

// checkLayerNormNoEps: with ε = 0 LN is scale invariant, and LN(t, 0) =
// (1, −1), LN(−t, 0) = (−1, 1) for every t > 0: ‖x̂ − x‖ = 2t, while
// ‖LN(x̂) − LN(x)‖ = 2√2, so no K works for small δ.
//
// eps is LN.ε (0 for the claim).
func checkLayerNormNoEps(eps *big.Rat, p string) (*proofs.Evidence, error) {
	m := proofs.AffineLayerNormModel(2, eps, []*big.Rat{big.NewRat(1, 1), big.NewRat(1, 1)}, []*big.Rat{new(big.Rat), new(big.Rat)})
	for _, k := range []int{1, 5, 10, 15, 20, 25, 30} {
		t := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(k)))
		out, err := proofs.RunRows(m, p, [][]*big.Rat{{t, new(big.Rat)}, {new(big.Rat).Neg(t), new(big.Rat)}})
		if err != nil {
			return nil, err
		}
		for i, want := range [][2]int64{{1, -1}, {-1, 1}} {
			for c := 0; c < 2; c++ {
				if !out[i].Values[c].Equals(big.NewRat(want[c], 1)) {
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("LN(±%s, 0) with ε = %s is not (±1, ∓1): %s", t.RatString(), eps.RatString(), out[i].Values[c].Text)}, nil
				}
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "with LN.ε = 0, x = (t, 0), x̂ = (−t, 0): δ = 2t and LN(x) = (1, −1), LN(x̂) = (−1, 1) exactly (checked at t = 2^−k, k = 1, 5, 10, …, 30; for every t > 0 since then (x − μ)/σ = (1, −1)), so ‖ΔLN‖/δ = √2/t exceeds any K as t → 0, with ‖x‖ ≤ 1 and δ ≤ 1",
		Explain: []string{"For x = (t, 0), t > 0: μ = t/2, σ = t/2, so LN(x) = ((t/2)/(t/2), (−t/2)/(t/2)) = (1, −1) whatever t; likewise LN(−t, 0) = (−1, 1)."}}, nil
}
