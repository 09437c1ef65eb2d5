package recipes_test

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/transformer-cookbook/verify/model"
	"github.com/transformer-cookbook/verify/model/eval"
	"github.com/transformer-cookbook/verify/numeric"
	"github.com/transformer-cookbook/verify/recipes"
)

// basicTokens tokenizes a string of the model's alphabet.
func basicTokens(t *testing.T, m *model.Model, s string) []int {
	t.Helper()
	in, err := m.Tokenize(s)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestBOSHand: on "^ab" (the paper's n = |ab| = 2, model length 3),
// uniform attention to the BOS indicator (1, 0, 0) gives 1/(n+1) = 1/3
// at every position, and future-masked 1/(i+1) with i = 0, 1, 2 (BOS is
// i = 0): 1, 1/2, 1/3.
func TestBOSHand(t *testing.T) {
	for _, w := range recipes.BOS.Weightings {
		con := construct(t, recipes.BOS, w, 3, nil)
		got := runCase(t, con, "exact", recipes.Case{Symbols: basicTokens(t, con.Model, "^ab")})
		basicValues(t, "bos "+recipes.WeightingAcronym(w)+" on ^ab", got,
			[][]*big.Rat{rats("1/3", "1"), rats("1/3", "1/2"), rats("1/3", "1/3")})
	}
}

// TestBOSSweep: exact under SMAT and AHAT, every ^w enumerated up to model
// length 7 (2^6 strings w), random ones up to 24, and 200 under AHAT; the generated
// inputs are in the domain, and inputs with BOS elsewhere, or none, are
// not.
func TestBOSSweep(t *testing.T) {
	for k, w := range recipes.BOS.Weightings {
		basicSweep(t, recipes.BOS, w, nil, 7, k == 1)
	}
	con := construct(t, recipes.BOS, model.Softmax, 4, nil)
	for _, bad := range []string{"ab", "a^b", "^^", "^a^"} {
		if err := con.Valid(recipes.Case{Symbols: basicTokens(t, con.Model, bad)}); err == nil {
			t.Errorf("bos accepted %q: BOS must be at the first position only", bad)
		}
	}
	if err := con.Valid(recipes.Case{Symbols: basicTokens(t, con.Model, "^")}); err != nil {
		t.Errorf("bos rejected ^ (n = 0): %v", err)
	}
}

// TestCountHand: on "aab", C = 2 a's: C/n = 2/3 everywhere; the prefix
// counts C_i = 1, 2, 2 give C_i/i = 1, 1, 2/3.
func TestCountHand(t *testing.T) {
	for _, w := range recipes.Count.Weightings {
		con := construct(t, recipes.Count, w, 3, nil)
		got := runCase(t, con, "exact", recipes.Case{Symbols: basicTokens(t, con.Model, "aab")})
		basicValues(t, "count "+recipes.WeightingAcronym(w)+" on aab", got,
			[][]*big.Rat{rats("2/3", "1"), rats("2/3", "1"), rats("2/3", "2/3")})
	}
}

// TestCountSweep: exact under SMAT and AHAT, every string enumerated up to
// 6, random ones up to 24, and 200 under AHAT.
func TestCountSweep(t *testing.T) {
	for k, w := range recipes.Count.Weightings {
		basicSweep(t, recipes.Count, w, nil, 6, k == 1)
	}
}

// TestRepresentationsPerturbed: negative controls. A value weight of 2
// doubles 1/(n+1) and C/n; a word embedding writing 1/2 for "b" counts
// each b as half an a.
func TestRepresentationsPerturbed(t *testing.T) {
	for _, tc := range []struct {
		r        *recipes.Recipe
		out, in  string
		layer    int
		embedSym int
	}{{recipes.BOS, "1/(n+1)", "bos", 0, -1}, {recipes.Count, "C/n", "[a]", 0, -1}, {recipes.Count, "", "[a]", 0, 1}} {
		r := basicPerturbed(tc.r, func(m *model.Model) {
			in := basicComp(t, m, tc.in)
			if tc.embedSym >= 0 {
				m.WordEmbedding[tc.embedSym][in] = numeric.Frac(1, 2)
				return
			}
			m.Layers[tc.layer].Attention.Heads[0].V.Set(basicComp(t, m, tc.out), in, numeric.LitInt(2))
		})
		basicMustFail(t, r, model.AverageHardmax, 4, nil)
	}
}

// TestCategorical: one-hot embeddings read back by argmax are the identity
// on strings, with width k and logits e_{x_i}; every string enumerated
// (k = 3 to length 3; k = 1; k = 26 to length 1), random ones to 16. By
// hand: "cab" with k = 3 gives c, a, b.
func TestCategorical(t *testing.T) {
	for _, tc := range []struct {
		k       string
		lengths []int
		exh     int
	}{{"1", []int{1, 2, 3, 16}, 16}, {"3", []int{1, 2, 3, 9, 16}, 3}, {"26", []int{1, 2, 16}, 1}} {
		basicMustPass(t, recipes.Categorical, model.Softmax, tc.lengths, map[string]string{"k": tc.k}, 8, tc.exh)
		con := construct(t, recipes.Categorical, model.Softmax, 4, map[string]string{"k": tc.k})
		if fmt.Sprint(con.Model.D) != tc.k {
			t.Errorf("k = %s: width %d, want k", tc.k, con.Model.D)
		}
	}
	con := construct(t, recipes.Categorical, model.Softmax, 3, map[string]string{"k": "3"})
	got := runCase(t, con, "exact", recipes.Case{Symbols: basicTokens(t, con.Model, "cab")})
	for i, want := range []string{"c", "a", "b"} {
		if got[i].Symbol != want {
			t.Errorf("categorical on cab: position %d outputs %q, want %q", i+1, got[i].Symbol, want)
		}
	}
	// Negative control: b embedded as 2e_a + e_b reads back as a.
	r := basicPerturbed(recipes.Categorical, func(m *model.Model) {
		m.WordEmbedding[1][basicComp(t, m, "e_a")] = numeric.LitInt(2)
	})
	basicMustFail(t, r, model.Softmax, 3, map[string]string{"k": "3"})
	if _, err := recipes.Categorical.Construct(model.Softmax, 4, map[string]string{"k": "27"}); err == nil {
		t.Error("k = 27 accepted")
	}
}

// boolTable is tab:booleans written out again for the tests: the vector
// of false and of true in each representation that bool-convert writes
// (δ = 1/4 for pair-delta), and, for the inputs, ge1's least true value 1.
// The pair follows the table (false = [−1; +1], true = [+1; −1]); the
// text of §Boolean Representations prints the opposite.
var boolTable = map[string][2][]string{
	"01":         {{"0"}, {"1"}},
	"pm1":        {{"-1"}, {"1"}},
	"ge1":        {{"0"}, {"1"}},
	"pair":       {{"-1", "1"}, {"1", "-1"}},
	"pair-delta": {{"-1/4", "1/4"}, {"1/4", "-1/4"}},
}

// boolRun converts the positions xs (each a representation written as
// "x" or "x1, x2") and returns the outputs.
func boolRun(t *testing.T, con *recipes.Construction, xs ...[]string) []eval.PositionOutput {
	t.Helper()
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strings.Join(x, ", ")
	}
	return runCase(t, con, "exact", basicVectorCase(t, con, parts...))
}

// TestBoolConvertAllPairs: every (from, to) pair, on both truth values
// (the input false, true, true, false, so each position's output must
// follow its own input), against the table above; and the sweep, which
// enumerates every input up to length 4 (for ge1: samples of [1, ∞)).
func TestBoolConvertAllPairs(t *testing.T) {
	for _, from := range []string{"01", "pm1", "ge1", "pair", "pair-delta"} {
		for _, to := range []string{"01", "pm1", "pair", "pair-delta"} {
			params := map[string]string{"from": from, "to": to, "delta": "1/4"}
			con := construct(t, recipes.BoolConvert, model.Softmax, 4, params)
			f, tr := boolTable[from][0], boolTable[from][1]
			got := boolRun(t, con, f, tr, tr, f)
			wf, wt := rats(boolTable[to][0]...), rats(boolTable[to][1]...)
			basicValues(t, from+"→"+to, got, [][]*big.Rat{wf, wt, wt, wf})
			exhaustiveTo := 4 // 2^4 inputs; ge1's true values are sampled
			if from == "ge1" {
				exhaustiveTo = 0
			}
			basicMustPass(t, recipes.BoolConvert, model.Softmax, []int{1, 2, 3, 4}, params, 8, exhaustiveTo)
		}
	}
}

// TestBoolConvertGe1Property: from ge1, every x ≥ 1 (the gopter property,
// rationals 1 + a/b with 0 ≤ a ≤ 10^6, 1 ≤ b ≤ 64) converts to true and 0
// to false: GTZero_1(x) = ReLU(x) − ReLU(x − 1) = 1 for x ≥ 1. Here
// to = pm1 (true = +1, false = −1). And the points 1, 2^62 + 1/3 and
// 10^30 by hand.
func TestBoolConvertGe1Property(t *testing.T) {
	con := construct(t, recipes.BoolConvert, model.Softmax, 2, map[string]string{"from": "ge1", "to": "pm1"})
	check := func(x *big.Rat) bool {
		got := boolRun(t, con, []string{"0"}, []string{x.RatString()})
		return got[0].Values[0].Equals(rat("-1")) && got[1].Values[0].Equals(rat("1"))
	}
	for _, x := range []string{"1", "13835058055282163713/3", "1000000000000000000000000000000"} {
		if !check(rat(x)) {
			t.Errorf("ge1 → pm1 of %s is not true (+1)", x)
		}
	}
	params := gopter.DefaultTestParametersWithSeed(29)
	params.MinSuccessfulTests = 200
	props := gopter.NewProperties(params)
	props.Property("ge1 true on [1, ∞)", prop.ForAll(func(a, b int64) bool {
		x := new(big.Rat).Add(big.NewRat(1, 1), big.NewRat(a, b))
		return check(x)
	}, gen.Int64Range(0, 1000000), gen.Int64Range(1, 64)))
	props.TestingRun(t)
}

// TestBoolConvertImpossible: (−∞, 0]/(0, ∞) and (−∞, 0)/(0, ∞) have no
// minimum gap, so converting them would be discontinuous at 0: the
// builder refuses, saying why. Unknown names are refused too, and so is
// a δ ≤ 0.
func TestBoolConvertImpossible(t *testing.T) {
	for _, from := range []string{"nonpos-pos", "neg-pos"} {
		_, err := recipes.BoolConvert.Construct(model.Softmax, 4, map[string]string{"from": from})
		if err == nil || !strings.Contains(err.Error(), "minimum gap") || !strings.Contains(err.Error(), "continuous") {
			t.Errorf("from %s: error %v, want one naming the missing minimum gap and continuity", from, err)
		}
	}
	for _, params := range []map[string]string{{"from": "bits"}, {"to": "ge1"}, {"to": "neg-pos"}, {"delta": "0"}, {"delta": "-1/2"}} {
		if _, err := recipes.BoolConvert.Construct(model.Softmax, 4, params); err == nil {
			t.Errorf("%v accepted", params)
		}
	}
}

// TestBoolConvertValid: the domain is exactly the representation's
// values: 1/2 is neither 0 nor ≥ 1 (ge1), (1, 1) is not a pair, 0 is not
// ±1, and (1/4, −1/4) is not pair-delta's true when δ = 1/2.
func TestBoolConvertValid(t *testing.T) {
	for _, tc := range []struct {
		from, delta string
		bad         []string
	}{{"ge1", "1/4", []string{"1/2"}}, {"ge1", "1/4", []string{"-1"}}, {"pair", "1/4", []string{"1", "1"}},
		{"pm1", "1/4", []string{"0"}}, {"01", "1/4", []string{"2"}}, {"pair-delta", "1/2", []string{"1/4", "-1/4"}}} {
		con := construct(t, recipes.BoolConvert, model.Softmax, 1, map[string]string{"from": tc.from, "delta": tc.delta})
		if err := con.Valid(basicVectorCase(t, con, strings.Join(tc.bad, ", "))); err == nil {
			t.Errorf("%s accepted %v", tc.from, tc.bad)
		}
	}
}

// TestBoolConvertPerturbed: a bias of 1/8 added to the output is caught.
func TestBoolConvertPerturbed(t *testing.T) {
	r := basicPerturbed(recipes.BoolConvert, func(m *model.Model) {
		m.Layers[0].FeedForward.B2[basicComp(t, m, "y1")] = numeric.Frac(1, 8)
	})
	basicMustFail(t, r, model.Softmax, 2, map[string]string{"from": "pm1", "to": "pair"})
}
