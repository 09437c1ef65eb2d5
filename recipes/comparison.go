package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// The comparisons of §Comparisons. The cheat sheet marks them "not
// exact": each is a CPWL function equal to the step it approximates only
// outside a gray region of width ε next to the threshold, which the paper
// says is "to be avoided". The recipes' domain is therefore the inputs
// outside the gray region, where the claim is exact; the gray-region
// formulas are pinned by tests.

// comparator describes one comparison: its name, how it is built, and the
// step function it stands for.
type comparator struct {
	name, title string
	// fixed builds the fixed-ε block over x (GTZero_ε, …); inputDep the
	// input-dependent one over (x, ε).
	fixed    func(x, out string, eps, a *big.Rat) *stream.FF
	inputDep func(x, eps, out string) *stream.FF
	// step is the indicator the comparison computes outside the gray
	// region; gray reports whether x lies inside it.
	step func(x *big.Rat) bool
	gray func(x, eps *big.Rat) bool
	// edges are the boundaries of the gray region, as multiples of ε.
	edges []int64
}

var comparators = []comparator{
	{name: "gtzero", title: "GTZero: 𝕀[x > 0], exact for x ≤ 0 or x ≥ ε",
		fixed: blocks.GTZeroEps, inputDep: blocks.GTZero,
		step: func(x *big.Rat) bool { return x.Sign() > 0 },
		gray: func(x, eps *big.Rat) bool { return x.Sign() > 0 && x.Cmp(eps) < 0 }, edges: []int64{0, 1}},
	{name: "gezero", title: "GEZero: 𝕀[x ≥ 0], exact for x ≤ −ε or x ≥ 0",
		fixed: blocks.GEZeroEps, inputDep: blocks.GEZero,
		step: func(x *big.Rat) bool { return x.Sign() >= 0 },
		gray: func(x, eps *big.Rat) bool { return x.Sign() < 0 && x.Cmp(new(big.Rat).Neg(eps)) > 0 }, edges: []int64{-1, 0}},
	{name: "eqzero", title: "EqZero: 𝕀[x = 0], exact for x = 0 or |x| ≥ ε",
		fixed: blocks.EqZeroEps, inputDep: blocks.EqZero,
		step: func(x *big.Rat) bool { return x.Sign() == 0 },
		gray: func(x, eps *big.Rat) bool {
			a := new(big.Rat).Abs(x)
			return a.Sign() > 0 && a.Cmp(eps) < 0
		}, edges: []int64{-1, 0, 1}},
}

// grayError reports x in the gray region of c for tolerance eps.
func (c comparator) grayError(x, eps *big.Rat) error {
	if c.gray(x, eps) {
		return fmt.Errorf("x = %s lies in the gray region of %s for ε = %s, where the paper says the construction is not exact", x.RatString(), c.name, eps.RatString())
	}
	return nil
}

// sample draws x outside the gray region, often on its edges.
func (c comparator) sample(rng *rand.Rand, eps *big.Rat) *big.Rat {
	for {
		var x *big.Rat
		if rng.IntN(2) == 0 {
			k := c.edges[rng.IntN(len(c.edges))]
			x = new(big.Rat).Mul(eps, big.NewRat(k, 1))
		} else {
			x = randRat(rng, -4, 4, 16)
		}
		if !c.gray(x, eps) {
			return x
		}
	}
}

// fixedRecipe is the fixed-ε comparison, with ε a parameter.
func (c comparator) fixedRecipe() *Recipe {
	return &Recipe{
		Name: c.name, Title: c.title + " (fixed ε)", Section: "Comparisons", Label: "sec:comparison", Booleans: []string{"out"},
		Domain: "x ∈ ℝ outside the gray region of width ε", Width: "2 (x and the output)", MinN: 1, DefaultMaxN: 4,
		Params: []Param{{Name: "eps", Default: "1/4", Doc: "the tolerance ε > 0"}},
		Build: func(cfg Config) (*Construction, error) {
			eps, err := cfg.PositiveRat("eps")
			if err != nil {
				return nil, err
			}
			m, err := ffModel(c.name, []string{"x"}, []string{"out"}, c.fixed("x", "out", eps, new(big.Rat)))
			if err != nil {
				return nil, err
			}
			vi := vectorInput{Names: []string{"x"},
				Sample: func(rng *rand.Rand) []*big.Rat { return []*big.Rat{c.sample(rng, eps)} },
				Valid:  func(x []*big.Rat) error { return c.grayError(x[0], eps) }}
			return vi.Construction(m, pointwise(func(x []*big.Rat) Want { return values(indicator(c.step(x[0]), r(1, 1))) })), nil
		},
	}
}

// inputDepRecipe is the input-dependent comparison over (x, ε): the output
// is ε for true and 0 for false ("we are also willing to accept values as
// small as x ≥ ε as true").
func (c comparator) inputDepRecipe() *Recipe {
	return &Recipe{
		Name: c.name + "-eps", Title: c.title + " (input-dependent ε: outputs ε for true)", Section: "Comparisons", Label: "sec:comparison",
		Domain: "(x, ε) with ε > 0 and x outside the gray region of width ε", Width: "3 (x, ε and the output)", MinN: 1, DefaultMaxN: 4,
		Build: func(cfg Config) (*Construction, error) {
			m, err := ffModel(c.name+"-eps", []string{"x", "eps"}, []string{"out"}, c.inputDep("x", "eps", "out"))
			if err != nil {
				return nil, err
			}
			vi := vectorInput{Names: []string{"x", "eps"},
				Sample: func(rng *rand.Rand) []*big.Rat {
					eps := randRat(rng, 1, 16, 16)
					eps.Quo(eps, big.NewRat(4, 1))
					return []*big.Rat{c.sample(rng, eps), eps}
				},
				Valid: func(x []*big.Rat) error {
					if x[1].Sign() <= 0 {
						return fmt.Errorf("ε = %s must be positive", x[1].RatString())
					}
					return c.grayError(x[0], x[1])
				}}
			return vi.Construction(m, pointwise(func(x []*big.Rat) Want { return values(indicator(c.step(x[0]), x[1])) })), nil
		},
	}
}

// indicator is v when b holds, else 0.
func indicator(b bool, v *big.Rat) *big.Rat {
	if b {
		return new(big.Rat).Set(v)
	}
	return new(big.Rat)
}

func init() {
	for _, c := range comparators {
		Register(c.fixedRecipe())
		Register(c.inputDepRecipe())
	}
}
