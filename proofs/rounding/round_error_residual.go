package rounding

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// ---------------------------------------------------------------------
// §Error Analysis: residual connections

var errorResidualClaims = []*proofs.Claim{
	{ID: "round.error.residual", Section: secError, Label: "",
		Statement: "Error analysis of residual connections: if ‖x̂ − x‖ ≤ δ and ‖f(x̂) − f(x)‖ ≤ ε, then ‖f(x̂) + x̂ − (f(x) + x)‖ ≤ ε + δ",
		Domain:    "ℓ1 and ℓ∞ norms, any f: ℝ^d → ℝ^d: the triangle inequality |a + b| ≤ |a| + |b| proved on all of ℝ²",
		Recorded:  proofs.Proved, Check: func() (*proofs.Evidence, error) { return checkTriangle(triangleFFN()) }},
	{ID: "round.error.residual.euclidean", Section: secError, Label: "",
		Statement: "Error analysis of residual connections, for the Euclidean norm: ‖f(x̂) + x̂ − (f(x) + x)‖₂ ≤ ε + δ",
		Domain:    "seeded random ReLU blocks f: ℝ^d → ℝ^d (d ≤ 3) and pairs, exact",
		Recorded:  proofs.Holds, Check: func() (*proofs.Evidence, error) { return checkResidualEuclid(13, 20, 20) }},
}

// checkTriangle proves |a + b| ≤ |a| + |b| on ℝ²: the FFN
// |a + b| − |a| − |b| (six ReLUs) equals a CPWL reference of six pieces,
// and the exact LP shows each piece's map ≤ 0 on its piece. Summing (ℓ1)
// or maximising (ℓ∞) over components gives the proposition.
func checkTriangle(f *stream.FF) (*proofs.Evidence, error) {
	pieces := []cpwl.Piece{
		proofs.Piece(proofs.Halfspaces(2, proofs.Row("-1", "0", "0"), proofs.Row("0", "-1", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "0")))),                             // a, b ≥ 0: 0
		proofs.Piece(proofs.Halfspaces(2, proofs.Row("1", "0", "0"), proofs.Row("0", "1", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "0")))),                               // a, b ≤ 0: 0
		proofs.Piece(proofs.Halfspaces(2, proofs.Row("-1", "0", "0"), proofs.Row("0", "1", "0"), proofs.Row("-1", "-1", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "2")))), // a ≥ 0 ≥ b, a + b ≥ 0: 2b
		proofs.Piece(proofs.Halfspaces(2, proofs.Row("-1", "0", "0"), proofs.Row("0", "1", "0"), proofs.Row("1", "1", "0")), proofs.Affine(proofs.Rows(proofs.Row("-2", "0")))),  // a ≥ 0 ≥ b, a + b ≤ 0: −2a
		proofs.Piece(proofs.Halfspaces(2, proofs.Row("1", "0", "0"), proofs.Row("0", "-1", "0"), proofs.Row("-1", "-1", "0")), proofs.Affine(proofs.Rows(proofs.Row("2", "0")))), // b ≥ 0 ≥ a, a + b ≥ 0: 2a
		proofs.Piece(proofs.Halfspaces(2, proofs.Row("1", "0", "0"), proofs.Row("0", "-1", "0"), proofs.Row("1", "1", "0")), proofs.Affine(proofs.Rows(proofs.Row("0", "-2")))),  // b ≥ 0 ≥ a, a + b ≤ 0: −2b
	}
	ev, err := proofs.ProveCases([]proofs.FFNCase{{Label: "|a + b| − |a| − |b|", F: f, Domain: proofs.Space(2), Pieces: pieces}})
	if err != nil || ev.Verdict != proofs.Proved {
		return ev, err
	}
	for k, p := range pieces {
		v, unbounded, err := maxOn(p.Domain, []string{"0", "0", "0"}, p.Map.A.At(0, 0), p.Map.A.At(0, 1))
		if err != nil {
			return nil, err
		}
		if unbounded {
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("piece %d: |a + b| − |a| − |b| is unbounded above", k+1)}, nil
		}
		if v != nil && new(big.Rat).Add(v, p.Map.C[0]).Sign() > 0 {
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("piece %d: |a + b| − |a| − |b| reaches %s > 0", k+1, v.RatString())}, nil
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved, Summary: "|a + b| ≤ |a| + |b| on all of ℝ² (|a + b| − |a| − |b| as an FFN proved equal to six pieces, " + ev.Summary + ", each ≤ 0 on its piece by exact LP); with a = f(x̂) − f(x), b = x̂ − x componentwise, summing (ℓ1) or maximising (ℓ∞) gives ‖f(x̂) + x̂ − (f(x) + x)‖ ≤ ε + δ for any f and d",
		Explain: ev.Explain}, nil
}

