package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The recipes of §Layer Normalization and §Layernorm hash. A layer norm
// takes a square root, so most of their outputs are irrational: those
// recipes default to certified intervals, and their references are exact
// real numbers (Want.Reals).

var deltaParam = Param{Name: "delta", Default: "1/2", Doc: "the clipping level δ > 0"}

// Clip is clip_δ of §Amplification: W1 = [1; 1], b1 = [δ; −δ],
// W2 = [1, −1], b2 = −δ, computing x clamped to [−δ, δ]. Domain: ℝ.
var Clip = &Recipe{
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

// LNCircumvent is §Circumventing Layer Normalization: for a layer norm
// with β = 0, LN([x; −x]) = [cx; −cx] for some c > 0, because a vector of
// pairs of additive inverses has mean 0; here c = 1/√(‖x‖²/d + ε). The
// recipe writes −x with an FFN and stores LN([x; −x]) through a selective
// pre-norm (an identity FFN reading LN(W^N h)). The paper says "for any
// layernorm LN with LN.β = 0", but LN.γ must also be uniform (or at least
// equal on x_k and −x_k): with γ = (2, 1), LN([1; −1]) = (2, −1), which
// is not of the form (c, −c) (pinned in layernorm_test.go). Here γ = 1.
// Domain: x ∈ ℝ^d, x ≠ 0 when ε = 0.
var LNCircumvent = &Recipe{
	Name: "ln-circumvent", Title: "LN([x; −x]) = [cx; −cx]: layer norm only rescales ± pairs",
	Section: "Circumventing Layer Normalization", Label: "sec:layernorm_circumvent",
	Domain: "x ∈ ℝ^d (x ≠ 0 if ε = 0); LN.β = 0, LN.γ = 1", Exact: true, Width: "4d (x, −x and the normalised pair)",
	MinN: 1, DefaultMaxN: 4, Precision: "interval:128",
	Params: []Param{dParam, {Name: "eps", Default: "0", Doc: "the layer norm's ε ≥ 0"}},
	Build: func(cfg Config) (*Construction, error) {
		d, err := cfg.Int("d", 1, 64)
		if err != nil {
			return nil, err
		}
		eps, err := cfg.Rat("eps")
		if err != nil {
			return nil, err
		}
		if eps.Sign() < 0 {
			return nil, fmt.Errorf("parameter eps must be ≥ 0, got %s", eps.RatString())
		}
		xs, nx, ys := componentNames("x", d), componentNames("nx", d), componentNames("y", 2*d)
		pair := append(append([]string(nil), xs...), nx...)
		norm := blocks.Identity(pair, ys)
		norm.Norm = &stream.Norm{Eps: numeric.Lit(eps)}
		m, err := ffModel("ln-circumvent", xs, ys, blocks.Scale(xs, nx, r(-1, 1)), norm)
		if err != nil {
			return nil, err
		}
		vi := realVectors(xs)
		sample := vi.Sample
		vi.Sample = func(rng *rand.Rand) []*big.Rat {
			for {
				if x := sample(rng); eps.Sign() > 0 || !allZero(x) {
					return x
				}
			}
		}
		vi.Valid = func(x []*big.Rat) error {
			if eps.Sign() == 0 && allZero(x) {
				return fmt.Errorf("x = 0 with ε = 0: the layer norm divides by σ = 0")
			}
			return nil
		}
		return vi.Construction(m, pointwise(func(x []*big.Rat) Want {
			// c = 1/√(Σ x_k²/d + ε): the mean of the squares of [x; −x].
			ms := new(big.Rat)
			for _, v := range x {
				ms.Add(ms, new(big.Rat).Mul(v, v))
			}
			ms.Quo(ms, big.NewRat(int64(d), 1))
			c := numeric.Quo(numeric.LitInt(1), numeric.Sqrt(numeric.Lit(ms.Add(ms, eps))))
			w := Want{}
			for _, sign := range []int64{1, -1} {
				for _, v := range x {
					w.Reals = append(w.Reals, numeric.Mul(c, numeric.Lit(new(big.Rat).Mul(v, big.NewRat(sign, 1)))))
				}
			}
			return w
		})), nil
	},
}

func allZero(x []*big.Rat) bool {
	for _, v := range x {
		if v.Sign() != 0 {
			return false
		}
	}
	return true
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

// AmplifyLiteral is §Amplification as printed: for x ∈ ℝ^d with
// |x_c| ≥ δ for every c and zero mean, clip every component to ±δ with
// clip_δ (replacing x in place: the cancel-residual form), then apply
// LN with ε = 0, β = 0, γ = 1 to the whole vector (post-norm): the paper
// says this "will normalize all activations to ±1". It does only when
// clip_δ(x) has as many +δ as −δ: zero mean of x does not give that.
// Counterexample (δ = 1/2, d = 5): x = (2, −1/2, −1/2, −1/2, −1/2) has
// mean 0, clips to (1/2, −1/2, −1/2, −1/2, −1/2) with mean −3/10 and
// σ = 2/5, and LN gives (2, −1/2, −1/2, −1/2, −1/2), not (1, −1, −1, −1,
// −1). See Amplify for the corrected recipe.
var AmplifyLiteral = &Recipe{
	Name: "amplify-literal", Title: "as printed: clip_δ every component, then LN with ε = 0, claimed to give sign(x_c) = ±1",
	Section: "Amplification", Label: "sec:layernorm_amplify",
	Domain: "x ∈ ℝ^d, |x_c| ≥ δ, mean(x) = 0", Exact: true, Width: "d", MinN: 1, DefaultMaxN: 4,
	Precision: "interval:128", Params: []Param{deltaParam, {Name: "d", Default: "5", Doc: "the dimension d ≥ 2"}},
	Build: func(cfg Config) (*Construction, error) {
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
	},
}

// Amplify is §Amplification corrected: clip every component with clip_δ
// and normalise the pairs [clip_δ(x); −clip_δ(x)] (§Circumventing Layer
// Normalization), whose mean is always 0 and whose variance is δ², so
// LN with ε = 0 gives exactly [sign(x); −sign(x)]. The zero-mean
// assumption is no longer needed; the layer norm is a selective pre-norm
// read by an identity FFN that stores sign(x). Domain: |x_c| ≥ δ.
var Amplify = &Recipe{
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

// LH is the layernorm hash of §Layernorm hash: lh(x) = LN([x, 1, −x, −1])
// with LN.ε = 0, β = 0, γ = 1, which is √(2/(x² + 1))·[x, 1, −x, −1], and
// its scale invariance: for k > 0, LN([kx, k, −kx, −k]) = lh(x). The
// input is (a, b) = (kx, k); an FFN writes [a, b, −a, −b] and an identity
// FFN with a selective pre-norm stores its layer norm. (The paper writes
// the invariance as "lh(kx) = lh(x)", which taken literally is false:
// lh(2) = √(2/5)(2, 1, −2, −1) ≠ lh(1) = (1, 1, −1, −1); what holds is
// that scaling the whole argument vector, x and 1 alike, does not change
// it.) Domain: b > 0.
var LH = &Recipe{
	Name: "lh", Title: "layernorm hash lh(a/b) = LN([a, b, −a, −b]) = √(2/(x²+1))[x, 1, −x, −1], x = a/b",
	Section: "Layernorm hash", Label: "sec:layernorm_hash", Domain: "(a, b) = (kx, k) with k > 0",
	Exact: true, Width: "10 (a, b, the 4-vector and lh)", MinN: 1, DefaultMaxN: 4, Precision: "interval:128",
	Build: func(cfg Config) (*Construction, error) {
		hs, ls := []string{"h1", "h2", "h3", "h4"}, []string{"lh1", "lh2", "lh3", "lh4"}
		ab := []string{"a", "b"}
		norm := blocks.Identity(hs, ls)
		norm.Norm = &stream.Norm{}
		m, err := ffModel("lh", ab, ls, stream.Parallel(blocks.Scale(ab, hs[:2], r(1, 1)), blocks.Scale(ab, hs[2:], r(-1, 1))), norm)
		if err != nil {
			return nil, err
		}
		vi := vectorInput{Names: ab,
			Sample: func(rng *rand.Rand) []*big.Rat {
				x := randRat(rng, -64, 64, 1)
				if rng.IntN(2) == 0 {
					x = randRat(rng, -8, 8, 8)
				}
				k := randRat(rng, 1, 64, 4)
				if rng.IntN(3) == 0 {
					k.Inv(k) // 1/i, as when counting positions
				}
				return []*big.Rat{new(big.Rat).Mul(k, x), k}
			},
			Valid: func(x []*big.Rat) error {
				if x[1].Sign() <= 0 {
					return fmt.Errorf("b = %s: the scale k = b must be positive", x[1].RatString())
				}
				return nil
			}}
		return vi.Construction(m, pointwise(func(x []*big.Rat) Want {
			return Want{Reals: lhReals(new(big.Rat).Quo(x[0], x[1]))}
		})), nil
	},
}

// lhReals is lh(x) = √(2/(x² + 1))·[x, 1, −x, −1], as exact reals.
func lhReals(x *big.Rat) []numeric.Expr {
	x2 := new(big.Rat).Mul(x, x)
	c := numeric.Sqrt(numeric.Quo(numeric.LitInt(2), numeric.Lit(x2.Add(x2, r(1, 1)))))
	out := make([]numeric.Expr, 4)
	for k, v := range []*big.Rat{x, r(1, 1), new(big.Rat).Neg(x), r(-1, 1)} {
		out[k] = numeric.Mul(c, numeric.Lit(v))
	}
	return out
}

func init() {
	for _, rc := range []*Recipe{Clip, LNCircumvent, AmplifyLiteral, Amplify, LH} {
		Register(rc)
	}
}
