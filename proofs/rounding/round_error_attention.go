package rounding

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
)

// ---------------------------------------------------------------------
// §Error Analysis: attention

var errorAttentionClaims = []*proofs.Claim{
	{ID: "round.error.attention", Section: secError, Label: "",
		Statement: "Error analysis of attention: if ‖x‖ ≤ X, ‖x̂ − x‖ ≤ δ ≤ 1 and sa is a self-attention layer, there is a K with ‖sa(x̂)_i − sa(x)_i‖ ≤ Kδ for all i",
		Domain:    "softmax attention (the cited Yang et al.), Euclidean norms per position; 60 seeded random heads and inputs, n ≤ 6, against K = ‖V‖(1 + 2X(2X + 1)‖QᵀK‖/√d_key)",
		Recorded:  proofs.Holds, Check: func() (*proofs.Evidence, error) { return checkAttention(7, 60, big.NewRat(1, 1)) }},
	{ID: "round.error.attention.hard", Section: secError, Label: "",
		Statement: "Error analysis of attention for any self-attention layer, as printed (the paper's layers include average-hard attention)",
		Domain:    "average-hard attention (AHAT), two positions, exact arithmetic",
		Recorded:  proofs.Refuted, Check: func() (*proofs.Evidence, error) { return checkAttentionHard(model.AverageHardmax, "exact") }},
}

// attnModel is one self-attention sublayer over ℝ^d without its residual
// connection, so that the readout is sa(x) itself.
func attnModel(d int, q, k, v model.Matrix, w model.Weighting, mask model.Mask) *model.Model {
	return &model.Model{Name: "sa", Alphabet: []string{"a"}, WordEmbedding: []model.Vector{make(model.Vector, d)}, D: d,
		Layers: []model.Layer{{Attention: &model.Attention{Heads: []model.Head{{Q: q, K: k, V: v}}, Mask: mask, Weighting: w},
			NoAttentionResidual: true}},
		Output: model.Output{Kind: model.Readout, W: model.Identity(d)}}
}

// checkAttention: for seeded random softmax heads and inputs with
// ‖x_j‖ ≤ X and ‖x̂_j − x_j‖ ≤ δ ≤ 1, ‖sa(x̂)_i − sa(x)_i‖ ≤ K δ with
// K = ‖V‖(1 + 2X(2X + 1)‖QᵀK‖/√d_key) (Frobenius norms), certified.
//
// The mask is none or future (causal), at random; kScale multiplies K.
func checkAttention(seed uint64, cases int, kScale *big.Rat) (*proofs.Evidence, error) {
	r := newSeeded(seed)
	worst, worstK := new(big.Rat), ""
	maxGrowth := 0.0
	checked := 0
	deltas := []int64{1, 2, 8, 64, 1024}
	for c := 0; c < cases; c++ {
		d, dk, n := 2+r.IntN(2), 1+r.IntN(2), 1+r.IntN(6)
		Q, Kq, V := r.matrix(dk, d, 2, 4), r.matrix(dk, d, 2, 4), r.matrix(d, d, 2, 4)
		m := attnModel(d, Q, Kq, V, model.Softmax, model.Mask(r.IntN(2)))
		den := deltas[r.IntN(len(deltas))]
		x, xh := make([][]*big.Rat, n), make([][]*big.Rat, n)
		x2, d2 := new(big.Rat), new(big.Rat)
		for j := 0; j < n; j++ {
			x[j] = r.vector(d, 2, 4)
			xh[j] = make([]*big.Rat, d)
			dj := make([]*big.Rat, d)
			for i := range dj {
				// each entry within 1/(d·den): ‖x̂_j − x_j‖₂ ≤ 1/den ≤ 1
				dj[i] = big.NewRat(int64(r.IntN(2*64+1)-64), int64(64*d)*den)
				xh[j][i] = new(big.Rat).Add(x[j][i], dj[i])
			}
			if v := normSq(x[j]); v.Cmp(x2) > 0 {
				x2 = v
			}
			if v := normSq(dj); v.Cmp(d2) > 0 {
				d2 = v
			}
		}
		if d2.Sign() == 0 {
			continue
		}
		out, err := proofs.RunRows(m, "interval:64", x)
		if err != nil {
			return nil, err
		}
		outh, err := proofs.RunRows(m, "interval:64", xh)
		if err != nil {
			return nil, err
		}
		// K² δ² from below: (√V2 (1 + 2√X2(2√X2 + 1)√M2/√dk))² δ2
		v2, err := frobSq(V)
		if err != nil {
			return nil, err
		}
		qk := model.Zeros(d, d) // QᵀK
		for a := 0; a < d; a++ {
			for b := 0; b < d; b++ {
				s := new(big.Rat)
				for h := 0; h < dk; h++ {
					qa, _, _ := Q.At(h, a).Rat()
					kb, _, _ := Kq.At(h, b).Rat()
					s.Add(s, new(big.Rat).Mul(qa, kb))
				}
				qk.Set(a, b, numeric.Lit(s))
			}
		}
		m2, err := frobSq(qk)
		if err != nil {
			return nil, err
		}
		X := numeric.Sqrt(numeric.Lit(x2))
		two := numeric.LitInt(2)
		K := numeric.Mul(numeric.Sqrt(numeric.Lit(v2)), numeric.Add(numeric.LitInt(1),
			numeric.Quo(numeric.Mul(numeric.Mul(numeric.Mul(two, X), numeric.Add(numeric.Mul(two, X), numeric.LitInt(1))), numeric.Sqrt(numeric.Lit(m2))),
				numeric.Sqrt(numeric.LitInt(int64(dk))))))
		K = numeric.Mul(K, numeric.Lit(kScale))
		bound := numeric.Mul(numeric.Mul(K, K), numeric.Lit(d2))
		bLo, bHi, err := bound.Enclose(64)
		if err != nil {
			return nil, err
		}
		kLo, _, err := K.Enclose(32)
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			lhsLo, lhs, err := diffNormSq(outh[i].Values, out[i].Values)
			if err != nil {
				return nil, err
			}
			if lhs.Cmp(bLo) > 0 {
				if lhsLo.Cmp(bHi) > 0 {
					return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("case %d (d = %d, d_key = %d, n = %d), position %d: ‖Δsa‖² ≥ %s exceeds K²δ² ≤ %s (certified)", c+1, d, dk, n, i+1, lhsLo.FloatString(8), bHi.FloatString(8))}, nil
				}
				return nil, fmt.Errorf("case %d, position %d: the enclosures are too wide to decide ‖Δsa‖ ≤ Kδ", c+1, i+1)
			}
			// the measured constant ‖Δsa_i‖/δ, and the fraction of K it uses
			ratio := new(big.Rat).Quo(lhs, bLo) // ≥ (‖Δ‖/(Kδ))²
			if ratio.Cmp(worst) > 0 {
				worst = ratio
				worstK = kLo.FloatString(2)
			}
			g, _ := new(big.Rat).Quo(lhs, d2).Float64()
			if g > maxGrowth {
				maxGrowth = g
			}
			checked++
		}
	}
	w, _ := worst.Float64()
	return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random softmax heads (d = 2, 3, d_key = 1, 2, n ≤ 6, no mask or causal, ‖x̂_j − x_j‖ ≤ δ ∈ {1, 1/2, 1/8, 1/64, 1/1024}, seed %d), %d positions, each certified (interval:64) against K = ‖V‖(1 + 2X(2X + 1)‖QᵀK‖/√d_key); largest measured ‖Δsa_i‖/δ = %.3f, largest ‖Δsa_i‖/(Kδ) = %.3f (K ≈ %s there)",
		cases, seed, checked, sqrtFloat(maxGrowth), sqrtFloat(w), worstK),
		Explain: []string{
			"K comes from sa(x)_i = Σ_j α_ij V x_j: Δ = Σ_j α̂_ij V(x̂_j − x_j) + Σ_j (α̂_ij − α_ij) V x_j, so ‖Δ‖ ≤ ‖V‖δ + ‖α̂ − α‖₁‖V‖X;",
			"softmax is 2-Lipschitz from ℓ∞ to ℓ1 (its Jacobian diag(p) − ppᵀ maps v to p_j(v_j − p·v)), and |ŝ_ij − s_ij| ≤ ‖QᵀK‖ δ(2X + δ)/√d_key ≤ ‖QᵀK‖ δ(2X + 1)/√d_key for δ ≤ 1.",
			"K does not depend on n: the constant of the proposition exists uniformly in the length.",
		}}, nil
}

