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

// The feed-forward recipes of §Feed-Forward Layers. Each runs on vectors
// given directly as the residual stream (verify run --input "x, y; x, y"),
// one feed-forward sublayer with its residual connection writing fresh
// components, unless the recipe is about the residual connection itself.

// ffModel assembles the blocks, in order, over the input components and
// reads out the named outputs.
func ffModel(name string, inputs []string, outputs []string, bs ...stream.Block) (*model.Model, error) {
	return stream.New(name, inputs...).Then(bs...).Readout(outputs...).Model()
}

// realLine samples ℝ: the given special values often, else rationals in
// [−8, 8] with denominator 4.
func realLine(rng *rand.Rand, special ...*big.Rat) *big.Rat {
	return pickRat(rng, special, -8, 8, 4)
}

func r(a, b int64) *big.Rat { return big.NewRat(a, b) }

func ratSum(xs ...*big.Rat) *big.Rat {
	s := new(big.Rat)
	for _, x := range xs {
		s.Add(s, x)
	}
	return s
}

func ratMin(x, y *big.Rat) *big.Rat {
	if x.Cmp(y) <= 0 {
		return x
	}
	return y
}

func ratMax(x, y *big.Rat) *big.Rat {
	if x.Cmp(y) >= 0 {
		return x
	}
	return y
}

func values(xs ...*big.Rat) Want { return Want{Values: xs} }

// binaryFF registers a recipe computing one output from (x, y) on all of
// ℝ² with the block made by block.
func binaryFF(name, title, section, label string, block func(x, y, out string) *stream.FF, ref func(x, y *big.Rat) *big.Rat) *Recipe {
	return &Recipe{
		Name: name, Title: title, Section: section, Label: label,
		// The claim ffn.<name>.exact proves the block on ℝ² (exact/cpwl);
		// the model adds it into a fresh component, which in ℝ is the
		// block's value.
		ProvedBy: "ffn." + name + ".exact",
		Domain:   "x, y ∈ ℝ", Exact: true, Width: "3 (x, y and the output)", MinN: 1, DefaultMaxN: 4,
		Build: func(cfg Config) (*Construction, error) {
			m, err := ffModel(name, []string{"x", "y"}, []string{"out"}, block("x", "y", "out"))
			if err != nil {
				return nil, err
			}
			vi := vectorInput{Names: []string{"x", "y"}, Sample: func(rng *rand.Rand) []*big.Rat {
				x := realLine(rng, r(0, 1))
				if rng.IntN(4) == 0 { // ties, where min and max switch pieces
					return []*big.Rat{x, new(big.Rat).Set(x)}
				}
				return []*big.Rat{x, realLine(rng, r(0, 1))}
			}}
			return vi.Construction(m, pointwise(func(x []*big.Rat) Want { return values(ref(x[0], x[1])) })), nil
		},
	}
}

var (
	// minRecipe is min(x, y) of §Min and Max. Domain: x, y ∈ ℝ.
	minRecipe = binaryFF("min", "min(x, y)", "Min and Max", "sec:ffnn_minmax", blocks.Min, ratMin)
	// maxRecipe is max(x, y) of §Min and Max. Domain: x, y ∈ ℝ.
	maxRecipe = binaryFF("max", "max(x, y)", "Min and Max", "sec:ffnn_minmax", blocks.Max, ratMax)
	// add is x + y of §Addition and Subtraction. Domain: x, y ∈ ℝ.
	add = binaryFF("add", "x + y", "Addition and Subtraction", "sec:ffnn_addition", blocks.Add,
		func(x, y *big.Rat) *big.Rat { return ratSum(x, y) })
	// sub is x − y of §Addition and Subtraction ("or subtraction").
	// Domain: x, y ∈ ℝ.
	sub = binaryFF("sub", "x − y", "Addition and Subtraction", "sec:ffnn_addition", blocks.Sub,
		func(x, y *big.Rat) *big.Rat { return new(big.Rat).Sub(x, y) })
)

