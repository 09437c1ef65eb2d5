package recipes_test

import (
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/transformer-cookbook/verify/check"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
	"github.com/transformer-cookbook/verify/recipes/blocks"
	"github.com/transformer-cookbook/verify/recipes/stream"
)

// genRat draws rationals num/den with |num/den| ≤ lim and den ≤ maxDen;
// small denominators make ties and kinks (x = y, x = 0) frequent.
func genRat(lim, maxDen int64) gopter.Gen {
	return gopter.CombineGens(gen.Int64Range(-lim*maxDen, lim*maxDen), gen.Int64Range(1, maxDen)).
		Map(func(v []interface{}) *big.Rat { return big.NewRat(v[0].(int64), v[1].(int64)) })
}

// evalFF runs a construction in exact arithmetic on one position holding
// x and returns its output values.
func evalFF(t *testing.T, con *recipes.Construction, x ...*big.Rat) []*big.Rat {
	t.Helper()
	text := make([]string, len(x))
	for k, v := range x {
		text[k] = v.RatString()
	}
	c, err := con.Parse(strings.Join(text, ", "))
	if err != nil {
		t.Fatal(err)
	}
	out := runCase(t, con, "exact", c)[0]
	vals := make([]*big.Rat, len(out.Values))
	for k, v := range out.Values {
		r, ok := v.Rat()
		if !ok {
			t.Fatalf("%s(%v): output %d = %s is not a number", con.Model.Name, text, k, v.Text)
		}
		vals[k] = r
	}
	return vals
}

func propParams(seed int64) *gopter.TestParameters {
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = 200
	return p
}

// TestFeedForwardProperties: on random rationals, each position-wise
// recipe's model, in exact arithmetic, equals the function the paper
// states, written here again by hand (not taken from the recipe).
func TestFeedForwardProperties(t *testing.T) {
	neg := func(x *big.Rat) *big.Rat { return new(big.Rat).Neg(x) }
	tests := []struct {
		recipe *recipes.Recipe
		params map[string]string
		arity  int
		want   func(x []*big.Rat) []*big.Rat
	}{
		{recipes.Min, nil, 2, func(x []*big.Rat) []*big.Rat {
			if x[0].Cmp(x[1]) < 0 {
				return x[:1]
			}
			return x[1:]
		}},
		{recipes.Max, nil, 2, func(x []*big.Rat) []*big.Rat {
			if x[0].Cmp(x[1]) > 0 {
				return x[:1]
			}
			return x[1:]
		}},
		{recipes.Add, nil, 2, func(x []*big.Rat) []*big.Rat { return []*big.Rat{new(big.Rat).Add(x[0], x[1])} }},
		{recipes.Sub, nil, 2, func(x []*big.Rat) []*big.Rat { return []*big.Rat{new(big.Rat).Sub(x[0], x[1])} }},
		{recipes.Scale, map[string]string{"c": "7/3"}, 1, func(x []*big.Rat) []*big.Rat { return []*big.Rat{new(big.Rat).Mul(x[0], big.NewRat(7, 3))} }},
		{recipes.IdentityFFN, map[string]string{"d": "3"}, 3, func(x []*big.Rat) []*big.Rat { return x }},
		{recipes.ZeroFFN, map[string]string{"d": "2"}, 2, func(x []*big.Rat) []*big.Rat { return x }},
		// The default points (−2, 1), (0, −1), (1, 0), (3, 4): slopes −1, 1, 2,
		// so f(x) = −1 − x for x ≤ 0, −1 + x on [0, 1], 2(x − 1) for x ≥ 1.
		{recipes.CPWL, nil, 1, func(x []*big.Rat) []*big.Rat {
			switch {
			case x[0].Sign() <= 0:
				return []*big.Rat{new(big.Rat).Sub(big.NewRat(-1, 1), x[0])}
			case x[0].Cmp(big.NewRat(1, 1)) <= 0:
				return []*big.Rat{new(big.Rat).Sub(x[0], big.NewRat(1, 1))}
			}
			y := new(big.Rat).Sub(x[0], big.NewRat(1, 1))
			return []*big.Rat{y.Mul(y, big.NewRat(2, 1))}
		}},
		{recipes.CancelResidual, nil, 2, func(x []*big.Rat) []*big.Rat {
			if x[0].Cmp(x[1]) > 0 {
				return []*big.Rat{x[1], x[0]}
			}
			return x
		}},
		// clip_1/2 clamps to [−1/2, 1/2].
		{recipes.Clip, nil, 1, func(x []*big.Rat) []*big.Rat {
			h := big.NewRat(1, 2)
			switch {
			case x[0].Cmp(h) > 0:
				return []*big.Rat{h}
			case x[0].Cmp(neg(h)) < 0:
				return []*big.Rat{neg(h)}
			}
			return x
		}},
	}
	for _, tc := range tests {
		con := construct(t, tc.recipe, model.Softmax, 1, tc.params)
		props := gopter.NewProperties(propParams(17))
		props.Property(tc.recipe.Name, prop.ForAll(func(x []*big.Rat) bool {
			got := evalFF(t, con, x...)
			want := tc.want(x)
			for k := range want {
				if got[k].Cmp(want[k]) != 0 {
					t.Logf("%s%v: output %d = %s, want %s", tc.recipe.Name, x, k, got[k].RatString(), want[k].RatString())
					return false
				}
			}
			return true
		}, gen.SliceOfN(tc.arity, genRat(8, 6))))
		props.TestingRun(t)
	}
}

