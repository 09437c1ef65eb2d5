package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The recipes of §Amplification: clip_δ, and the layer norm that turns
// clipped values into signs, as printed and corrected. They are
// registered with the layer norms (layernorm.go).

var deltaParam = Param{Name: "delta", Default: "1/2", Doc: "the clipping level δ > 0"}

// clip is clip_δ of §Amplification: W1 = [1; 1], b1 = [δ; −δ],
// W2 = [1, −1], b2 = −δ, computing x clamped to [−δ, δ]. Domain: ℝ.
var clip = &Recipe{
	Name: "clip", Title: "clip_δ(x) = x clamped to [−δ, δ]",
	Section: "Amplification", Label: "sec:layernorm_amplify", Domain: "x ∈ ℝ", Exact: true,
	Width: "2 (x and the output)", MinN: 1, DefaultMaxN: 4, Params: []Param{deltaParam},
	Build: func(cfg Config) (*Construction, error) {
		delta, err := cfg.PositiveRat("delta")
		if err != nil {
			return nil, err
		}
		m, err := ffModel("clip", []string{"x"}, []string{"out"}, blocks.Clip("x", "out", delta))
		if err != nil {
			return nil, err
		}
		nd := new(big.Rat).Neg(delta)
		vi := vectorInput{Names: []string{"x"}, Sample: func(rng *rand.Rand) []*big.Rat {
			return []*big.Rat{realLine(rng, delta, nd, r(0, 1))}
		}}
		return vi.Construction(m, pointwise(func(x []*big.Rat) Want { return values(ratMax(nd, ratMin(delta, x[0]))) })), nil
	},
}

// amplifyInputs samples x ∈ ℝ^d with |x_c| ≥ δ, and with zero mean when
// zeroMean is set (the literal recipe's assumption).
func amplifyInputs(xs []string, delta *big.Rat, zeroMean bool) vectorInput {
	d := len(xs)
	big4 := new(big.Rat).Mul(delta, r(4, 1))
	away := func(rng *rand.Rand) *big.Rat {
		// |x| ∈ [δ, 4δ], δ itself often: the edge of the domain.
		v := new(big.Rat).Set(delta)
		if rng.IntN(3) > 0 {
			t := randRat(rng, 0, 1, 16)
			v.Add(v, t.Mul(t, new(big.Rat).Sub(big4, delta)))
		}
		if rng.IntN(2) == 0 {
			v.Neg(v)
		}
		return v
	}
	return vectorInput{Names: xs,
		Sample: func(rng *rand.Rand) []*big.Rat {
			for {
				x := make([]*big.Rat, d)
				sum := new(big.Rat)
				for k := range x {
					x[k] = away(rng)
					sum.Add(sum, x[k])
				}
				if !zeroMean {
					return x
				}
				// The last component makes the mean 0; keep it if it is
				// still at least δ away from 0.
				sum.Sub(sum, x[d-1])
				x[d-1] = sum.Neg(sum)
				if d > 1 && new(big.Rat).Abs(x[d-1]).Cmp(delta) >= 0 {
					return x
				}
			}
		},
		Valid: func(x []*big.Rat) error {
			sum := new(big.Rat)
			for k, v := range x {
				if new(big.Rat).Abs(v).Cmp(delta) < 0 {
					return fmt.Errorf("|%s| = |%s| < δ = %s", xs[k], v.RatString(), delta.RatString())
				}
				sum.Add(sum, v)
			}
			if zeroMean && sum.Sign() != 0 {
				return fmt.Errorf("the mean of x is %s, and the paper assumes 0", new(big.Rat).Quo(sum, big.NewRat(int64(d), 1)).RatString())
			}
			return nil
		}}
}

// signs is the intended output of amplification: sign(x_c) = ±1.
func signs(x []*big.Rat) Want {
	w := Want{}
	for _, v := range x {
		w.Values = append(w.Values, big.NewRat(int64(v.Sign()), 1))
	}
	return w
}