// scale is the cheat sheet's "multiply by c" (§Routing Lemma: the
// identity FFN postmultiplied by c). Domain: x ∈ ℝ.
var scale = &Recipe{
	Name: "scale", Title: "c·x: the identity FFN with its output multiplied by a constant c",
	Section: "Routing Lemma", Label: "sec:routing", Domain: "x ∈ ℝ", Exact: true,
	Width: "2 (x and the output)", MinN: 1, DefaultMaxN: 4, ProvedBy: "ffn.scale.exact",
	Params: []Param{{Name: "c", Default: "-3/2", Doc: "the constant c (any rational)"}},
	Build: func(cfg Config) (*Construction, error) {
		c, err := cfg.Rat("c")
		if err != nil {
			return nil, err
		}
		m, err := ffModel("scale", []string{"x"}, []string{"out"}, blocks.Scale([]string{"x"}, []string{"out"}, c))
		if err != nil {
			return nil, err
		}
		vi := vectorInput{Names: []string{"x"}, Sample: func(rng *rand.Rand) []*big.Rat { return []*big.Rat{realLine(rng, r(0, 1))} }}
		return vi.Construction(m, pointwise(func(x []*big.Rat) Want { return values(new(big.Rat).Mul(c, x[0])) })), nil
	},
}

// componentNames returns x1 … xd with the given prefix.
func componentNames(prefix string, d int) []string {
	names := make([]string, d)
	for k := range names {
		names[k] = fmt.Sprintf("%s%d", prefix, k+1)
	}
	return names
}

var dParam = Param{Name: "d", Default: "2", Doc: "the dimension d (1 to 64); d = 1 is the scalar case"}

// identityFFN is id of §Identity Function without a residual connection:
// the FFN W1 = [I; −I], W2 = [I, −I] alone maps x ∈ ℝ^d to x. The layer's
// residual connection is switched off, so the stream after it is id(x)
// itself. Domain: ℝ^d.
var identityFFN = &Recipe{
	Name: "identity-ffn", Title: "id(x) = ReLU(x) − ReLU(−x) = x, without a residual connection",
	Section: "Identity Function", Label: "sec:ffnn_identity", Domain: "x ∈ ℝ^d", Exact: true,
	Width: "d", MinN: 1, DefaultMaxN: 4, Params: []Param{dParam}, ProvedBy: "ffn.identity.vector",
	Build: func(cfg Config) (*Construction, error) {
		d, err := cfg.Int("d", 1, 64)
		if err != nil {
			return nil, err
		}
		xs := componentNames("x", d)
		// The block writes into its own inputs: with the residual switched
		// off, the layer's output is ff(x) alone.
		f := blocks.Identity(xs, xs)
		f.Accumulate = true
		m, err := ffModel("identity-ffn", xs, xs, f)
		if err != nil {
			return nil, err
		}
		m.Layers[0].NoFeedForwardResidual = true
		return realVectors(xs).Construction(m, pointwise(func(x []*big.Rat) Want { return values(x...) })), nil
	},
}

// zeroFFN is the zero FFN of §Identity Function with the residual
// connection: x + zero(x) = x. Domain: ℝ^d.
var zeroFFN = &Recipe{
	Name: "zero-ffn", Title: "x + zero(x) = x: the zero FFN with a residual connection",
	Section: "Identity Function", Label: "sec:ffnn_identity", Domain: "x ∈ ℝ^d", Exact: true,
	Width: "d", MinN: 1, DefaultMaxN: 4, Params: []Param{dParam}, ProvedBy: "ffn.zero.residual",
	Build: func(cfg Config) (*Construction, error) {
		d, err := cfg.Int("d", 1, 64)
		if err != nil {
			return nil, err
		}
		xs := componentNames("x", d)
		m, err := ffModel("zero-ffn", xs, xs, blocks.Zero(xs))
		if err != nil {
			return nil, err
		}
		return realVectors(xs).Construction(m, pointwise(func(x []*big.Rat) Want { return values(x...) })), nil
	},
}