// triangleFFN is |a + b| − |a| − |b| = ReLU(a + b) + ReLU(−a − b) −
// ReLU(a) − ReLU(−a) − ReLU(b) − ReLU(−b).
func triangleFFN() *stream.FF {
	return &stream.FF{Name: "triangle", In: []string{"a", "b"}, Out: []string{"t"},
		W1: model.Ints([]int64{1, 1}, []int64{-1, -1}, []int64{1, 0}, []int64{-1, 0}, []int64{0, 1}, []int64{0, -1}),
		W2: model.Ints([]int64{1, 1, -1, -1, -1, -1})}
}

// checkResidualEuclid: for seeded random ReLU blocks f: ℝ^d → ℝ^d and
// pairs (x, x̂), with δ = ‖x̂ − x‖₂ and ε = ‖f(x̂) − f(x)‖₂ (the smallest
// the hypotheses allow), ‖f(x̂) + x̂ − (f(x) + x)‖₂ ≤ ε + δ, exactly (by
// squares: ‖a + b‖² ≤ (‖a‖ + ‖b‖)² ⟺ a·b ≤ ‖a‖‖b‖).
func checkResidualEuclid(seed uint64, blocksN, pairs int) (*proofs.Evidence, error) {
	r := newSeeded(seed)
	worst := 0.0
	checked := 0
	for n := 0; n < blocksN; n++ {
		d := 1 + r.IntN(3)
		f := randomFFN(r, d, 1+r.IntN(4), d)
		g, err := proofs.FFNOf(f)
		if err != nil {
			return nil, err
		}
		for p := 0; p < pairs; p++ {
			x, dx := r.vector(d, 4, 8), r.vector(d, 1, 1<<uint(r.IntN(8)))
			xh, fx, fxh, err := perturbed(g, x, dx)
			if err != nil {
				return nil, err
			}
			a, s := make([]*big.Rat, d), make([]*big.Rat, d)
			dot := new(big.Rat)
			for i := 0; i < d; i++ {
				a[i] = new(big.Rat).Sub(fxh[i], fx[i])
				s[i] = new(big.Rat).Add(a[i], dx[i])
				dot.Add(dot, new(big.Rat).Mul(a[i], dx[i]))
			}
			aa, bb := normSq(a), normSq(dx)
			// ‖a + b‖ ≤ ‖a‖ + ‖b‖ ⟺ a·b ≤ ‖a‖‖b‖ ⟺ a·b ≤ 0 or (a·b)² ≤ ‖a‖²‖b‖²
			if dot.Sign() > 0 && new(big.Rat).Mul(dot, dot).Cmp(new(big.Rat).Mul(aa, bb)) > 0 {
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("block %d at x = %s, x̂ = %s: ‖a + b‖ > ‖a‖ + ‖b‖ (exact)", n+1, ratStrings(x), ratStrings(xh))}, nil
			}
			if aa.Sign() > 0 || bb.Sign() > 0 {
				fa, _ := aa.Float64()
				fb, _ := bb.Float64()
				fs, _ := normSq(s).Float64()
				if v := sqrtFloat(fs) / (sqrtFloat(fa) + sqrtFloat(fb)); v > worst {
					worst = v
				}
			}
			checked++
		}
	}
	return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random ReLU blocks f: ℝ^d → ℝ^d (d ≤ 3, seed %d), %d pairs (x, x̂) with ε = ‖f(x̂) − f(x)‖₂ and δ = ‖x̂ − x‖₂, decided exactly by squares; largest ‖Δ‖/(ε + δ) = %.4f (1 when f(x̂) − f(x) and x̂ − x are parallel)",
		blocksN, seed, checked, worst)}, nil
}
