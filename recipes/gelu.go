package recipes

import (
	"math/big"
	"math/rand/v2"

	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/recipes/blocks"
)

// mulGELU is mul of §Multiplication: a GELU FFN with W1 = [[1, 1],
// [1, 0], [0, 1]] and W2 = √(π/2)[1, −1, −1] computes
// √(π/2)(GELU(x + y) − GELU(x) − GELU(y)) = xy + ε(x, y), and the paper
// bounds |ε(x, y)| ≤ (|x| + |y|)³/4, "regardless of whether GELU is
// defined as" x Φ(x) (act = erf) or its tanh approximation (act = tanh).
// Approximate everywhere; the claim checked is the bound, per input.
// Domain: x, y ∈ ℝ (sampled in [−2, 2], where the bound is smallest
// relative to xy). The weights are irrational (√(π/2)) and so is GELU:
// the default precision is certified intervals, whose enclosure of the
// output must lie within the bound of xy.
//
// The paper derives the bound from |R(z)| ≤ |z|³/6 for the Taylor
// remainder of GELU; that step alone gives only √(π/2)(|x+y|³ + |x|³ +
// |y|³)/6 ≤ (√(π/2)/3)(|x|+|y|)³ ≈ 0.42(|x|+|y|)³, not 1/4. The printed
// bound is still true (the measured largest ratio |ε|/(|x|+|y|)³ is about
// 0.082, at x = y = −1: see gelu_test.go), because the erf GELU has no
// cubic Taylor term and |GELU‴| ≤ 0.78, not 1.
var mulGELU = &Recipe{
	Name: "mul-gelu", Title: "xy ≈ √(π/2)(GELU(x+y) − GELU(x) − GELU(y)), with |error| ≤ (|x|+|y|)³/4",
	Section: "Multiplication", Label: "sec:ffnn_multiplication", Domain: "x, y ∈ ℝ", Exact: false,
	Width: "3 (x, y and the product)", MinN: 1, DefaultMaxN: 4, Precision: "interval:128",
	Params: []Param{{Name: "act", Default: "erf", Doc: "erf (GELU(x) = x Φ(x)) or tanh (its tanh approximation, as torch.nn.GELU(approximate='tanh'))"}},
	Build: func(cfg Config) (*Construction, error) {
		act, err := cfg.Choice("act", "erf", "tanh")
		if err != nil {
			return nil, err
		}
		a := model.GELU
		if act == "tanh" {
			a = model.GELUTanh
		}
		m, err := ffModel("mul-gelu-"+act, []string{"x", "y"}, []string{"xy"}, blocks.MulGELU("x", "y", "xy", a))
		if err != nil {
			return nil, err
		}
		special := []*big.Rat{r(0, 1), r(1, 1), r(-1, 1), r(1, 1024), r(-1, 1024)}
		vi := vectorInput{Names: []string{"x", "y"}, Sample: func(rng *rand.Rand) []*big.Rat {
			return []*big.Rat{pickRat(rng, special, -2, 2, 64), pickRat(rng, special, -2, 2, 64)}
		}}
		con := vi.Construction(m, pointwise(func(x []*big.Rat) Want {
			return Want{Values: []*big.Rat{new(big.Rat).Mul(x[0], x[1])}, Tol: []Bound{{Max: gelUBound(x[0], x[1]), Source: "(|x| + |y|)³/4"}}}
		}))
		con.Bounds = []Bound{{Max: r(16, 1), Source: "(|x| + |y|)³/4 for each input (§Multiplication); 16 at the corners of [−2, 2]²"}}
		return con, nil
	},
}

// gelUBound is the paper's bound (|x| + |y|)³/4.
func gelUBound(x, y *big.Rat) *big.Rat {
	s := new(big.Rat).Add(new(big.Rat).Abs(x), new(big.Rat).Abs(y))
	b := new(big.Rat).Mul(s, s)
	b.Mul(b, s)
	return b.Quo(b, r(4, 1))
}

func init() { Register(mulGELU) }