// realVectors samples ℝ^d, zeros often (ReLU's kink).
func realVectors(names []string) vectorInput {
	return vectorInput{Names: names, Sample: func(rng *rand.Rand) []*big.Rat {
		x := make([]*big.Rat, len(names))
		for k := range x {
			x[k] = realLine(rng, r(0, 1))
		}
		return x
	}}
}

// cpwl is §Continuous Piecewise Linear Functions: the FFN of hidden
// dimension n+1 that computes the univariate CPWL function through the
// given points. Domain: ℝ.
var cpwl = &Recipe{
	Name: "cpwl", Title: "a continuous piecewise linear f: ℝ → ℝ from its points (x_k, y_k)",
	Section: "Continuous Piecewise Linear Functions", Label: "sec:ffnn_cpwl", Domain: "x ∈ ℝ", Exact: true,
	Width: "2 (x and f(x)); hidden n+1 for n pieces", MinN: 1, DefaultMaxN: 4,
	Params: []Param{{Name: "points", Default: "-2:1,0:-1,1:0,3:4",
		Doc: "x_1:y_1,…,x_{n+1}:y_{n+1} with x_1 < … < x_{n+1}, n ≥ 2 pieces: the first and last points lie on the outer pieces, the others are the knots"}},
	Build: func(cfg Config) (*Construction, error) {
		xs, ys, err := parsePoints(cfg.Params["points"])
		if err != nil {
			return nil, err
		}
		f, err := blocks.CPWL("x", "f", xs, ys)
		if err != nil {
			return nil, err
		}
		m, err := ffModel("cpwl", []string{"x"}, []string{"f"}, f)
		if err != nil {
			return nil, err
		}
		special := append(append([]*big.Rat(nil), xs...), r(0, 1))
		vi := vectorInput{Names: []string{"x"}, Sample: func(rng *rand.Rand) []*big.Rat {
			return []*big.Rat{pickRat(rng, special, -10, 10, 8)}
		}}
		return vi.Construction(m, pointwise(func(x []*big.Rat) Want { return values(interpolate(xs, ys, x[0])) })), nil
	},
}

