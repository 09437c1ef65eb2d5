package layernorm

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/exact/cpwl"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/proofs"
	"github.com/transformer-cookbook/verify/proofs/internal/poly"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The claims of §Circumventing Layer Normalization and §Amplification.
// Shared helpers are in layernorm_shared.go.

// ---------------------------------------------------------------------------
// The claims

var circumventClaims = []*proofs.Claim{
	{ID: "ln.circumvent", Section: "Circumventing Layer Normalization", Label: "sec:layernorm_circumvent",
		Statement: "for a layernorm with LN.β = 0, LN([x; −x]) = [cx; −cx] for some c: pairs of additive inverses have zero mean, so LN only scales the vector",
		Domain:    "x ∈ ℝ^d, d = 1 … 8, every ε ≥ 0 (x ≠ 0 when ε = 0), β = 0 and γ = 1 (uniform γ; see ln.circumvent.literal)",
		Recorded:  proofs.Holds,
		Check:     checkCircumvent},
	{ID: "ln.circumvent.literal", Section: "Circumventing Layer Normalization", Label: "sec:layernorm_circumvent",
		Statement: "as printed: \"for any layernorm LN with LN.β = 0\", LN([x; −x]) = [cx; −cx] for some c",
		Domain:    "LN.β = 0 and any γ, ε = 0",
		Recorded:  proofs.Refuted,
		Check:     checkCircumventLiteral},
	{ID: "ln.nonlipschitz", Section: "Amplification", Label: "sec:layernorm_amplify",
		Statement: "LN is Lipschitz-continuous only if LN.ε > 0; with LN.ε = 0 it is not Lipschitz-continuous",
		Domain:    "LN with ε = 0, β = 0, γ = 1 on ℝ²: the family LN(δ, −δ), every δ > 0",
		Recorded:  proofs.Proved,
		Check:     checkNonLipschitz},
	{ID: "ln.amplify.hahn", Section: "Amplification", Label: "sec:layernorm_amplify",
		Statement: "Hahn (2020): with Lipschitz position-wise operations and bounded position embeddings, changing one input symbol changes any output activation by O(1/n)",
		Domain:    "every transformer of that kind, every n",
		Recorded:  proofs.OutOfScope,
		Check: func() (*proofs.Evidence, error) {
			return &proofs.Evidence{Verdict: proofs.OutOfScope, Summary: "a theorem about every transformer with Lipschitz position-wise operations (a sensitivity bound for all n), cited from Hahn (2020); the engine checks given constructions, not bounds over all weights",
				Explain: []string{"The part of the argument the cookbook builds on is checked: ln.nonlipschitz proves that LN with ε = 0 is not Lipschitz, which is why the bound need not hold with such layer norms (ln.amplify)."}}, nil
		}},
	{ID: "ln.clip.exact", Section: "Amplification", Label: "sec:layernorm_amplify",
		Statement: "clip_δ with W1 = [1; 1], b1 = [δ; −δ], W2 = [1, −1], b2 = −δ clips its input to [−δ, δ]",
		Domain:    "x ∈ ℝ and every δ > 0 (the region proof at δ = 1, and positive homogeneity)",
		Recorded:  proofs.Proved,
		Check:     deltas(proofs.EveryEps(clip, 1, []string{"1/4", "1/2", "3"}, proofs.ProveAt([]string{"1"}, clip, clipPieces)))},
	{ID: "ln.amplify.literal", Section: "Amplification", Label: "sec:layernorm_amplify",
		Statement: "as printed: for x ∈ ℝ^d with |x_c| ≥ δ and zero mean, clipping every component to ±δ (clip_δ) and applying LN (ε = 0, β = 0, γ = 1) \"will normalize all activations to ±1\"",
		Domain:    "the recipe amplify-literal, δ = 1/2: x = (2, −1/2, −1/2, −1/2, −1/2) in exact arithmetic, then for d = 2 … 6 one zero-mean x per sign pattern with both signs (what the printed construction computes for each pattern), certified interval arithmetic (interval:128)",
		Recorded:  proofs.Refuted,
		Check:     checkAmplifyLiteral},
	{ID: "ln.amplify", Section: "Amplification", Label: "sec:layernorm_amplify",
		Statement: "corrected: clip every component with clip_δ and normalise the ± pairs [clip_δ(x); −clip_δ(x)]: LN (ε = 0) gives exactly [sign(x); −sign(x)] for |x_c| ≥ δ (zero mean of x no longer needed)",
		Domain:    "clip_δ on x ≥ δ and x ≤ −δ for δ ∈ {1/4, 1/2, 1, 3}; LN of [sδ; −sδ] for every δ > 0 and every sign pattern s ∈ {±1}^d, d ≤ 8; the recipe amplify run on all of {±δ, ±3δ}^3, δ = 1/2",
		Recorded:  proofs.Holds,
		Check:     checkAmplify},
	{ID: "ln.amplify.definition-eps", Section: "Amplification", Label: "sec:layernorm_amplify",
		Statement: "the amplification with the layer norm of Definition LN, whose LN.ε > 0 (the construction takes LN.ε = 0, which the definition excludes): LN of the clipped ± pairs gives ±1",
		Domain:    "the recipe amplify (δ = 1/2, d = 3) with every LN.ε = 5/16 (so √(δ² + ε) = 3/4 is rational), on x = (1/2, −1/2, 3/2); exact",
		Recorded:  proofs.Refuted,
		Check:     checkAmplifyDefinitionEps},
}

