package rounding

import (
	"fmt"
	"math/big"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
)

// ---------------------------------------------------------------------
// §Error Analysis: bounded activations

var errorBoundedClaims = []*proofs.Claim{
	{ID: "round.error.bounded-activations", Section: secError, Label: "",
		Statement: "Bounded activations: if pe_n(i) ≤ P for all n and i, then even with LN.ε = 0 there is an X with ‖x_i^(ℓ)‖ ≤ X for all ℓ and i",
		Domain:    "seeded random 2-layer transformers (softmax, ReLU, LN.ε = 0 post- and pre-norm, and no norm), strings of lengths 1, 3, 12; X_ℓ the explicit length-independent bound of the proof",
		Recorded:  proofs.Holds, Check: func() (*proofs.Evidence, error) {
			return checkBoundedActivations(11, 6, []int{1, 3, 12}, big.NewRat(1, 1))
		}},
}

// boundedModel is a seeded random 2-layer transformer over ℝ^d with
// softmax attention, ReLU FFNs and layer norms with ε = 0 placed by
// placement, a 3-symbol alphabet, and the position encoding
// pe_n(i) = (i/n, (−1)^i, 0, …), so ‖pe_n(i)‖ ≤ √2 = P.
func boundedModel(r seeded, d int, placement model.NormPlacement) *model.Model {
	m := &model.Model{Name: "tf", Alphabet: []string{"a", "b", "c"}, D: d, Norm: placement,
		Position: &model.PositionEncoding{Name: "(i/n, (−1)^i)", Vector: func(i, n int) model.Vector {
			v := make(model.Vector, d)
			v[0] = numeric.Frac(int64(i), int64(n))
			if i%2 == 0 {
				v[1] = numeric.LitInt(1)
			} else {
				v[1] = numeric.LitInt(-1)
			}
			return v
		}},
		Output: model.Output{Kind: model.Readout, W: model.Identity(d)}}
	for s := 0; s < 3; s++ {
		m.WordEmbedding = append(m.WordEmbedding, model.RatVector(r.vector(d, 2, 4)...))
	}
	ln := func() *model.LayerNorm {
		return &model.LayerNorm{Eps: numeric.LitInt(0), Gamma: model.RatVector(r.vector(d, 2, 4)...), Beta: model.RatVector(r.vector(d, 1, 4)...)}
	}
	for l := 0; l < 2; l++ {
		h := 2 + r.IntN(3)
		layer := model.Layer{
			Attention:   &model.Attention{Heads: []model.Head{{Q: r.matrix(2, d, 1, 2), K: r.matrix(2, d, 1, 2), V: r.matrix(d, d, 1, 2)}}, Weighting: model.Softmax, Mask: model.Mask(r.IntN(2))},
			FeedForward: &model.FeedForward{W1: r.matrix(h, d, 1, 2), B1: model.RatVector(r.vector(h, 1, 2)...), W2: r.matrix(d, h, 1, 2), B2: model.RatVector(r.vector(d, 1, 2)...)},
		}
		if placement != model.NoNorm {
			layer.AttentionNorm, layer.FeedForwardNorm = ln(), ln()
		}
		m.Layers = append(m.Layers, layer)
	}
	if placement == model.PreNorm {
		m.FinalNorm = ln()
	}
	return m
}

