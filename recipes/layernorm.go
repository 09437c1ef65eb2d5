package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/exact"
	"github.com/transformer-cookbook/verify/internal/plural"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The recipes of §Layer Normalization and §Layernorm hash. A layer norm
// takes a square root, so most of their outputs are irrational: those
// recipes default to certified intervals, and their references are exact
// real numbers (Want.Reals).

// lnCircumvent is §Circumventing Layer Normalization: for a layer norm
// with β = 0, LN([x; −x]) = [cx; −cx] for some c, because a vector of
// pairs of additive inverses has mean 0; with γ = 1, c = 1/√(‖x‖²/d + ε).
// The recipe writes −x with an FFN and stores LN([x; −x]) through a
// selective pre-norm (an identity FFN reading LN(W^N h)), with LN.γ and
// LN.β as parameters (2d entries each, over [x; −x]).
//
// The reference is the claimed form [cx; −cx], c fixed by the first
// component with x_k ≠ 0 (there the output is γ_k x_k/√(‖x‖²/d + ε), so
// no other c can match): c = γ_k/√(‖x‖²/d + ε). The paper says "for any
// layernorm LN with LN.β = 0", but LN.γ must also be uniform: with
// γ = (2, 1), LN([1; −1]) = (2, −1), not of the form (c, −c), and this
// recipe reports it wrong (as the registry's ln.circumvent.literal
// does); γ equal on x_k and −x_k is not enough either once d ≥ 2 (γ =
// (2, 1, 2, 1) on x = (1, 1)). With β ≠ 0 the paper claims nothing: the
// construction's notes say so, and the form fails by β.
//
// Domain: x ∈ ℝ^d, x ≠ 0 when ε = 0; the form needs LN.β = 0 and uniform
// LN.γ.
var lnCircumvent = &Recipe{
	Name: "ln-circumvent", Title: "LN([x; −x]) = [cx; −cx]: layer norm only rescales ± pairs",
	Section: "Circumventing Layer Normalization", Label: "sec:layernorm_circumvent",
	Domain: "x ∈ ℝ^d (x ≠ 0 if ε = 0); the form needs LN.β = 0 and uniform LN.γ (other γ, β show it failing)", Exact: true, Width: "4d (x, −x and the normalised pair)",
	MinN: 1, DefaultMaxN: 4, Precision: "interval:128",
	Params: []Param{dParam, {Name: "eps", Default: "0", Doc: "the layer norm's ε ≥ 0"},
		{Name: "gamma", Default: "", Doc: "LN.γ over [x; −x], 2d exact rationals separated by spaces or commas; empty: 1 in every component (the claim needs a uniform γ)"},
		{Name: "beta", Default: "", Doc: "LN.β over [x; −x], 2d exact rationals; empty: 0 (the claim is for β = 0)"}},
	Build: func(cfg Config) (*Construction, error) {
		d, err := cfg.Int("d", 1, 64)
		if err != nil {
			return nil, err
		}
		ln, err := lnParams(cfg, 2*d)
		if err != nil {
			return nil, err
		}
		xs, nx, ys := componentNames("x", d), componentNames("nx", d), componentNames("y", 2*d)
		pair := append(append([]string(nil), xs...), nx...)
		norm := blocks.Identity(pair, ys)
		norm.Norm = ln.norm()
		m, err := ffModel("ln-circumvent", xs, ys, blocks.Scale(xs, nx, r(-1, 1)), norm)
		if err != nil {
			return nil, err
		}
		vi := realVectors(xs)
		sample := vi.Sample
		vi.Sample = func(rng *rand.Rand) []*big.Rat {
			for {
				if x := sample(rng); ln.eps.Sign() > 0 || !allZero(x) {
					return x
				}
			}
		}
		vi.Valid = func(x []*big.Rat) error {
			if ln.eps.Sign() == 0 && allZero(x) {
				return fmt.Errorf("x = 0 with ε = 0: the layer norm divides by σ = 0")
			}
			return nil
		}
		con := vi.Construction(m, pointwise(func(x []*big.Rat) Want {
			// c = γ_k/√(Σ x_k²/d + ε): the mean of the squares of [x; −x]
			// (their mean is 0), k the first nonzero component.
			ms := new(big.Rat)
			for _, v := range x {
				ms.Add(ms, new(big.Rat).Mul(v, v))
			}
			ms.Quo(ms, big.NewRat(int64(d), 1))
			g := big.NewRat(1, 1)
			for k, v := range x {
				if v.Sign() != 0 {
					g = ln.gamma[k]
					break
				}
			}
			c := numeric.Quo(numeric.Lit(g), numeric.Sqrt(numeric.Lit(ms.Add(ms, ln.eps))))
			w := Want{}
			for _, sign := range []int64{1, -1} {
				for _, v := range x {
					w.Reals = append(w.Reals, numeric.Mul(c, numeric.Lit(new(big.Rat).Mul(v, big.NewRat(sign, 1)))))
				}
			}
			return w
		}))
		if !allZero(ln.beta) {
			con.Notes = append(con.Notes, "LN.β ≠ 0: outside the paper's premise (LN.β = 0); the reference is still the form [cx; −cx], which β shifts away from")
		}
		for _, gk := range ln.gamma {
			if gk.Cmp(ln.gamma[0]) != 0 {
				con.Notes = append(con.Notes, "LN.γ is not uniform: the paper claims the form for any γ (with β = 0), which such a γ refutes")
				break
			}
		}
		return con, nil
	},
}