// checkAmplifyLiteral checks ln.amplify.literal.
func checkAmplifyLiteral() (*proofs.Evidence, error) {
	ev, err := proofs.RunInput(proofs.Sweep{Recipe: "amplify-literal", MaxN: 1}, "2, -1/2, -1/2, -1/2, -1/2")
	if err != nil || ev.Verdict != proofs.Refuted {
		return ev, err
	}
	run, err := AmplifyLiteralBehaviour(big.NewRat(1, 2), 6)
	if err != nil {
		return nil, err
	}
	ev.Summary += "; " + run.String()
	ev.Explain = append(ev.Explain, run.String())
	return ev, nil
}

// checkAmplifyDefinitionEps runs the corrected amplification with
// LN.ε = 5/16 > 0: each clipped pair ±δ normalises to ±δ/√(δ² + ε) =
// ±2/3, not ±1, exactly. With any ε > 0 the layer norm is Lipschitz, the
// paper's own remark, and amplifying a difference to ±1 needs ε = 0.
func checkAmplifyDefinitionEps() (*proofs.Evidence, error) {
	r, err := recipes.Get("amplify")
	if err != nil {
		return nil, err
	}
	con, err := r.Construct(model.AverageHardmax, 1, map[string]string{"delta": "1/2", "d": "3"})
	if err != nil {
		return nil, err
	}
	eps := big.NewRat(5, 16)
	setEps(con.Model, eps)
	c, err := con.Parse("1/2, -1/2, 3/2")
	if err != nil {
		return nil, err
	}
	runner, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
	if err != nil {
		return nil, err
	}
	res, err := runner.RunStream(c.Stream, false)
	if err != nil {
		return nil, err
	}
	want := con.Expected(c)[0]
	got := res.Outputs[0]
	if ok, _ := check.Compare(want, got, con.Bounds, con.Model.Output.Labels); ok {
		return &proofs.Evidence{Verdict: proofs.Holds, Summary: "with LN.ε = 5/16 the amplification still gives ±1"}, nil
	}
	var vals []string
	for _, v := range got.Values {
		vals = append(vals, v.Text)
	}
	s := fmt.Sprintf("amplify (δ = 1/2, d = 3) with LN.ε = %s on x = (1/2, −1/2, 3/2): the outputs are %s (exact), not ±1: each clipped pair ±δ normalises to ±δ/√(δ² + ε) = ±2/3; any ε > 0 makes the layer norm Lipschitz (the paper's own remark), and only ε = 0, outside Definition LN, amplifies to ±1", eps.RatString(), strings.Join(vals, ", "))
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
}

func clip(d *big.Rat) *stream.FF { return blocks.Clip("x", "y", d) }

// clipPieces is clip_δ as printed: −δ for x ≤ −δ, x between, δ above.
func clipPieces(d *big.Rat) []cpwl.Piece {
	ds, nd := d.RatString(), new(big.Rat).Neg(d).RatString()
	return []cpwl.Piece{
		proofs.Piece(proofs.Halfspaces(1, []string{"1", nd}), proofs.Affine([][]string{{"0"}}, nd)),
		proofs.Piece(proofs.Halfspaces(1, []string{"-1", ds}, []string{"1", ds}), proofs.Affine([][]string{{"1"}})),
		proofs.Piece(proofs.Halfspaces(1, []string{"-1", nd}), proofs.Affine([][]string{{"0"}}, ds))}
}