// TestCPWLWeights: the FFN's weights are the paper's formulas, computed by
// hand for the default points (−2, 1), (0, −1), (1, 0), (3, 4): n = 3
// pieces, slopes m = (−1, 1, 2), so W1 = [−1, 1, 1, 1]ᵀ,
// b1 = (0, 0, −x_2, −x_3) = (0, 0, 0, −1), W2 = (−m_1, m_1, m_2 − m_1,
// m_3 − m_2) = (1, −1, 2, 1) and b2 = y_1 − m_1 x_1 = 1 − 2 = −1.
func TestCPWLWeights(t *testing.T) {
	f, err := blocks.CPWL("x", "f", rats("-2", "0", "1", "3"), rats("1", "-1", "0", "4"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, got []numeric.Expr, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s has %d entries, want %d", what, len(got), len(want))
		}
		for k := range want {
			v, _, _ := got[k].Rat()
			if v.Cmp(rat(want[k])) != 0 {
				t.Errorf("%s[%d] = %s, want %s", what, k, got[k], want[k])
			}
		}
	}
	check("W1", f.W1.Data, "-1", "1", "1", "1")
	check("b1", f.B1, "0", "0", "0", "-1")
	check("W2", f.W2.Data, "1", "-1", "2", "1")
	check("b2", f.B2, "-1")

	for _, bad := range []string{"0:0,1:1", "0:0,1:1,1:2", "0:0,2:1,1:2", "0:0,x:1,2:2", "0:0;1:1;2:2"} {
		if _, err := recipes.CPWL.Construct(model.Softmax, 1, map[string]string{"points": bad}); err == nil {
			t.Errorf("points %q accepted", bad)
		}
	}
}

// TestCancelResidualAnyBlock: f′ replaces x by f(x) in place for another
// f too (x ↦ 3x − 1 via scale and a bias), and refuses blocks that do not
// map their components to themselves.
func TestCancelResidualAnyBlock(t *testing.T) {
	f := blocks.Scale([]string{"x"}, []string{"x"}, big.NewRat(3, 1))
	f.B2 = model.IntVector(-1)
	g, err := blocks.CancelResidual(f)
	if err != nil {
		t.Fatal(err)
	}
	m, err := stream.New("p", "x").Then(g).Readout("x").Model()
	if err != nil {
		t.Fatal(err)
	}
	vi := recipes.RealVectors([]string{"x"})
	con := vi.Construction(m, nil)
	for _, x := range []string{"-2", "0", "5/3"} {
		got := evalFF(t, con, rat(x))[0]
		want := new(big.Rat).Sub(new(big.Rat).Mul(rat(x), big.NewRat(3, 1)), big.NewRat(1, 1))
		if got.Cmp(want) != 0 {
			t.Errorf("f′(%s) + %s = %s, want 3x − 1 = %s", x, x, got.RatString(), want.RatString())
		}
	}
	if _, err := blocks.CancelResidual(blocks.Min("x", "y", "z")); err == nil {
		t.Error("a block from (x, y) to z was accepted")
	}
}

