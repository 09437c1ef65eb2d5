package recipes

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// boolean is ff_φ of §Boolean Functions: one FFN with a hidden unit per
// truth assignment computes any φ: {0,1}^m → {0,1} given by its truth
// table. Domain: {0,1}^m (true = 1, false = 0).
var boolean = &Recipe{
	Name: "boolean", Booleans: []string{"phi"}, Title: "any Boolean function φ of m bits from its truth table, in one FFN",
	Section: "Boolean Functions", Label: "sec:ffnn_boolean", Domain: "x ∈ {0,1}^m", Exact: true,
	Width: "m + 1 (hidden 2^m)", MinN: 1, DefaultMaxN: 2,
	Params: []Param{{Name: "table", Default: "01101001",
		Doc: "φ(ξ_0) … φ(ξ_{2^m−1}) as 2^m digits 0/1, where ξ_k is k in binary with x_1 the most significant bit (m = 1 … 10); the default is x_1 ⊕ x_2 ⊕ x_3"}},
	Build: func(cfg Config) (*Construction, error) {
		table, bits, err := parseTruthTable(cfg.Params["table"])
		if err != nil {
			return nil, err
		}
		xs := componentNames("x", bits)
		f, err := blocks.Boolean(xs, "phi", table)
		if err != nil {
			return nil, err
		}
		m, err := ffModel("boolean", xs, []string{"phi"}, f)
		if err != nil {
			return nil, err
		}
		return booleanInputs(xs).Construction(m, pointwise(func(x []*big.Rat) Want {
			k := 0
			for _, b := range x {
				k = 2*k + int(b.Num().Int64())
			}
			return values(indicator(table[k], r(1, 1)))
		})), nil
	},
}

// parseTruthTable reads a table of 2^m digits 0/1.
func parseTruthTable(s string) ([]bool, int, error) {
	s = strings.TrimSpace(s)
	m := 0
	for 1<<m < len(s) {
		m++
	}
	if len(s) < 2 || 1<<m != len(s) || m > 10 {
		return nil, 0, fmt.Errorf("parameter table: %d digits; a function of m bits has 2^m (m = 1 … 10)", len(s))
	}
	table := make([]bool, len(s))
	for k, c := range s {
		switch c {
		case '0':
		case '1':
			table[k] = true
		default:
			return nil, 0, fmt.Errorf("parameter table: %q is not a digit 0 or 1", c)
		}
	}
	return table, m, nil
}

// booleanInputs enumerates {0,1}^m at each position.
func booleanInputs(names []string) vectorInput {
	m := len(names)
	var all [][]*big.Rat
	for k := 0; k < 1<<m; k++ {
		x := make([]*big.Rat, m)
		for i := range x {
			x[i] = big.NewRat(int64(k>>(m-1-i)&1), 1)
		}
		all = append(all, x)
	}
	return vectorInput{Names: names, Finite: all, Valid: func(x []*big.Rat) error {
		for i, b := range x {
			if b.Sign() != 0 && b.Cmp(r(1, 1)) != 0 {
				return fmt.Errorf("%s = %s is not a Boolean 0 or 1", names[i], b.RatString())
			}
		}
		return nil
	}}
}

var (
	// and is ∧ of §Boolean Functions, "equivalent to min". Domain: {0,1}².
	and = booleanConnective("and", "x ∧ y = min(x, y) on {0,1}²", 2,
		func(xs []string) *stream.FF { return blocks.And(xs[0], xs[1], "out") }, func(x []bool) bool { return x[0] && x[1] })
	// or is ∨ of §Boolean Functions, "equivalent to max". Domain: {0,1}².
	or = booleanConnective("or", "x ∨ y = max(x, y) on {0,1}²", 2,
		func(xs []string) *stream.FF { return blocks.Or(xs[0], xs[1], "out") }, func(x []bool) bool { return x[0] || x[1] })
	// not is ¬ of §Boolean Functions, "just 1 − x". Domain: {0,1}.
	not = booleanConnective("not", "¬x = 1 − x on {0,1}", 1,
		func(xs []string) *stream.FF { return blocks.Not(xs[0], "out") }, func(x []bool) bool { return !x[0] })
)