// amplifyLiteral is §Amplification as printed (sec:layernorm_amplify,
// cookbook .tex lines 1886–1919): for x ∈ ℝ^d with |x_c| ≥ δ for every c
// and zero mean (l. 1894–1895), clip every component to ±δ with clip_δ
// (l. 1898–1910: W1 = [1; 1], b1 = [δ; −δ], W2 = [1, −1], b2 = −δ, one
// copy per component), then apply LN with ε = 0, β = 0, γ = 1
// (l. 1913–1917) to the whole vector: "applying layernorm after this FFN
// will normalize all activations to ±1" (l. 1912). The FFN replaces x in
// place (the cancel-residual form of §Canceling Residual Connections), so
// that the post-norm LN(f(x) + x) is LN(clip_δ(x)), the composition the
// section describes. It gives sign(x) only when clip_δ(x) = δ·sign(x) has
// as many +δ as −δ: zero mean of x does not give that. Counterexample
// (δ = 1/2, d = 5): x = (2, −1/2, −1/2, −1/2, −1/2) has mean 0, clips to
// (1/2, −1/2, −1/2, −1/2, −1/2) with mean −3/10 and σ = 2/5, and LN gives
// (2, −1/2, −1/2, −1/2, −1/2), not (1, −1, −1, −1, −1); the smallest d
// where it fails is 3 (x = (1/2, 1/2, −1)). See amplify for the
// corrected recipe.
//
// Domain: x ∈ ℝ^d with |x_c| ≥ δ and mean(x) = 0, the printed assumptions.
var amplifyLiteral = variant(amplify, func(r *Recipe) {
	r.Name, r.Title = "amplify-literal", "as printed: clip_δ every component, then LN with ε = 0, claimed to give sign(x_c) = ±1"
	r.Domain, r.Width = "x ∈ ℝ^d, |x_c| ≥ δ, mean(x) = 0", "d"
	r.Precision, r.Params = "interval:128", []Param{deltaParam, {Name: "d", Default: "5", Doc: "the dimension d ≥ 2"}}
	r.Build = buildAmplifyLiteral
})

// buildAmplifyLiteral is the printed construction: clip_δ on every
// component in place (its residual cancelled), then a post-norm over the
// whole stream.
func buildAmplifyLiteral(cfg Config) (*Construction, error) {
	delta, err := cfg.PositiveRat("delta")
	if err != nil {
		return nil, err
	}
	d, err := cfg.Int("d", 2, 64)
	if err != nil {
		return nil, err
	}
	xs := componentNames("x", d)
	clip, err := blocks.CancelResidual(blocks.ClipVector(xs, xs, delta))
	if err != nil {
		return nil, err
	}
	m, err := ffModel("amplify-literal", xs, xs, clip)
	if err != nil {
		return nil, err
	}
	// Post-norm over the whole stream: y = LN(f(x) + x).
	m.Norm = model.PostNorm
	m.Layers[0].FeedForwardNorm = &model.LayerNorm{}
	return amplifyInputs(xs, delta, true).Construction(m, pointwise(signs)), nil
}

// amplify is §Amplification corrected: clip every component with clip_δ
// and normalise the pairs [clip_δ(x); −clip_δ(x)] (§Circumventing Layer
// Normalization), whose mean is always 0 and whose variance is δ², so
// LN with ε = 0 gives exactly [sign(x); −sign(x)]. The zero-mean
// assumption is no longer needed; the layer norm is a selective pre-norm
// read by an identity FFN that stores sign(x). Domain: |x_c| ≥ δ.
var amplify = &Recipe{
	Name: "amplify", Title: "sign(x_c) = ±1 for |x_c| ≥ δ: clip_δ, then LN (ε = 0) of the ± pairs",
	Section: "Amplification", Label: "sec:layernorm_amplify",
	Domain: "x ∈ ℝ^d, |x_c| ≥ δ", Exact: true, Width: "5d (x, clip, −clip, and the signs, twice)", MinN: 1, DefaultMaxN: 4,
	Params: []Param{deltaParam, {Name: "d", Default: "3", Doc: "the dimension d ≥ 1"}},
	Build: func(cfg Config) (*Construction, error) {
		delta, err := cfg.PositiveRat("delta")
		if err != nil {
			return nil, err
		}
		d, err := cfg.Int("d", 1, 64)
		if err != nil {
			return nil, err
		}
		xs, cs, ncs := componentNames("x", d), componentNames("c", d), componentNames("nc", d)
		ss, ns := componentNames("s", d), componentNames("ns", d)
		norm := blocks.Identity(append(append([]string(nil), cs...), ncs...), append(append([]string(nil), ss...), ns...))
		norm.Norm = &stream.Norm{}
		m, err := ffModel("amplify", xs, ss, blocks.ClipVector(xs, cs, delta), blocks.Scale(cs, ncs, r(-1, 1)), norm)
		if err != nil {
			return nil, err
		}
		return amplifyInputs(xs, delta, false).Construction(m, pointwise(signs)), nil
	},
}