// TestComparatorsByHand: the comparisons at and around their thresholds,
// including the gray regions, from the paper's case definitions.
func TestComparatorsByHand(t *testing.T) {
	tests := []struct {
		recipe string
		x      []string // x, or (x, ε) for the input-dependent ones
		want   string
		gray   bool
	}{
		// ε = 1/4 (the default).
		{"gtzero", []string{"-1"}, "0", false},
		{"gtzero", []string{"0"}, "0", false},
		{"gtzero", []string{"1/8"}, "1/2", true}, // x/ε
		{"gtzero", []string{"1/4"}, "1", false},
		{"gtzero", []string{"3"}, "1", false},
		{"gezero", []string{"-1/4"}, "0", false},
		{"gezero", []string{"-1/16"}, "3/4", true}, // 1 + x/ε
		{"gezero", []string{"0"}, "1", false},
		{"gezero", []string{"5"}, "1", false},
		{"eqzero", []string{"0"}, "1", false},
		{"eqzero", []string{"1/8"}, "1/2", true}, // 1 − |x/ε|
		{"eqzero", []string{"-3/16"}, "1/4", true},
		{"eqzero", []string{"1/4"}, "0", false},
		{"eqzero", []string{"-1/4"}, "0", false},
		// Input-dependent: ε for true, 0 for false; gray region x (or x + ε, ε − |x|).
		{"gtzero-eps", []string{"1", "1/2"}, "1/2", false},
		{"gtzero-eps", []string{"1/2", "1/2"}, "1/2", false},
		{"gtzero-eps", []string{"1/4", "1/2"}, "1/4", true},
		{"gtzero-eps", []string{"0", "1/2"}, "0", false},
		{"gezero-eps", []string{"-1/2", "1/2"}, "0", false},
		{"gezero-eps", []string{"-1/8", "1/2"}, "3/8", true},
		{"gezero-eps", []string{"0", "1/2"}, "1/2", false},
		{"eqzero-eps", []string{"0", "3"}, "3", false},
		{"eqzero-eps", []string{"1", "3"}, "2", true},
		{"eqzero-eps", []string{"-3", "3"}, "0", false},
	}
	for _, tc := range tests {
		r, err := recipes.Get(tc.recipe)
		if err != nil {
			t.Fatal(err)
		}
		con := construct(t, r, model.Softmax, 1, nil)
		got := evalFF(t, con, rats(tc.x...)...)[0]
		if got.Cmp(rat(tc.want)) != 0 {
			t.Errorf("%s%v = %s, want %s", tc.recipe, tc.x, got.RatString(), tc.want)
		}
		c, _ := con.Parse(strings.Join(tc.x, ","))
		if err := con.Valid(c); (err != nil) != tc.gray {
			t.Errorf("%s%v: domain check %v, want gray = %v", tc.recipe, tc.x, err, tc.gray)
		}
	}
}

// TestBooleanAllTruthTables: ff_φ computes φ on every input, for every
// truth table of m ≤ 3 bits (4 + 16 + 256 functions), in exact
// arithmetic; inputs are read with x_1 the most significant bit, so that
// table "0001" is x_1 ∧ x_2 and "0111" is x_1 ∨ x_2.
func TestBooleanAllTruthTables(t *testing.T) {
	for m := 1; m <= 3; m++ {
		for f := 0; f < 1<<(1<<m); f++ {
			table := make([]byte, 1<<m)
			for k := range table {
				table[k] = '0' + byte(f>>k&1)
			}
			con := construct(t, recipes.Boolean, model.Softmax, 1, map[string]string{"table": string(table)})
			// All 2^m assignments, one per position of a single input.
			var texts []string
			for k := 0; k < 1<<m; k++ {
				bits := make([]string, m)
				for i := range bits {
					bits[i] = string('0' + byte(k>>(m-1-i)&1))
				}
				texts = append(texts, strings.Join(bits, ","))
			}
			c, err := con.Parse(strings.Join(texts, ";"))
			if err != nil {
				t.Fatal(err)
			}
			for k, out := range runCase(t, con, "exact", c) {
				if !out.Values[0].Equals(big.NewRat(int64(table[k]-'0'), 1)) {
					t.Fatalf("table %s at ξ_%d (%s): %s, want %c", table, k, texts[k], out.Values[0].Text, table[k])
				}
			}
		}
	}
	and := construct(t, recipes.Boolean, model.Softmax, 1, map[string]string{"table": "0001"})
	if got := evalFF(t, and, rat("1"), rat("1"))[0]; got.Cmp(rat("1")) != 0 {
		t.Errorf(`table "0001" at (1, 1) = %s, want 1 (x_1 ∧ x_2)`, got.RatString())
	}
	if got := evalFF(t, and, rat("1"), rat("0"))[0]; got.Sign() != 0 {
		t.Errorf(`table "0001" at (1, 0) = %s, want 0`, got.RatString())
	}
	for _, bad := range []string{"", "0", "011", "01x1", strings.Repeat("0", 2048)} {
		if _, err := recipes.Boolean.Construct(model.Softmax, 1, map[string]string{"table": bad}); err == nil {
			t.Errorf("table %q accepted", bad)
		}
	}
}

