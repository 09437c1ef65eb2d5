package recipes

import (
	"fmt"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The position encodings of §Positional Encodings, as recipes whose
// output is the encoding itself: pe_n(i) for every position i of an input
// of length n. In exact arithmetic they hold by construction; the point
// of checking them is the precision at which they stop being what the
// paper says (i² leaves fp16's integers at i = 46, 1/i is inexact at
// every precision for i = 3, …). The input symbols are irrelevant: any
// string over {a, b}.

// peSpec describes a position-encoding recipe: layout returns the
// components the position embedding writes and the exact values (or exact
// reals) it writes at position i of a string of length n.
type peSpec struct {
	name, title, section, label, domain, width string
	maxN, limitN                               int
	params                                     []Param
	precision                                  string
	layout                                     func(cfg Config) ([]string, func(i, n int) []numeric.Expr, error)
	// formula is the encoding as the paper's named function over the
	// components layout returns, which model files store; nil for the
	// almost orthogonal encoding, a sampled table of i alone (ofI).
	formula func(cfg Config, comps []string) stream.Term
	ofI     bool
}

func (s peSpec) recipe() *Recipe {
	return &Recipe{
		Name: s.name, Title: s.title, Section: s.section, Label: s.label, Domain: s.domain, Exact: true,
		Width: s.width, MinN: 1, DefaultMaxN: s.maxN, LimitN: s.limitN, Params: s.params, Precision: s.precision,
		Build: func(cfg Config) (*Construction, error) {
			comps, values, err := s.layout(cfg)
			if err != nil {
				return nil, err
			}
			maxN := cfg.MaxN
			pe := func(i, n int) stream.Values {
				v := stream.Values{}
				for k, e := range values(i, n) {
					v[comps[k]] = e
				}
				return v
			}
			p := stream.New(s.name, comps...).
				Symbols([]string{"a", "b"}, func(int) stream.Values { return nil })
			switch {
			case s.ofI:
				p.PositionsOfI(s.title, func(i int) stream.Values { return pe(i, i) })
			default:
				p.Positions(s.title, pe).Formula(s.formula(cfg, comps))
			}
			m, err := p.Readout(comps...).Model()
			if err != nil {
				return nil, err
			}
			return &Construction{Model: m,
				Inputs: func(n int, _ *rand.Rand, _ int) ([]Case, bool) {
					// The output does not depend on the symbols: one
					// string per length checks every position.
					return SymbolCases([][]int{make([]int, n)}), true
				},
				Valid: func(c Case) error {
					if len(c.Symbols) > maxN {
						return fmt.Errorf("length %d exceeds N = %d", len(c.Symbols), maxN)
					}
					return nil
				},
				Expected: func(c Case) []Want {
					n := len(c.Symbols)
					want := make([]Want, n)
					for i := range want {
						want[i] = Want{Reals: values(i+1, n)}
					}
					return want
				},
			}, nil
		},
	}
}

// scalar is the layout of a one-component encoding f(i, n).
func scalar(name string, f func(i, n int) numeric.Expr) func(Config) ([]string, func(i, n int) []numeric.Expr, error) {
	return func(Config) ([]string, func(i, n int) []numeric.Expr, error) {
		return []string{name}, func(i, n int) []numeric.Expr { return []numeric.Expr{f(i, n)} }, nil
	}
}

func ints(xs ...int64) []numeric.Expr {
	out := make([]numeric.Expr, len(xs))
	for k, x := range xs {
		out[k] = numeric.LitInt(x)
	}
	return out
}

var peSimple = "Simple Positional Encodings"

var positionEncodings = []peSpec{
	{name: "pe-inverse", title: "1/i", section: peSimple, domain: "i ∈ [n]", width: "1", maxN: 4096,
		layout: scalar("1/i", func(i, n int) numeric.Expr { return numeric.Frac(1, int64(i)) }), formula: one(model.PosInverseI)},
	{name: "pe-ratio", title: "i/n", section: peSimple, domain: "i ∈ [n]", width: "1", maxN: 4096,
		layout: scalar("i/n", func(i, n int) numeric.Expr { return numeric.Frac(int64(i), int64(n)) }), formula: one(model.PosIOverN)},
	{name: "pe-linear", title: "i", section: peSimple, domain: "i ∈ [n]", width: "1", maxN: 1 << 20,
		layout: scalar("i", func(i, n int) numeric.Expr { return numeric.LitInt(int64(i)) }), formula: one(model.PosI)},
	{name: "pe-square", title: "i²", section: peSimple, domain: "i ∈ [n]", width: "1", maxN: 1 << 14,
		layout: scalar("i²", func(i, n int) numeric.Expr { return numeric.LitInt(int64(i) * int64(i)) }), formula: one(model.PosISquared)},
	{name: "pe-parity", title: "(−1)^i", section: "First", label: "sec:first", domain: "i ∈ [n]", width: "1", maxN: 4096,
		layout: scalar("(-1)^i", func(i, n int) numeric.Expr { return numeric.LitInt(1 - 2*int64(i%2)) }), formula: one(model.PosParity)},
	{name: "pe-onehot", title: "one-hot e_i ∈ ℝ^N", section: "One-Hot Encodings", label: "sec:one-hot", domain: "i ∈ [n], n ≤ N", width: "N", maxN: 64, limitN: 1024,
		layout: func(cfg Config) ([]string, func(i, n int) []numeric.Expr, error) {
			return componentNames("e", cfg.MaxN), func(i, n int) []numeric.Expr {
				v := make([]numeric.Expr, cfg.MaxN)
				for k := range v {
					v[k] = numeric.LitInt(0)
				}
				v[i-1] = numeric.LitInt(1)
				return v
			}, nil
		},
		formula: one(model.PosOneHot)},
	{name: "pe-sinusoidal", title: "sinusoidal: pe(i, 2c) = cos(i/M^{2c/d}), pe(i, 2c+1) = sin(i/M^{2c/d})",
		section: "Sinusoidal Positional Encoding", domain: "i ∈ [n]", width: "d", maxN: 4096, precision: "interval:128",
		params: []Param{{Name: "d", Default: "4", Doc: "the (even) width d, 2 … 64"}, {Name: "M", Default: "10000", Doc: "the base M (a positive integer; 10000 in Vaswani et al.)"}},
		layout: sinusoidal, formula: sinusoidalFormula},
	{name: "pe-ao", title: "almost orthogonal x_i ∈ {±1/√m}^m", section: "Almost Orthogonal Embeddings", label: "sec:almost_orthogonal",
		domain: "i ∈ [n], n ≤ N", width: "m = ⌈(12k/ε²) log 2N⌉", maxN: 16, limitN: 4096, precision: "interval:128",
		params: lookupAO.Params, layout: almostOrthogonal, ofI: true},
}

// one is the formula of an encoding that is the function f on all its
// components.
func one(f model.PositionFunction) func(Config, []string) stream.Term {
	return func(_ Config, comps []string) stream.Term { return stream.Pos(f, comps...) }
}

// sinusoidalFormula is the sinusoidal encoding's formula, with the base
// M of the recipe's parameter (which sinusoidal has checked).
func sinusoidalFormula(cfg Config, comps []string) stream.Term {
	m, _ := cfg.Int("M", 1, 1<<30)
	t := stream.Pos(model.PosSinusoidal, comps...)
	t.Base = numeric.LitInt(int64(m))
	return t
}

// almostOrthogonal is the position encoding of §Almost Orthogonal
// Embeddings: x_i ∈ {±1/√m}^m sampled with a seed and checked after
// sampling (|x_i·x_j| ≤ ε for i ≠ j, x_i·x_i = 1), as lookup-ao samples it.
// The entries ±1/√m are irrational unless m is a square, so the encoding
// is checked in interval arithmetic.
func almostOrthogonal(cfg Config) ([]string, func(i, n int) []numeric.Expr, error) {
	fam, m, _, _, err := aoParams(cfg)
	if err != nil {
		return nil, nil, err
	}
	inv := numeric.Quo(numeric.LitInt(1), numeric.Sqrt(numeric.LitInt(int64(m))))
	return componentNames("x", m), func(i, n int) []numeric.Expr {
		v := make([]numeric.Expr, m)
		for k, s := range fam.Signs[i-1] {
			v[k] = numeric.Mul(numeric.LitInt(int64(s)), inv)
		}
		return v
	}, nil
}

// sinusoidal is the encoding of §Sinusoidal Positional Encoding exactly as
// the paper prints it: components 0 … d−1, pe(i, 2c) = cos(i/M^{2c/d}) and
// pe(i, 2c+1) = sin(i/M^{2c/d}) for 0 ≤ c ≤ d/2 − 1, with i the 1-based
// position. (Vaswani et al. put sin on the even components and cos on the
// odd ones, and count positions from 0; the paper's version swaps them,
// which changes nothing the paper uses them for.)
func sinusoidal(cfg Config) ([]string, func(i, n int) []numeric.Expr, error) {
	d, err := cfg.Int("d", 2, 64)
	if err != nil {
		return nil, nil, err
	}
	if d%2 != 0 {
		return nil, nil, fmt.Errorf("parameter d must be even, got %d", d)
	}
	mBase, err := cfg.Int("M", 1, 1<<30)
	if err != nil {
		return nil, nil, err
	}
	var comps []string
	for c := 0; c < d/2; c++ {
		comps = append(comps, fmt.Sprintf("cos%d", c), fmt.Sprintf("sin%d", c))
	}
	logM := numeric.Log(numeric.LitInt(int64(mBase)))
	return comps, func(i, n int) []numeric.Expr {
		v := make([]numeric.Expr, 0, d)
		for c := 0; c < d/2; c++ {
			// i / M^{2c/d} = i · exp(−(2c/d) log M)
			arg := numeric.LitInt(int64(i))
			if c > 0 {
				arg = numeric.Mul(arg, numeric.Exp(numeric.Neg(numeric.Mul(numeric.Frac(int64(2*c), int64(d)), logM))))
			}
			v = append(v, numeric.Cos(arg), numeric.Sin(arg))
		}
		return v
	}, nil
}

func init() {
	for _, s := range positionEncodings {
		Register(s.recipe())
	}
}