// deltas relabels the parameter of ProveAt's evidence (which calls it
// ε) as δ.
func deltas(check func() (*proofs.Evidence, error)) func() (*proofs.Evidence, error) {
	return func() (*proofs.Evidence, error) {
		ev, err := check()
		if ev != nil {
			ev.Summary = strings.ReplaceAll(ev.Summary, "ε = ", "δ = ")
			ev.Summary = strings.ReplaceAll(ev.Summary, "each ε", "each δ")
			ev.Summary = strings.ReplaceAll(ev.Summary, "ε", "δ")
		}
		return ev, err
	}
}

// checkCircumvent proves the identity for d = 1 … 8 with the polynomial
// algebra and checks the engine's model (recipe ln-circumvent) on a
// certified search at ε = 0 and ε = 1/10.
func checkCircumvent() (*proofs.Evidence, error) {
	ev := &proofs.Evidence{Verdict: proofs.Proved}
	for d := 1; d <= poly.MaxVars; d++ {
		entries := make([]poly.Poly, 2*d)
		sumsq := poly.Poly{}
		for k := 0; k < d; k++ {
			entries[k] = poly.Var(k)
			entries[d+k] = poly.Scale(big.NewRat(-1, 1), poly.Var(k))
			sumsq = poly.Add(sumsq, poly.Mul(poly.Var(k), poly.Var(k)))
		}
		mean, centred, variance := poly.Moments(entries)
		if len(mean) != 0 {
			s := fmt.Sprintf("d = %d: the mean of [x; −x] is %s, not 0", d, mean.Format())
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		for k := range entries {
			if !poly.Equal(centred[k], entries[k]) {
				return nil, fmt.Errorf("d = %d: centred entry %d differs from the entry although the mean is 0", d, k+1)
			}
		}
		if !poly.Equal(variance, poly.Scale(big.NewRat(1, int64(d)), sumsq)) {
			s := fmt.Sprintf("d = %d: σ² = %s, not ‖x‖²/d", d, variance.Format())
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		if d <= 2 {
			ev.Explain = append(ev.Explain, fmt.Sprintf("d = %d: μ = 0, σ² = %s (polynomial identities)", d, variance.Format()))
		}
	}
	// The engine at the family's extremes and the recipe's default: d = 1,
	// 2 (the default), 3 and 64 (the largest it builds); ε = 0, 1/10 and
	// 10⁶.
	var searched []string
	for _, c := range []struct {
		d, count int
		eps      []string
	}{{1, 50, []string{"0", "1000000"}}, {2, 50, []string{"0", "1/10"}}, {3, 100, []string{"0", "1/10", "1000000"}}, {64, 2, []string{"1/10"}}} {
		for _, eps := range c.eps {
			s := proofs.Sweep{Recipe: "ln-circumvent", Params: map[string]string{"d": fmt.Sprint(c.d), "eps": eps}, MaxN: 1, Precision: "interval:128"}
			special := []string{"0", "1", "-1", "1/1000000", "-1000000"}
			res, err := search(s, c.count, 5, func(rng *rand.Rand) string {
				var parts []string
				zero := true
				for len(parts) < c.d {
					x := randRat(rng)
					if rng.IntN(3) == 0 {
						x = proofs.Q(special[rng.IntN(len(special))])
					}
					zero = zero && x.Sign() == 0
					parts = append(parts, x.RatString())
				}
				if eps == "0" && zero {
					parts[0] = "1" // LN with ε = 0 is undefined at x = 0
				}
				return strings.Join(parts, ", ")
			})
			if err != nil {
				return nil, err
			}
			if res.Verdict != proofs.Holds {
				return res, nil
			}
			searched = append(searched, fmt.Sprintf("d = %d, ε = %s: %d vectors", c.d, eps, c.count))
			ev.Explain = append(ev.Explain, "engine: "+res.Summary)
		}
	}
	ev.Summary = "for every x ∈ ℝ^d, d = 1 … 8: the mean of [x; −x] is the zero polynomial and σ² = ‖x‖²/d (coefficients compared), so LN([x; −x]) = [x; −x]/√(‖x‖²/d + ε) ⊙ γ = [cx; −cx] with c = 1/√(‖x‖²/d + ε) for γ = 1; the engine's recipe ln-circumvent agrees on a certified search (" + strings.Join(searched, "; ") + "; PCG seed 5)"
	ev.Explain = append(ev.Explain, "With a non-uniform γ the form fails (ln.circumvent.literal); β ≠ 0 adds β, which is not a multiple of [x; −x].")
	return ev, nil
}

func checkCircumventLiteral() (*proofs.Evidence, error) {
	m, err := proofs.LayerNormModel(2, new(big.Rat), model.IntVector(2, 1))
	if err != nil {
		return nil, err
	}
	vs, err := proofs.RunVector(m, "exact", proofs.Rats("1", "-1")...)
	if err != nil {
		return nil, err
	}
	got, err := proofs.ExactValues(vs)
	if err != nil {
		return nil, err
	}
	if new(big.Rat).Neg(got[0]).Cmp(got[1]) == 0 {
		return &proofs.Evidence{Verdict: proofs.Proved, Summary: fmt.Sprintf("LN_γ([1; −1]) = %s has the form (c, −c)", proofs.RatsText(got))}, nil
	}
	s := fmt.Sprintf("γ = (2, 1), β = 0, ε = 0, x = 1: LN([1; −1]) = %s (exact, the engine's layer norm), not (c, −c) for any c: γ must also be uniform (or equal on x_k and −x_k)", proofs.RatsText(got))
	return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
}

// checkNonLipschitz: LN(δ, −δ) = (1, −1) for every δ > 0, as a polynomial
// identity in the scale δ, and in the engine's model at δ = 2^−j.
func checkNonLipschitz() (*proofs.Evidence, error) {
	// Variable 0 is δ: entries (δ, −δ), then (−δ, δ).
	one := poly.Const(big.NewRat(1, 1))
	for _, sign := range []string{"1", "-1"} {
		neg := proofs.Q(sign)
		neg.Neg(neg)
		c, p, err := poly.ScaleFree(poly.Polys([]string{"0", sign}, []string{"0", neg.RatString()}), 0)
		if err != nil {
			s := "LN(±δ, ∓δ) depends on δ: " + err.Error()
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
		if !poly.Equal(p, one) || !poly.Equal(c[0], poly.Const(proofs.Q(sign))) || !poly.Equal(c[1], poly.Const(neg)) {
			s := fmt.Sprintf("LN(%sδ, %sδ) = (%s, %s)/√(%s), not (%s, %s)", sign, neg.RatString(), c[0].Format(), c[1].Format(), p.Format(), sign, neg.RatString())
			return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
		}
	}
	m, err := proofs.LayerNormModel(2, new(big.Rat), nil)
	if err != nil {
		return nil, err
	}
	for j := 0; j <= 60; j += 4 {
		delta := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(j)))
		for _, sign := range []int64{1, -1} {
			d := new(big.Rat).Mul(delta, big.NewRat(sign, 1))
			vs, err := proofs.RunVector(m, "exact", d, new(big.Rat).Neg(d))
			if err != nil {
				return nil, err
			}
			got, err := proofs.ExactValues(vs)
			if err != nil {
				return nil, err
			}
			if want := []*big.Rat{big.NewRat(sign, 1), big.NewRat(-sign, 1)}; !proofs.RatsEqual(got, want) {
				s := fmt.Sprintf("the engine's LN(%s, %s) = %s, want %s", d.RatString(), new(big.Rat).Neg(d).RatString(), proofs.RatsText(got), proofs.RatsText(want))
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
		}
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: "for every δ > 0, LN(δ, −δ) = (1, −1) and LN(−δ, δ) = (−1, 1) (mean the zero polynomial, centred entries δ·(1, −1), σ² = δ²·1: coefficients compared), so ‖LN(δ, −δ) − LN(−δ, δ)‖∞ / ‖(δ, −δ) − (−δ, δ)‖∞ = 2/(2δ) = 1/δ, unbounded as δ → 0: no k makes LN k-Lipschitz; the engine's layer norm gives (±1, ∓1) exactly at δ = 2^−j, j = 0, 4, …, 60",
		Explain: []string{"With ε > 0 the same family gives LN(δ, −δ) = (δ, −δ)/√(δ² + ε) → 0 as δ → 0, and LN is Lipschitz (not checked here: a bound over all inputs)."}}, nil
}

// checkAmplify: clip_δ maps |x| ≥ δ to ±δ (cpwl on both half-lines), LN
// of the ± pairs of a vector in {±δ}^d is [s; −s] for every δ > 0 and
// every sign pattern s (polynomial identities), and the engine's recipe
// amplify agrees exactly on {±δ, ±3δ}^3.
func checkAmplify() (*proofs.Evidence, error) {
	regions := 0
	var cert proofs.CertTally
	for _, d := range []string{"1/4", "1/2", "1", "3"} {
		delta := proofs.Q(d)
		nd := new(big.Rat).Neg(delta).RatString()
		for _, side := range []struct {
			row []string
			val string
		}{{[]string{"-1", nd}, d}, {[]string{"1", nd}, nd}} {
			dom := proofs.Halfspaces(1, side.row)
			ev, err := proofs.ProveFFN(blocks.Clip("x", "y", delta), dom, []cpwl.Piece{proofs.Piece(dom, proofs.Affine([][]string{{"0"}}, side.val))})
			if err != nil {
				return nil, err
			}
			if ev.Verdict != proofs.Proved {
				ev.Summary = "clip_δ, δ = " + d + ": " + ev.Summary
				return ev, nil
			}
			regions++
			cert.AddAll(ev.Cert)
		}
	}
	patterns := 0
	for d := 1; d <= poly.MaxVars; d++ {
		for s := 0; s < 1<<d; s++ {
			rows := make([][]string, 2*d)
			signs := make([]int64, d)
			for k := 0; k < d; k++ {
				signs[k] = 1
				if s>>k&1 == 1 {
					signs[k] = -1
				}
				rows[k] = []string{"0", fmt.Sprint(signs[k])}
				rows[d+k] = []string{"0", fmt.Sprint(-signs[k])}
			}
			c, p, err := poly.ScaleFree(poly.Polys(rows...), 0)
			if err != nil {
				s := fmt.Sprintf("d = %d, signs %v: %v", d, signs, err)
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
			if !poly.Equal(p, poly.Const(big.NewRat(1, 1))) {
				s := fmt.Sprintf("d = %d, signs %v: σ² = δ²·(%s), so LN gives the signs divided by √(%s)", d, signs, p.Format("δ"), p.Format("δ"))
				return &proofs.Evidence{Verdict: proofs.Refuted, Summary: s, Explain: []string{s}}, nil
			}
			for k := 0; k < d; k++ {
				if !poly.Equal(c[k], poly.Const(big.NewRat(signs[k], 1))) || !poly.Equal(c[d+k], poly.Const(big.NewRat(-signs[k], 1))) {
					return nil, fmt.Errorf("d = %d: centred entry %d is %s", d, k+1, c[k].Format("δ"))
				}
			}
			patterns++
		}
	}
	var inputs []string
	vals := []string{"-3/2", "-1/2", "1/2", "3/2"}
	for a := range vals {
		for b := range vals {
			for c := range vals {
				inputs = append(inputs, vals[a]+", "+vals[b]+", "+vals[c])
			}
		}
	}
	res, err := proofs.RunInputs(proofs.Sweep{Recipe: "amplify", Params: map[string]string{"d": "3", "delta": "1/2"}, MaxN: 1}, inputs)
	if err != nil {
		return nil, err
	}
	if res.Verdict != proofs.Proved {
		return res, nil
	}
	// The recipe at the extremes of its family: d = 1, a tiny and a huge
	// δ, and the inputs on the boundary |x_c| = δ.
	extremes := []struct {
		d, delta string
		inputs   []string
	}{
		{"1", "1/1000", []string{"1/1000", "-1/1000", "1000", "-7/3"}},
		{"8", "1000", []string{"1000, -1000, 1000, -1000, 1000, -1000, 1000, -1000", "1000, 1000, 1000, 1000, 1000, 1000, 1000, -1000", "-5000, -5000, -5000, -5000, -5000, -5000, -5000, -5000"}},
		{"2", "7/3", []string{"7/3, -7/3", "-7/3, 100", "7/3, 7/3"}},
	}
	var ext []string
	count := 0
	for _, e := range extremes {
		count += len(e.inputs)
		ev, err := proofs.RunInputs(proofs.Sweep{Recipe: "amplify", Params: map[string]string{"d": e.d, "delta": e.delta}, MaxN: 1}, e.inputs)
		if err != nil {
			return nil, err
		}
		if ev.Verdict != proofs.Proved {
			return ev, nil
		}
		ext = append(ext, fmt.Sprintf("d = %s, δ = %s: %s", e.d, e.delta, strings.Join(e.inputs, "; ")))
	}
	return &proofs.Evidence{Verdict: proofs.Proved,
		Summary: fmt.Sprintf("clip_δ = δ on x ≥ δ and −δ on x ≤ −δ (cpwl, δ ∈ {1/4, 1/2, 1, 3}, %d half-lines; %s); for every δ > 0 and all %d sign patterns s ∈ {±1}^d, d ≤ 8, LN([sδ; −sδ]) = [s; −s] (mean 0, σ² = δ²: coefficients compared); the recipe amplify gives sign(x) exactly on all 64 inputs of {±δ, ±3δ}^3, δ = 1/2, and on %d inputs at d = 1, δ = 1/1000, d = 8, δ = 1000 and d = 2, δ = 7/3 (|x_c| = δ among them)", regions, cert.Note(), patterns, count),
		Explain: append([]string{"So for |x_c| ≥ δ: clip_δ(x) ∈ {±δ}^d, and the layer norm of its ± pairs is exactly [sign(x); −sign(x)].", res.Summary}, ext...)}, nil
}

// AmplifyRun is what amplify-literal computes for every sign pattern
// of a zero-mean x: per dimension d, the patterns it gets wrong among
// those with both signs (a zero-mean x with |x_c| ≥ δ has both), the
// smallest wrong x, and whether the right patterns are exactly the
// balanced ones (as many + as −).
type AmplifyRun struct {
	Lengths      []proofs.LiteralLength // N is the dimension d
	Smallest     string
	Position     int
	BalancedOnly bool
}

// AmplifyLiteralBehaviour runs amplify-literal (δ = delta) for
// d = 2 … maxD on one x per sign pattern s ∈ {±1}^d with both signs:
// x_c = mδ where s_c = +1 and −pδ where s_c = −1, p and m the numbers of
// + and −, so that x has mean 0 and |x_c| ≥ δ. clip_δ(x) = δ·s for every
// x in the domain, so the pattern decides the output. The patterns are
// taken in lexicographic order, + before −, position 1 first.
func AmplifyLiteralBehaviour(delta *big.Rat, maxD int) (*AmplifyRun, error) {
	run := &AmplifyRun{BalancedOnly: true}
	for d := 2; d <= maxD; d++ {
		s := proofs.Sweep{Recipe: "amplify-literal", MaxN: 1, Precision: "interval:128",
			Params: map[string]string{"d": fmt.Sprint(d), "delta": delta.RatString()}}
		con, err := proofs.Construct(s.Recipe, s.Weighting, s.MaxN, s.Params)
		if err != nil {
			return nil, err
		}
		runner, err := eval.New(numeric.MustParsePrecision(s.Precision), con.Model)
		if err != nil {
			return nil, err
		}
		l := proofs.LiteralLength{N: d}
		for mask := 1; mask < 1<<d-1; mask++ {
			neg := make([]bool, d)
			p := 0
			for c := range neg {
				neg[c] = mask>>(d-1-c)&1 == 1
				if !neg[c] {
					p++
				}
			}
			m := d - p
			xs := make([]string, d)
			for c := range xs {
				v := new(big.Rat).Mul(delta, big.NewRat(int64(m), 1))
				if neg[c] {
					v.Mul(delta, big.NewRat(int64(-p), 1))
				}
				xs[c] = v.RatString()
			}
			input := strings.Join(xs, ", ")
			_, pos, _, err := proofs.RunOne(s, con, runner, s.Precision, input)
			if err != nil {
				return nil, err
			}
			l.Total++
			wrong := pos > 0
			if wrong {
				l.Wrong++
				if run.Smallest == "" {
					run.Smallest, run.Position = input, pos
				}
			}
			if wrong == (p == m) {
				run.BalancedOnly = false
			}
		}
		run.Lengths = append(run.Lengths, l)
	}
	return run, nil
}

func (r *AmplifyRun) String() string {
	var per []string
	wrong, total := 0, 0
	for _, l := range r.Lengths {
		per = append(per, fmt.Sprintf("%d/%d", l.Wrong, l.Total))
		wrong += l.Wrong
		total += l.Total
	}
	first, last := r.Lengths[0].N, r.Lengths[len(r.Lengths)-1].N
	s := fmt.Sprintf("on one zero-mean x per sign pattern with both signs (x_c = mδ where positive, −pδ where negative, p and m the counts; clip_δ(x) = δ·sign(x), so the pattern decides the output), d = %d … %d: wrong on %d of %d patterns (wrong/all by d: %s)",
		first, last, wrong, total, strings.Join(per, ", "))
	if r.BalancedOnly {
		s += ", right exactly on the balanced ones (as many + as −)"
	}
	if r.Smallest != "" {
		s += fmt.Sprintf("; the smallest wrong x = (%s), at position %d", r.Smallest, r.Position)
	}
	return s
}