// TestConnectives: ∧, ∨, ¬ on every Boolean input.
func TestConnectives(t *testing.T) {
	tests := []struct {
		r    *recipes.Recipe
		x    []string
		want string
	}{
		{recipes.And, []string{"0", "0"}, "0"}, {recipes.And, []string{"0", "1"}, "0"}, {recipes.And, []string{"1", "0"}, "0"}, {recipes.And, []string{"1", "1"}, "1"},
		{recipes.Or, []string{"0", "0"}, "0"}, {recipes.Or, []string{"0", "1"}, "1"}, {recipes.Or, []string{"1", "0"}, "1"}, {recipes.Or, []string{"1", "1"}, "1"},
		{recipes.Not, []string{"0"}, "1"}, {recipes.Not, []string{"1"}, "0"},
	}
	for _, tc := range tests {
		con := construct(t, tc.r, model.Softmax, 1, nil)
		if got := evalFF(t, con, rats(tc.x...)...)[0]; got.Cmp(rat(tc.want)) != 0 {
			t.Errorf("%s%v = %s, want %s", tc.r.Name, tc.x, got.RatString(), tc.want)
		}
	}
}

// TestIfDomain: if(p, x, y) on the edges of [0, 1] and of a wider [a, b],
// and outside the domain, where the paper's assumption x, y ∈ [0, 1]
// matters: if(0, 2, 0) = ReLU(0 + 2 − 1) + ReLU(−0 + 0) = 1, not y = 0.
func TestIfDomain(t *testing.T) {
	tests := []struct {
		params  map[string]string
		p, x, y string
		want    string
	}{
		{nil, "1", "0", "1", "0"}, {nil, "1", "1", "0", "1"}, {nil, "0", "1", "0", "0"}, {nil, "0", "0", "1", "1"},
		{nil, "1", "1/3", "2/3", "1/3"}, {nil, "0", "1/3", "2/3", "2/3"},
		{map[string]string{"a": "-5", "b": "3/2"}, "1", "-5", "3/2", "-5"},
		{map[string]string{"a": "-5", "b": "3/2"}, "0", "-5", "3/2", "3/2"},
		{map[string]string{"a": "-5", "b": "3/2"}, "1", "3/2", "-5", "3/2"},
		{map[string]string{"a": "-5", "b": "3/2"}, "0", "1", "-4", "-4"},
	}
	for _, tc := range tests {
		con := construct(t, recipes.If, model.Softmax, 1, tc.params)
		if got := evalFF(t, con, rat(tc.p), rat(tc.x), rat(tc.y))[0]; got.Cmp(rat(tc.want)) != 0 {
			t.Errorf("if%v(%s, %s, %s) = %s, want %s", tc.params, tc.p, tc.x, tc.y, got.RatString(), tc.want)
		}
	}
	con := construct(t, recipes.If, model.Softmax, 1, nil)
	if got := evalFF(t, con, rat("0"), rat("2"), rat("0"))[0]; got.Cmp(rat("1")) != 0 {
		t.Errorf("if(0, 2, 0) = %s, want 1 by hand (outside the domain)", got.RatString())
	}
	c, _ := con.Parse("0, 2, 0")
	if err := con.Valid(c); err == nil {
		t.Error("x = 2 was accepted in the domain [0, 1]")
	}
	if _, err := recipes.If.Construct(model.Softmax, 1, map[string]string{"a": "1", "b": "1"}); err == nil {
		t.Error("the empty interval [1, 1] was accepted")
	}
}