// activationBounds are upper bounds X_s of ‖x_i‖₂ after each state of the
// trace (embedding, then each sublayer, then the final norm), valid for
// every length n: by induction, an attention output is a convex
// combination of V x_j, an FFN is bounded by ‖W2‖(‖W1‖X + ‖b1‖) + ‖b2‖,
// and a layer norm (any ε ≥ 0) by √d max|γ| + ‖β‖. Frobenius norms, all
// rounded up.
func activationBounds(m *model.Model, P *big.Rat) ([]*big.Rat, error) {
	fro := func(a model.Matrix) (*big.Rat, error) {
		s, err := frobSq(a)
		if err != nil {
			return nil, err
		}
		return sqrtHi(s)
	}
	vecNorm := func(v model.Vector) (*big.Rat, error) {
		s := new(big.Rat)
		for _, e := range v {
			r, ok, err := e.Rat()
			if err != nil || !ok {
				return nil, fmt.Errorf("irrational entry")
			}
			s.Add(s, new(big.Rat).Mul(r, r))
		}
		return sqrtHi(s)
	}
	lnBound := func(ln *model.LayerNorm) (*big.Rat, error) {
		g := new(big.Rat)
		for _, e := range ln.Gamma {
			r, _, _ := e.Rat()
			if v := new(big.Rat).Abs(r); v.Cmp(g) > 0 {
				g = v
			}
		}
		sd, err := sqrtHi(big.NewRat(int64(m.D), 1))
		if err != nil {
			return nil, err
		}
		b, err := vecNorm(ln.Beta)
		if err != nil {
			return nil, err
		}
		return new(big.Rat).Add(new(big.Rat).Mul(sd, g), b), nil
	}
	X := new(big.Rat)
	for _, we := range m.WordEmbedding {
		v, err := vecNorm(we)
		if err != nil {
			return nil, err
		}
		if v.Cmp(X) > 0 {
			X = v
		}
	}
	X.Add(X, P)
	bounds := []*big.Rat{new(big.Rat).Set(X)}
	for _, l := range m.Layers {
		// attention
		in := X
		if m.Norm == model.PreNorm {
			b, err := lnBound(l.AttentionNorm)
			if err != nil {
				return nil, err
			}
			in = b
		}
		v, err := fro(l.Attention.Heads[0].V)
		if err != nil {
			return nil, err
		}
		X = new(big.Rat).Add(X, new(big.Rat).Mul(v, in))
		if m.Norm == model.PostNorm {
			if X, err = lnBound(l.AttentionNorm); err != nil {
				return nil, err
			}
		}
		bounds = append(bounds, X)
		// feed-forward
		in = X
		if m.Norm == model.PreNorm {
			if in, err = lnBound(l.FeedForwardNorm); err != nil {
				return nil, err
			}
		}
		w1, err := fro(l.FeedForward.W1)
		if err != nil {
			return nil, err
		}
		w2, err := fro(l.FeedForward.W2)
		if err != nil {
			return nil, err
		}
		b1, err := vecNorm(l.FeedForward.B1)
		if err != nil {
			return nil, err
		}
		b2, err := vecNorm(l.FeedForward.B2)
		if err != nil {
			return nil, err
		}
		ff := new(big.Rat).Mul(w2, new(big.Rat).Add(new(big.Rat).Mul(w1, in), b1))
		X = new(big.Rat).Add(X, ff.Add(ff, b2))
		if m.Norm == model.PostNorm {
			if X, err = lnBound(l.FeedForwardNorm); err != nil {
				return nil, err
			}
		}
		bounds = append(bounds, X)
	}
	if m.FinalNorm != nil {
		b, err := lnBound(m.FinalNorm)
		if err != nil {
			return nil, err
		}
		bounds = append(bounds, b)
	}
	return bounds, nil
}