// layerNormVector is layer normalization itself (§Layer Normalization,
// Definition "layer normalization"): on a given x ∈ ℝ^d,
//
//	LN(x) = (x − μ)/√(σ² + ε) ⊙ γ + β,  μ = (1/d) Σ x_k,  σ² = (1/d) Σ (x_k − μ)²,
//
// with γ, β and ε as parameters. The model is an identity FFN reading
// LN(W^N x) of the input (a selective pre-norm), so the output is the
// engine's layer norm; the reference is the formula above as an exact
// real (lnReference), rational where σ² + ε is the square of a rational
// (then exact arithmetic runs it too), else confirmed by an interval
// enclosure that contains it. The definition asks ε > 0; ε = 0, which
// the layernorm hash and the amplification use, is allowed where x is
// not constant.
//
// Domain: x ∈ ℝ^d, not constant when ε = 0.
var layerNormVector = &Recipe{
	Name: "layernorm", Title: "LN(x) = (x − μ)/√(σ² + ε) ⊙ γ + β on a given vector, with γ, β and ε as parameters",
	Section: "Layer Normalization", Label: "sec:layernorm", Domain: "x ∈ ℝ^d (not constant when ε = 0)",
	Exact: true, Width: "2d (x and LN(x))", MinN: 1, DefaultMaxN: 4, Precision: "interval:128",
	Params: []Param{
		{Name: "d", Default: "3", Doc: "the dimension d (1 to 64)"},
		{Name: "gamma", Default: "", Doc: "LN.γ, d exact rationals separated by spaces or commas; empty: 1 in every component"},
		{Name: "beta", Default: "", Doc: "LN.β, d exact rationals; empty: 0 in every component"},
		{Name: "eps", Default: "0", Doc: "LN.ε ≥ 0 (the definition asks ε > 0; 0 allows a constant-free x only)"},
	},
	Build: func(cfg Config) (*Construction, error) {
		d, err := cfg.Int("d", 1, 64)
		if err != nil {
			return nil, err
		}
		ln, err := lnParams(cfg, d)
		if err != nil {
			return nil, err
		}
		xs, ys := componentNames("x", d), componentNames("y", d)
		norm := blocks.Identity(xs, ys)
		norm.Norm = ln.norm()
		m, err := ffModel("layernorm", xs, ys, norm)
		if err != nil {
			return nil, err
		}
		vi := ln.inputs(xs)
		return vi.Construction(m, pointwise(func(x []*big.Rat) Want { return Want{Reals: ln.reference(x)} })), nil
	},
}

// lnSpec is a layer norm's parameters, exactly.
type lnSpec struct {
	gamma, beta []*big.Rat
	eps         *big.Rat
}