// parsePoints reads "x1:y1,x2:y2,…".
func parsePoints(s string) (xs, ys []*big.Rat, err error) {
	for _, pt := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(pt, ":")
		if !ok {
			return nil, nil, fmt.Errorf("parameter points: %q is not x:y", pt)
		}
		x, err := exact.ParseRat(strings.TrimSpace(a))
		if err != nil {
			return nil, nil, fmt.Errorf("parameter points: %w", err)
		}
		y, err := exact.ParseRat(strings.TrimSpace(b))
		if err != nil {
			return nil, nil, fmt.Errorf("parameter points: %w", err)
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	return xs, ys, nil
}

// interpolate is the CPWL function through the points, extended past the
// first and last points along the outer pieces: the reference, computed
// as the paper's case split (not from the FFN's weights).
func interpolate(xs, ys []*big.Rat, x *big.Rat) *big.Rat {
	n := len(xs) - 1
	k := 0 // the piece [x_k, x_{k+1}] (0-based), clamped to the outer ones
	for k < n-1 && x.Cmp(xs[k+1]) > 0 {
		k++
	}
	slope := new(big.Rat).Sub(ys[k+1], ys[k])
	slope.Quo(slope, new(big.Rat).Sub(xs[k+1], xs[k]))
	y := new(big.Rat).Sub(x, xs[k])
	y.Mul(y, slope)
	return y.Add(y, ys[k])
}

// cancelResidual is §Canceling Residual Connections: for an FFN f: ℝ^d →
// ℝ^d, the FFN f′ with
//
//	W1′ = [f.W1; I; −I], b1′ = [f.b1; 0; 0], W2′ = [f.W2, −I, I], b2′ = f.b2
//
// (blocks.CancelResidual) makes f′(x) + x = f(x): with its residual
// connection the layer replaces x by f(x) in place. f is the user's
// (parameters W1, b1, W2, b2, exact rationals); by default the sort of a
// pair, f(x, y) = (min(x, y), max(x, y)), the parallel min and max of
// §Min and Max. The reference is f(x) = W2 ReLU(W1 x + b1) + b2 evaluated
// directly from the given matrices (ffnReLU), not from f′.
//
// Domain: x ∈ ℝ^d, d the number of columns of W1 (and rows of W2).
var cancelResidual = &Recipe{
	Name: "cancel-residual", Title: "f′(x) + x = f(x) for a ReLU FFN f: ℝ^d → ℝ^d given by W1, b1, W2, b2 (by default f(x, y) = (min, max)), computed in place",
	Section: "Canceling Residual Connections", Label: "sec:ffnn_cancel_residual", Domain: "x ∈ ℝ^d (d = the columns of W1)", Exact: true,
	Width: "d (x, replaced in place)", MinN: 1, DefaultMaxN: 4,
	Params: []Param{
		{Name: "W1", Default: "1 0; -1 0; 1 -1; 1 0; -1 0; -1 1", Doc: "f's first layer, h×d: rows separated by ';', entries (exact rationals) by spaces or commas; the default, with W2's, is min and max of §Min and Max side by side"},
		{Name: "b1", Default: "", Doc: "f's first bias, h entries; empty: zeros"},
		{Name: "W2", Default: "1 -1 -1 0 0 0; 0 0 0 1 -1 1", Doc: "f's second layer, d×h"},
		{Name: "b2", Default: "", Doc: "f's second bias, d entries; empty: zeros"},
	},
	Build: func(cfg Config) (*Construction, error) {
		ff, err := ffnParams(cfg)
		if err != nil {
			return nil, err
		}
		d := len(ff.w1[0])
		xs := componentNames("x", d)
		f := &stream.FF{Name: "f", In: xs, Out: xs, W1: ratMatrix(ff.w1), B1: ratVector(ff.b1), W2: ratMatrix(ff.w2), B2: ratVector(ff.b2)}
		g, err := blocks.CancelResidual(f)
		if err != nil {
			return nil, err
		}
		m, err := ffModel("cancel-residual", xs, xs, g)
		if err != nil {
			return nil, err
		}
		return realVectors(xs).Construction(m, pointwise(func(x []*big.Rat) Want { return values(ff.eval(x)...) })), nil
	},
}

// ffnFunc is a ReLU FFN given by its matrices: f(x) = W2 ReLU(W1 x + b1)
// + b2.
type ffnFunc struct {
	w1, w2 [][]*big.Rat
	b1, b2 []*big.Rat
}

// ffnParams reads W1, b1, W2 and b2 and checks their shapes: W1 h×d, b1
// of h entries, W2 d×h (f maps ℝ^d to itself), b2 of d entries.
func ffnParams(cfg Config) (*ffnFunc, error) {
	var f ffnFunc
	var err error
	if f.w1, err = exact.ParseMatrix(cfg.Params["W1"]); err != nil {
		return nil, fmt.Errorf("parameter W1: %w", err)
	}
	if f.w2, err = exact.ParseMatrix(cfg.Params["W2"]); err != nil {
		return nil, fmt.Errorf("parameter W2: %w", err)
	}
	h, d := len(f.w1), len(f.w1[0])
	if d > 64 || h > 1024 {
		return nil, fmt.Errorf("parameter W1 is %d×%d: at most 1024 hidden units and 64 components", h, d)
	}
	if len(f.w2) != d || len(f.w2[0]) != h {
		return nil, fmt.Errorf("parameter W2 is %d×%d, but W1 is %d×%d: W2 must be %d×%d (d×h, f maps ℝ^%d to itself)", len(f.w2), len(f.w2[0]), h, d, d, h, d)
	}
	for _, b := range []struct {
		name string
		dst  *[]*big.Rat
		n    int
	}{{"b1", &f.b1, h}, {"b2", &f.b2, d}} {
		text := cfg.Params[b.name]
		if strings.TrimSpace(text) == "" {
			*b.dst = make([]*big.Rat, b.n)
			for k := range *b.dst {
				(*b.dst)[k] = new(big.Rat)
			}
			continue
		}
		if *b.dst, err = exact.ParseVector(text); err != nil {
			return nil, fmt.Errorf("parameter %s: %w", b.name, err)
		}
		if len(*b.dst) != b.n {
			return nil, fmt.Errorf("parameter %s has %s, want %d (W1 is %d×%d)", b.name, plural.Of(len(*b.dst), "entry"), b.n, h, d)
		}
	}
	return &f, nil
}

// eval is f(x) = W2 ReLU(W1 x + b1) + b2, exactly: the plain evaluation
// the recipe's reference is, independent of the model's routing.
func (f *ffnFunc) eval(x []*big.Rat) []*big.Rat {
	hidden := make([]*big.Rat, len(f.w1))
	for r, row := range f.w1 {
		z := new(big.Rat).Set(f.b1[r])
		for c, w := range row {
			z.Add(z, new(big.Rat).Mul(w, x[c]))
		}
		if z.Sign() < 0 {
			z.SetInt64(0)
		}
		hidden[r] = z
	}
	out := make([]*big.Rat, len(f.w2))
	for r, row := range f.w2 {
		y := new(big.Rat).Set(f.b2[r])
		for c, w := range row {
			y.Add(y, new(big.Rat).Mul(w, hidden[c]))
		}
		out[r] = y
	}
	return out
}

func ratMatrix(rows [][]*big.Rat) model.Matrix {
	m := model.Zeros(len(rows), len(rows[0]))
	for r, row := range rows {
		for c, x := range row {
			m.Set(r, c, numeric.Lit(x))
		}
	}
	return m
}

func ratVector(xs []*big.Rat) model.Vector {
	v := make(model.Vector, len(xs))
	for k, x := range xs {
		v[k] = numeric.Lit(x)
	}
	return v
}

// mergeFF joins parallel FF blocks over the same inputs into one block
// whose hidden units are theirs concatenated (parallel composition of
// §Composition operations, done by hand so that CancelResidual can wrap
// the whole f).
func mergeFF(name string, b stream.Block) *stream.FF {
	var fs []*stream.FF
	if f, ok := b.(*stream.FF); ok {
		fs = []*stream.FF{f}
	} else {
		for _, x := range stream.Parts(b) {
			fs = append(fs, x.(*stream.FF))
		}
	}
	in := fs[0].In
	var out []string
	hidden := 0
	for _, f := range fs {
		out = append(out, f.Out...)
		hidden += f.W1.Rows
	}
	g := &stream.FF{Name: name, In: in, Out: out, W1: model.Zeros(hidden, len(in)), B1: make(model.Vector, hidden),
		W2: model.Zeros(len(out), hidden), B2: make(model.Vector, len(out))}
	h0, o0 := 0, 0
	for _, f := range fs {
		for h := 0; h < f.W1.Rows; h++ {
			for k := range in {
				g.W1.Set(h0+h, k, f.W1.At(h, k))
			}
			if f.B1 != nil {
				g.B1[h0+h] = f.B1[h]
			}
			for o := range f.Out {
				g.W2.Set(o0+o, h0+h, f.W2.At(o, h))
			}
		}
		for o := range f.Out {
			if f.B2 != nil {
				g.B2[o0+o] = f.B2[o]
			}
		}
		h0 += f.W1.Rows
		o0 += len(f.Out)
	}
	return g
}

func init() {
	for _, rc := range []*Recipe{minRecipe, maxRecipe, add, sub, scale, identityFFN, zeroFFN, cpwl, cancelResidual} {
		Register(rc)
	}
}