// checkBoundedActivations: seeded random transformers (no norm, post-norm
// and pre-norm with LN.ε = 0), random strings of lengths up to 16: every
// activation of the trace is certified below its length-independent bound.
//
// scale multiplies every bound.
func checkBoundedActivations(seed uint64, models int, lengths []int, scale *big.Rat) (*proofs.Evidence, error) {
	r := newSeeded(seed)
	P, err := sqrtHi(big.NewRat(2, 1))
	if err != nil {
		return nil, err
	}
	worst, largest := 0.0, 0.0
	worstAt := ""
	states, runs := 0, 0
	placements := []model.NormPlacement{model.NoNorm, model.PostNorm, model.PreNorm}
	placementName := map[model.NormPlacement]string{model.NoNorm: "no norm", model.PostNorm: "post-norm", model.PreNorm: "pre-norm"}
	for k := 0; k < models; k++ {
		placement := placements[k%len(placements)]
		m := boundedModel(r, 3, placement)
		bounds, err := activationBounds(m, P)
		if err != nil {
			return nil, err
		}
		for i := range bounds {
			bounds[i].Mul(bounds[i], scale)
		}
		runner, err := eval.New(numeric.MustParsePrecision("interval:64"), m)
		if err != nil {
			return nil, err
		}
		for _, n := range lengths {
			input := make([]int, n)
			for i := range input {
				input[i] = r.IntN(3)
			}
			res, err := runner.Run(input, true)
			if err != nil {
				return nil, err
			}
			runs++
			if len(res.Trace.States) != len(bounds) {
				return nil, fmt.Errorf("model %d: %d trace states for %d bounds", k+1, len(res.Trace.States), len(bounds))
			}
			for s, st := range res.Trace.States {
				b2 := new(big.Rat).Mul(bounds[s], bounds[s])
				for i, vec := range st.Vectors {
					lo, hi, err := valueNormSq(vec)
					if err != nil {
						return nil, fmt.Errorf("model %d, %s, position %d: %w", k+1, st.Label, i+1, err)
					}
					if hi.Cmp(b2) > 0 {
						if lo.Cmp(b2) > 0 {
							return &proofs.Evidence{Verdict: proofs.Refuted, Summary: fmt.Sprintf("model %d (%s), length %d, %s, position %d: ‖x‖² ≥ %s exceeds the bound %s² (certified)", k+1, placementName[placement], n, st.Label, i+1, lo.FloatString(6), bounds[s].FloatString(6))}, nil
						}
						return nil, fmt.Errorf("model %d, %s, position %d: the enclosure is too wide to decide the bound", k+1, st.Label, i+1)
					}
					fh, _ := hi.Float64()
					fb, _ := b2.Float64()
					if v := sqrtFloat(fh / fb); v > worst {
						worst, worstAt = v, placementName[placement]+", "+st.Label
					}
					if v := sqrtFloat(fh); v > largest {
						largest = v
					}
					states++
				}
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Holds, Summary: fmt.Sprintf("no counterexample: %d seeded random 2-layer transformers (d = 3, softmax, ReLU FFNs; no norm, post-norm and pre-norm, LN.ε = 0; pe = (i/n, (−1)^i), P = √2; seed %d), %d runs on random strings of lengths %v, %d activation vectors, each certified (interval:64) below its length-independent bound X_ℓ; largest ‖x‖ = %.3f, largest ‖x‖/X_ℓ = %.3f (%s)",
		models, seed, runs, lengths, states, largest, worst, worstAt),
		Explain: []string{
			"X₀ = max_s ‖we(s)‖ + P; an attention sublayer maps X to X + ‖V‖X_in (its output is a convex combination of V x_j), an FFN to X + ‖W2‖(‖W1‖X_in + ‖b1‖) + ‖b2‖, where X_in is X or, under pre-norm, the norm's bound; a layer norm with any ε ≥ 0 outputs at most √d max|γ| + ‖β‖ (‖x − μ‖ = √d σ ≤ √(d(σ² + ε))).",
			"LN with ε = 0 is undefined on constant vectors (σ = 0); the random inputs avoid them.",
		}}, nil
}

// sqrtBounds encloses √r.
func sqrtBounds(r *big.Rat) (lo, hi *big.Rat, err error) {
	return numeric.Sqrt(numeric.Lit(r)).Enclose(128)
}

func sqrtHi(r *big.Rat) (*big.Rat, error) {
	_, hi, err := sqrtBounds(r)
	return hi, err
}

// valueNormSq bounds ‖v‖₂² from an enclosure.
func valueNormSq(v []eval.Value) (lo, hi *big.Rat, err error) {
	zero := make([]eval.Value, len(v))
	for c := range zero {
		zero[c] = eval.Value{Lo: new(big.Rat), Hi: new(big.Rat)}
	}
	return diffNormSq(v, zero)
}