// lnParams reads gamma, beta (d entries each, or empty for ones and
// zeros) and eps ≥ 0.
func lnParams(cfg Config, d int) (*lnSpec, error) {
	ln := &lnSpec{}
	var err error
	if ln.eps, err = cfg.Rat("eps"); err != nil {
		return nil, err
	}
	if ln.eps.Sign() < 0 {
		return nil, fmt.Errorf("parameter eps must be ≥ 0, got %s", ln.eps.RatString())
	}
	for _, p := range []struct {
		name string
		dst  *[]*big.Rat
		def  int64
	}{{"gamma", &ln.gamma, 1}, {"beta", &ln.beta, 0}} {
		text := cfg.Params[p.name]
		if strings.TrimSpace(text) == "" {
			*p.dst = make([]*big.Rat, d)
			for k := range *p.dst {
				(*p.dst)[k] = big.NewRat(p.def, 1)
			}
			continue
		}
		if *p.dst, err = exact.ParseVector(text); err != nil {
			return nil, fmt.Errorf("parameter %s: %w", p.name, err)
		}
		if len(*p.dst) != d {
			return nil, fmt.Errorf("parameter %s has %s, want d = %d", p.name, plural.Of(len(*p.dst), "entry"), d)
		}
	}
	return ln, nil
}

// norm is the model's selective norm with these parameters.
func (ln *lnSpec) norm() *stream.Norm {
	n := &stream.Norm{Eps: numeric.Lit(ln.eps), Gamma: make(model.Vector, len(ln.gamma)), Beta: make(model.Vector, len(ln.beta))}
	for k := range ln.gamma {
		n.Gamma[k], n.Beta[k] = numeric.Lit(ln.gamma[k]), numeric.Lit(ln.beta[k])
	}
	return n
}

// moments returns μ and σ² + ε of x.
func (ln *lnSpec) moments(x []*big.Rat) (mu, v *big.Rat) {
	d := big.NewRat(int64(len(x)), 1)
	mu = new(big.Rat)
	for _, xk := range x {
		mu.Add(mu, xk)
	}
	mu.Quo(mu, d)
	v = new(big.Rat)
	for _, xk := range x {
		c := new(big.Rat).Sub(xk, mu)
		v.Add(v, c.Mul(c, c))
	}
	v.Quo(v, d)
	return mu, v.Add(v, ln.eps)
}

// reference is LN(x) by the definition, as exact reals:
// γ_k (x_k − μ)/√(σ² + ε) + β_k.
func (ln *lnSpec) reference(x []*big.Rat) []numeric.Expr {
	mu, v := ln.moments(x)
	inv := numeric.Quo(numeric.LitInt(1), numeric.Sqrt(numeric.Lit(v)))
	out := make([]numeric.Expr, len(x))
	for k, xk := range x {
		c := new(big.Rat).Sub(xk, mu)
		out[k] = numeric.Add(numeric.Mul(numeric.Lit(c.Mul(c, ln.gamma[k])), inv), numeric.Lit(ln.beta[k]))
	}
	return out
}

// inputs samples x ∈ ℝ^d (never constant when ε = 0, where σ² + ε would
// be 0) and refuses such an x.
func (ln *lnSpec) inputs(xs []string) vectorInput {
	vi := realVectors(xs)
	sample := vi.Sample
	vi.Sample = func(rng *rand.Rand) []*big.Rat {
		for {
			x := sample(rng)
			if _, v := ln.moments(x); v.Sign() > 0 {
				return x
			}
		}
	}
	vi.Valid = func(x []*big.Rat) error {
		if _, v := ln.moments(x); v.Sign() == 0 {
			return fmt.Errorf("x is constant and ε = 0: σ² + ε = 0, and the layer norm divides by √0")
		}
		return nil
	}
	return vi
}

func allZero(x []*big.Rat) bool {
	for _, v := range x {
		if v.Sign() != 0 {
			return false
		}
	}
	return true
}

// lh is the layernorm hash of §Layernorm hash: lh(x) = LN([x, 1, −x, −1])
// with LN.ε = 0, β = 0, γ = 1, which is √(2/(x² + 1))·[x, 1, −x, −1], and
// its scale invariance: for k > 0, LN([kx, k, −kx, −k]) = lh(x). The
// input is (a, b) = (kx, k); an FFN writes [a, b, −a, −b] and an identity
// FFN with a selective pre-norm stores its layer norm. (The paper writes
// the invariance as "lh(kx) = lh(x)", which taken literally is false:
// lh(2) = √(2/5)(2, 1, −2, −1) ≠ lh(1) = (1, 1, −1, −1); what holds is
// that scaling the whole argument vector, x and 1 alike, does not change
// it.) Domain: b > 0.
var lh = &Recipe{
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
	for _, rc := range []*Recipe{clip, lnCircumvent, amplifyLiteral, amplify, lh, layerNormVector} {
		Register(rc)
	}
}