// booleanConnective is a recipe for the connective computed by block on
// {0,1}^bits, with reference ref.
func booleanConnective(name, title string, bits int, block func(xs []string) *stream.FF, ref func(x []bool) bool) *Recipe {
	return &Recipe{
		Name: name, Title: title, Section: "Boolean Functions", Label: "sec:ffnn_boolean", Booleans: []string{"out"},
		Domain: fmt.Sprintf("x ∈ {0,1}^%d", bits), Exact: true, Width: fmt.Sprintf("%d", bits+1), MinN: 1, DefaultMaxN: 3,
		Build: func(cfg Config) (*Construction, error) {
			xs := componentNames("x", bits)
			m, err := ffModel(name, xs, []string{"out"}, block(xs))
			if err != nil {
				return nil, err
			}
			return booleanInputs(xs).Construction(m, pointwise(func(x []*big.Rat) Want {
				b := make([]bool, len(x))
				for i := range x {
					b[i] = x[i].Sign() != 0
				}
				return values(indicator(ref(b), r(1, 1)))
			})), nil
		},
	}
}

// ifRecipe is the conditional of §Conditionals, "easily generalized for any
// bounded interval": if(p, x, y) = x when p = 1 and y when p = 0, for
// x, y ∈ [a, b]. With the default [0, 1] the weights are the paper's
// printed ones (W1 = [[1, 1, 0], [−1, 0, 1]], b1 = [−1; 0], W2 = [1, 1]).
// Domain: p ∈ {0,1}, x, y ∈ [a, b].
var ifRecipe = &Recipe{
	Name: "if", Title: "if(p, x, y): x when p = 1, y when p = 0",
	Section: "Conditionals", Label: "sec:ffnn_conditional", Domain: "p ∈ {0,1}, x, y ∈ [a, b]", Exact: true,
	Width: "4 (p, x, y and the output)", MinN: 1, DefaultMaxN: 4,
	Params: []Param{
		{Name: "a", Default: "0", Doc: "the lower end a of the interval holding x and y"},
		{Name: "b", Default: "1", Doc: "the upper end b > a"},
	},
	Build: func(cfg Config) (*Construction, error) {
		a, err := cfg.Rat("a")
		if err != nil {
			return nil, err
		}
		b, err := cfg.Rat("b")
		if err != nil {
			return nil, err
		}
		f, err := blocks.IfInterval("p", "x", "y", "out", a, b)
		if err != nil {
			return nil, err
		}
		m, err := ffModel("if", []string{"p", "x", "y"}, []string{"out"}, f)
		if err != nil {
			return nil, err
		}
		inAB := func(rng *rand.Rand) *big.Rat {
			switch rng.IntN(4) {
			case 0:
				return new(big.Rat).Set(a)
			case 1:
				return new(big.Rat).Set(b)
			}
			t := randRat(rng, 0, 1, 64) // a + t(b − a)
			t.Mul(t, new(big.Rat).Sub(b, a))
			return t.Add(t, a)
		}
		vi := vectorInput{Names: []string{"p", "x", "y"},
			Ranges: []ComponentRange{{Values: []*big.Rat{r(0, 1), r(1, 1)}}, {Lo: a, Hi: b}, {Lo: a, Hi: b}},
			Sample: func(rng *rand.Rand) []*big.Rat {
				return []*big.Rat{big.NewRat(int64(rng.IntN(2)), 1), inAB(rng), inAB(rng)}
			},
			Valid: func(x []*big.Rat) error {
				if x[0].Sign() != 0 && x[0].Cmp(r(1, 1)) != 0 {
					return fmt.Errorf("p = %s is not 0 or 1", x[0].RatString())
				}
				for k, name := range []string{"x", "y"} {
					if v := x[k+1]; v.Cmp(a) < 0 || v.Cmp(b) > 0 {
						return fmt.Errorf("%s = %s is outside [a, b] = [%s, %s]", name, v.RatString(), a.RatString(), b.RatString())
					}
				}
				return nil
			}}
		return vi.Construction(m, pointwise(func(x []*big.Rat) Want {
			if x[0].Sign() != 0 {
				return values(x[1])
			}
			return values(x[2])
		})), nil
	},
}

func init() {
	for _, rc := range []*Recipe{boolean, and, or, not, ifRecipe} {
		Register(rc)
	}
}