// checkAttentionHard: under average-hard attention no K exists: keys 0
// and δ at two positions with values 0 and 1 move the output from 1/2
// (a tie, averaged) to 1 for every δ > 0.
//
// It runs at precision p (exact for the hard weightings; an interval
// precision for softmax, where the tests use it to see the counterexample
// vanish).
func checkAttentionHard(w model.Weighting, p string) (*proofs.Evidence, error) {
	// x_j = (1, k_j, v_j): q = 1, k = k_j, value v_j in component 3
	q := model.Ints([]int64{1, 0, 0})
	k := model.Ints([]int64{0, 1, 0})
	v := model.Zeros(3, 3)
	v.Set(2, 2, numeric.LitInt(1))
	m := attnModel(3, q, k, v, w, model.NoMask)
	x := [][]*big.Rat{{big.NewRat(1, 1), new(big.Rat), new(big.Rat)}, {big.NewRat(1, 1), new(big.Rat), big.NewRat(1, 1)}}
	base, err := proofs.RunRows(m, p, x)
	if err != nil {
		return nil, err
	}
	half := big.NewRat(1, 2)
	var last string
	for kexp := 1; kexp <= 40; kexp++ {
		delta := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(kexp)))
		xh := [][]*big.Rat{x[0], {big.NewRat(1, 1), delta, big.NewRat(1, 1)}}
		out, err := proofs.RunRows(m, p, xh)
		if err != nil {
			return nil, err
		}
		a, b := base[0].Values[2], out[0].Values[2]
		if !a.Finite() || !b.Finite() {
			return nil, fmt.Errorf("an output is not finite")
		}
		// a certified lower bound of |b − a|: the gap between the enclosures
		gap := new(big.Rat).Sub(b.Lo, a.Hi)
		if g2 := new(big.Rat).Sub(a.Lo, b.Hi); g2.Cmp(gap) > 0 {
			gap = g2
		}
		if gap.Cmp(half) < 0 {
			return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("no counterexample: at δ = 2^−%d the change is not certified ≥ 1/2 (sa(x)_1 = %s, sa(x̂)_1 = %s)", kexp, a.Text, b.Text)}, nil
		}
		last = fmt.Sprintf("sa(x)_1 = %s, sa(x̂)_1 = %s", a.Text, b.Text)
	}
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("under %s, x_1 = (1, 0, 0), x_2 = (1, 0, 1) (q = 1, k_j = component 2, v_j = component 3): the scores tie and %s at x̂_2 = (1, δ, 1) for every δ = 2^−k, k = 1 … 40 (exact): the change 1/2 is not O(δ)",
		w, last),
		Explain: []string{"The proposition holds for softmax attention (round.error.attention), as in the cited Yang et al.; the paper's self-attention layers also include average-hard and unique-hard weightings, which are discontinuous in the scores."}}, nil
}
