package proofs

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
)

// ---------------------------------------------------------------------
// §Error Analysis: layer normalization

func init() {
	Register(
		&Claim{ID: "round.error.layernorm", Section: rdSecError, Label: "",
			Statement: "Error analysis of layer normalization: if ‖x‖ ≤ X, ‖x̂ − x‖ ≤ δ ≤ 1 and LN.ε > 0, there is a K with ‖LN(x̂) − LN(x)‖ ≤ Kδ",
			Domain:    "Euclidean norms; 150 seeded random layer norms (d = 2 … 4, ε from 10⁻⁴ to 1, any γ, β) and pairs near constant vectors, against K = max|γ_k|/√ε",
			Recorded:  Holds, Check: func() (*Evidence, error) { return rdCheckLayerNorm(17, 150, big.NewRat(1, 1)) }},
		&Claim{ID: "round.error.layernorm.needs-eps", Section: rdSecError, Label: "",
			Statement: "the hypothesis LN.ε > 0 is needed: with LN.ε = 0 no constant K bounds ‖LN(x̂) − LN(x)‖ by Kδ, even for ‖x‖ ≤ X and δ ≤ 1",
			Domain:    "d = 2, γ = 1, β = 0, x = (t, 0), x̂ = (−t, 0), t ∈ (0, 1/2]",
			Recorded:  Proved, Check: func() (*Evidence, error) { return rdCheckLayerNormNoEps(new(big.Rat), "exact") }},
	)
}

// rdLnModel is LN over ℝ^d alone (no layers, the final norm of a pre-norm
// model), read out in full.
func rdLnModel(d int, eps *big.Rat, gamma, beta []*big.Rat) *model.Model {
	return &model.Model{Name: "ln", Alphabet: []string{"a"}, WordEmbedding: []model.Vector{make(model.Vector, d)}, D: d,
		Norm: model.PreNorm, FinalNorm: &model.LayerNorm{Eps: numeric.Lit(eps), Gamma: model.RatVector(gamma...), Beta: model.RatVector(beta...)},
		Output: model.Output{Kind: model.Readout, W: model.Identity(d)}}
}

// rdCheckLayerNorm: for seeded random layer norms with ε > 0 and inputs
// pushed toward constant vectors (where LN is steepest), ‖LN(x̂) − LN(x)‖₂
// ≤ K δ with K = max|γ_k|/√ε, certified: K²δ² = max γ_k² δ²/ε is rational.
// kScale multiplies K.
func rdCheckLayerNorm(seed uint64, cases int, kScale *big.Rat) (*Evidence, error) {
	r := rdNewRdRand(seed)
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
		dd2 := rdNormSq(dx)
		if dd2.Sign() == 0 {
			continue
		}
		k2 := new(big.Rat).Quo(g2, eps)
		k2.Mul(k2, new(big.Rat).Mul(kScale, kScale))
		jobs = append(jobs, job{d: d, eps: eps, k2: k2, dd2: dd2, m: rdLnModel(d, eps, gamma, beta)})
		rows = append(rows, x, xh)
	}
	for n, j := range jobs {
		out, err := rdRunRows(j.m, "interval:64", rows[2*n:2*n+2])
		if err != nil {
			return nil, err
		}
		lhsLo, lhs, err := rdDiffNormSq(out[1].Values, out[0].Values)
		if err != nil {
			return nil, err
		}
		rhs := new(big.Rat).Mul(j.k2, j.dd2)
		if lhs.Cmp(rhs) > 0 {
			if lhsLo.Cmp(rhs) > 0 {
				return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("case %d (d = %d, ε = %s): x = %s, x̂ = %s: ‖ΔLN‖² ≥ %s exceeds K²δ² = %s (certified)", n+1, j.d, j.eps.RatString(), rdRatStrings(rows[2*n]), rdRatStrings(rows[2*n+1]), lhsLo.FloatString(10), rhs.FloatString(10))}, nil
			}
			return nil, fmt.Errorf("case %d: the enclosures are too wide to decide ‖ΔLN‖ ≤ Kδ", n+1)
		}
		if ratio := new(big.Rat).Quo(lhs, rhs); ratio.Cmp(worst) > 0 {
			worst = ratio
			worstAt = fmt.Sprintf("d = %d, ε = %s", j.d, j.eps.RatString())
		}
	}
	w, _ := worst.Float64()
	return &Evidence{Verdict: Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random layer norms and pairs (d = 2 … 4, ε ∈ {10⁻⁴, 1/100, 1/4, 1}, x near constant vectors, δ from 2⁻²⁰ to 1, seed %d), each certified (interval:64) against K = max|γ_k|/√ε (for every X; δ ≤ 1 is not needed); largest ‖ΔLN‖/(Kδ) = %.4f (%s)",
		len(jobs), seed, rdSqrtFloat(w), worstAt),
		Explain: []string{"LN(x) = γ ⊙ c/√(‖c‖²/d + ε) + β with c = x − μ1 (an orthogonal projection of x); the Jacobian of c ↦ c/√(‖c‖²/d + ε) has norm ≤ 1/√(σ² + ε) ≤ 1/√ε, so LN is (max|γ|/√ε)-Lipschitz on all of ℝ^d, the worst case near constant vectors."}}, nil
}

// rdCheckLayerNormNoEps: with ε = 0 LN is scale invariant, and LN(t, 0) =
// (1, −1), LN(−t, 0) = (−1, 1) for every t > 0: ‖x̂ − x‖ = 2t, while
// ‖LN(x̂) − LN(x)‖ = 2√2, so no K works for small δ.
//
// eps is LN.ε (0 for the claim).
func rdCheckLayerNormNoEps(eps *big.Rat, p string) (*Evidence, error) {
	m := rdLnModel(2, eps, []*big.Rat{big.NewRat(1, 1), big.NewRat(1, 1)}, []*big.Rat{new(big.Rat), new(big.Rat)})
	for _, k := range []int{1, 5, 10, 15, 20, 25, 30} {
		t := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(k)))
		out, err := rdRunRows(m, p, [][]*big.Rat{{t, new(big.Rat)}, {new(big.Rat).Neg(t), new(big.Rat)}})
		if err != nil {
			return nil, err
		}
		for i, want := range [][2]int64{{1, -1}, {-1, 1}} {
			for c := 0; c < 2; c++ {
				if !out[i].Values[c].Equals(big.NewRat(want[c], 1)) {
					return &Evidence{Verdict: Refuted, Summary: fmt.Sprintf("LN(±%s, 0) with ε = %s is not (±1, ∓1): %s", t.RatString(), eps.RatString(), out[i].Values[c].Text)}, nil
				}
			}
		}
	}
	return &Evidence{Verdict: Proved, Summary: "with LN.ε = 0, x = (t, 0), x̂ = (−t, 0): δ = 2t and LN(x) = (1, −1), LN(x̂) = (−1, 1) exactly (checked at t = 2^−k, k = 1, 5, 10, …, 30; for every t > 0 since then (x − μ)/σ = (1, −1)), so ‖ΔLN‖/δ = √2/t exceeds any K as t → 0, with ‖x‖ ≤ 1 and δ ≤ 1",
		Explain: []string{"For x = (t, 0), t > 0: μ = t/2, σ = t/2, so LN(x) = ((t/2)/(t/2), (−t/2)/(t/2)) = (1, −1) whatever t; likewise LN(−t, 0) = (−1, 1)."}}, nil
}