// TestFeedForwardNegativeControl: a perturbed weight is caught with a
// concrete failing input, so the checks of these recipes can fail.
func TestFeedForwardNegativeControl(t *testing.T) {
	con := construct(t, recipes.Min, model.Softmax, 4, nil)
	out := slices.Index(con.Model.Components, "out")
	con.Model.Layers[0].FeedForward.W2.Set(out, 2, numeric.Frac(-9, 10)) // −1 in the paper
	r, err := eval.New(numeric.MustParsePrecision("exact"), con.Model)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := con.Parse("3, 1")
	res, err := r.RunStream(c.Stream, false)
	if err != nil {
		t.Fatal(err)
	}
	// ReLU(3) − ReLU(−3) − (9/10)ReLU(3 − 1) = 3 − 9/5 = 6/5, not min = 1.
	if ok, _ := check.Compare(con.Expected(c)[0], res.Outputs[0], nil, nil); ok {
		t.Error("the perturbed min passed")
	}
	if !res.Outputs[0].Values[0].Equals(big.NewRat(6, 5)) {
		t.Errorf("perturbed min(3, 1) = %s, want 6/5 by hand", res.Outputs[0].Values[0].Text)
	}
}

// TestCancelResidualUserFFN: cancel-residual replaces x by f(x) in place
// for a user's FFN. f below, by hand: h = ReLU(x − y, 2y − 1, 1/2 − x),
// f(x, y) = (h1 − h3 + 1, 2h1 + h2 − 1/3), evaluated at points in
// different linear regions.
func TestCancelResidualUserFFN(t *testing.T) {
	params := map[string]string{"W1": "1 -1; 0 2; -1 0", "b1": "0, -1, 1/2", "W2": "1 0 -1; 2 1 0", "b2": "1 -1/3"}
	con := construct(t, recipes.CancelResidual, model.Softmax, 4, params)
	c := parseCase(t, con, "0, 0; 3, 1; -1, 2; 0.25, -0.5")
	want := [][]string{{"1/2", "-1/3"}, {"3", "14/3"}, {"-1/2", "8/3"}, {"3/2", "7/6"}}
	for i, o := range runCase(t, con, "exact", c) {
		for k, w := range want[i] {
			if !o.Values[k].Equals(rat(w)) {
				t.Errorf("position %d, output %d: %s, want %s", i+1, k+1, o.Values[k].Text, w)
			}
		}
	}
	// The reference is the same f, evaluated apart from the model.
	for i, w := range con.Expected(c) {
		for k := range want[i] {
			if w.Values[k].Cmp(rat(want[i][k])) != 0 {
				t.Errorf("reference at position %d, output %d: %s, want %s", i+1, k+1, w.Values[k].RatString(), want[i][k])
			}
		}
	}
}

// TestCancelResidualShapes: a user's matrices that do not make an FFN
// from ℝ^d to itself are refused with the shapes.
func TestCancelResidualShapes(t *testing.T) {
	for _, tc := range []struct {
		params map[string]string
		want   string
	}{
		{map[string]string{"W1": "1 1", "W2": "2 1; -1 0"}, "W2 is 2×2, but W1 is 1×2: W2 must be 2×1"},
		{map[string]string{"W1": "1 1", "W2": "2; -1", "b1": "1 2"}, "b1 has 2 entries, want 1"},
		{map[string]string{"W1": "1 0; 0 1", "W2": "1 0; 0 1", "b2": "1"}, "b2 has 1 entry, want 2"},
		{map[string]string{"W1": "1 0; 0", "W2": "1 0; 0 1"}, "parameter W1: row 2 has 1 entry"},
		{map[string]string{"W1": "", "W2": "1"}, "parameter W1: empty matrix"},
		{map[string]string{"W2": "1 x"}, "parameter W2: row 1: entry 2"},
	} {
		_, err := recipes.CancelResidual.Construct(model.Softmax, 2, tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.params, err, tc.want)
		}
	}
}
